/* TVM step 5, write cache: a local 32x32 block accumulates each tile (ki unrolled, ni
 * vectorized) and is copied to the output once; B is packed in parallel. */
#include "baselines.h"
#include "common.h"
#include "tile.h"

int baseline_cache_blocks(int m, int n, int k, float *restrict out, const float *restrict a, const float *restrict b) {
    if (!tiled_sizes_ok(m, n, k)) return 1;
    float *packed = aligned_alloc(64, (size_t)n * k * sizeof(float));
    if (!packed) return 2;
    pack_b(n, k, packed, b);
    for (int mo = 0; mo < m / BN; mo++) cached_row_block(mo, n, k, out, a, packed);
    free(packed);
    return 0;
}
