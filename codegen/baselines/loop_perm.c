/* TVM step 3, loop permutation: reorder(mo, no, ko, mi, ki, ni), ni vectorized. */
#include "baselines.h"
#include "common.h"

int baseline_loop_perm(int m, int n, int k, float *restrict out, const float *restrict a, const float *restrict b) {
    if (!tiled_sizes_ok(m, n, k)) return 1;
    for (int mo = 0; mo < m / BN; mo++)
        for (int no = 0; no < n / BN; no++) {
            for (int mi = 0; mi < BN; mi++)
                for (int v = 0; v < BN / 8; v++) v8_store(&out[(mo * BN + mi) * n + no * BN + v * 8], v8_splat(0.0f));
            for (int ko = 0; ko < k / KF; ko++)
                for (int mi = 0; mi < BN; mi++) {
                    float *c = &out[(mo * BN + mi) * n + no * BN];
                    for (int ki = 0; ki < KF; ki++) {
                        v8 s = v8_splat(a[(mo * BN + mi) * k + ko * KF + ki]);
                        const float *brow = &b[(ko * KF + ki) * n + no * BN];
                        for (int v = 0; v < BN / 8; v++) v8_store(&c[v * 8], v8_load(&c[v * 8]) + s * v8_load(&brow[v * 8]));
                    }
                }
        }
    return 0;
}
