#ifndef RISEC_RISE_CACHE_BLOCKS_H
#define RISEC_RISE_CACHE_BLOCKS_H

#include <stdint.h>

/* `matmul` compiled by risec from Rise.
 * Takes any positive sizes: sizes the tiles do not divide are rounded up
 * (m to a multiple of 32, n to a multiple of 32, k to a multiple of 4), the inputs copied into zero-padded
 * buffers and the result's corner copied back.
 * Returns 0 on success; 1 when a size is not positive, 3 when an array is too large
 * for int indices, 2 when a buffer cannot be allocated. On a non-zero return `out` is
 * left untouched. */
int rise_cache_blocks(int m, int n, int k, float *restrict out, const float *restrict a, const float *restrict b);

/* Frees the temporaries `rise_cache_blocks` keeps between calls (they are reused by the next
 * call; compile with -DRISE_FRESH_TEMPORARIES to allocate them on every call instead).
 * Do not call it while `rise_cache_blocks` runs. */
void rise_cache_blocks_release_temporaries(void);

#endif /* RISEC_RISE_CACHE_BLOCKS_H */
