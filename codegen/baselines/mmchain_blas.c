/* The matmul chain of examples/mmchain.rise, (A·B)·C, as two OpenBLAS sgemm calls with the
 * m x n product A·B in a buffer kept between calls (as a framework's workspace would be). A
 * `risec bench --baseline` function of the program's signature; link with `--link openblas`. */
#include <cblas.h>
#include <stdlib.h>

int mmchain_sgemm(int m, int n, int k, int p, float *restrict out, const float *restrict a,
                  const float *restrict b, const float *restrict c) {
    static float *ab = NULL;
    static size_t ab_len = 0;
    if (m <= 0 || n <= 0 || k <= 0 || p <= 0) return 1;
    const size_t need = (size_t)m * n;
    if (need > ab_len) {
        free(ab);
        ab = malloc(need * sizeof(float));
        if (!ab) { ab_len = 0; return 2; }
        ab_len = need;
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a, k, b, n, 0.0f, ab, n);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, p, n, 1.0f, ab, n, c, p, 0.0f, out, p);
    return 0;
}
