/* TVM step 4, array packing: packedB[n/32][k][32], then loop permutation reading packedB. */
#include "baselines.h"
#include "common.h"

int baseline_array_packing(int m, int n, int k, float *restrict out, const float *restrict a, const float *restrict b) {
    if (!tiled_sizes_ok(m, n, k)) return 1;
    float *packed = aligned_alloc(64, (size_t)n * k * sizeof(float));
    if (!packed) return 2;
    for (int bn = 0; bn < n / BN; bn++)
        for (int l = 0; l < k; l++)
            for (int j = 0; j < BN; j++) packed[(bn * k + l) * BN + j] = b[l * n + bn * BN + j];
    for (int mo = 0; mo < m / BN; mo++)
        for (int no = 0; no < n / BN; no++) {
            for (int mi = 0; mi < BN; mi++)
                for (int v = 0; v < BN / 8; v++) v8_store(&out[(mo * BN + mi) * n + no * BN + v * 8], v8_splat(0.0f));
            for (int ko = 0; ko < k / KF; ko++)
                for (int mi = 0; mi < BN; mi++) {
                    float *c = &out[(mo * BN + mi) * n + no * BN];
                    for (int ki = 0; ki < KF; ki++) {
                        v8 s = v8_splat(a[(mo * BN + mi) * k + ko * KF + ki]);
                        const float *brow = &packed[(no * k + ko * KF + ki) * BN];
                        for (int v = 0; v < BN / 8; v++) v8_store(&c[v * 8], v8_load(&c[v * 8]) + s * v8_load(&brow[v * 8]));
                    }
                }
        }
    free(packed);
    return 0;
}
