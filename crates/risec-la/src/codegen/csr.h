#ifndef RISEC_LA_CSR
#define RISEC_LA_CSR
/* A sparse matrix in compressed sparse row form: the non-zeros of row i are
 * val[rowptr[i] .. rowptr[i+1]), in columns col[...] (increasing). */
typedef struct la_csr {
    int rows, cols, nnz;
    int *rowptr;
    int *col;
    float *val;
    int owns_structure; /* rowptr and col are this matrix's own (else shared with an operand) */
} la_csr;
#endif
