#ifndef RISEC_RISE_ARRAY_PACKING_H
#define RISEC_RISE_ARRAY_PACKING_H

#include <stdint.h>

/* `matmul` compiled by risec from Rise.
 * Takes any positive sizes: sizes the tiles do not divide are rounded up
 * (m to a multiple of 32, n to a multiple of 32, k to a multiple of 4), the inputs copied into zero-padded
 * buffers and the result's corner copied back.
 * Returns 0 on success; 1 when a size is not positive, 3 when an array is too large
 * for int indices, 2 when a buffer cannot be allocated. On a non-zero return `out` is
 * left untouched. */
int rise_array_packing(int m, int n, int k, float *restrict out, const float *restrict a, const float *restrict b);

/* Frees the temporaries `rise_array_packing` keeps between calls (they are reused by the next
 * call; compile with -DRISE_FRESH_TEMPORARIES to allocate them on every call instead).
 * Do not call it while `rise_array_packing` runs. */
void rise_array_packing_release_temporaries(void);

#endif /* RISEC_RISE_ARRAY_PACKING_H */
