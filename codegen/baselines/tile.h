/* The write-cache kernel shared by the last two TVM steps. */
#ifndef RISEC_BASELINES_TILE_H
#define RISEC_BASELINES_TILE_H
#include "common.h"

/* packedB[n/32][k][32], packed in parallel over column blocks. */
static inline void pack_b(int n, int k, float *restrict packed, const float *restrict b) {
#pragma omp parallel for
    for (int bn = 0; bn < n / BN; bn++)
        for (int l = 0; l < k; l++)
            for (int v = 0; v < BN / 8; v++) v8_store(&packed[(bn * k + l) * BN + v * 8], v8_load(&b[l * n + bn * BN + v * 8]));
}

/* All tiles of row block mo through a local 32x32 write cache. */
static inline void cached_row_block(int mo, int n, int k, float *restrict out, const float *restrict a,
                                    const float *restrict packed) {
    for (int no = 0; no < n / BN; no++) {
        v8 cache[BN][BN / 8];
        for (int mi = 0; mi < BN; mi++)
            for (int v = 0; v < BN / 8; v++) cache[mi][v] = v8_splat(0.0f);
        for (int ko = 0; ko < k / KF; ko++)
            for (int mi = 0; mi < BN; mi++) {
                const float *arow = &a[(mo * BN + mi) * k + ko * KF];
                const float *bp = &packed[(no * k + ko * KF) * BN];
#pragma GCC unroll 4
                for (int ki = 0; ki < KF; ki++) {
                    v8 s = v8_splat(arow[ki]);
                    for (int v = 0; v < BN / 8; v++) cache[mi][v] += s * v8_load(&bp[ki * BN + v * 8]);
                }
            }
        for (int mi = 0; mi < BN; mi++)
            for (int v = 0; v < BN / 8; v++) v8_store(&out[(mo * BN + mi) * n + no * BN + v * 8], cache[mi][v]);
    }
}
#endif
