/* Data movement of compiled graphs (risec graph), written by hand: padding, concatenation,
 * the parts of a split, enlarged windows; and the operators no Rise kernel covers yet
 * (convolutions other than 3x3 and 1x1 with stride 1, pooling), as plain loops. */
#include <stdlib.h>
#include <string.h>
#include <math.h>

/* out (n x c x (h+2p) x (w+2p)) = in (n x c x h x w) with a border of p values `value`. */
static void rg_pad(int planes, int h, int w, int p, float value, float *out, const float *in) {
    int hp = h + 2 * p, wp = w + 2 * p;
    for (long long q = 0; q < planes; q++) {
        float *o = out + q * (long long)hp * wp;
        for (long long i = 0; i < (long long)hp * wp; i++) o[i] = value;
        for (int y = 0; y < h; y++)
            memcpy(o + (long long)(y + p) * wp + p, in + (q * h + y) * (long long)w, sizeof(float) * (size_t)w);
    }
}

/* out = a and b side by side along an axis: `outer` blocks of a_inner then b_inner floats. */
static void rg_concat(long long outer, long long a_inner, long long b_inner, float *out, const float *a, const float *b) {
    for (long long o = 0; o < outer; o++) {
        memcpy(out + o * (a_inner + b_inner), a + o * a_inner, sizeof(float) * (size_t)a_inner);
        memcpy(out + o * (a_inner + b_inner) + a_inner, b + o * b_inner, sizeof(float) * (size_t)b_inner);
    }
}

/* out = the part of `outer` blocks of `inner` floats that starts at `offset` and is `part` long. */
static void rg_part(long long outer, long long inner, long long offset, long long part, float *out, const float *in) {
    for (long long o = 0; o < outer; o++)
        memcpy(out + o * part, in + o * inner + offset, sizeof(float) * (size_t)part);
}

/* out (co x ci x k x k) = w (co x ci x kh x kw) centred in zeros. */
static void rg_enlarge(int co, int ci, int kh, int kw, int k, float *out, const float *w) {
    int oy = (k - kh) / 2, ox = (k - kw) / 2;
    memset(out, 0, sizeof(float) * (size_t)co * ci * k * k);
    for (long long q = 0; q < (long long)co * ci; q++)
        for (int y = 0; y < kh; y++)
            for (int x = 0; x < kw; x++)
                out[(q * k + y + oy) * k + x + ox] = w[(q * kh + y) * kw + x];
}

/* Any convolution of a padded input (n x c x hp x wp), plain loops. */
static void rg_conv_direct(int n, int c, int hp, int wp, int co, int kh, int kw, int s, int ho, int wo,
                           float *out, const float *x, const float *w) {
    for (int b = 0; b < n; b++)
        for (int o = 0; o < co; o++)
            for (int y = 0; y < ho; y++)
                for (int xo = 0; xo < wo; xo++) {
                    float acc = 0.0f;
                    for (int ch = 0; ch < c; ch++)
                        for (int dy = 0; dy < kh; dy++)
                            for (int dx = 0; dx < kw; dx++)
                                acc += x[(((long long)b * c + ch) * hp + y * s + dy) * wp + xo * s + dx]
                                     * w[(((long long)o * c + ch) * kh + dy) * kw + dx];
                    out[(((long long)b * co + o) * ho + y) * wo + xo] = acc;
                }
}

/* Pooling of a padded input (planes x hp x wp); max, or the average over the whole window. */
static void rg_pool(int is_max, int planes, int hp, int wp, int k, int s, int ho, int wo, float *out, const float *x) {
    for (long long q = 0; q < planes; q++)
        for (int y = 0; y < ho; y++)
            for (int xo = 0; xo < wo; xo++) {
                float acc = is_max ? -INFINITY : 0.0f;
                for (int dy = 0; dy < k; dy++)
                    for (int dx = 0; dx < k; dx++) {
                        float v = x[(q * hp + y * s + dy) * wp + xo * s + dx];
                        acc = is_max ? (v > acc ? v : acc) : acc + v;
                    }
                out[(q * ho + y) * wo + xo] = is_max ? acc : acc / (float)(k * k);
            }
}
