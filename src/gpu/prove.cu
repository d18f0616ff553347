/*
 * prove.cu — bellperson-convention Groth16 on the GPU (cuzk/gpu_prove.h).
 *
 * The host prover (src/groth16/prove_bellperson.c) does the shape checks, the
 * evaluations a, b, c with the witness check, the A/B scalar gathering, the
 * assembly and the verification; this file supplies its heavy middle
 * (prove_accel): on the prover's stream, a, b and c are uploaded once; a·b
 * is interpolated on the domain, a and b are taken to the coset (iNTT
 * natural → bit-reversed, then coset NTT bit-reversed → natural), their
 * product is interpolated on the coset, and the H scalars, the quotient of
 * A·B by Z, come from the two interpolations by one more kernel, without
 * leaving the device (six transforms where the textbook pipeline, a·b − c on
 * the coset, has seven: bellperson_main); then the five MSMs run against the
 * resident key: H over a[0 .. m−1), L over the aux values, A and B (G1, G2)
 * over the gathered scalars. For a witness that satisfies the circuit (which
 * is checked before a proof leaves) h is the CPU prover's, and the sums are
 * the same, so the group elements, hence the proof bytes, are the same.
 *
 * With a resident circuit (cuzk_gpu_cs, eval.cu) the host does none of the
 * evaluation: z is uploaded once, a, b, c are evaluated on the device, the
 * check's first failing row is read back with the MSM results at the end
 * (a failing witness costs one wasted proof's kernels, a passing one no
 * extra synchronisation), the L scalars are z's aux part where it lies, and
 * the A and B scalars are gathered by the key's index lists into the scalar
 * buffer just before their MSMs.
 *
 * The B scalars have their own buffer (gathered or uploaded right after the
 * evaluation), read by B1 and B2, so the G2 MSM (B2) can run beside the G1
 * ones: a helper thread runs it on a second stream from a chosen point
 * (cuzk_gpu_prover_set_overlap: from the evaluation on by default, or after
 * H's MSM, or not at all), and the two streams meet before the proof's end
 * event.
 */
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/gpu_msm.h"
#include "cuzk/gpu_ntt.h"
#include "cuzk/msm.h"
#include "cuzk/gpu_prove.h"
#include "cuzk/timeline.h"
#define GPU_MODULE "gpu prove"
#include "gpu/cuda_check.cuh"
#include "gpu/eval.cuh"
#include "gpu/fr.cuh"
extern "C" {
#include "groth16/prove_common.h"
}

#define PROVE_THREADS 256

struct cuzk_gpu_pk {
    size_t n_h, n_l, n_a, n_b;
    size_t m;     /* the domain (cuzk_groth16_domain_size); 0: n_h + 1 (zkeys) */
    bool h_coset; /* the coset form (cuzk/groth16.h): H's scalars are A·B on the coset, m of them */
    unsigned table_k; /* l, a, b1, b2 held as their group tables of k (cuzk/msm.h); 0: as bases */
    cuzk_g1_affine *h, *l, *a, *b1; /* device, or (host[i]) the host key's pinned vectors */
    cuzk_g2_affine *b2;
    bool streamed;      /* some vector is read from host memory (host[]) */
    bool host[5];       /* h, l, a, b1, b2 (CUZK_GPU_PK_* order): left in host memory, streamed */
    bool registered[5]; /* which of them this object page-locked */
    size_t stage_bytes; /* streamed: bytes of one of a prover's two staging buffers */
};

/* EV_B2 (B2's start) and EV_MSM_B2 are recorded on the stream B2 runs on, the others on the prover's. */
enum {
    EV_START,
    EV_UPLOADED,
    EV_EVAL,
    EV_H,
    EV_MSM_H,
    EV_MSM_L,
    EV_MSM_A,
    EV_MSM_B1,
    EV_B2,
    EV_MSM_B2,
    EV_END,
    EV_B2_AFTER, /* the prover's stream at the point B2 starts beside it */
    EV_COUNT
};

/* One segment of a streamed key's bases: the host bytes one MSM call reads from a staging buffer. */
typedef struct {
    const uint8_t *src;
    size_t bytes;
} stage_seg;

struct cuzk_gpu_prover {
    const cuzk_gpu_pk *gpk; /* the key bound now (cuzk_gpu_prover_bind) */
    cuzk_gpu_shape cap;     /* the shape the buffers are made for: each length at least the bound key's, and
                               z_cap and the staging buffers' bytes (0: none) */
    size_t m, n_sc;         /* the bound key's domain and scalar count (the buffers may be longer) */
    cuzk_fr *a, *b, *c, *sc;
    cuzk_fr *sb; /* the B scalars (n_b), read by B1 and B2 */
    cuzk_fr *z; /* device evaluation: the witness (z_cap values), allocated on first use */
    size_t z_cap;
    const cuzk_fr *z_put; /* cuzk_gpu_prover_put_z: z already holds these z_put_n host values */
    size_t z_put_n;
    unsigned long long *bad; /* device evaluation: the check's first failing row */
    cuzk_gpu_msm *g1, *g2;
    void *stage[2];        /* streamed key: bases of the next and the current segment */
    cudaEvent_t staged[2]; /* streamed key: stage[i]'s copy done */
    stage_seg *plan;       /* streamed key: the proof's segments in MSM order (stage_plan) */
    size_t plan_len, plan_cap, plan_used, plan_issued;
    int dev;              /* the device the prover was made on (the side thread selects it) */
    cudaStream_t st, st2; /* the prover's stream; the side stream (B2) */
    int overlap;          /* cuzk_gpu_overlap: where B2 starts */
    cudaEvent_t ev[EV_COUNT];
    cuzk_gpu_prove_times times;
};

static size_t max2(size_t a, size_t b)
{
    return a > b ? a : b;
}

/* ---- resident key ------------------------------------------------------------------ */

/* The query vectors in load order (h, l, a, b_g1, b_g2: the CUZK_GPU_PK_* bits) and their bytes. */
static void pk_vectors(const cuzk_groth16_params *pk, const void *src[5], size_t bytes[5])
{
    src[0] = pk->h, src[1] = pk->l, src[2] = pk->a, src[3] = pk->b_g1, src[4] = pk->b_g2;
    bytes[0] = pk->n_h * sizeof(cuzk_g1_affine), bytes[1] = pk->n_l * sizeof(cuzk_g1_affine);
    bytes[2] = pk->n_a * sizeof(cuzk_g1_affine), bytes[3] = pk->n_b * sizeof(cuzk_g1_affine);
    bytes[4] = pk->n_b * sizeof(cuzk_g2_affine);
}

/* A loaded key's five vector pointers in the same order (device, or host where host[i]). */
static void pk_slots(const cuzk_gpu_pk *g, void *v[5])
{
    v[0] = g->h, v[1] = g->l, v[2] = g->a, v[3] = g->b1, v[4] = g->b2;
}

extern "C" size_t cuzk_gpu_pk_bytes(const cuzk_groth16_params *pk)
{
    const void *src[5];
    size_t bytes[5], sum = 0;
    pk_vectors(pk, src, bytes);
    for (int i = 0; i < 5; i++)
        sum += bytes[i];
    return sum;
}

/* Every non-empty query vector of pk is present (both loaders need them all). */
static bool pk_complete(const cuzk_groth16_params *pk)
{
    return pk && (!pk->n_h || pk->h) && (!pk->n_l || pk->l) && (!pk->n_a || pk->a) &&
           (!pk->n_b || (pk->b_g1 && pk->b_g2));
}

extern "C" void cuzk_gpu_pk_free(cuzk_gpu_pk *g)
{
    if (!g)
        return;
    void *p[5];
    pk_slots(g, p);
    for (int i = 0; i < 5; i++) {
        if (!p[i])
            continue;
        if (!g->host[i])
            cudaFree(p[i]);
        else if (g->registered[i])
            cudaHostUnregister(p[i]);
    }
    free(g);
}

extern "C" void cuzk_gpu_pk_vector_bytes(const cuzk_groth16_params *pk, size_t bytes[5])
{
    const void *src[5];
    pk_vectors(pk, src, bytes);
}

extern "C" void cuzk_gpu_pk_table_bytes(const cuzk_groth16_params *pk, unsigned k, size_t bytes[5])
{
    const void *src[5];
    pk_vectors(pk, src, bytes);
    if (k < 2 || k > CUZK_GROUP_TABLE_MAX_K)
        return;
    bytes[1] = cuzk_group_table_len(pk->n_l, k) * sizeof(cuzk_g1_affine);
    bytes[2] = cuzk_group_table_len(pk->n_a, k) * sizeof(cuzk_g1_affine);
    bytes[3] = cuzk_group_table_len(pk->n_b, k) * sizeof(cuzk_g1_affine);
    bytes[4] = cuzk_group_table_len(pk->n_b, k) * sizeof(cuzk_g2_affine);
}

