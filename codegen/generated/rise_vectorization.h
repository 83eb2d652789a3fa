#ifndef RISEC_RISE_VECTORIZATION_H
#define RISEC_RISE_VECTORIZATION_H

#include <stdint.h>

/* `matmul` compiled by risec from Rise.
 * Takes any positive sizes: sizes the tiles do not divide are rounded up
 * (m to a multiple of 32, n to a multiple of 32, k to a multiple of 4), the inputs copied into zero-padded
 * buffers and the result's corner copied back.
 * Returns 0 on success; 1 when a size is not positive, 3 when an array is too large
 * for int indices, 2 when a buffer cannot be allocated. On a non-zero return `out` is
 * left untouched. */
int rise_vectorization(int m, int n, int k, float *restrict out, const float *restrict a, const float *restrict b);

#endif /* RISEC_RISE_VECTORIZATION_H */
