/*
 * eval.cu — a = A·z, b = B·z, c = C·z, the witness check and the A/B scalar
 * gathering on the device, from matrices kept in VRAM (cuzk/gpu_prove.h,
 * cuzk_gpu_cs; docs/design/019-device-evaluation.md).
 *
 * Layout on the device, per matrix: 32-bit row offsets (the host keeps 64-bit
 * ones; a matrix above 2^32 − 1 terms is refused), 32-bit columns and the
 * coefficients as the host holds them: a table plus one u8 or u16 index per
 * term (compact form) or one Fr per term (plain form). The table's indices of
 * 1 and −1 are found at load time, so those terms cost an addition or a
 * subtraction instead of a multiplication (most terms of a real circuit).
 *
 * Rows: one thread per row for rows of at most EVAL_LONG terms; longer rows
 * (the packed bit checks, hundreds of terms) are listed at load time and
 * summed by one warp each, the lanes' partial sums added by shuffles, so one
 * long row does not hold a warp of short rows hostage.
 *
 * The check a·b = c runs over the circuit rows and keeps the smallest
 * failing row (atomicMin), which the prover reads back once at the end of
 * the proof: no extra synchronisation on the hot path.
 */
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/gpu_prove.h"
#define GPU_MODULE "gpu eval"
#include "gpu/cuda_check.cuh"
#include "gpu/eval.cuh"

#define EVAL_THREADS 256
#define EVAL_LONG 32 /* rows above this many terms are summed by a warp */
#define EVAL_NO_IX 0xffffffffu

enum { FORM_PLAIN, FORM_IDX8, FORM_IDX16 };

/* ---- kernels --------------------------------------------------------------------- */

template <int FORM>
static __device__ __forceinline__ fr_t eval_term(const eval_mat &m, uint32_t k, fr_t acc,
                                                 const fr_t *__restrict__ z)
{
    fr_t zv = fr_load(z + m.col[k]);
    if (FORM == FORM_PLAIN)
        return fr_add(acc, fr_mul(fr_load(m.val + k), zv));
    uint32_t ix =
        FORM == FORM_IDX8 ? (uint32_t)((const uint8_t *)m.idx)[k] : (uint32_t)((const uint16_t *)m.idx)[k];
    if (ix == m.one_ix)
        return fr_add(acc, zv);
    if (ix == m.neg_ix)
        return fr_sub(acc, zv);
    return fr_add(acc, fr_mul(fr_load(m.coef + ix), zv));
}

/* out[i] = row i · z for the short rows (long rows are left to k_rows_long). */
template <int FORM>
static __global__ void __launch_bounds__(EVAL_THREADS)
    k_rows(eval_mat m, const fr_t *__restrict__ z, fr_t *out)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m.n_rows)
        return;
    uint32_t lo = m.row[i], hi = m.row[i + 1];
    if (hi - lo > EVAL_LONG)
        return;
    fr_t acc = fr_zero();
    for (uint32_t k = lo; k < hi; k++)
        acc = eval_term<FORM>(m, k, acc, z);
    fr_store(out + i, acc);
}

static __device__ __forceinline__ fr_t fr_shfl_down(fr_t a, unsigned d)
{
    fr_t r;
#pragma unroll
    for (int w = 0; w < 8; w++)
        r.v[w] = __shfl_down_sync(0xffffffffu, a.v[w], d);
    return r;
}

/* One warp per listed long row. */
template <int FORM>
static __global__ void __launch_bounds__(EVAL_THREADS)
    k_rows_long(eval_mat m, const fr_t *__restrict__ z, fr_t *out)
{
    uint32_t warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
    if (warp >= m.n_long)
        return; /* whole warps leave together: blockDim is a multiple of 32 */
    uint32_t i = m.long_rows[warp], lo = m.row[i], hi = m.row[i + 1];
    fr_t acc = fr_zero();
    for (uint32_t k = lo + lane; k < hi; k += 32)
        acc = eval_term<FORM>(m, k, acc, z);
    for (unsigned d = 16; d; d /= 2)
        acc = fr_add(acc, fr_shfl_down(acc, d));
    if (lane == 0)
        fr_store(out + i, acc);
}

