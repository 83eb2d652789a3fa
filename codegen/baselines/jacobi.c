/* Hand-scheduled Jacobi steps, the baselines of sketches/jacobi1d and sketches/jacobi2d, with
 * the signatures of the functions risec writes for examples/jacobi1d.rise and
 * examples/jacobi2d.rise (`risec bench --baseline`):
 *   jacobi1d_tiled: out[i] = (x[i] + x[i+1] + x[i+2]) / 3, n outputs, n + 2 inputs;
 *   jacobi2d_tiled: the five-point mean, out n x m, input (n+2) x (m+2), row-major.
 * Both are vectorised by hand (16 lanes) and shared among the OpenMP threads in contiguous
 * parts: blocks of 16384 elements in 1D, tiles of 64 rows x 1024 columns in 2D (the three input
 * rows of a tile's row stay in L1 for the next row). */
#include <string.h>

typedef float jac_v16 __attribute__((vector_size(64)));

static inline jac_v16 jac_load(const float *p) { jac_v16 v; memcpy(&v, p, sizeof v); return v; }
static inline void jac_store(float *p, jac_v16 v) { memcpy(p, &v, sizeof v); }

#define JAC1_BLOCK 16384

int jacobi1d_tiled(int n, float *restrict out, const float *restrict xs) {
    if (n <= 0) return 1;
    const float third = 0.33333334f;
    const int blocks = (n + JAC1_BLOCK - 1) / JAC1_BLOCK;
#pragma omp parallel for schedule(static)
    for (int b = 0; b < blocks; b++) {
        const int i0 = b * JAC1_BLOCK;
        const int i1 = i0 + JAC1_BLOCK < n ? i0 + JAC1_BLOCK : n;
        int i = i0;
        for (; i + 16 <= i1; i += 16)
            jac_store(out + i, (jac_load(xs + i) + jac_load(xs + i + 1) + jac_load(xs + i + 2)) * third);
        for (; i < i1; i++) out[i] = (xs[i] + xs[i + 1] + xs[i + 2]) * third;
    }
    return 0;
}

#define JAC2_ROWS 64
#define JAC2_COLS 1024

int jacobi2d_tiled(int n, int m, float *restrict out, const float *restrict input) {
    if (n <= 0 || m <= 0) return 1;
    const int w = m + 2;
    const int strips = (n + JAC2_ROWS - 1) / JAC2_ROWS;
    const int bands = (m + JAC2_COLS - 1) / JAC2_COLS;
#pragma omp parallel for collapse(2) schedule(static)
    for (int s = 0; s < strips; s++) {
        for (int b = 0; b < bands; b++) {
            const int y0 = s * JAC2_ROWS, x0 = b * JAC2_COLS;
            const int y1 = y0 + JAC2_ROWS < n ? y0 + JAC2_ROWS : n;
            const int x1 = x0 + JAC2_COLS < m ? x0 + JAC2_COLS : m;
            for (int y = y0; y < y1; y++) {
                const float *up = input + (size_t)y * w + 1;
                const float *mid = up + w - 1;
                const float *down = up + 2 * (size_t)w;
                float *o = out + (size_t)y * m;
                int x = x0;
                for (; x + 16 <= x1; x += 16) {
                    jac_v16 s5 = jac_load(up + x) + jac_load(mid + x) + jac_load(mid + x + 1) +
                                 jac_load(mid + x + 2) + jac_load(down + x);
                    jac_store(o + x, s5 * 0.2f);
                }
                for (; x < x1; x++)
                    o[x] = (up[x] + mid[x] + mid[x + 1] + mid[x + 2] + down[x]) * 0.2f;
            }
        }
    }
    return 0;
}
