/*
 * msm.c — CPU multi-scalar multiplication and bitmap sums for G1 and G2.
 *
 * This file holds what does not depend on the group: the signed-digit
 * recoding of scalars, the planner that picks the window size c and the
 * number of point ranges, and the scalar conversion. The group algorithms live
 * once in msm_impl.h, which is included twice below (G1 over Fp, G2 over Fp2).
 *
 * Recoding. A canonical scalar k < 2^255 is cut into c-bit windows w_j. Going
 * up from window 0, d_j = w_j + carry; if d_j >= 2^(c-1) it becomes
 * d_j - 2^c and carries 1 into the next window. With ceil(256/c) windows the
 * top window's raw bits are below 2^(c-1) (k < 2^255), so even with a carry it
 * is at most 2^(c-1) and is left as it is: every |d_j| <= 2^(c-1), which means
 * 2^(c-1) buckets per window instead of the 2^c - 1 of unsigned digits, and
 * negative digits subtract the point (negating an affine point is free).
 * The MSM does not store digits: a task handling window j recomputes d_j
 * from the scalar. The carry into window j is the top bit of the nearest
 * lower window that is not 0111..1 (such a window passes its incoming carry
 * through unchanged), so one or two window reads suffice.
 *
 * Scalars. cuzk_g*_msm takes Montgomery Fr elements and converts them to
 * canonical limbs once, in a parallel pass into a scratch copy; the _u64
 * entry points read canonical limbs directly (values >= 2^255 are reduced
 * below r on load).
 *
 * Buckets. Two ways to fill them (msm_impl.h has the details): XYZZ buckets
 * with one mixed addition per point, or affine buckets updated in batches of
 * up to MSM_BA_BATCH additions to distinct buckets that share one field
 * inversion (Montgomery's trick): about 0.7 of an XYZZ mixed addition per
 * point (docs/design/017-cpu-msm-batch-affine.md). Batches need enough
 * distinct buckets to fill, so the affine method is only planned from
 * window MSM_BA_MIN_C up.
 *
 * Planning. The cost of one (window, point range) task is modelled in units
 * of one XYZZ mixed addition: per point of the range one unit (XYZZ) or
 * MSM_BA_ADD_COST (affine), plus the bucket reduction: 1.4 units (a full XYZZ
 * addition) per bucket of the 2^(c-1), and per non-empty bucket another 1.4
 * (XYZZ) or 1 (affine). The affine reduction now runs in batches and costs
 * less than that; the model was kept because its choices (c = 13 at 2^16,
 * 16 at 2^20) are the fastest measured. The planner tries both methods,
 * every c <= 16 and every split of the points into nch ranges and keeps the
 * triple minimising rounds * task cost + the serial combination, where
 * rounds = ceil(windows * nch / threads). So 2 threads split by window only while 64
 * threads also split the points, and small n picks a small c. Every thread
 * owns one bucket array, so c is also capped to keep threads * 2^(c-1)
 * buckets within MSM_BUCKET_BUDGET (512 MiB); an affine bucket array also
 * holds an XYZZ overflow bucket and a flag byte per bucket (289 bytes per G1
 * bucket: c = 16 up to 56 threads; XYZZ buckets alone: 192 bytes, 85).
 */
#include "cuzk/msm.h"

#include <stdlib.h>
#include <string.h>

#include "arith/fp_asm.h"

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

/* Cost of a full XYZZ addition relative to a mixed one (12M+2S vs 8M+2S). */
#define MSM_FULL_ADD_COST 1.4
/* Points whose digits are computed ahead of the bucket loop (stack buffer). */
#define MSM_BLOCK 128
/* Upper bound on point ranges per window, in multiples of the thread count. */
#define MSM_MAX_SPLIT 16
/* Largest total size of the per-thread bucket arrays the planner chooses. */
#define MSM_BUCKET_BUDGET ((size_t)512 << 20)
/* Affine buckets: most additions sharing one inversion, the smallest window
 * planned with them, and the cost of one batched addition in XYZZ mixed
 * additions (measured; docs/design/017). -D can override them in tuning
 * builds. */