/* bad = min(bad, first i with a_i b_i != c_i). */
static __global__ void __launch_bounds__(EVAL_THREADS)
    k_check(const fr_t *__restrict__ a, const fr_t *__restrict__ b, const fr_t *__restrict__ c, uint32_t n,
            unsigned long long *bad)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    if (!fr_is_equal(fr_mul(fr_load(a + i), fr_load(b + i)), fr_load(c + i)))
        atomicMin(bad, (unsigned long long)i);
}

/* out[k] = z[idx[k]] */
static __global__ void __launch_bounds__(EVAL_THREADS)
    k_gather(const fr_t *__restrict__ z, const uint32_t *__restrict__ idx, size_t n, fr_t *out)
{
    size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n)
        fr_store(out + k, fr_load(z + idx[k]));
}

/* ---- launches ------------------------------------------------------------------------- */

static unsigned blocks_for(size_t n)
{
    return (unsigned)((n + EVAL_THREADS - 1) / EVAL_THREADS);
}

template <int FORM> static void launch_rows(const eval_mat &m, const fr_t *z, fr_t *out, cudaStream_t st)
{
    if (m.n_rows)
        k_rows<FORM><<<blocks_for(m.n_rows), EVAL_THREADS, 0, st>>>(m, z, out);
    if (m.n_long)
        k_rows_long<FORM><<<blocks_for((size_t)m.n_long * 32), EVAL_THREADS, 0, st>>>(m, z, out);
}

int eval_matrix(const eval_mat *m, const cuzk_fr *z, cuzk_fr *out, cudaStream_t st, char *err, size_t errlen)
{
    const fr_t *zz = (const fr_t *)z;
    fr_t *o = (fr_t *)out;
    if (m->form == FORM_PLAIN)
        launch_rows<FORM_PLAIN>(*m, zz, o, st);
    else if (m->form == FORM_IDX8)
        launch_rows<FORM_IDX8>(*m, zz, o, st);
    else
        launch_rows<FORM_IDX16>(*m, zz, o, st);
    CU(cudaGetLastError(), "row evaluation launch");
    return CUZK_OK;
}

int eval_check(const cuzk_fr *a, const cuzk_fr *b, const cuzk_fr *c, size_t n, unsigned long long *bad,
               cudaStream_t st, char *err, size_t errlen)
{
    CU(cudaMemsetAsync(bad, 0xff, sizeof *bad, st), "reset of the check's row");
    if (n)
        k_check<<<blocks_for(n), EVAL_THREADS, 0, st>>>((const fr_t *)a, (const fr_t *)b, (const fr_t *)c,
                                                        (uint32_t)n, bad);
    CU(cudaGetLastError(), "k_check launch");
    return CUZK_OK;
}

int eval_gather(const cuzk_fr *z, const uint32_t *idx, size_t n, cuzk_fr *out, cudaStream_t st, char *err,
                size_t errlen)
{
    if (n)
        k_gather<<<blocks_for(n), EVAL_THREADS, 0, st>>>((const fr_t *)z, idx, n, (fr_t *)out);
    CU(cudaGetLastError(), "k_gather launch");
    return CUZK_OK;
}

/* ---- the resident circuit ------------------------------------------------------------------- */

static void mat_free(eval_mat *m)
{
    void *p[] = {(void *)m->row, (void *)m->col,  (void *)m->idx,
                 (void *)m->val, (void *)m->coef, m->long_rows};
    for (int i = 0; i < 6; i++)
        if (p[i])
            cudaFree(p[i]);
    memset(m, 0, sizeof *m);
}

extern "C" void cuzk_gpu_cs_free(cuzk_gpu_cs *g)
{
    if (!g)
        return;
    for (int i = 0; i < 3; i++)
        mat_free(&g->m[i]);
    if (g->ia)
        cudaFree(g->ia);
    if (g->ib)
        cudaFree(g->ib);
    free(g);
}

static size_t mat_bytes(const cuzk_csr *m, size_t nc)
{
    size_t coef =
        m->val ? m->nnz * sizeof(cuzk_fr) : m->n_coef * sizeof(cuzk_fr) + m->nnz * (m->idx8 ? 1 : 2);
    return (nc + 1) * 4 + m->nnz * 4 + coef;
}