/* The table entries one chunk of a table's build holds on the host (its groups are whole: ≤ 192 MiB of
 * G1 entries, 384 MiB of G2). */
#define TABLE_CHUNK_ENTRIES ((size_t)1 << 21)

/* *dst (device) = the group table of k of the n bases at src (G2 when g2), made on the host chunk by chunk
 * with pool's threads into one page-locked buffer and copied up after each chunk: the host never holds a
 * whole table. */
static int table_upload(void **dst, const void *src, size_t n, bool g2, unsigned k, cuzk_pool *pool,
                        const char *what, char *err, size_t errlen)
{
    *dst = NULL;
    size_t len = cuzk_group_table_len(n, k), psz = g2 ? sizeof(cuzk_g2_affine) : sizeof(cuzk_g1_affine);
    if (!len)
        return CUZK_OK;
    size_t per = ((size_t)1 << k) - 1, chunk_groups = TABLE_CHUNK_ENTRIES / per;
    size_t chunk_groups_n = (n + k - 1) / k < chunk_groups ? (n + k - 1) / k : chunk_groups;
    void *buf = NULL;
    cudaError_t e = cudaMalloc(dst, len * psz);
    if (e != cudaSuccess) {
        *dst = NULL;
        return cuda_fail(err, errlen, what, e);
    }
    e = cudaHostAlloc(&buf, chunk_groups_n * per * psz, cudaHostAllocDefault);
    if (e != cudaSuccess) {
        cudaFree(*dst), *dst = NULL;
        return cuda_fail(err, errlen, "a group table's page-locked chunk (cudaHostAlloc)", e);
    }
    int rc = CUZK_OK;
    for (size_t g = 0; g * k < n && rc == CUZK_OK; g += chunk_groups) {
        size_t lo = g * k, cnt = n - lo < chunk_groups * k ? n - lo : chunk_groups * k;
        size_t ents = cuzk_group_table_len(cnt, k);
        rc = g2 ? cuzk_g2_group_table((cuzk_g2_affine *)buf, (const cuzk_g2_affine *)src + lo, cnt, k, pool)
                : cuzk_g1_group_table((cuzk_g1_affine *)buf, (const cuzk_g1_affine *)src + lo, cnt, k, pool);
        if (rc) {
            rc = cuzk_fail(err, errlen, rc, "gpu prove: %s: the host could not make the group table", what);
            break;
        }
        e = cudaMemcpy((uint8_t *)*dst + g * per * psz, buf, ents * psz, cudaMemcpyHostToDevice);
        if (e != cudaSuccess)
            rc = cuda_fail(err, errlen, what, e);
    }
    cudaFreeHost(buf);
    if (rc)
        cudaFree(*dst), *dst = NULL;
    return rc;
}

extern "C" size_t cuzk_gpu_stage_bytes(const cuzk_groth16_params *pk, unsigned resident)
{
    const void *src[5];
    size_t bytes[5], largest = 0;
    pk_vectors(pk, src, bytes);
    for (int i = 0; i < 5; i++)
        if (!(resident >> i & 1))
            largest = max2(largest, bytes[i]);
    return max2(largest < CUZK_GPU_STAGE_BYTES ? largest : CUZK_GPU_STAGE_BYTES, sizeof(cuzk_g2_affine));
}

/* The key with the vectors of `resident` (CUZK_GPU_PK_* bits) copied to the device and the others left in
 * host memory, page-locked here, each of their MSMs streaming the bases through two staging buffers of
 * the prover: the copy of segment i + 1 runs beside the MSM of segment i. */
static int pk_load(cuzk_gpu_pk **out, const cuzk_groth16_params *pk, unsigned resident, size_t stage_bytes,
                   unsigned table_k, cuzk_pool *pool, char *err, size_t errlen)
{
    *out = NULL;
    if (!pk_complete(pk))
        return cuzk_fail(err, errlen, CUZK_EINVAL, "gpu prove: the key is missing a query vector");
    if (resident & ~CUZK_GPU_PK_ALL)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "gpu prove: resident vectors 0x%x outside 0x%x", resident,
                         CUZK_GPU_PK_ALL);
    bool streamed = resident != CUZK_GPU_PK_ALL;
    if (streamed && stage_bytes && stage_bytes < sizeof(cuzk_g2_affine))
        return cuzk_fail(err, errlen, CUZK_EINVAL, "gpu prove: a %zu-byte staging buffer holds no G2 point",
                         stage_bytes);
    cuzk_gpu_pk *g = (cuzk_gpu_pk *)calloc(1, sizeof *g);
    if (!g)
        return cuzk_fail(err, errlen, CUZK_ENOMEM, "gpu prove: out of host memory");
    g->n_h = pk->n_h, g->n_l = pk->n_l, g->n_a = pk->n_a, g->n_b = pk->n_b;
    g->m = cuzk_groth16_domain_size(pk), g->h_coset = pk->h_coset;
    g->streamed = streamed;
    g->table_k = table_k;
    if (streamed)
        g->stage_bytes = stage_bytes ? stage_bytes : cuzk_gpu_stage_bytes(pk, resident);
    const void *src[5];
    size_t bytes[5];
    pk_vectors(pk, src, bytes);
    void **dst[5] = {(void **)&g->h, (void **)&g->l, (void **)&g->a, (void **)&g->b1, (void **)&g->b2};
    static const char *const what[5] = {"upload of h", "upload of l", "upload of a", "upload of b_g1",
                                        "upload of b_g2"};
    for (int i = 0; i < 5; i++) {
        if (resident >> i & 1) {
            size_t psz = i == 4 ? sizeof(cuzk_g2_affine) : sizeof(cuzk_g1_affine);
            int rc = table_k && i ? table_upload(dst[i], src[i], bytes[i] / psz, i == 4, table_k, pool, what[i],
                                                 err, errlen)
                                  : gpu_upload(dst[i], src[i], bytes[i], what[i], err, errlen);
            if (rc) {
                cuzk_gpu_pk_free(g);
                return rc;
            }
            continue;
        }
        g->host[i] = true;
        *dst[i] = (void *)src[i];
        if (!bytes[i])
            continue;
        /* portable: the same host key may be streamed to several devices (one registration serves all) */
        cudaError_t e = cudaHostRegister(*dst[i], bytes[i], cudaHostRegisterPortable);
        if (e == cudaErrorHostMemoryAlreadyRegistered) { /* pinned by its owner: use it as it is */
            cudaGetLastError();
            continue;
        }
        if (e != cudaSuccess) {
            cuzk_gpu_pk_free(g);
            return cuda_fail(err, errlen, "page-locking the key (cudaHostRegister)", e);
        }
        g->registered[i] = true;
    }
    *out = g;
    return CUZK_OK;
}

extern "C" int cuzk_gpu_pk_load_streamed(cuzk_gpu_pk **out, const cuzk_groth16_params *pk, size_t stage_bytes,
                                         char *err, size_t errlen)
{
    return pk_load(out, pk, 0, stage_bytes, 0, NULL, err, errlen);
}

extern "C" int cuzk_gpu_pk_load_mixed(cuzk_gpu_pk **out, const cuzk_groth16_params *pk, unsigned resident,
                                      size_t stage_bytes, char *err, size_t errlen)
{
    return pk_load(out, pk, resident, stage_bytes, 0, NULL, err, errlen);
}

extern "C" int cuzk_gpu_pk_load_tables(cuzk_gpu_pk **out, const cuzk_groth16_params *pk, unsigned k,
                                       cuzk_pool *pool, char *err, size_t errlen)
{
    *out = NULL;
    if (k < 2 || k > CUZK_GROUP_TABLE_MAX_K)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "gpu prove: group tables need k in 2..%d, not %u",
                         CUZK_GROUP_TABLE_MAX_K, k);
    return pk_load(out, pk, CUZK_GPU_PK_ALL, 0, k, pool, err, errlen);
}

extern "C" int cuzk_gpu_pk_load(cuzk_gpu_pk **out, const cuzk_groth16_params *pk, char *err, size_t errlen)
{
    return pk_load(out, pk, CUZK_GPU_PK_ALL, 0, 0, NULL, err, errlen);
}

/* ---- per-worker prover ---------------------------------------------------------------- */

static size_t prover_g1_n(size_t n_h, size_t n_l, size_t n_a, size_t n_b)
{
    return max2(1, max2(max2(n_h, n_l), max2(n_a, n_b)));
}

/* The domain a shape's buffers hold: m, or n_h + 1 where m is not given (bellperson's layout). */
static size_t shape_m(const cuzk_gpu_shape *s)
{
    return s->m ? s->m : s->n_h + 1;
}

