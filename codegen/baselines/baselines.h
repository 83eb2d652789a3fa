/* Hand-written matrix multiplication baselines: out[m][n] = a[m][k] * b[k][n], row-major f32.
 * The naive triple loop and the seven steps of TVM's CPU GEMM schedule (32x32 tiles, k split
 * by 4, packed B as packedB[n/32][k][32], a local 32x32 write cache, parallel outer loop).
 * Each returns 0, or 1 without touching `out` when the sizes are not positive or (for the
 * tiled versions) m or n is not a multiple of 32 or k not a multiple of 4. */
#ifndef RISEC_BASELINES_H
#define RISEC_BASELINES_H

int baseline_naive(int m, int n, int k, float *restrict out, const float *restrict a, const float *restrict b);
int baseline_blocking(int m, int n, int k, float *restrict out, const float *restrict a, const float *restrict b);
int baseline_vectorization(int m, int n, int k, float *restrict out, const float *restrict a, const float *restrict b);
int baseline_loop_perm(int m, int n, int k, float *restrict out, const float *restrict a, const float *restrict b);
int baseline_array_packing(int m, int n, int k, float *restrict out, const float *restrict a, const float *restrict b);
int baseline_cache_blocks(int m, int n, int k, float *restrict out, const float *restrict a, const float *restrict b);
int baseline_parallel(int m, int n, int k, float *restrict out, const float *restrict a, const float *restrict b);

#endif
