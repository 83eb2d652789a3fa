/* TVM step 1, blocking: tile(mo, no, mi, ni, 32, 32), split(k, 4), reorder(mo, no, ko, ki, mi, ni).
 * Accumulates in the output directly. */
#include "baselines.h"
#include "common.h"

int baseline_blocking(int m, int n, int k, float *restrict out, const float *restrict a, const float *restrict b) {
    if (!tiled_sizes_ok(m, n, k)) return 1;
    for (int mo = 0; mo < m / BN; mo++)
        for (int no = 0; no < n / BN; no++) {
            for (int mi = 0; mi < BN; mi++)
                for (int ni = 0; ni < BN; ni++) out[(mo * BN + mi) * n + no * BN + ni] = 0.0f;
            for (int ko = 0; ko < k / KF; ko++)
                for (int ki = 0; ki < KF; ki++)
                    for (int mi = 0; mi < BN; mi++)
                        for (int ni = 0; ni < BN; ni++)
                            out[(mo * BN + mi) * n + no * BN + ni] +=
                                a[(mo * BN + mi) * k + ko * KF + ki] * b[(ko * KF + ki) * n + no * BN + ni];
        }
    return 0;
}