extern "C" cuzk_gpu_shape cuzk_gpu_shape_max(cuzk_gpu_shape x, cuzk_gpu_shape y)
{
    return (cuzk_gpu_shape){max2(x.n_h, y.n_h),
                            max2(x.n_l, y.n_l),
                            max2(x.n_a, y.n_a),
                            max2(x.n_b, y.n_b),
                            max2(x.n_z, y.n_z),
                            max2(x.stage_bytes, y.stage_bytes),
                            max2(shape_m(&x), shape_m(&y))};
}

/* Every length of x at most y's. */
static bool shape_within(const cuzk_gpu_shape *x, const cuzk_gpu_shape *y)
{
    return shape_m(x) <= shape_m(y) && x->n_h <= y->n_h && x->n_l <= y->n_l && x->n_a <= y->n_a &&
           x->n_b <= y->n_b && x->n_z <= y->n_z && x->stage_bytes <= y->stage_bytes;
}

extern "C" size_t cuzk_gpu_prover_bytes_shape(const cuzk_gpu_shape *s)
{
    size_t m = shape_m(s), n_sc = max2(1, max2(s->n_l, max2(s->n_a, s->n_b)));
    size_t n_g1 = prover_g1_n(s->n_h, s->n_l, s->n_a, s->n_b);
    size_t lent = cuzk_gpu_msm_lendable_bytes(CUZK_GPU_G1, n_g1);
    return (3 * m + n_sc + max2(1, s->n_b) + s->n_z) * sizeof(cuzk_fr) + 2 * s->stage_bytes +
           cuzk_gpu_msm_workspace_bytes(CUZK_GPU_G1, n_g1) - (lent <= 2 * m * sizeof(cuzk_fr) ? lent : 0) +
           cuzk_gpu_msm_workspace_bytes(CUZK_GPU_G2, max2(1, s->n_b));
}

extern "C" size_t cuzk_gpu_prover_bytes(const cuzk_groth16_params *pk)
{
    cuzk_gpu_shape s = {pk->n_h, pk->n_l, pk->n_a, pk->n_b, 0, 0, cuzk_groth16_domain_size(pk)};
    return cuzk_gpu_prover_bytes_shape(&s);
}

/* Frees everything a prover holds on the device (its buffers, workspaces, staging buffers, streams and
 * events), leaving an empty prover that prover_alloc can fill again. */
static void prover_release(cuzk_gpu_prover *p)
{
    void *ptrs[] = {p->a, p->b, p->sc, p->sb, p->z, p->bad}; /* c is the second half of b's allocation */
    for (int i = 0; i < 6; i++)
        if (ptrs[i])
            cudaFree(ptrs[i]);
    p->a = p->b = p->c = p->sc = p->sb = p->z = NULL;
    p->bad = NULL;
    p->z_cap = 0, p->z_put = NULL, p->z_put_n = 0;
    cuzk_gpu_msm_free(p->g1);
    cuzk_gpu_msm_free(p->g2);
    p->g1 = p->g2 = NULL;
    free(p->plan);
    p->plan = NULL, p->plan_len = p->plan_cap = p->plan_used = p->plan_issued = 0;
    for (int i = 0; i < 2; i++) {
        if (p->stage[i])
            cudaFree(p->stage[i]);
        if (p->staged[i])
            cudaEventDestroy(p->staged[i]);
        p->stage[i] = NULL, p->staged[i] = NULL;
    }
    for (int i = 0; i < EV_COUNT; i++) {
        if (p->ev[i])
            cudaEventDestroy(p->ev[i]);
        p->ev[i] = NULL;
    }
    if (p->st)
        cudaStreamDestroy(p->st);
    if (p->st2)
        cudaStreamDestroy(p->st2);
    p->st = p->st2 = NULL;
}

extern "C" void cuzk_gpu_prover_free(cuzk_gpu_prover *p)
{
    if (!p)
        return;
    prover_release(p);
    free(p);
}

/* The buffers for p->cap (the witness too when cap.n_z is set, two staging buffers when cap.stage_bytes
 * is). */
static int prover_alloc(cuzk_gpu_prover *p, char *err, size_t errlen)
{
    const cuzk_gpu_shape *s = &p->cap;
    size_t m = shape_m(s), n_sc = max2(1, max2(s->n_l, max2(s->n_a, s->n_b)));
    CU(cudaMalloc((void **)&p->a, m * sizeof(cuzk_fr)), "cudaMalloc of a");
    /* b and c in one allocation: idle while the MSMs run, it holds the G1 workspace's tree lists then */
    CU(cudaMalloc((void **)&p->b, 2 * m * sizeof(cuzk_fr)), "cudaMalloc of b and c");
    p->c = p->b + m;
    CU(cudaMalloc((void **)&p->sc, n_sc * sizeof(cuzk_fr)), "cudaMalloc of the scalars");
    CU(cudaMalloc((void **)&p->sb, max2(1, s->n_b) * sizeof(cuzk_fr)), "cudaMalloc of the B scalars");
    CU(cudaMalloc((void **)&p->bad, sizeof *p->bad), "cudaMalloc of the check's row");
    if (s->n_z) { /* the witness of device evaluation, made now when the shape says how long */
        CU(cudaMalloc((void **)&p->z, s->n_z * sizeof(cuzk_fr)), "cudaMalloc of the witness");
        p->z_cap = s->n_z;
    }
    int rc = cuzk_gpu_msm_new_lent(&p->g1, CUZK_GPU_G1, prover_g1_n(s->n_h, s->n_l, s->n_a, s->n_b), p->b,
                                   2 * m * sizeof(cuzk_fr), err, errlen);
    if (!rc)
        rc = cuzk_gpu_msm_new(&p->g2, CUZK_GPU_G2, max2(1, s->n_b), err, errlen);
    if (rc)
        return rc;
    CU(cudaGetDevice(&p->dev), "cudaGetDevice");
    CU(cudaStreamCreateWithPriority(&p->st, cudaStreamNonBlocking, gpu_work_priority()), "cudaStreamCreate");
    CU(cudaStreamCreateWithFlags(&p->st2, cudaStreamNonBlocking), "cudaStreamCreate (side)");
    for (int i = 0; i < EV_COUNT; i++)
        CU(cudaEventCreate(&p->ev[i]), "cudaEventCreate");
    if (s->stage_bytes)
        for (int i = 0; i < 2; i++) {
            CU(cudaMalloc(&p->stage[i], s->stage_bytes), "cudaMalloc of a staging buffer");
            CU(cudaEventCreateWithFlags(&p->staged[i], cudaEventDisableTiming), "cudaEventCreate");
        }
    return CUZK_OK;
}

extern "C" int cuzk_gpu_prover_bind(cuzk_gpu_prover **pp, const cuzk_gpu_pk *gpk, const cuzk_gpu_shape *room,
                                    char *err, size_t errlen)
{
    if (!pp || !gpk)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "gpu prove: no prover or no key");
    cuzk_gpu_prover *p = *pp;
    bool fresh = !p;
    if (fresh) {
        if (!(p = (cuzk_gpu_prover *)calloc(1, sizeof *p)))
            return cuzk_fail(err, errlen, CUZK_ENOMEM, "gpu prove: out of host memory");
        p->overlap = CUZK_GPU_OVERLAP_EVAL;
    }
    cuzk_gpu_shape need = {gpk->n_h, gpk->n_l, gpk->n_a, gpk->n_b, 0, gpk->streamed ? gpk->stage_bytes : 0,
                           gpk->m};
    bool fits = p->a && shape_within(&need, &p->cap) && (!room || shape_within(room, &p->cap));
    if (!fits) { /* made again, for every shape it has held or been told to expect */
        cuzk_gpu_shape cap = cuzk_gpu_shape_max(need, room ? *room : need);
        if (p->a)
            cap = cuzk_gpu_shape_max(cap, p->cap);
        prover_release(p);
        p->gpk = NULL;
        p->cap = cap;
        int rc = prover_alloc(p, err, errlen);
        if (rc) {
            prover_release(p);
            p->cap = (cuzk_gpu_shape){0, 0, 0, 0, 0, 0, 0};
            if (fresh)
                free(p);
            return rc;
        }
    }
    p->gpk = gpk;
    p->m = gpk->m ? gpk->m : gpk->n_h + 1;
    p->n_sc = max2(1, max2(gpk->n_l, max2(gpk->n_a, gpk->n_b)));
    *pp = p;
    return CUZK_OK;
}

extern "C" int cuzk_gpu_prover_new(cuzk_gpu_prover **out, const cuzk_gpu_pk *gpk, char *err, size_t errlen)
{
    *out = NULL;
    if (!gpk)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "gpu prove: no key");
    return cuzk_gpu_prover_bind(out, gpk, NULL, err, errlen);
}

