/* Shared by the TVM-step baselines: tile sizes, the size check, an 8-lane vector type. */
#ifndef RISEC_BASELINES_COMMON_H
#define RISEC_BASELINES_COMMON_H
#include <stdlib.h>
#include <string.h>

#define BN 32 /* tile size */
#define KF 4  /* k split factor */

typedef float v8 __attribute__((vector_size(32)));

static inline v8 v8_load(const float *p) { v8 v; memcpy(&v, p, sizeof v); return v; }
static inline void v8_store(float *p, v8 v) { memcpy(p, &v, sizeof v); }
static inline v8 v8_splat(float s) { return (v8){s, s, s, s, s, s, s, s}; }

static inline int tiled_sizes_ok(int m, int n, int k) {
    return m > 0 && n > 0 && k > 0 && m % BN == 0 && n % BN == 0 && k % KF == 0;
}
#endif
