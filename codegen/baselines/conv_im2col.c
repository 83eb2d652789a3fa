/* The 3x3 convolution of examples/conv3x3.rise as im2col + BLAS sgemm, the way Caffe and many
 * frameworks compute it: the (ci * 9) x (h * w) matrix of every pixel's neighbourhoods, then
 * out (co x h*w) = weights (co x ci*9) . columns. A `risec bench --baseline` function of the
 * program's signature; link with `--link openblas`. The columns are allocated per call (as a
 * framework's workspace would be reused, they are kept between calls when the sizes repeat).
 * conv1x1_sgemm: the 1x1 convolution of examples/conv1x1.rise, which is one sgemm with no
 * copy: out (co x h*w) = weights (co x ci) . input (ci x h*w). */
#include <cblas.h>
#include <stdlib.h>

int conv3x3_im2col(int co, int ci, int h, int w, float *restrict out, const float *restrict weights,
                   const float *restrict input) {
    static float *cols = NULL;
    static size_t cols_len = 0;
    if (co <= 0 || ci <= 0 || h <= 0 || w <= 0) return 1;
    const size_t need = (size_t)ci * 9 * h * w;
    if (need > cols_len) {
        free(cols);
        cols = malloc(need * sizeof(float));
        if (!cols) { cols_len = 0; return 2; }
        cols_len = need;
    }
    const int row = w + 2, plane = (h + 2) * (w + 2);
    for (int c = 0; c < ci; c++)
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) {
                float *dst = cols + ((size_t)(c * 9 + a * 3 + b)) * h * w;
                for (int y = 0; y < h; y++) {
                    const float *src = input + c * plane + (y + a) * row + b;
                    for (int x = 0; x < w; x++) dst[y * w + x] = src[x];
                }
            }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, co, h * w, ci * 9, 1.0f, weights, ci * 9,
                cols, h * w, 0.0f, out, h * w);
    return 0;
}

int conv1x1_sgemm(int co, int ci, int h, int w, float *restrict out, const float *restrict weights,
                  const float *restrict input) {
    if (co <= 0 || ci <= 0 || h <= 0 || w <= 0) return 1;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, co, h * w, ci, 1.0f, weights, ci, input,
                h * w, 0.0f, out, h * w);
    return 0;
}
