/*
 * eval.cuh — the device-resident circuit of eval.cu as prove.cu sees it:
 * the three matrices, the A/B index lists, and the launches that evaluate,
 * check and gather on a stream. Internal to src/gpu.
 */
#ifndef CUZK_GPU_EVAL_CUH
#define CUZK_GPU_EVAL_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "cuzk/field.h"
#include "gpu/fr.cuh"

/* One matrix on the device (kernel argument: passed by value). */
typedef struct {
    uint32_t n_rows, n_long;
    const uint32_t *row, *col; /* n_rows + 1 offsets; columns */
    uint32_t *long_rows;       /* rows above the per-thread limit, summed by one warp each */
    const void *idx;           /* u8 or u16 table indices (compact forms) */
    const fr_t *coef, *val;    /* table (compact) or one value per term (plain) */
    uint32_t one_ix, neg_ix;   /* table indices of 1 and -1, or 0xffffffff */
    int form;                  /* 0 plain, 1 u8 indices, 2 u16 indices */
} eval_mat;

struct cuzk_gpu_cs {
    size_t nc, ni, n_aux;
    eval_mat m[3];     /* A, B, C */
    uint32_t *ia, *ib; /* z indices of the A scalars (n_a) and B scalars (n_b), the key's order */
    size_t n_a, n_b;
};

/* (device.cu) *dst = a new device allocation holding the bytes at src (NULL when bytes = 0); load time,
 * not the hot path. On error the message is "gpu: <what> failed: ..." and *dst is NULL or, when the copy
 * failed, allocated (the caller frees it with the rest). */
int gpu_upload(void **dst, const void *src, size_t bytes, const char *what, char *err, size_t errlen);

/* out[0 .. n_rows) = m · z (device pointers). */
int eval_matrix(const eval_mat *m, const cuzk_fr *z, cuzk_fr *out, cudaStream_t st, char *err, size_t errlen);
/* *bad (device) = the first i < n with a_i b_i != c_i, or ~0 when there is none. */
int eval_check(const cuzk_fr *a, const cuzk_fr *b, const cuzk_fr *c, size_t n, unsigned long long *bad,
               cudaStream_t st, char *err, size_t errlen);
/* out[k] = z[idx[k]], k < n. */
int eval_gather(const cuzk_fr *z, const uint32_t *idx, size_t n, cuzk_fr *out, cudaStream_t st, char *err,
                size_t errlen);

#endif
