/* risec la: the C runtime of plans with sparse operands (CSR) and the elementwise functions
 * Rise has no primitive for. Hand-written; the dense operations come from Rise. */
#include <math.h>
#include <stdlib.h>
#include <string.h>


static inline void la_csr_free(la_csr *a) {
    if (a->owns_structure) {
        free(a->rowptr);
        free(a->col);
    }
    free(a->val);
    memset(a, 0, sizeof *a);
}

/* out (rows x cols, dense) = a */
static inline void la_csr_to_dense(const la_csr *a, float *out) {
    memset(out, 0, sizeof(float) * (size_t)a->rows * (size_t)a->cols);
    for (int i = 0; i < a->rows; i++)
        for (int p = a->rowptr[i]; p < a->rowptr[i + 1]; p++)
            out[(size_t)i * a->cols + a->col[p]] = a->val[p];
}

/* out (a.rows x n) = a %*% b (b: a.cols x n, dense) */
static inline void la_csr_mm_dense(const la_csr *a, int n, const float *b, float *out) {
    memset(out, 0, sizeof(float) * (size_t)a->rows * (size_t)n);
    for (int i = 0; i < a->rows; i++) {
        float *o = out + (size_t)i * n;
        for (int p = a->rowptr[i]; p < a->rowptr[i + 1]; p++) {
            const float v = a->val[p];
            const float *r = b + (size_t)a->col[p] * n;
            for (int j = 0; j < n; j++) o[j] += v * r[j];
        }
    }
}

/* out (m x b.cols) = a %*% b (a: m x b.rows, dense) */
static inline void la_dense_mm_csr(int m, const float *a, const la_csr *b, float *out) {
    memset(out, 0, sizeof(float) * (size_t)m * (size_t)b->cols);
    for (int i = 0; i < m; i++) {
        float *o = out + (size_t)i * b->cols;
        const float *r = a + (size_t)i * b->rows;
        for (int k = 0; k < b->rows; k++) {
            const float x = r[k];
            if (x == 0.0f) continue;
            for (int p = b->rowptr[k]; p < b->rowptr[k + 1]; p++) o[b->col[p]] += x * b->val[p];
        }
    }
}

/* out = a ⊙ d, with d (drows x dcols) broadcast over a's shape (1 x 1, a.rows x 1,
 * 1 x a.cols or a.rows x a.cols); out shares a's structure. Returns 2 when out of memory. */
static inline int la_csr_mul_dense(const la_csr *a, const float *d, int drows, int dcols, la_csr *out) {
    *out = *a;
    out->owns_structure = 0;
    out->val = malloc(sizeof(float) * (size_t)(a->nnz > 0 ? a->nnz : 1));
    if (!out->val) return 2;
    for (int i = 0; i < a->rows; i++)
        for (int p = a->rowptr[i]; p < a->rowptr[i + 1]; p++) {
            const int r = drows == 1 ? 0 : i, c = dcols == 1 ? 0 : a->col[p];
            out->val[p] = a->val[p] * d[(size_t)r * dcols + c];
        }
    return 0;
}

/* out = a ⊙ b for two sparse matrices of one shape: the entries in both (a square a ⊙ a
 * keeps a's structure). Returns 2 when out of memory. */
static inline int la_csr_mul_csr(const la_csr *a, const la_csr *b, la_csr *out) {
    if (a == b) {
        *out = *a;
        out->owns_structure = 0;
        out->val = malloc(sizeof(float) * (size_t)(a->nnz > 0 ? a->nnz : 1));
        if (!out->val) return 2;
        for (int p = 0; p < a->nnz; p++) out->val[p] = a->val[p] * a->val[p];
        return 0;
    }
    const int cap = a->nnz < b->nnz ? a->nnz : b->nnz;
    out->rows = a->rows;
    out->cols = a->cols;
    out->owns_structure = 1;
    out->rowptr = malloc(sizeof(int) * ((size_t)a->rows + 1));
    out->col = malloc(sizeof(int) * (size_t)(cap > 0 ? cap : 1));
    out->val = malloc(sizeof(float) * (size_t)(cap > 0 ? cap : 1));
    if (!out->rowptr || !out->col || !out->val) return 2;
    int q = 0;
    for (int i = 0; i < a->rows; i++) {
        out->rowptr[i] = q;
        int p = a->rowptr[i], r = b->rowptr[i];
        while (p < a->rowptr[i + 1] && r < b->rowptr[i + 1]) {
            if (a->col[p] < b->col[r]) p++;
            else if (a->col[p] > b->col[r]) r++;
            else {
                out->col[q] = a->col[p];
                out->val[q++] = a->val[p++] * b->val[r++];
            }
        }
    }
    out->rowptr[a->rows] = q;
    out->nnz = q;
    return 0;
}

