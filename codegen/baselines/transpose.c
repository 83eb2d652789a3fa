/* A hand-scheduled matrix transpose, the baseline of examples/transpose.rise: out (m x n) =
 * a (n x m) transposed, row-major; the signature of the function risec writes for the program
 * (`risec bench --baseline`). Tiles of 32 x 32 shared among the OpenMP threads (rows of tiles
 * of the output), each copied in 8 x 8 blocks that the compiler keeps in registers. */

#include <stddef.h>

#define TRANSPOSE_BLOCK 32

static void transpose_tile(int n, int m, float *restrict out, const float *restrict a, int i0, int j0) {
    const int i1 = i0 + TRANSPOSE_BLOCK < m ? i0 + TRANSPOSE_BLOCK : m;
    const int j1 = j0 + TRANSPOSE_BLOCK < n ? j0 + TRANSPOSE_BLOCK : n;
    if (i1 - i0 == TRANSPOSE_BLOCK && j1 - j0 == TRANSPOSE_BLOCK) {
        for (int bi = 0; bi < TRANSPOSE_BLOCK; bi += 8)
            for (int bj = 0; bj < TRANSPOSE_BLOCK; bj += 8)
                for (int i = 0; i < 8; i++)
                    for (int j = 0; j < 8; j++)
                        out[(size_t)(i0 + bi + i) * n + j0 + bj + j] = a[(size_t)(j0 + bj + j) * m + i0 + bi + i];
        return;
    }
    for (int i = i0; i < i1; i++)
        for (int j = j0; j < j1; j++) out[(size_t)i * n + j] = a[(size_t)j * m + i];
}

int transpose_tiled(int n, int m, float *restrict out, const float *restrict a) {
    if (n <= 0 || m <= 0) return 1;
    const int ti = (m + TRANSPOSE_BLOCK - 1) / TRANSPOSE_BLOCK;
    const int tj = (n + TRANSPOSE_BLOCK - 1) / TRANSPOSE_BLOCK;
#pragma omp parallel for schedule(static)
    for (int bi = 0; bi < ti; bi++)
        for (int bj = 0; bj < tj; bj++) transpose_tile(n, m, out, a, bi * TRANSPOSE_BLOCK, bj * TRANSPOSE_BLOCK);
    return 0;
}
