/* GELU (tanh form) over an m x n matrix as a plain loop, the way a person would write it:
 * the C library's tanhf, rows in parallel with OpenMP. Returns 0, or 1 for sizes that are not
 * positive (as risec's kernels do). */
#include <math.h>

int gelu_loop(int m, int n, float *restrict out, const float *restrict a) {
    if (m <= 0 || n <= 0) return 1;
#pragma omp parallel for
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            float x = a[(long)i * n + j];
            out[(long)i * n + j] = 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
        }
    return 0;
}
