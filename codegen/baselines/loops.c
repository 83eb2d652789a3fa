/* Plain C loop nests, the code a person writes without thinking about schedules, as
 * `risec bench --baseline` functions with the signatures risec writes for the examples
 * (row-major arrays; 0 on success). They are the floor a naive lowering must reach:
 *   gauss5_loops:   examples/gauss5.rise, out n x m, input (n+4) x (m+4);
 *   jacobi3d_loops: examples/jacobi3d.rise, out n x m x p, input (n+2) x (m+2) x (p+2);
 *   mmchain_loops:  examples/mmchain.rise, (A·B)·C with A·B in a temporary, each product
 *                   as the textbook i-j-l loop (a dot product per output element);
 *   mmchain_ikj:    the same with the loops of each product in i-l-j order (rows of B and C
 *                   read contiguously, the inner loop vectorised): a loop interchange a
 *                   person who knows caches writes.
 * The convolution, softmax and layer normalisation loops below say what they are. */
#include <stdlib.h>

int gauss5_loops(int n, int m, float *restrict out, const float *restrict input) {
    static const float w[5] = {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f};
    if (n <= 0 || m <= 0) return 1;
    const int stride = m + 4;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < m; j++) {
            float s = 0.0f;
            for (int a = 0; a < 5; a++)
                for (int b = 0; b < 5; b++)
                    s += w[a] * w[b] * input[(i + a) * stride + j + b];
            out[i * m + j] = s;
        }
    }
    return 0;
}

int jacobi3d_loops(int n, int m, int p, float *restrict out, const float *restrict input) {
    if (n <= 0 || m <= 0 || p <= 0) return 1;
    const int row = p + 2, plane = (m + 2) * row;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < m; j++) {
            for (int k = 0; k < p; k++) {
                const float *c = input + (i + 1) * plane + (j + 1) * row + k + 1;
                out[(i * m + j) * p + k] =
                    0.14285715f * (c[-plane] + c[-row] + c[-1] + c[0] + c[1] + c[row] + c[plane]);
            }
        }
    }
    return 0;
}

int mmchain_loops(int m, int n, int k, int p, float *restrict out, const float *restrict a,
                  const float *restrict b, const float *restrict c) {
    if (m <= 0 || n <= 0 || k <= 0 || p <= 0) return 1;
    float *ab = malloc(sizeof(float) * (size_t)m * (size_t)n);
    if (!ab) return 2;
    for (int i = 0; i < m; i++) {
        for (int j = 0; j < n; j++) {
            float s = 0.0f;
            for (int l = 0; l < k; l++) s += a[i * k + l] * b[l * n + j];
            ab[i * n + j] = s;
        }
    }
    for (int i = 0; i < m; i++) {
        for (int j = 0; j < p; j++) {
            float s = 0.0f;
            for (int l = 0; l < n; l++) s += ab[i * n + l] * c[l * p + j];
            out[i * p + j] = s;
        }
    }
    free(ab);
    return 0;
}

int mmchain_ikj(int m, int n, int k, int p, float *restrict out, const float *restrict a,
                const float *restrict b, const float *restrict c) {
    if (m <= 0 || n <= 0 || k <= 0 || p <= 0) return 1;
    float *ab = malloc(sizeof(float) * (size_t)m * (size_t)n);
    if (!ab) return 2;
    for (int i = 0; i < m; i++) {
        for (int j = 0; j < n; j++) ab[i * n + j] = 0.0f;
        for (int l = 0; l < k; l++)
            for (int j = 0; j < n; j++) ab[i * n + j] += a[i * k + l] * b[l * n + j];
    }
    for (int i = 0; i < m; i++) {
        for (int j = 0; j < p; j++) out[i * p + j] = 0.0f;
        for (int l = 0; l < n; l++)
            for (int j = 0; j < p; j++) out[i * p + j] += ab[i * n + l] * c[l * p + j];
    }
    free(ab);
    return 0;
}

/* examples/conv3x3.rise: out co x h x w, weights co x ci x 3 x 3, input ci x (h+2) x (w+2).
 * conv3x3_loops is the textbook nest (a sum over channels and taps per output pixel);
 * conv3x3_planes accumulates each output plane tap by tap, the innermost loop along a row
 * (vectorised): the loop order a person who knows caches writes. */
int conv3x3_loops(int co, int ci, int h, int w, float *restrict out, const float *restrict weights,
                  const float *restrict input) {
    if (co <= 0 || ci <= 0 || h <= 0 || w <= 0) return 1;
    const int row = w + 2, plane = (h + 2) * (w + 2);
    for (int o = 0; o < co; o++) {
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                float s = 0.0f;
                for (int c = 0; c < ci; c++)
                    for (int a = 0; a < 3; a++)
                        for (int b = 0; b < 3; b++)
                            s += weights[((o * ci + c) * 3 + a) * 3 + b] * input[c * plane + (y + a) * row + x + b];
                out[(o * h + y) * w + x] = s;
            }
        }
    }
    return 0;
}