extern "C" void cuzk_gpu_prover_times(const cuzk_gpu_prover *p, cuzk_gpu_prove_times *t)
{
    *t = p->times;
}

/* ---- the heavy middle ------------------------------------------------------------------ */

/* The stage times of the proof whose events were just recorded (after EV_END completed). msm_b2 is B2's
 * own span, which overlaps the others' unless the overlap is CUZK_GPU_OVERLAP_NONE. */
static void record_times(cuzk_gpu_prover *p)
{
    cuzk_gpu_prove_times *t = &p->times;
    cudaEventElapsedTime(&t->upload, p->ev[EV_START], p->ev[EV_UPLOADED]);
    cudaEventElapsedTime(&t->eval, p->ev[EV_UPLOADED], p->ev[EV_EVAL]);
    cudaEventElapsedTime(&t->h, p->ev[EV_EVAL], p->ev[EV_H]);
    cudaEventElapsedTime(&t->msm_h, p->ev[EV_H], p->ev[EV_MSM_H]);
    cudaEventElapsedTime(&t->msm_l, p->ev[EV_MSM_H], p->ev[EV_MSM_L]);
    cudaEventElapsedTime(&t->msm_a, p->ev[EV_MSM_L], p->ev[EV_MSM_A]);
    cudaEventElapsedTime(&t->msm_b1, p->ev[EV_MSM_A], p->ev[EV_MSM_B1]);
    cudaEventElapsedTime(&t->msm_b2, p->ev[EV_B2], p->ev[EV_MSM_B2]);
    cudaEventElapsedTime(&t->b2_start, p->ev[EV_START], p->ev[EV_B2]);
    cudaEventElapsedTime(&t->total, p->ev[EV_START], p->ev[EV_END]);
    t->end_us = cuzk_timeline_clock_us();
}

/* c = a·b; c may be a (each element is read before it is written, by its own thread) */
__global__ void k_product(const fr_t *a, const fr_t *__restrict__ b, fr_t *c, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        fr_store(c + i, fr_mul(fr_load(a + i), fr_load(b + i)));
}

/* a = (a·b − c)·k */
__global__ void k_quotient(fr_t *a, const fr_t *__restrict__ b, const fr_t *__restrict__ c, fr_t k, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    fr_t x = fr_mul(fr_load(a + i), fr_load(b + i));
    fr_store(a + i, fr_mul(fr_sub(x, fr_load(c + i)), k));
}

/* x's values on the domain to its values on the coset: an inverse transform and a forward coset one. The
 * inverse's n^-1 moves into the coset's factor table (scale n cancels it, scale n^-1 joins g^i), which
 * saves a product an element. */
static int to_coset(cuzk_fr *x, const cuzk_ntt_domain *d, cudaStream_t st, char *err, size_t errlen)
{
    cuzk_fr n;
    cuzk_fr_from_u64(&n, d->n);
    cuzk_gpu_ntt_extra unscaled = {NULL, NULL, &n, NULL, NULL}, scaled = {NULL, NULL, &d->n_inv, NULL, NULL};
    int rc = cuzk_gpu_ntt_ex(x, d->lg, CUZK_NTT_INVERSE, CUZK_NTT_NR, false, d, &unscaled, st, err, errlen);
    if (!rc)
        rc = cuzk_gpu_ntt_ex(x, d->lg, CUZK_NTT_FORWARD, CUZK_NTT_RN, true, d, &scaled, st, err, errlen);
    return rc;
}

static int gpu_msm_stage(cuzk_gpu_prover *p, int ev, int (*run)(cuzk_gpu_prover *, void *, char *, size_t),
                         void *arg, char *err, size_t errlen)
{
    int rc = run(p, arg, err, errlen);
    if (rc)
        return rc;
    CU(cudaEventRecord(p->ev[ev], p->st), "cudaEventRecord");
    return CUZK_OK;
}

struct msm_arg {
    const void *bases;
    const cuzk_fr *scalars; /* device */
    size_t n;
    bool g2;
    void *out;
};

/* ---- streamed key: one copy pipeline for the whole proof ----------------------------------- */

/* Streamed key: every MSM of a proof reads its bases from the staging buffers, segment by segment, in an
 * order known when the proof starts (H, L, A, B1, B2). The plan lists those segments; the copy of
 * segment k + 1 (into stage[(k + 1) % 2]) is issued on the side stream before the MSM of segment k
 * runs, also across the end of one MSM and the start of the next, so the copy engine does not wait for
 * an MSM boundary (the first segment of H is copied during the evaluation and the transforms). Segment
 * k may only be copied once the MSM of segment k - 2, which read the same buffer, has returned (MSM
 * calls return when their kernels are done). */
static int stage_plan_add(cuzk_gpu_prover *p, const void *host, size_t n, size_t psz)
{
    size_t seg = p->gpk->stage_bytes / psz;
    for (size_t lo = 0; lo < n; lo += seg) {
        if (p->plan_len == p->plan_cap) {
            size_t cap = p->plan_cap ? 2 * p->plan_cap : 16;
            stage_seg *q = (stage_seg *)realloc(p->plan, cap * sizeof *q);
            if (!q)
                return CUZK_ENOMEM;
            p->plan = q, p->plan_cap = cap;
        }
        p->plan[p->plan_len].src = (const uint8_t *)host + lo * psz;
        p->plan[p->plan_len++].bytes = (n - lo < seg ? n - lo : seg) * psz;
    }
    return CUZK_OK;
}

/* Issues the copies the plan allows now: segment k once the MSM of k - 2 is done (k < plan_used + 2). */
static int stage_top_up(cuzk_gpu_prover *p, char *err, size_t errlen)
{
    while (p->plan_issued < p->plan_len && p->plan_issued < p->plan_used + 2) {
        size_t k = p->plan_issued++;
        CU(cudaMemcpyAsync(p->stage[k % 2], p->plan[k].src, p->plan[k].bytes, cudaMemcpyHostToDevice, p->st2),
           "streaming key bases");
        CU(cudaEventRecord(p->staged[k % 2], p->st2), "cudaEventRecord");
    }
    return CUZK_OK;
}

/* The plan of one proof, its first copies issued once the prover's stream has passed `after` (the
 * witness upload: the copies then do not compete with it). Without room for the plan, none: every
 * segment is then copied when its MSM comes (run_msm_streamed). */
static int stage_plan(cuzk_gpu_prover *p, int after, char *err, size_t errlen)
{
    const cuzk_gpu_pk *g = p->gpk;
    p->plan_len = p->plan_used = p->plan_issued = 0;
    void *v[5];
    pk_slots(g, v);
    size_t n[5] = {g->n_h, g->n_l, g->n_a, g->n_b, g->n_b};
    for (int i = 0; i < 5; i++)
        if (g->host[i] &&
            stage_plan_add(p, v[i], n[i], i == 4 ? sizeof(cuzk_g2_affine) : sizeof(cuzk_g1_affine))) {
            p->plan_len = 0;
            return CUZK_OK;
        }
    if (!p->plan_len)
        return CUZK_OK;
    CU(cudaStreamWaitEvent(p->st2, p->ev[after], 0), "cudaStreamWaitEvent (streaming)");
    return stage_top_up(p, err, errlen);
}

/* Whether an MSM's bases are one of the key's vectors left in host memory. */
static bool pk_on_host(const cuzk_gpu_pk *g, const void *bases)
{
    void *v[5];
    pk_slots(g, v);
    for (int i = 0; i < 5; i++)
        if (g->host[i] && bases == v[i])
            return true;
    return false;
}

/* A streamed key's MSM: its segments (in the plan's order, or copied here when the call is not the
 * plan's next) summed on the host. */
