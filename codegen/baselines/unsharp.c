/* Hand-scheduled unsharp masking, the baseline of sketches/unsharp: out = c + 0.5 (c - blur),
 * c the centre pixel and blur the 3x3 binomial blur around it ([1 2 1] / 4 in both
 * directions); out n x m, input (n+2) x (m+2), row-major; the signature of the function risec
 * writes for examples/unsharp.rise (`risec bench --baseline`).
 *
 * Schedule: tiles of 64 rows x 1024 columns shared among the OpenMP threads; in a tile, each
 * output row is a vertical pass over three input rows into a row buffer on the stack, then a
 * horizontal pass that also reads the centre row, 16 lanes at a time. */
#include <string.h>

typedef float unsharp_v16 __attribute__((vector_size(64)));

#define UNSHARP_ROWS 64
#define UNSHARP_COLS 1024

static inline unsharp_v16 unsharp_load(const float *p) { unsharp_v16 v; memcpy(&v, p, sizeof v); return v; }
static inline void unsharp_store(float *p, unsharp_v16 v) { memcpy(p, &v, sizeof v); }

static void unsharp_tile(int m, float *restrict out, const float *restrict in, int y0, int y1, int x0, int x1) {
    const int w = m + 2;
    const int cols = x1 - x0;
    float vert[UNSHARP_COLS + 2 + 16] __attribute__((aligned(64)));
    for (int y = y0; y < y1; y++) {
        const float *r0 = in + (size_t)y * w + x0;
        const float *r1 = r0 + w;
        const float *r2 = r1 + w;
        int x = 0;
        for (; x + 16 <= cols + 2; x += 16)
            unsharp_store(vert + x, unsharp_load(r0 + x) + 2.0f * unsharp_load(r1 + x) + unsharp_load(r2 + x));
        for (; x < cols + 2; x++) vert[x] = r0[x] + 2.0f * r1[x] + r2[x];
        float *o = out + (size_t)y * m + x0;
        x = 0;
        for (; x + 16 <= cols; x += 16) {
            unsharp_v16 b = (unsharp_load(vert + x) + 2.0f * unsharp_load(vert + x + 1) + unsharp_load(vert + x + 2)) * 0.0625f;
            unsharp_v16 c = unsharp_load(r1 + x + 1);
            unsharp_store(o + x, c + 0.5f * (c - b));
        }
        for (; x < cols; x++) {
            float b = (vert[x] + 2.0f * vert[x + 1] + vert[x + 2]) * 0.0625f;
            float c = r1[x + 1];
            o[x] = c + 0.5f * (c - b);
        }
    }
}

int unsharp_tiled(int n, int m, float *restrict out, const float *restrict input) {
    if (n <= 0 || m <= 0) return 1;
    const int strips = (n + UNSHARP_ROWS - 1) / UNSHARP_ROWS;
    const int bands = (m + UNSHARP_COLS - 1) / UNSHARP_COLS;
#pragma omp parallel for collapse(2) schedule(static)
    for (int s = 0; s < strips; s++) {
        for (int b = 0; b < bands; b++) {
            const int y0 = s * UNSHARP_ROWS, x0 = b * UNSHARP_COLS;
            const int y1 = y0 + UNSHARP_ROWS < n ? y0 + UNSHARP_ROWS : n;
            const int x1 = x0 + UNSHARP_COLS < m ? x0 + UNSHARP_COLS : m;
            unsharp_tile(m, out, input, y0, y1, x0, x1);
        }
    }
    return 0;
}