#ifndef MSM_BA_BATCH
#define MSM_BA_BATCH 256
#endif
#ifndef MSM_BA_MIN_C
#define MSM_BA_MIN_C 9
#endif
#ifndef MSM_BA_ADD_COST
#define MSM_BA_ADD_COST 0.7
#endif
/* A final batch smaller than this is not worth its inversion: the pending
 * points left then go to the XYZZ overflow buckets. */
#define MSM_BA_TAIL_MIN 16

/* Affine bucket flags: holds a point, has an addition in the open batch, has
 * a non-identity XYZZ overflow bucket. */
enum { MSM_BKT_AFF = 1, MSM_BKT_BUSY = 2, MSM_BKT_OVF = 4 };
/* What a batched addition turned out to be: distinct x, P + P, or P + (-P). */
enum { MSM_BA_ADD, MSM_BA_DBL, MSM_BA_NEG };

/* A point waiting for its bucket to leave the open batch. */
typedef struct {
    uint32_t b;   /* bucket index */
    uint32_t neg; /* subtract the base */
    size_t i;     /* base index */
} msm_ba_pending;

/* Plain 256-bit integer helpers for reducing canonical scalars mod r. */
static bool u256_geq(const uint64_t a[4], const uint64_t b[4])
{
    for (int i = 3; i >= 0; i--)
        if (a[i] != b[i])
            return a[i] > b[i];
    return true;
}

static void u256_sub(uint64_t a[4], const uint64_t b[4])
{
    unsigned __int128 br = 0;
    for (int i = 0; i < 4; i++) {
        unsigned __int128 t = (unsigned __int128)a[i] - b[i] - br;
        a[i] = (uint64_t)t;
        br = (t >> 64) & 1;
    }
}

size_t cuzk_msm_ndigits(unsigned c)
{
    return c ? (256 + c - 1) / c : 0;
}

/* Bits [pos, pos + c) of k (zero above bit 255); c <= 16. */
static inline uint32_t msm_window_bits(const uint64_t k[4], unsigned pos, unsigned c)
{
    unsigned limb = pos >> 6, sh = pos & 63;
    if (limb >= 4)
        return 0;
    uint64_t v = k[limb] >> sh;
    if (sh + c > 64 && limb + 1 < 4)
        v |= k[limb + 1] << (64 - sh);
    return (uint32_t)(v & ((1u << c) - 1));
}

/* Digit j of the signed recoding of k (k < 2^255, nwin = ndigits(c)). */
static inline int32_t msm_digit(const uint64_t k[4], unsigned j, unsigned c, unsigned nwin)
{
    uint32_t half = 1u << (c - 1);
    uint32_t carry = 0;
    for (unsigned i = j; i-- > 0;) {
        uint32_t w = msm_window_bits(k, i * c, c);
        if (w != half - 1) {
            carry = w >= half;
            break;
        }
    }
    int32_t d = (int32_t)(msm_window_bits(k, j * c, c) + carry);
    if (j + 1 < nwin && d >= (int32_t)half)
        d -= (int32_t)(1u << c);
    return d;
}

size_t cuzk_msm_recode(int32_t *digits, const uint64_t k[4], unsigned c)
{
    if (c < 1 || c > CUZK_MSM_MAX_WINDOW || (k[3] >> 63))
        return 0;
    unsigned nwin = (unsigned)cuzk_msm_ndigits(c);
    for (unsigned j = 0; j < nwin; j++)
        digits[j] = msm_digit(k, j, c, nwin);
    return nwin;
}

/* Canonical limbs of scalar i, brought below 2^255 (k may be any 256-bit value). */
static inline void msm_load_scalar(uint64_t out[4], const uint64_t (*k)[4], size_t i)
{
    memcpy(out, k[i], 4 * sizeof(uint64_t));
    if (out[3] >> 63)
        while (u256_geq(out, CUZK_R))
            u256_sub(out, CUZK_R);
}

/* Fr (Montgomery) scalars to canonical limbs, once per call rather than once
 * per window: a parallel pass into a buffer the caller frees. */
#define MSM_CONVERT_BLOCK 4096

typedef struct {
    const cuzk_fr *fr;
    uint64_t (*k)[4];
    size_t n;
} msm_convert_ctx;