static int run_msm_streamed(cuzk_gpu_prover *p, const msm_arg *a, char *err, size_t errlen)
{
    size_t psz = a->g2 ? sizeof(cuzk_g2_affine) : sizeof(cuzk_g1_affine);
    size_t seg = p->gpk->stage_bytes / psz;
    const uint8_t *host = (const uint8_t *)a->bases;
    cuzk_g1 acc1, part1;
    cuzk_g2 acc2, part2;
    cuzk_g1_set_identity(&acc1);
    cuzk_g2_set_identity(&acc2);
    for (size_t lo = 0; lo < a->n; lo += seg) {
        size_t cnt = a->n - lo < seg ? a->n - lo : seg, k = p->plan_used;
        int rc;
        if (k < p->plan_len && p->plan[k].src == host + lo * psz && p->plan[k].bytes == cnt * psz) {
            if ((rc = stage_top_up(p, err, errlen)))
                return rc;
        } else { /* off the plan: drop it; this copy is ordered after any still in flight on st2 */
            p->plan_len = p->plan_used = p->plan_issued = 0, k = 0;
            CU(cudaMemcpyAsync(p->stage[0], host + lo * psz, cnt * psz, cudaMemcpyHostToDevice, p->st2),
               "streaming key bases");
            CU(cudaEventRecord(p->staged[0], p->st2), "cudaEventRecord");
        }
        CU(cudaStreamWaitEvent(p->st, p->staged[k % 2], 0), "cudaStreamWaitEvent (staged bases)");
        rc = a->g2 ? cuzk_gpu_g2_msm(&part2, (const cuzk_g2_affine *)p->stage[k % 2], a->scalars + lo, cnt,
                                     p->g2, 0, p->st, NULL, err, errlen)
                   : cuzk_gpu_g1_msm(&part1, (const cuzk_g1_affine *)p->stage[k % 2], a->scalars + lo, cnt,
                                     p->g1, 0, p->st, NULL, err, errlen);
        if (rc)
            return rc;
        if (p->plan_len) { /* the MSM is done: its buffer may take the segment after next */
            p->plan_used++;
            if ((rc = stage_top_up(p, err, errlen)))
                return rc;
        }
        if (a->g2)
            cuzk_g2_add(&acc2, &acc2, &part2);
        else
            cuzk_g1_add(&acc1, &acc1, &part1);
    }
    if (a->g2)
        *(cuzk_g2 *)a->out = acc2;
    else
        *(cuzk_g1 *)a->out = acc1;
    return CUZK_OK;
}

/* The k of the group table an MSM's bases are (l, a, b1, b2 of a key loaded with tables), else 0. */
static unsigned pk_table_k(const cuzk_gpu_pk *g, const void *bases)
{
    return g->table_k && bases && bases != g->h &&
                   (bases == g->l || bases == g->a || bases == g->b1 || bases == g->b2)
               ? g->table_k
               : 0;
}

/* One resident MSM on `st`: from the group table where the key holds one, else from the bases. */
static int msm_resident(cuzk_gpu_prover *p, const msm_arg *a, cudaStream_t st, char *err, size_t errlen)
{
    unsigned k = pk_table_k(p->gpk, a->bases);
    if (a->g2)
        return k ? cuzk_gpu_g2_msm_table((cuzk_g2 *)a->out, (const cuzk_g2_affine *)a->bases, k, a->scalars, a->n,
                                         p->g2, 0, st, NULL, err, errlen)
                 : cuzk_gpu_g2_msm((cuzk_g2 *)a->out, (const cuzk_g2_affine *)a->bases, a->scalars, a->n, p->g2,
                                   0, st, NULL, err, errlen);
    return k ? cuzk_gpu_g1_msm_table((cuzk_g1 *)a->out, (const cuzk_g1_affine *)a->bases, k, a->scalars, a->n,
                                     p->g1, 0, st, NULL, err, errlen)
             : cuzk_gpu_g1_msm((cuzk_g1 *)a->out, (const cuzk_g1_affine *)a->bases, a->scalars, a->n, p->g1, 0,
                               st, NULL, err, errlen);
}

static int run_msm(cuzk_gpu_prover *p, void *varg, char *err, size_t errlen)
{
    msm_arg *a = (msm_arg *)varg;
    if (pk_on_host(p->gpk, a->bases))
        return run_msm_streamed(p, a, err, errlen);
    return msm_resident(p, a, p->st, err, errlen);
}

/* ---- B2 beside the G1 MSMs ------------------------------------------------------------------ */

extern "C" void cuzk_gpu_prover_set_overlap(cuzk_gpu_prover *p, cuzk_gpu_overlap mode)
{
    p->overlap = mode;
}

extern "C" void cuzk_gpu_prover_set_tree(cuzk_gpu_prover *p, size_t min_entries, size_t finish_slots)
{
    cuzk_gpu_msm_set_tree(p->g1, min_entries, finish_slots);
}

extern "C" void cuzk_gpu_prover_set_ones_split(cuzk_gpu_prover *p, unsigned launches)
{
    cuzk_gpu_msm_set_ones_split(p->g1, launches);
    cuzk_gpu_msm_set_ones_split(p->g2, launches);
}

typedef struct {
    cuzk_gpu_prover *p;
    const cuzk_fr *scalars; /* the B scalars on the device */
    cuzk_g2 *out;
    pthread_t th;
    bool started, done;
    int rc;
    char err[256];
} side_job;

/* B2 on `st` once the prover's event `after` has passed: EV_B2, the G2 MSM, EV_MSM_B2. */
static int b2_run(side_job *j, cudaStream_t st, int after, char *err, size_t errlen)
{
    cuzk_gpu_prover *p = j->p;
    if (after >= 0)
        CU(cudaStreamWaitEvent(st, p->ev[after], 0), "cudaStreamWaitEvent (B2)");
    CU(cudaEventRecord(p->ev[EV_B2], st), "cudaEventRecord");
    msm_arg mb2 = {p->gpk->b2, j->scalars, p->gpk->n_b, true, j->out};
    int rc = p->gpk->host[4] ? run_msm_streamed(p, &mb2, err, errlen) /* never beside (side_point): st is the
                                                                        prover's stream */
                             : msm_resident(p, &mb2, st, err, errlen);
    if (rc)
        return rc;
    CU(cudaEventRecord(p->ev[EV_MSM_B2], st), "cudaEventRecord");
    return CUZK_OK;
}

static void *side_main(void *arg)
{
    side_job *j = (side_job *)arg;
    cudaError_t e = cudaSetDevice(j->p->dev);
    j->rc = e != cudaSuccess ? cuda_fail(j->err, sizeof j->err, "cudaSetDevice (B2)", e)
                             : b2_run(j, j->p->st2, EV_B2_AFTER, j->err, sizeof j->err);
    return NULL;
}

/* At the point `at` of the prover's stream (an event just recorded there): when the prover's overlap
 * starts B2 there, B2 goes to the side stream on a helper thread (or runs here if no thread can be
 * made). The side stream waits for EV_B2_AFTER, which the caller has just recorded. */
static void side_point(side_job *j, cuzk_gpu_overlap at)
{
    if (j->started || j->done || j->p->overlap != (int)at || j->p->gpk->streamed)
        return; /* a streamed key's copies use the side stream: B2 waits for B1 */
    cudaEventRecord(j->p->ev[EV_B2_AFTER], j->p->st);
    j->started = pthread_create(&j->th, NULL, side_main, j) == 0;
    if (!j->started) {
        side_main(j);
        j->done = true;
    }
}

/* After the G1 MSMs: B2 here on the prover's stream if it has not started, else the helper joined and
 * its stream joined into the prover's; then EV_END, waited for. The first error wins (main's rc if set). */
static int side_finish(side_job *j, int rc, char *err, size_t errlen)
{
    if (j->started)
        pthread_join(j->th, NULL);
    bool beside = j->started || j->done;
    j->started = false;
    if (rc)
        return rc;
    if (beside && j->rc)
        return cuzk_fail(err, errlen, j->rc, "%s", j->err);
    if (!beside && (rc = b2_run(j, j->p->st, -1, err, errlen)))
        return rc;
    cudaError_t e = beside ? cudaStreamWaitEvent(j->p->st, j->p->ev[EV_MSM_B2], 0) : cudaSuccess;
    if (e == cudaSuccess)
        e = cudaEventRecord(j->p->ev[EV_END], j->p->st);
    if (e == cudaSuccess)
        e = cudaEventSynchronize(j->p->ev[EV_END]);
    if (e != cudaSuccess)
        return cuda_fail(err, errlen, "joining B2's stream", e);
    return CUZK_OK;
}

/* Uploads n host scalars into the prover's scalar buffer. */
static int put_scalars(cuzk_gpu_prover *p, const cuzk_fr *host, size_t n, char *err, size_t errlen)
{
    if (n)
        CU(cudaMemcpyAsync(p->sc, host, n * sizeof(cuzk_fr), cudaMemcpyHostToDevice, p->st),
           "upload of MSM scalars");
    return CUZK_OK;
}

typedef struct {
    cuzk_gpu_prover *p;
    const cuzk_gpu_cs *gcs; /* NULL: the host evaluated */
    const cuzk_fr *z_put;   /* the prover's put witness when the call began (one call uses it at most) */
    size_t z_put_n;
} heavy_ctx;

/* The witness buffer, at least n values (grown only when a larger circuit comes). */
static int z_reserve(cuzk_gpu_prover *p, size_t n, char *err, size_t errlen)
{
    if (p->z_cap >= n)
        return CUZK_OK;
    if (p->z)
        cudaFree(p->z);
    p->z = NULL, p->z_cap = 0;
    CU(cudaMalloc((void **)&p->z, n * sizeof(cuzk_fr)), "cudaMalloc of the witness");
    p->z_cap = n;
    p->cap.n_z = max2(p->cap.n_z, n); /* the shape says what the prover holds (cuzk_gpu_prover_bind) */
    return CUZK_OK;
}

