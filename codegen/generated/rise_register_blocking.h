#ifndef RISEC_RISE_REGISTER_BLOCKING_H
#define RISEC_RISE_REGISTER_BLOCKING_H

#include <stdint.h>

/* `matmul` compiled by risec from Rise.
 * Takes any positive sizes: sizes the tiles do not divide are rounded up
 * (m to a multiple of 48, n to a multiple of 512, k to a multiple of 768) inside the kernel: reads past the
 * arrays give zero, writes past `out` are skipped, and so is work that only writes there.
 * Returns 0 on success; 1 when a size is not positive, 3 when an array is too large
 * for int indices, 2 when a temporary cannot be allocated. On a non-zero return `out` is
 * left untouched. */
int rise_register_blocking(int m, int n, int k, float *restrict out, const float *restrict a, const float *restrict b);

/* Frees the temporaries `rise_register_blocking` keeps between calls (they are reused by the next
 * call; compile with -DRISE_FRESH_TEMPORARIES to allocate them on every call instead).
 * Do not call it while `rise_register_blocking` runs. */
void rise_register_blocking_release_temporaries(void);

#endif /* RISEC_RISE_REGISTER_BLOCKING_H */
