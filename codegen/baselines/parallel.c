/* TVM step 6, parallel: the write-cache version with the row-block loop run by OpenMP threads. */
#include "baselines.h"
#include "common.h"
#include "tile.h"

int baseline_parallel(int m, int n, int k, float *restrict out, const float *restrict a, const float *restrict b) {
    if (!tiled_sizes_ok(m, n, k)) return 1;
    float *packed = aligned_alloc(64, (size_t)n * k * sizeof(float));
    if (!packed) return 2;
    pack_b(n, k, packed, b);
#pragma omp parallel for
    for (int mo = 0; mo < m / BN; mo++) cached_row_block(mo, n, k, out, a, packed);
    free(packed);
    return 0;
}