/* z[i] from a packed witness (cuzk/zpack.h): a warp is one word of 32 values, so the word's three entries
 * are one broadcast read and the warp's 1 KB of z one coalesced write. */
__global__ void k_unpack(const uint32_t *__restrict__ ones, const uint32_t *__restrict__ other,
                         const uint32_t *__restrict__ start, const fr_t *__restrict__ tail, fr_t one, fr_t *z,
                         size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    size_t g = i / 32;
    uint32_t bit = 1u << (i % 32), o = other[g];
    fr_t v = fr_zero();
    if (o & bit)
        v = fr_load(tail + start[g] + __popc(o & (bit - 1)));
    else if (ones[g] & bit)
        v = one;
    fr_store(z + i, v);
}

/* zp's bytes into a (idle between proofs: the prover's own proof is the only user of it), then z from them,
 * on the side stream; each part at its offset in zp's buffer (which starts with ones). *done false when a
 * is too small for them (the caller copies z whole). */
static int put_packed(cuzk_gpu_prover *p, const cuzk_zpack *zp, bool *done, char *err, size_t errlen)
{
    size_t used = cuzk_zpack_used(zp);
    *done = false;
    if (!p->a || used > shape_m(&p->cap) * sizeof(cuzk_fr))
        return CUZK_OK;
    const uint8_t *base = (const uint8_t *)zp->ones, *d = (const uint8_t *)p->a;
    CU(cudaMemcpyAsync(p->a, base, used, cudaMemcpyHostToDevice, p->st2), "upload of the packed z");
    fr_t one;
    memcpy(&one, &zp->one, sizeof one);
    unsigned blocks = (unsigned)((zp->n + PROVE_THREADS - 1) / PROVE_THREADS);
    k_unpack<<<blocks, PROVE_THREADS, 0, p->st2>>>(
        (const uint32_t *)d, (const uint32_t *)(d + ((const uint8_t *)zp->other - base)),
        (const uint32_t *)(d + ((const uint8_t *)zp->start - base)),
        (const fr_t *)(d + ((const uint8_t *)zp->tail - base)), one, (fr_t *)p->z, zp->n);
    CU(cudaGetLastError(), "k_unpack launch");
    *done = true;
    return CUZK_OK;
}

extern "C" int cuzk_gpu_prover_put_zpack(cuzk_gpu_prover *p, const cuzk_fr *z, size_t n, const cuzk_zpack *zp,
                                         char *err, size_t errlen)
{
    p->z_put = NULL, p->z_put_n = 0;
    if (!z || !n)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "gpu prove: no witness to copy");
    if (zp && (zp->n != n || zp->n_other > zp->cap))
        return cuzk_fail(err, errlen, CUZK_EINVAL,
                         "gpu prove: the packed witness holds %zu values (%zu in a tail of %zu), z %zu",
                         zp->n, zp->n_other, zp->cap, n);
    int rc = z_reserve(p, n, err, errlen);
    if (rc)
        return rc;
    /* the side stream: no proof runs on this prover between calls, and the copy must not wait for
     * another prover's kernels (it runs beside them) */
    bool packed = false;
    if (zp && (rc = put_packed(p, zp, &packed, err, errlen)))
        return rc;
    if (!packed)
        CU(cudaMemcpyAsync(p->z, z, n * sizeof(cuzk_fr), cudaMemcpyHostToDevice, p->st2), "upload of z");
    CU(cudaStreamSynchronize(p->st2), "upload of z");
    p->z_put = z, p->z_put_n = n;
    return CUZK_OK;
}

extern "C" int cuzk_gpu_prover_put_z(cuzk_gpu_prover *p, const cuzk_fr *z, size_t n, char *err, size_t errlen)
{
    return cuzk_gpu_prover_put_zpack(p, z, n, NULL, err, errlen);
}

/* Device evaluation: z up, a, b, c from the resident matrices, the input rows of a, zero padding and the
 * check (its row read back at the end). */
static int device_eval(cuzk_gpu_prover *p, const cuzk_gpu_cs *gcs, const prove_heavy_in *in,
                       const cuzk_fr *z_put, size_t z_put_n, char *err, size_t errlen)
{
    cudaStream_t st = p->st;
    size_t nc = gcs->nc, ni = gcs->ni, nz = ni + gcs->n_aux, m = in->m;
    if (nc != in->nc || ni != in->ni || gcs->n_aux != in->n_aux || gcs->n_a != p->gpk->n_a ||
        gcs->n_b != p->gpk->n_b || nc + ni > m)
        return cuzk_fail(
            err, errlen, CUZK_EINVAL,
            "gpu prove: the device circuit (%zu rows, %zu inputs, %zu aux, %zu A and %zu B scalars) "
            "is not this proof's (%zu, %zu, %zu, %zu, %zu)",
            nc, ni, gcs->n_aux, gcs->n_a, gcs->n_b, in->nc, in->ni, in->n_aux, p->gpk->n_a, p->gpk->n_b);
    bool put = z_put == in->z_in && z_put_n == nz; /* copied by cuzk_gpu_prover_put_z */
    int rc;
    if (!put) {
        if ((rc = z_reserve(p, nz, err, errlen)))
            return rc;
        CU(cudaMemcpyAsync(p->z, in->z_in, nz * sizeof(cuzk_fr), cudaMemcpyHostToDevice, st), "upload of z");
    }
    CU(cudaEventRecord(p->ev[EV_UPLOADED], st), "cudaEventRecord");
    cuzk_fr *dst[3] = {p->a, p->b, p->c};
    for (int v = 0; v < 3; v++) {
        if ((rc = eval_matrix(&gcs->m[v], p->z, dst[v], st, err, errlen)))
            return rc;
        size_t done = nc;
        if (v == 0) {
            CU(cudaMemcpyAsync(p->a + nc, p->z, ni * sizeof(cuzk_fr), cudaMemcpyDeviceToDevice, st),
               "copy of the input rows");
            done += ni;
        }
        CU(cudaMemsetAsync(dst[v] + done, 0, (m - done) * sizeof(cuzk_fr), st), "zero padding");
    }
    if (in->check)
        return eval_check(p->a, p->b, p->c, nc, p->bad, st, err, errlen);
    CU(cudaMemsetAsync(p->bad, 0xff, sizeof *p->bad, st), "reset of the check's row");
    return CUZK_OK;
}

/* The scalars of one query into the scalar buffer: sc[k] = z[idx[k]], k < n. */
static int gather_scalars(cuzk_gpu_prover *p, const uint32_t *idx, size_t n, char *err, size_t errlen)
{
    return eval_gather(p->z, idx, n, p->sc, p->st, err, errlen);
}

static int bellperson_main(cuzk_gpu_prover *p, const cuzk_gpu_cs *gcs, const prove_heavy_in *in,
                           prove_heavy_out *o, side_job *side, char *err, size_t errlen);

