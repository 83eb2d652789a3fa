/* The naive triple loop (TVM's baseline schedule). */
#include "baselines.h"

int baseline_naive(int m, int n, int k, float *restrict out, const float *restrict a, const float *restrict b) {
    if (m <= 0 || n <= 0 || k <= 0) return 1;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            float sum = 0.0f;
            for (int l = 0; l < k; l++) sum += a[i * k + l] * b[l * n + j];
            out[i * n + j] = sum;
        }
    return 0;
}