/* out = f(a) for an f with f(0) = 0 (0: abs, 1: relu, 2: sqrt); shares a's structure. */
static inline int la_csr_map(const la_csr *a, int f, la_csr *out) {
    *out = *a;
    out->owns_structure = 0;
    out->val = malloc(sizeof(float) * (size_t)(a->nnz > 0 ? a->nnz : 1));
    if (!out->val) return 2;
    for (int p = 0; p < a->nnz; p++) {
        const float x = a->val[p];
        out->val[p] = f == 0 ? fabsf(x) : f == 1 ? (x < 0.0f ? 0.0f : x) : sqrtf(x);
    }
    return 0;
}

/* out = t(a), a new CSR matrix. */
static inline int la_csr_transpose(const la_csr *a, la_csr *out) {
    out->rows = a->cols;
    out->cols = a->rows;
    out->nnz = a->nnz;
    out->owns_structure = 1;
    out->rowptr = calloc((size_t)a->cols + 1, sizeof(int));
    out->col = malloc(sizeof(int) * (size_t)(a->nnz > 0 ? a->nnz : 1));
    out->val = malloc(sizeof(float) * (size_t)(a->nnz > 0 ? a->nnz : 1));
    int *next = malloc(sizeof(int) * (size_t)a->cols);
    if (!out->rowptr || !out->col || !out->val || !next) {
        free(next);
        return 2;
    }
    for (int p = 0; p < a->nnz; p++) out->rowptr[a->col[p] + 1]++;
    for (int j = 0; j < a->cols; j++) out->rowptr[j + 1] += out->rowptr[j];
    memcpy(next, out->rowptr, sizeof(int) * (size_t)a->cols);
    for (int i = 0; i < a->rows; i++)
        for (int p = a->rowptr[i]; p < a->rowptr[i + 1]; p++) {
            const int q = next[a->col[p]]++;
            out->col[q] = i;
            out->val[q] = a->val[p];
        }
    free(next);
    return 0;
}

static inline void la_csr_sum(const la_csr *a, float *out) {
    double s = 0.0;
    for (int p = 0; p < a->nnz; p++) s += a->val[p];
    out[0] = (float)s;
}

static inline void la_csr_rowsums(const la_csr *a, float *out) {
    for (int i = 0; i < a->rows; i++) {
        double s = 0.0;
        for (int p = a->rowptr[i]; p < a->rowptr[i + 1]; p++) s += a->val[p];
        out[i] = (float)s;
    }
}

static inline void la_csr_colsums(const la_csr *a, float *out) {
    double *s = calloc((size_t)a->cols, sizeof(double));
    if (!s) { /* no memory for the double sums: sum in float */
        memset(out, 0, sizeof(float) * (size_t)a->cols);
        for (int p = 0; p < a->nnz; p++) out[a->col[p]] += a->val[p];
        return;
    }
    for (int p = 0; p < a->nnz; p++) s[a->col[p]] += a->val[p];
    for (int j = 0; j < a->cols; j++) out[j] = (float)s[j];
    free(s);
}

/* out = f(a) over n entries for the functions Rise has no primitive for
 * (0: exp, 1: log, 2: sqrt, 3: sigmoid). */
static inline void la_map_c(int f, int n, float *out, const float *a) {
    for (int i = 0; i < n; i++) {
        const float x = a[i];
        out[i] = f == 0 ? expf(x) : f == 1 ? logf(x) : f == 2 ? sqrtf(x) : 1.0f / (1.0f + expf(-x));
    }
}