static int gpu_heavy(void *ctx, const prove_heavy_in *in, prove_heavy_out *o, cuzk_pool *pool, char *err,
                     size_t errlen)
{
    const heavy_ctx *hc = (const heavy_ctx *)ctx;
    cuzk_gpu_prover *p = hc->p;
    const cuzk_gpu_cs *gcs = hc->gcs;
    const cuzk_gpu_pk *g = p->gpk;
    const cuzk_groth16_params *pk = in->pk;
    if (pk->n_h != g->n_h || pk->n_l != g->n_l || pk->n_a != g->n_a || pk->n_b != g->n_b || in->m != p->m ||
        pk->h_coset != g->h_coset)
        return cuzk_fail(err, errlen, CUZK_EINVAL,
                         "gpu prove: the device key (h %zu, l %zu, a %zu, b %zu) is not this key's shape (h %zu, "
                         "l %zu, a %zu, b %zu)",
                         g->n_h, g->n_l, g->n_a, g->n_b, pk->n_h, pk->n_l, pk->n_a, pk->n_b);
    cudaStream_t st = p->st;
    size_t m = in->m;
    CU(cudaEventRecord(p->ev[EV_START], st), "cudaEventRecord");
    int rc;
    if (gcs) {
        if ((rc = device_eval(p, gcs, in, hc->z_put, hc->z_put_n, err, errlen)))
            return rc;
    } else if (in->a) {
        CU(cudaMemcpyAsync(p->a, in->a, m * sizeof(cuzk_fr), cudaMemcpyHostToDevice, st), "upload of a");
        CU(cudaMemcpyAsync(p->b, in->b, m * sizeof(cuzk_fr), cudaMemcpyHostToDevice, st), "upload of b");
        CU(cudaMemcpyAsync(p->c, in->c, m * sizeof(cuzk_fr), cudaMemcpyHostToDevice, st), "upload of c");
    } else { /* the caller's rows (the engine's pinned buffers), the inputs' rows of a, zeros after */
        size_t nc = in->nc, ni = in->ni;
        if (nc + ni > m)
            return cuzk_fail(err, errlen, CUZK_EINVAL, "gpu prove: %zu + %zu rows exceed the domain %zu", nc,
                             ni, m);
        cuzk_fr *dst[3] = {p->a, p->b, p->c};
        for (int v = 0; v < 3; v++) {
            CU(cudaMemcpyAsync(dst[v], in->rows[v], nc * sizeof(cuzk_fr), cudaMemcpyHostToDevice, st),
               "upload of a circuit row vector");
            size_t done = nc;
            if (v == 0) {
                CU(cudaMemcpyAsync(dst[v] + nc, in->z_in, ni * sizeof(cuzk_fr), cudaMemcpyHostToDevice, st),
                   "upload of the input rows");
                done += ni;
            }
            CU(cudaMemsetAsync(dst[v] + done, 0, (m - done) * sizeof(cuzk_fr), st), "zero padding");
        }
    }
    if (!gcs)
        CU(cudaEventRecord(p->ev[EV_UPLOADED], st), "cudaEventRecord");
    CU(cudaEventRecord(p->ev[EV_EVAL], st), "cudaEventRecord");
    if (g->streamed && (rc = stage_plan(p, EV_UPLOADED, err, errlen)))
        return rc;
    /* the B scalars, for B1 and B2 */
    if (gcs) {
        if ((rc = eval_gather(p->z, gcs->ib, g->n_b, p->sb, st, err, errlen)))
            return rc;
    } else if (g->n_b)
        CU(cudaMemcpyAsync(p->sb, in->sb, g->n_b * sizeof(cuzk_fr), cudaMemcpyHostToDevice, st),
           "upload of the B scalars");
    side_job side = {};
    side.p = p;
    side.scalars = p->sb;
    side.out = (cuzk_g2 *)&o->b2;
    side_point(&side, CUZK_GPU_OVERLAP_EVAL);
    rc = bellperson_main(p, gcs, in, o, &side, err, errlen);
    if ((rc = side_finish(&side, rc, err, errlen)))
        return rc;
    record_times(p);
    if (gcs) {
        unsigned long long bad = 0;
        CU(cudaMemcpy(&bad, p->bad, sizeof bad, cudaMemcpyDeviceToHost), "read-back of the check's row");
        if (bad != ~0ULL)
            return cuzk_fail(err, errlen, CUZK_EUNSAT,
                             "prove: the witness does not satisfy constraint %llu (A·z · B·z != C·z)", bad);
    }
    return CUZK_OK;
}

/* The prover's stream after the B scalars: H, then the G1 MSMs. */
static int bellperson_main(cuzk_gpu_prover *p, const cuzk_gpu_cs *gcs, const prove_heavy_in *in,
                           prove_heavy_out *o, side_job *side, char *err, size_t errlen)
{
    const cuzk_gpu_pk *g = p->gpk;
    cudaStream_t st = p->st;
    size_t m = in->m;
    cuzk_ntt_domain d;
    int rc = cuzk_ntt_domain_init(&d, in->lg, CUZK_NTT_BELLPERSON, err, errlen);
    if (rc)
        return rc;
    /* h = (A·B − C)/Z with Z = X^n − 1. For a witness that satisfies the circuit, C = A·B mod Z, so h is
     * the quotient of A·B by Z: with A·B = P + X^n·Q (deg A·B <= 2n − 2, so h = Q), A·B on the domain
     * (a·b) interpolates to s = P + Q, and on the coset gH (where X^n = g^n) to d = P + g^n·Q; hence
     * h = (d − s)/(g^n − 1) = (d − s)·z_inv. Six transforms instead of the seven of the textbook pipeline
     * (which also takes C to the coset): c is left out, having served the satisfaction check (device
     * evaluation; the engine's host evaluation checks before the device phase).
     * The pointwise work rides in the transforms (cuzk_gpu_ntt_extra): c = n·s in bit-reversed order (the
     * first pass reads a·b; scale n cancels the inverse's n^-1, so the last pass multiplies by nothing),
     * then n·d − c, subtracted where the last transform's bit reversal moves its result — no pass of its
     * own for the products or the combination. That is h / κ with κ = z_inv / n, a constant: the MSM runs
     * on it and its sum is multiplied by κ once, on the host (saves a product an element). The last
     * transform runs on b times a and stores into a (dst: out of place, so its bit reversal rides in the
     * last pass's stores; a is read only by the first pass), leaving b and c, lent to the G1 MSM's
     * workspace, free for the MSMs. */
    cuzk_fr n_fr, kappa;
    cuzk_fr_from_u64(&n_fr, d.n);
    cuzk_fr_mul(&kappa, &d.z_inv, &d.n_inv);
    if (g->h_coset) {
        /* A key in the coset form (cuzk/groth16.h, docs/design/021) takes A·B on the coset as its m H
         * scalars: four transforms and one product pass, no s and no last inverse transform. */
        if (!(rc = to_coset(p->a, &d, st, err, errlen)) && !(rc = to_coset(p->b, &d, st, err, errlen))) {
            unsigned blocks = (unsigned)((m + PROVE_THREADS - 1) / PROVE_THREADS);
            k_product<<<blocks, PROVE_THREADS, 0, st>>>((const fr_t *)p->a, (const fr_t *)p->b, (fr_t *)p->a,
                                                        m);
            cudaError_t e = cudaGetLastError();
            if (e != cudaSuccess)
                rc = cuda_fail(err, errlen, "k_product launch", e);
        }
    } else {
        cuzk_gpu_ntt_extra ex_s = {p->a, p->b, &n_fr, NULL, NULL};
        rc = cuzk_gpu_ntt_ex(p->c, in->lg, CUZK_NTT_INVERSE, CUZK_NTT_NR, false, &d, &ex_s, st, err, errlen);
        if (!rc && !(rc = to_coset(p->a, &d, st, err, errlen)) &&
            !(rc = to_coset(p->b, &d, st, err, errlen))) {
            cuzk_gpu_ntt_extra ex_h = {NULL, p->a, &n_fr, p->c, p->a};
            rc = cuzk_gpu_ntt_ex(p->b, in->lg, CUZK_NTT_INVERSE, CUZK_NTT_NN, true, &d, &ex_h, st, err,
                                 errlen);
        }
    }
    cuzk_ntt_domain_release(&d);
    if (rc)
        return rc;
    CU(cudaEventRecord(p->ev[EV_H], st), "cudaEventRecord");

    /* H (scalars already on the device), then L, A, B1 (B2 is on the side stream); with device
     * evaluation the L scalars are z's aux part and the A scalars are gathered on the device */
    msm_arg mh = {g->h, p->a, g->n_h, false, &o->h};
    /* the L scalars: z's aux part, or all of z for a key in the coset form (cuzk/groth16.h) */
    size_t l_first = cuzk_groth16_l_first(in->pk, in->ni);
    msm_arg ml = {g->l, gcs ? p->z + l_first : p->sc, g->n_l, false, &o->l};
    msm_arg ma = {g->a, p->sc, g->n_a, false, &o->a};
    msm_arg mb1 = {g->b1, p->sb, g->n_b, false, &o->b1};
    if ((rc = gpu_msm_stage(p, EV_MSM_H, run_msm, &mh, err, errlen)))
        return rc;
    side_point(side, CUZK_GPU_OVERLAP_AFTER_H);
    if ((rc = gcs ? CUZK_OK : put_scalars(p, in->z_in + l_first, g->n_l, err, errlen)) ||
        (rc = gpu_msm_stage(p, EV_MSM_L, run_msm, &ml, err, errlen)) ||
        (rc = gcs ? gather_scalars(p, gcs->ia, g->n_a, err, errlen)
                  : put_scalars(p, in->sa, g->n_a, err, errlen)) ||
        (rc = gpu_msm_stage(p, EV_MSM_A, run_msm, &ma, err, errlen)) ||
        (rc = gpu_msm_stage(p, EV_MSM_B1, run_msm, &mb1, err, errlen)))
        return rc;
    if (!g->h_coset)
        cuzk_g1_mul_fr(&o->h, &o->h, &kappa); /* the MSM summed h / κ (above); on the host, beside B2 */
    return CUZK_OK;
}

