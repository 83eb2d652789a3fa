/* A hand-scheduled 3x3 binomial blur ([1 2 1] / 4 in both directions), the baseline of
 * sketches/blur: out is n x m, input (n+2) x (m+2), row-major; the signature of the function
 * risec writes for examples/blur.rise, so that `risec bench --baseline` can time it.
 *
 * Schedule: the image in tiles of 64 rows x 1024 columns shared among the OpenMP threads; in a
 * tile, each output row is a vertical pass over three input rows into a row buffer on the
 * stack (16 lanes at a time), then a horizontal pass over the buffer. The three input rows of
 * a tile's row stay in L1 for the next row, which reads two of them again. */
#include <string.h>

typedef float blur_v16 __attribute__((vector_size(64)));

#define BLUR_ROWS 64
#define BLUR_COLS 1024

static inline blur_v16 blur_load(const float *p) { blur_v16 v; memcpy(&v, p, sizeof v); return v; }
static inline void blur_store(float *p, blur_v16 v) { memcpy(p, &v, sizeof v); }

/* One tile: output rows [y0, y1), columns [x0, x1). */
static void blur_tile(int m, float *restrict out, const float *restrict in, int y0, int y1, int x0, int x1) {
    const int w = m + 2;
    const int cols = x1 - x0;
    float vert[BLUR_COLS + 2 + 16] __attribute__((aligned(64)));
    for (int y = y0; y < y1; y++) {
        const float *r0 = in + (size_t)y * w + x0;
        const float *r1 = r0 + w;
        const float *r2 = r1 + w;
        int x = 0;
        for (; x + 16 <= cols + 2; x += 16) {
            blur_store(vert + x, blur_load(r0 + x) + 2.0f * blur_load(r1 + x) + blur_load(r2 + x));
        }
        for (; x < cols + 2; x++) vert[x] = r0[x] + 2.0f * r1[x] + r2[x];
        float *o = out + (size_t)y * m + x0;
        x = 0;
        for (; x + 16 <= cols; x += 16) {
            blur_v16 s = blur_load(vert + x) + 2.0f * blur_load(vert + x + 1) + blur_load(vert + x + 2);
            blur_store(o + x, s * 0.0625f);
        }
        for (; x < cols; x++) o[x] = (vert[x] + 2.0f * vert[x + 1] + vert[x + 2]) * 0.0625f;
    }
}

int blur_tiled(int n, int m, float *restrict out, const float *restrict input) {
    if (n <= 0 || m <= 0) return 1;
    const int strips = (n + BLUR_ROWS - 1) / BLUR_ROWS;
    const int bands = (m + BLUR_COLS - 1) / BLUR_COLS;
#pragma omp parallel for collapse(2) schedule(static)
    for (int s = 0; s < strips; s++) {
        for (int b = 0; b < bands; b++) {
            const int y0 = s * BLUR_ROWS, x0 = b * BLUR_COLS;
            const int y1 = y0 + BLUR_ROWS < n ? y0 + BLUR_ROWS : n;
            const int x1 = x0 + BLUR_COLS < m ? x0 + BLUR_COLS : m;
            blur_tile(m, out, input, y0, y1, x0, x1);
        }
    }
    return 0;
}