static void msm_convert_task(void *arg, size_t task, int worker)
{
    const msm_convert_ctx *x = arg;
    size_t lo = task * MSM_CONVERT_BLOCK, hi = lo + MSM_CONVERT_BLOCK < x->n ? lo + MSM_CONVERT_BLOCK : x->n;
    for (size_t i = lo; i < hi; i++)
        cuzk_fr_to_canonical(x->k[i], &x->fr[i]);
}

static int msm_canonical(uint64_t (**out)[4], const cuzk_fr *fr, size_t n, cuzk_pool *pool)
{
    *out = NULL;
    if (n == 0 || !fr)
        return CUZK_OK;
    msm_convert_ctx x = {.fr = fr, .k = malloc(n * sizeof *x.k), .n = n};
    if (!x.k)
        return CUZK_ENOMEM;
    cuzk_pool_run(pool, (n + MSM_CONVERT_BLOCK - 1) / MSM_CONVERT_BLOCK, msm_convert_task, &x);
    *out = x.k;
    return CUZK_OK;
}

typedef struct {
    unsigned c, nwin;
    size_t nch, chunk; /* point ranges per window and their length */
    int buckets;       /* CUZK_MSM_BUCKETS_XYZZ or CUZK_MSM_BUCKETS_AFFINE */
} msm_plan;

static double msm_plan_cost(size_t n, size_t threads, unsigned c, size_t nch, bool affine)
{
    size_t nwin = cuzk_msm_ndigits(c), chunk = (n + nch - 1) / nch;
    double nb = (double)(1u << (c - 1)), filled = (double)chunk < nb ? (double)chunk : nb;
    double task = affine ? MSM_BA_ADD_COST * (double)chunk + MSM_FULL_ADD_COST * nb + filled
                         : (double)chunk + MSM_FULL_ADD_COST * (nb + filled);
    size_t rounds = (nwin * nch + threads - 1) / threads;
    double combine = MSM_FULL_ADD_COST * (double)(nwin * nch) + 0.8 * 256;
    return (double)rounds * task + combine;
}

/* The cheapest (method, c, nch) for n points on nthreads threads whose
 * buckets fit MSM_BUCKET_BUDGET; force_c / force_nch (0 = free) pin either
 * choice and force_buckets (CUZK_MSM_BUCKETS_AUTO = free) the method. A
 * bucket takes xyzz_bytes as XYZZ, affine_bytes as an affine bucket. */
static msm_plan msm_make_plan(size_t n, int nthreads, size_t xyzz_bytes, size_t affine_bytes,
                              unsigned force_c, size_t force_nch, int force_buckets)
{
    size_t threads = nthreads > 0 ? (size_t)nthreads : 1;
    size_t max_nch = force_nch ? force_nch : threads * MSM_MAX_SPLIT;
    if (max_nch > n)
        max_nch = n ? n : 1;
    size_t min_nch = force_nch ? max_nch : 1;
    msm_plan best = {0};
    double best_cost = 0;
    unsigned clo = force_c ? force_c : 1, chi = force_c ? force_c : CUZK_MSM_MAX_WINDOW;
    for (int affine = 0; affine < 2; affine++) {
        int kind = affine ? CUZK_MSM_BUCKETS_AFFINE : CUZK_MSM_BUCKETS_XYZZ;
        if (force_buckets != CUZK_MSM_BUCKETS_AUTO && force_buckets != kind)
            continue;
        size_t bytes = affine ? affine_bytes : xyzz_bytes;
        for (unsigned c = clo; c <= chi; c++) {
            if (!force_c && c > 1 && threads * ((size_t)1 << (c - 1)) * bytes > MSM_BUCKET_BUDGET)
                break;
            if (affine && force_buckets == CUZK_MSM_BUCKETS_AUTO && c < MSM_BA_MIN_C)
                continue;
            for (size_t nch = min_nch; nch <= max_nch; nch++) {
                double cost = msm_plan_cost(n, threads, c, nch, affine);
                if (best.c == 0 || cost < best_cost * (1 - 1e-3)) {
                    best_cost = cost;
                    best.c = c;
                    best.nch = nch;
                    best.buckets = kind;
                }
            }
        }
    }
    best.nwin = (unsigned)cuzk_msm_ndigits(best.c);
    best.chunk = n ? (n + best.nch - 1) / best.nch : 1;
    best.nch = n ? (n + best.chunk - 1) / best.chunk : 1;
    return best;
}