static bool bit_at(const uint64_t *bits, size_t i)
{
    return (bits[i / 64] >> (i % 64)) & 1;
}

extern "C" size_t cuzk_gpu_cs_bytes(const cuzk_cs *cs)
{
    size_t n = cs->n_inputs + cs->n_aux, b = 0;
    const cuzk_csr *ms[3] = {&cs->a, &cs->b, &cs->c};
    for (int i = 0; i < 3; i++)
        b += mat_bytes(ms[i], cs->n_constraints);
    return b + 2 * n * sizeof(uint32_t); /* bounds on the A and B index lists */
}

static int mat_load(eval_mat *d, const cuzk_csr *m, size_t nc, const char *name, char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    if (!cuzk_csr_coefs_ok(m))
        return cuzk_fail(err, errlen, CUZK_EINVAL, GPU_MODULE ": matrix %s has malformed coefficients", name);
    if (m->nnz > UINT32_MAX || nc >= UINT32_MAX)
        return cuzk_fail(err, errlen, CUZK_ERANGE,
                         GPU_MODULE
                         ": matrix %s has %llu terms in %zu rows; the device form holds at most 2^32 - 1",
                         name, (unsigned long long)m->nnz, nc);
    d->n_rows = (uint32_t)nc;
    d->form = m->val ? FORM_PLAIN : m->idx8 ? FORM_IDX8 : FORM_IDX16;
    d->one_ix = d->neg_ix = EVAL_NO_IX;
    uint32_t *row = (uint32_t *)malloc((nc + 1) * sizeof *row);
    if (!row)
        return cuzk_fail(err, errlen, CUZK_ENOMEM, GPU_MODULE ": out of host memory");
    size_t n_long = 0;
    for (size_t i = 0; i <= nc; i++) {
        row[i] = (uint32_t)m->row[i];
        if (i < nc && m->row[i + 1] - m->row[i] > EVAL_LONG)
            n_long++;
    }
    uint32_t *lr = (uint32_t *)malloc((n_long ? n_long : 1) * sizeof *lr);
    if (!lr) {
        free(row);
        return cuzk_fail(err, errlen, CUZK_ENOMEM, GPU_MODULE ": out of host memory");
    }
    for (size_t i = 0, k = 0; i < nc; i++)
        if (m->row[i + 1] - m->row[i] > EVAL_LONG)
            lr[k++] = (uint32_t)i;
    d->n_long = (uint32_t)n_long;
    int rc = gpu_upload((void **)(void *)&d->row, row, (nc + 1) * sizeof *row, "upload of row offsets", err,
                        errlen);
    if (!rc)
        rc = gpu_upload((void **)&d->long_rows, lr, n_long * sizeof *lr, "upload of the long rows", err,
                        errlen);
    free(row);
    free(lr);
    if (!rc)
        rc = gpu_upload((void **)(void *)&d->col, m->col, m->nnz * sizeof(uint32_t), "upload of columns", err,
                        errlen);
    if (rc)
        return rc;
    if (d->form == FORM_PLAIN)
        return gpu_upload((void **)(void *)&d->val, m->val, m->nnz * sizeof(cuzk_fr),
                          "upload of coefficients", err, errlen);
    cuzk_fr neg;
    cuzk_fr_neg(&neg, &CUZK_FR_ONE);
    for (uint32_t i = m->n_coef; i-- > 0;) { /* the first index of each, as any works */
        if (cuzk_fr_eq(&m->coef[i], &CUZK_FR_ONE))
            d->one_ix = i;
        if (cuzk_fr_eq(&m->coef[i], &neg))
            d->neg_ix = i;
    }
    if ((rc = gpu_upload((void **)(void *)&d->coef, m->coef, m->n_coef * sizeof(cuzk_fr),
                         "upload of the coefficient table", err, errlen)))
        return rc;
    return gpu_upload((void **)(void *)&d->idx,
                      d->form == FORM_IDX8 ? (const void *)m->idx8 : (const void *)m->idx16,
                      m->nnz * (d->form == FORM_IDX8 ? 1 : 2), "upload of coefficient indices", err, errlen);
}

/* The z indices of the A scalars (every input, then the aux dense in A) and of the B scalars (the dense
 * inputs, then the dense aux): the order of the key's a and b vectors. */
