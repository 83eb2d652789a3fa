/* OpenBLAS's cblas_sgemm behind the baselines' signature (compiled only when OpenBLAS is
 * installed: libopenblas-dev). */
#include <cblas.h>

void openblas_set_num_threads(int num_threads);

int baseline_openblas(int m, int n, int k, float *restrict out, const float *restrict a, const float *restrict b) {
    if (m <= 0 || n <= 0 || k <= 0) return 1;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a, k, b, n, 0.0f, out, n);
    return 0;
}

void baseline_openblas_threads(int threads) { openblas_set_num_threads(threads); }