extern "C" int cuzk_gpu_groth16_prove(cuzk_groth16_proof *out, const cuzk_groth16_params *pk,
                                      const cuzk_gpu_pk *gpk, cuzk_gpu_prover *prover, const cuzk_gpu_cs *gcs,
                                      const cuzk_cs *cs, const cuzk_fr *z, const cuzk_fr *r, const cuzk_fr *s,
                                      const cuzk_prove_opts *opts, cuzk_pool *pool, char *err, size_t errlen)
{
    if (!gpk || !prover || prover->gpk != gpk)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "gpu prove: the prover was not made for this device key");
    heavy_ctx hc = {prover, gcs, prover->z_put, prover->z_put_n};
    prover->z_put = NULL, prover->z_put_n = 0;
    prove_accel acc = {gpu_heavy, &hc, true, gcs != NULL};
    return prove_bellperson(out, pk, cs, z, r, s, opts, &acc, pool, err, errlen);
}

/* ---- snarkjs convention ------------------------------------------------------------------ */

/* The zkey's sections in the resident key's five slots: h = H (domainSize points), l = C (the private
 * variables), a = A, b1 = B1, b2 = B2 (every variable). */
extern "C" int cuzk_gpu_zkey_load(cuzk_gpu_pk **out, const cuzk_snarkjs_zkey *zk, cuzk_pool *pool, char *err,
                                  size_t errlen)
{
    *out = NULL;
    if (!zk)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "gpu prove: no zkey");
    if (zk->b1.count != zk->b2.count || zk->a.count != zk->b1.count)
        return cuzk_fail(err, errlen, CUZK_EINVAL,
                         "gpu prove: the zkey's A, B1 and B2 sections differ in length "
                         "(%zu, %zu, %zu)",
                         zk->a.count, zk->b1.count, zk->b2.count);
    cuzk_gpu_pk *g = (cuzk_gpu_pk *)calloc(1, sizeof *g);
    if (!g)
        return cuzk_fail(err, errlen, CUZK_ENOMEM, "gpu prove: out of host memory");
    g->n_h = zk->h.count, g->n_l = zk->c.count, g->n_a = zk->a.count, g->n_b = zk->b1.count;
    const cuzk_snarkjs_points *sec[5] = {&zk->h, &zk->c, &zk->a, &zk->b1, &zk->b2};
    void **dst[5] = {(void **)&g->h, (void **)&g->l, (void **)&g->a, (void **)&g->b1, (void **)&g->b2};
    int rc = CUZK_OK;
    for (int i = 0; i < 5 && !rc; i++) {
        void *host = NULL;
        bool g2 = i == 4;
        rc = prove_zkey_decode(&host, sec[i], g2, pool, err, errlen);
        if (!rc)
            rc = gpu_upload(dst[i], host,
                            sec[i]->count * (g2 ? sizeof(cuzk_g2_affine) : sizeof(cuzk_g1_affine)),
                            "upload of a zkey section", err, errlen);
        free(host);
    }
    if (rc) {
        cuzk_gpu_pk_free(g);
        return rc;
    }
    *out = g;
    return CUZK_OK;
}

/* Steps 2-5 of the snarkjs prover on the device: a, b up, c = a·b, the odd-coset transform of the three,
 * h = a·b − c in place of a, then the H MSM and, with the witness uploaded once, A, B1, B2 over every
 * value and C over the private ones. */
static int zkey_main(cuzk_gpu_prover *p, const prove_zkey_in *in, prove_zkey_out *o, side_job *side,
                     char *err, size_t errlen);

static int gpu_zkey_heavy(void *ctx, const prove_zkey_in *in, prove_zkey_out *o, cuzk_pool *pool, char *err,
                          size_t errlen)
{
    (void)pool;
    cuzk_gpu_prover *p = (cuzk_gpu_prover *)ctx;
    const cuzk_gpu_pk *g = p->gpk;
    const cuzk_snarkjs_zkey *zk = in->zk;
    size_t n = in->n, nv = zk->n_vars, npub = (size_t)zk->n_public + 1;
    if (g->n_h != n || g->n_a != nv || g->n_b != nv || g->n_l != nv - npub || p->m < n)
        return cuzk_fail(
            err, errlen, CUZK_EINVAL,
            "gpu prove: the device key (h %zu, c %zu, a/b %zu) is not this zkey's shape (h %zu, c %zu, "
            "a/b %zu)",
            g->n_h, g->n_l, g->n_a, n, nv - npub, nv);
    cudaStream_t st = p->st;
    CU(cudaEventRecord(p->ev[EV_START], st), "cudaEventRecord");
    CU(cudaMemcpyAsync(p->a, in->a, n * sizeof(cuzk_fr), cudaMemcpyHostToDevice, st), "upload of a");
    CU(cudaMemcpyAsync(p->b, in->b, n * sizeof(cuzk_fr), cudaMemcpyHostToDevice, st), "upload of b");
    CU(cudaMemcpyAsync(p->sc, in->w, nv * sizeof(cuzk_fr), cudaMemcpyHostToDevice, st), "upload of w");
    CU(cudaEventRecord(p->ev[EV_UPLOADED], st), "cudaEventRecord");
    unsigned blocks = (unsigned)((n + PROVE_THREADS - 1) / PROVE_THREADS);
    k_product<<<blocks, PROVE_THREADS, 0, st>>>((const fr_t *)p->a, (const fr_t *)p->b, (fr_t *)p->c, n);
    CU(cudaGetLastError(), "k_product launch");
    CU(cudaEventRecord(p->ev[EV_EVAL], st), "cudaEventRecord");
    side_job side = {};
    side.p = p;
    side.scalars = p->sc; /* B2 over every value: w, uploaded above */
    side.out = (cuzk_g2 *)&o->b2;
    side_point(&side, CUZK_GPU_OVERLAP_EVAL);
    int rc = zkey_main(p, in, o, &side, err, errlen);
    if ((rc = side_finish(&side, rc, err, errlen)))
        return rc;
    record_times(p);
    return CUZK_OK;
}

/* The prover's stream after EV_EVAL: the odd-coset transforms, h, then the G1 MSMs. */
static int zkey_main(cuzk_gpu_prover *p, const prove_zkey_in *in, prove_zkey_out *o, side_job *side,
                     char *err, size_t errlen)
{
    const cuzk_gpu_pk *g = p->gpk;
    size_t n = in->n, nv = in->zk->n_vars, npub = (size_t)in->zk->n_public + 1;
    cudaStream_t st = p->st;
    unsigned blocks = (unsigned)((n + PROVE_THREADS - 1) / PROVE_THREADS);
    cuzk_ntt_domain d;
    int rc = cuzk_ntt_domain_init(&d, in->lg, CUZK_NTT_SNARKJS, err, errlen);
    if (rc)
        return rc;
    if (!(rc = to_coset(p->a, &d, st, err, errlen)) && !(rc = to_coset(p->b, &d, st, err, errlen)) &&
        !(rc = to_coset(p->c, &d, st, err, errlen))) {
        k_quotient<<<blocks, PROVE_THREADS, 0, st>>>((fr_t *)p->a, (const fr_t *)p->b, (const fr_t *)p->c,
                                                     fr_one(), n);
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess)
            rc = cuda_fail(err, errlen, "k_quotient launch", e);
    }
    cuzk_ntt_domain_release(&d);
    if (rc)
        return rc;
    CU(cudaEventRecord(p->ev[EV_H], st), "cudaEventRecord");
    msm_arg mh = {g->h, p->a, n, false, &o->h};
    msm_arg mc = {g->l, p->sc + npub, nv - npub, false, &o->c};
    msm_arg ma = {g->a, p->sc, nv, false, &o->a};
    msm_arg mb1 = {g->b1, p->sc, nv, false, &o->b1};
    if ((rc = gpu_msm_stage(p, EV_MSM_H, run_msm, &mh, err, errlen)))
        return rc;
    side_point(side, CUZK_GPU_OVERLAP_AFTER_H);
    if ((rc = gpu_msm_stage(p, EV_MSM_L, run_msm, &mc, err, errlen)) ||
        (rc = gpu_msm_stage(p, EV_MSM_A, run_msm, &ma, err, errlen)) ||
        (rc = gpu_msm_stage(p, EV_MSM_B1, run_msm, &mb1, err, errlen)))
        return rc;
    return CUZK_OK;
}

extern "C" int cuzk_gpu_groth16_prove_zkey(cuzk_groth16_proof *out, cuzk_fr *public_out,
                                           const cuzk_snarkjs_zkey *zk, const cuzk_gpu_pk *gpk,
                                           cuzk_gpu_prover *prover, const cuzk_fr *w, size_t n_w,
                                           const cuzk_fr *r, const cuzk_fr *s, const cuzk_prove_opts *opts,
                                           cuzk_pool *pool, char *err, size_t errlen)
{
    if (!gpk || !prover || prover->gpk != gpk)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "gpu prove: the prover was not made for this device key");
    prove_zkey_accel acc = {gpu_zkey_heavy, prover};
    return prove_snarkjs(out, public_out, zk, w, n_w, r, s, opts, &acc, pool, err, errlen);
}