#define MSM_AFFINE_BUCKET_BYTES(G) (sizeof(cuzk_##G##_affine) + sizeof(cuzk_##G##_xyzz) + 1)

unsigned cuzk_g1_msm_window(size_t n, int nthreads)
{
    return msm_make_plan(n, nthreads, sizeof(cuzk_g1_xyzz), MSM_AFFINE_BUCKET_BYTES(g1), 0, 0,
                         CUZK_MSM_BUCKETS_AUTO)
        .c;
}

unsigned cuzk_g2_msm_window(size_t n, int nthreads)
{
    return msm_make_plan(n, nthreads, sizeof(cuzk_g2_xyzz), MSM_AFFINE_BUCKET_BYTES(g2), 0, 0,
                         CUZK_MSM_BUCKETS_AUTO)
        .c;
}

cuzk_msm_buckets cuzk_g1_msm_buckets(size_t n, int nthreads)
{
    return (cuzk_msm_buckets)msm_make_plan(n, nthreads, sizeof(cuzk_g1_xyzz), MSM_AFFINE_BUCKET_BYTES(g1), 0,
                                           0, CUZK_MSM_BUCKETS_AUTO)
        .buckets;
}

cuzk_msm_buckets cuzk_g2_msm_buckets(size_t n, int nthreads)
{
    return (cuzk_msm_buckets)msm_make_plan(n, nthreads, sizeof(cuzk_g2_xyzz), MSM_AFFINE_BUCKET_BYTES(g2), 0,
                                           0, CUZK_MSM_BUCKETS_AUTO)
        .buckets;
}

/* Points gathered per task of the bitmap sum, and the size below which the
 * pairwise tree stops paying for its inversion and mixed additions finish. */
#define SUM_MAX_CHUNK 16384
#define SUM_TREE_MIN 64

static size_t sum_chunk(size_t n, int nthreads)
{
    size_t per = (n + (size_t)nthreads - 1) / (size_t)nthreads;
    per = (per + 63) & ~(size_t)63;
    if (per > SUM_MAX_CHUNK)
        per = SUM_MAX_CHUNK;
    return per ? per : 64;
}

/* G1's field operations for msm_impl.h, inlined: the MULX/ADX product and
 * the ADD/ADC forms of arith/fp_asm.h (when the assembly is compiled in and
 * the CPU has it), so an affine addition in a batch makes no calls; the
 * results are those of the cuzk_fp_ functions bit for bit. G2 uses the
 * cuzk_fp2_ functions as they are. */
static inline __attribute__((always_inline)) void msm_fp_mul(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b)
{
#if CUZK_FP_HAVE_ASM
    if (arith_use_adx()) {
        fp_mul_asm(r->l, a->l, b->l);
        return;
    }
#endif
    cuzk_fp_mul(r, a, b);
}

static inline __attribute__((always_inline)) void msm_fp_sqr(cuzk_fp *r, const cuzk_fp *a)
{
    msm_fp_mul(r, a, a);
}

static inline __attribute__((always_inline)) void msm_fp_add(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b)
{
    arith_fp_add(r->l, a->l, b->l);
}

static inline __attribute__((always_inline)) void msm_fp_sub(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b)
{
    arith_fp_sub(r->l, a->l, b->l);
}

static inline __attribute__((always_inline)) void msm_fp_dbl(cuzk_fp *r, const cuzk_fp *a)
{
    arith_fp_dbl(r->l, a->l);
}

static inline __attribute__((always_inline)) void msm_fp_neg(cuzk_fp *r, const cuzk_fp *a)
{
    arith_fp_neg(r->l, a->l);
}

static inline bool msm_fp_eq(const cuzk_fp *a, const cuzk_fp *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}

#define msm_fp_is_zero cuzk_fp_is_zero
#define msm_fp_inv cuzk_fp_inv
#define msm_fp_batch_inv cuzk_fp_batch_inv

#define MSM_G g1
#define MSM_F fp
#define MSM_FOPS msm_fp
#include "msm_impl.h"
#undef MSM_G
#undef MSM_F
#undef MSM_FOPS

#define MSM_G g2
#define MSM_F fp2
#define MSM_FOPS cuzk_fp2
#include "msm_impl.h"
#undef MSM_G
#undef MSM_F
#undef MSM_FOPS