int conv3x3_planes(int co, int ci, int h, int w, float *restrict out, const float *restrict weights,
                   const float *restrict input) {
    if (co <= 0 || ci <= 0 || h <= 0 || w <= 0) return 1;
    const int row = w + 2, plane = (h + 2) * (w + 2);
    for (int o = 0; o < co; o++) {
        float *op = out + (size_t)o * h * w;
        for (int i = 0; i < h * w; i++) op[i] = 0.0f;
        for (int c = 0; c < ci; c++)
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++) {
                    const float k = weights[((o * ci + c) * 3 + a) * 3 + b];
                    for (int y = 0; y < h; y++) {
                        const float *ip = input + c * plane + (y + a) * row + b;
                        float *orow = op + y * w;
                        for (int x = 0; x < w; x++) orow[x] += k * ip[x];
                    }
                }
    }
    return 0;
}

/* examples/conv1x1.rise: out co x h x w, weights co x ci, input ci x h x w. conv1x1_loops is
 * the textbook nest (a dot product over the channels per output pixel); conv1x1_planes
 * accumulates each output plane channel by channel, the innermost loop over the plane's pixels
 * (vectorised). */
int conv1x1_loops(int co, int ci, int h, int w, float *restrict out, const float *restrict weights,
                  const float *restrict input) {
    if (co <= 0 || ci <= 0 || h <= 0 || w <= 0) return 1;
    const size_t plane = (size_t)h * w;
    for (int o = 0; o < co; o++)
        for (size_t p = 0; p < plane; p++) {
            float s = 0.0f;
            for (int c = 0; c < ci; c++) s += weights[(size_t)o * ci + c] * input[c * plane + p];
            out[o * plane + p] = s;
        }
    return 0;
}

int conv1x1_planes(int co, int ci, int h, int w, float *restrict out, const float *restrict weights,
                   const float *restrict input) {
    if (co <= 0 || ci <= 0 || h <= 0 || w <= 0) return 1;
    const size_t plane = (size_t)h * w;
    for (int o = 0; o < co; o++) {
        float *op = out + o * plane;
        for (size_t p = 0; p < plane; p++) op[p] = 0.0f;
        for (int c = 0; c < ci; c++) {
            const float k = weights[(size_t)o * ci + c];
            const float *ip = input + c * plane;
            for (size_t p = 0; p < plane; p++) op[p] += k * ip[p];
        }
    }
    return 0;
}

/* examples/boxblur.rise: out and x n x m. boxblur_loops is the loop a person writes first (a
 * bounds check per tap, boxblur_at); boxblur_split splits each row into its first pixel, the
 * interior and its last pixel by hand, as the C risec generates does. */
static float boxblur_at(int n, int m, const float *x, int i, int j) {
    float s = 0.0f;
    for (int a = -1; a <= 1; a++)
        for (int b = -1; b <= 1; b++) {
            const int y = i + a, z = j + b;
            if (y >= 0 && y < n && z >= 0 && z < m) s += x[(size_t)y * m + z];
        }
    return s / 9.0f;
}

int boxblur_loops(int n, int m, float *restrict out, const float *restrict x) {
    if (n <= 0 || m <= 0) return 1;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) out[(size_t)i * m + j] = boxblur_at(n, m, x, i, j);
    return 0;
}

int boxblur_split(int n, int m, float *restrict out, const float *restrict x) {
    if (n <= 0 || m <= 0) return 1;
    for (int i = 0; i < n; i++) {
        float *o = out + (size_t)i * m;
        if (i == 0 || i == n - 1 || m < 3) {
            for (int j = 0; j < m; j++) o[j] = boxblur_at(n, m, x, i, j);
            continue;
        }
        const float *u = x + (size_t)(i - 1) * m, *c = u + m, *d = c + m;
        o[0] = boxblur_at(n, m, x, i, 0);
        for (int j = 1; j < m - 1; j++)
            o[j] = (u[j - 1] + u[j] + u[j + 1] + c[j - 1] + c[j] + c[j + 1] + d[j - 1] + d[j] + d[j + 1]) / 9.0f;
        o[m - 1] = boxblur_at(n, m, x, i, m - 1);
    }
    return 0;
}

/* examples/softmax.rise and examples/layernorm.rise: out and a m x n, row by row, the loops a
 * person writes (the C library's expf and sqrtf). */
float expf(float);
float sqrtf(float);

int softmax_loops(int m, int n, float *restrict out, const float *restrict a) {
    if (m <= 0 || n <= 0) return 1;
    for (int i = 0; i < m; i++) {
        const float *row = a + (size_t)i * n;
        float *o = out + (size_t)i * n;
        float mx = -__builtin_inff();
        for (int j = 0; j < n; j++) mx = row[j] > mx ? row[j] : mx;
        float s = 0.0f;
        for (int j = 0; j < n; j++) {
            o[j] = expf(row[j] - mx);
            s += o[j];
        }
        for (int j = 0; j < n; j++) o[j] /= s;
    }
    return 0;
}

int layernorm_loops(int m, int n, float *restrict out, const float *restrict a) {
    if (m <= 0 || n <= 0) return 1;
    for (int i = 0; i < m; i++) {
        const float *row = a + (size_t)i * n;
        float *o = out + (size_t)i * n;
        float s = 0.0f;
        for (int j = 0; j < n; j++) s += row[j];
        const float mean = s / (float)n;
        float v = 0.0f;
        for (int j = 0; j < n; j++) v += (row[j] - mean) * (row[j] - mean);
        const float d = sqrtf(v / (float)n + 0.00001f);
        for (int j = 0; j < n; j++) o[j] = (row[j] - mean) / d;
    }
    return 0;
}