static int lists_load(cuzk_gpu_cs *g, const uint64_t *const dens[3], char *err, size_t errlen)
{
    size_t ni = g->ni, na = g->n_aux;
    g->n_a = ni + cuzk_cs_density_count(dens[0], na);
    g->n_b = cuzk_cs_density_count(dens[1], ni) + cuzk_cs_density_count(dens[2], na);
    if (ni + na > UINT32_MAX)
        return cuzk_fail(err, errlen, CUZK_ERANGE, GPU_MODULE ": %zu variables exceed 2^32 - 1", ni + na);
    uint32_t *ia = (uint32_t *)malloc((g->n_a ? g->n_a : 1) * sizeof *ia);
    uint32_t *ib = (uint32_t *)malloc((g->n_b ? g->n_b : 1) * sizeof *ib);
    int rc = CUZK_OK;
    if (!ia || !ib) {
        rc = cuzk_fail(err, errlen, CUZK_ENOMEM, GPU_MODULE ": out of host memory");
    } else {
        size_t ka = 0, kb = 0;
        for (size_t i = 0; i < ni; i++) {
            ia[ka++] = (uint32_t)i;
            if (bit_at(dens[1], i))
                ib[kb++] = (uint32_t)i;
        }
        for (size_t j = 0; j < na; j++) {
            if (bit_at(dens[0], j))
                ia[ka++] = (uint32_t)(ni + j);
            if (bit_at(dens[2], j))
                ib[kb++] = (uint32_t)(ni + j);
        }
        rc = gpu_upload((void **)&g->ia, ia, g->n_a * sizeof *ia, "upload of the A index list", err, errlen);
        if (!rc)
            rc = gpu_upload((void **)&g->ib, ib, g->n_b * sizeof *ib, "upload of the B index list", err,
                            errlen);
    }
    free(ia);
    free(ib);
    return rc;
}

extern "C" int cuzk_gpu_cs_load(cuzk_gpu_cs **out, const cuzk_cs *cs, const uint64_t *const density[3],
                                char *err, size_t errlen)
{
    *out = NULL;
    if (!cs || cs->n_inputs == 0)
        return cuzk_fail(err, errlen, CUZK_EINVAL, GPU_MODULE ": no circuit (or one without the input ONE)");
    cuzk_gpu_cs *g = (cuzk_gpu_cs *)calloc(1, sizeof *g);
    uint64_t *own[3] = {NULL, NULL, NULL};
    if (!g)
        return cuzk_fail(err, errlen, CUZK_ENOMEM, GPU_MODULE ": out of host memory");
    g->nc = cs->n_constraints, g->ni = cs->n_inputs, g->n_aux = cs->n_aux;
    const cuzk_csr *ms[3] = {&cs->a, &cs->b, &cs->c};
    static const char *names[3] = {"A", "B", "C"};
    int rc = CUZK_OK;
    for (int i = 0; i < 3 && !rc; i++)
        rc = mat_load(&g->m[i], ms[i], cs->n_constraints, names[i], err, errlen);
    const uint64_t *dens[3] = {NULL, NULL, NULL};
    if (!rc) {
        if (density && density[0] && density[1] && density[2]) {
            for (int i = 0; i < 3; i++)
                dens[i] = density[i];
        } else {
            size_t wa = (cs->n_aux + 63) / 64 + 1, wi = (cs->n_inputs + 63) / 64 + 1;
            own[0] = (uint64_t *)calloc(wa, 8), own[1] = (uint64_t *)calloc(wi, 8),
            own[2] = (uint64_t *)calloc(wa, 8);
            if (!own[0] || !own[1] || !own[2] || cuzk_cs_density(cs, own[0], own[1], own[2]) != CUZK_OK)
                rc =
                    cuzk_fail(err, errlen, CUZK_ENOMEM, GPU_MODULE ": out of memory for the density bitmaps");
            for (int i = 0; i < 3; i++)
                dens[i] = own[i];
        }
    }
    if (!rc)
        rc = lists_load(g, dens, err, errlen);
    for (int i = 0; i < 3; i++)
        free(own[i]);
    if (rc) {
        cuzk_gpu_cs_free(g);
        return rc;
    }
    *out = g;
    return CUZK_OK;
}
