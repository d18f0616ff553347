/*
 * ntt.c — radix-2 NTT over Fr with cache blocking, fused passes and a thread
 * pool (cuzk/ntt.h; measurements in docs/design/002-cpu-ntt.md).
 *
 * Two kernels cover every order. Decimation in frequency (Gentleman–Sande)
 * takes natural input to bit-reversed output; decimation in time (Cooley–
 * Tukey) takes bit-reversed input to natural output; both use the twiddle
 * ω_2h^j for the butterfly pair (j, j+h) of a 2h-block, and DIT runs the DIF
 * schedule backwards. NN is DIF followed by the bit-reversal permutation.
 * Inverse transforms run the same kernels with ω^-1 and fold n^-1 into the
 * last memory pass, or into the g^-i factors of a coset inverse.
 *
 * Memory. Stages with 2h <= B = 2^lg_block (12: 128 KiB, inside L2) act on
 * aligned blocks of B elements; one task runs all of them on one block while
 * it sits in cache. The lg - lg_block stages above are fused up to lg_radix (8)
 * at a time: for a 2^top-block and a column j < s = 2^(top - r) the r stages
 * touch only the 2^r elements j + m·s, so a task copies a tile of 4 adjacent
 * columns (2^r rows of 128 contiguous bytes) to the stack, runs the r stages
 * there and writes it back. A 2^20 transform reads and writes the data twice,
 * a 2^28 one three times.
 *
 * Twiddles. The domain keeps one table per direction, T[h + j] = ω_2h^j for
 * 2h <= B (heap layout, B entries, 128 KiB each at the default), which serves
 * the in-block stages with contiguous reads and the fused stages with the
 * small roots ω_2H^u. A fused stage needs ω_2h^(j + u·s) with 2h up to n,
 * which no bounded table holds: a task forms ω_2h^j · T[H + u] for its
 * columns (ω_2h^j by a running product, squared from stage to stage) and
 * reuses the values for every 2^top-block. That is about n multiplications
 * per transform on top of (n/2)·lg butterflies, and it caps the domain at
 * 256 KiB for any size up to 2^28, where a full table would take 4 GiB.
 *
 * Arithmetic. Multiplication is cuzk_fr_mul (MULX/ADX when the CPU has it);
 * addition and subtraction are the inline Fr forms of arith/fp_asm.h (the
 * x86-64 ADD/ADC and CMOV code when the assembly is compiled in), so the
 * butterflies keep them in registers without a call. The transform is bound
 * by multiplications, not memory, on the machines measured.
 */
#include "cuzk/ntt.h"

#include <stdlib.h>
#include <string.h>

#include "arith/fp_asm.h"
#include "arith/mont.h"

#define LG_BLOCK_DEFAULT 12
#define LG_RADIX_DEFAULT 8
#define LG_RADIX_MAX 8
#define LG_BLOCK_MAX 16
#define LG_TILE 2
#define TILE (1 << LG_TILE) /* adjacent columns per fused-pass gather; s >= 2^lg_block >= TILE */
#define COLS_PER_TASK 64    /* columns per fused-pass task */
#define LG_SCALE_CHUNK 10   /* elements per coset-scaling task: 2^10 */
#define BITREV_Q 4          /* bit-reversal tiles are 2^4 × 2^4 */

static inline void f_mul(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b)
{
    cuzk_fr_mul(r, a, b);
}

static inline void f_add(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b)
{
    arith_fr_add(r->l, a->l, b->l);
}

static inline void f_sub(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b)
{
    arith_fr_sub(r->l, a->l, b->l);
}

/* a, b <- a + b, (a - b)·w */
static inline void bfly_dif(cuzk_fr *a, cuzk_fr *b, const cuzk_fr *w)
{
    cuzk_fr t;
    f_sub(&t, a, b);
    f_add(a, a, b);
    f_mul(b, &t, w);
}

/* a, b <- a + b·w, a - b·w */
static inline void bfly_dit(cuzk_fr *a, cuzk_fr *b, const cuzk_fr *w)
{
    cuzk_fr t;
    f_mul(&t, b, w);
    f_sub(b, a, &t);
    f_add(a, a, &t);
}

static inline void bfly_plain(cuzk_fr *a, cuzk_fr *b)
{
    cuzk_fr t;
    f_sub(&t, a, b);
    f_add(a, a, b);
    *b = t;
}

/* The low nbits of v in reverse order (nbits <= 64). */
static inline uint64_t rev_bits(uint64_t v, unsigned nbits)
{
    if (nbits == 0)
        return 0;
    v = ((v >> 1) & 0x5555555555555555ull) | ((v & 0x5555555555555555ull) << 1);
    v = ((v >> 2) & 0x3333333333333333ull) | ((v & 0x3333333333333333ull) << 2);
    v = ((v >> 4) & 0x0f0f0f0f0f0f0f0full) | ((v & 0x0f0f0f0f0f0f0f0full) << 4);
    return __builtin_bswap64(v) >> (64 - nbits);
}

static void fr_pow_u64(cuzk_fr *r, const cuzk_fr *a, uint64_t e)
{
    cuzk_fr_pow(r, a, &e, 1);
}

static void fr_sqr_n(cuzk_fr *r, const cuzk_fr *a, unsigned times)
{
    *r = *a;
    for (unsigned i = 0; i < times; i++)
        cuzk_fr_sqr(r, r);
}

/* ---- roots and domains --------------------------------------------------- */

static bool conv_valid(int conv)
{
    return conv == CUZK_NTT_BELLPERSON || conv == CUZK_NTT_SNARKJS;
}

/* The element whose t-th power generates the 2-Sylow subgroup: bellperson uses
 * the multiplicative generator 7; ffjavascript searches for the smallest
 * quadratic non-residue starting at 2 (it finds 5). */
static uint64_t conv_nonresidue(cuzk_ntt_convention conv)
{
    if (conv == CUZK_NTT_BELLPERSON)
        return 7;
    uint64_t v = 2;
    for (;; v++) {
        cuzk_fr x;
        cuzk_fr_from_u64(&x, v);
        if (cuzk_fr_legendre(&x) == -1)
            return v;
    }
}

int cuzk_ntt_root_of_unity(cuzk_fr *out, unsigned lg, cuzk_ntt_convention conv)
{
    if (!out || lg > CUZK_NTT_TWO_ADICITY || !conv_valid((int)conv))
        return CUZK_EINVAL;
    uint64_t t[4];
    limbs_shr(t, CUZK_R, CUZK_NTT_TWO_ADICITY, 4); /* r = 2^32·t + 1, so r >> 32 = t */
    cuzk_fr base, root;
    cuzk_fr_from_u64(&base, conv_nonresidue(conv));
    cuzk_fr_pow(&root, &base, t, 4);
    fr_sqr_n(out, &root, CUZK_NTT_TWO_ADICITY - lg);
    return CUZK_OK;
}

static bool coset_apply(cuzk_ntt_domain *d, const cuzk_fr *g)
{
    cuzk_fr gn, z;
    fr_sqr_n(&gn, g, d->lg);
    cuzk_fr_sub(&z, &gn, &CUZK_FR_ONE);
    if (cuzk_fr_is_zero(g) || cuzk_fr_is_zero(&z))
        return false;
    d->g = *g;
    cuzk_fr_inv(&d->g_inv, g);
    cuzk_fr_inv(&d->z_inv, &z);
    return true;
}

int cuzk_ntt_domain_set_coset(cuzk_ntt_domain *d, const cuzk_fr *g, char *err, size_t errlen)
{
    if (!d || !g || !d->tw)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "ntt: set_coset needs an initialised domain and a shift");
    if (!coset_apply(d, g))
        return cuzk_fail(err, errlen, CUZK_EINVAL,
                         "ntt: coset shift is zero or an n-th root of unity (n = 2^%u)", d->lg);
    return CUZK_OK;
}

/* Fills T[h + j] = w_2h^j for 2h <= B, where w is a primitive B-th root. */
static void stage_table(cuzk_fr *T, size_t B, const cuzk_fr *w)
{
    T[0] = CUZK_FR_ONE;
    if (B < 2)
        return;
    size_t h = B / 2;
    T[h] = CUZK_FR_ONE;
    for (size_t j = 1; j < h; j++)
        f_mul(&T[h + j], &T[h + j - 1], w);
    for (h /= 2; h >= 1; h /= 2) /* w_2h^j = w_4h^2j */
        for (size_t j = 0; j < h; j++)
            T[h + j] = T[2 * h + 2 * j];
}

int cuzk_ntt_domain_tune(cuzk_ntt_domain *d, unsigned lg_block, unsigned lg_radix, char *err, size_t errlen)
{
    if (!d || d->lg > CUZK_NTT_MAX_LG || d->n != (size_t)1 << d->lg)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "ntt: tune needs an initialised domain");
    if (lg_block < LG_TILE || lg_block > LG_BLOCK_MAX || lg_radix < 1 || lg_radix > LG_RADIX_MAX ||
        lg_radix > lg_block)
        return cuzk_fail(err, errlen, CUZK_EINVAL,
                         "ntt: tuning lg_block %u, lg_radix %u outside 1 <= lg_radix <= min(lg_block, %d), "
                         "%d <= lg_block <= %d",
                         lg_block, lg_radix, LG_RADIX_MAX, LG_TILE, LG_BLOCK_MAX);
    unsigned lb = d->lg < lg_block ? d->lg : lg_block;
    size_t B = (size_t)1 << lb;
    cuzk_fr *tw = malloc(2 * B * sizeof *tw);
    if (!tw)
        return cuzk_fail(err, errlen, CUZK_ENOMEM, "ntt: out of memory for %zu twiddles", 2 * B);
    cuzk_fr wb;
    fr_sqr_n(&wb, &d->omega, d->lg - lb);
    stage_table(tw, B, &wb);
    fr_sqr_n(&wb, &d->omega_inv, d->lg - lb);
    stage_table(tw + B, B, &wb);
    free(d->tw);
    d->tw = tw;
    d->lg_block = lg_block;
    d->lg_radix = lg_radix;
    return CUZK_OK;
}

int cuzk_ntt_domain_init(cuzk_ntt_domain *d, unsigned lg, cuzk_ntt_convention conv, char *err, size_t errlen)
{
    if (!d)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "ntt: domain pointer is NULL");
    memset(d, 0, sizeof *d);
    if (!conv_valid((int)conv))
        return cuzk_fail(err, errlen, CUZK_EINVAL, "ntt: unknown root convention %d", (int)conv);
    if (lg > CUZK_NTT_MAX_LG)
        return cuzk_fail(err, errlen, CUZK_ERANGE, "ntt: domain 2^%u exceeds the maximum 2^%d", lg,
                         CUZK_NTT_MAX_LG);
    d->lg = lg;
    d->n = (size_t)1 << lg;
    d->conv = conv;
    cuzk_ntt_root_of_unity(&d->omega, lg, conv);
    cuzk_fr_inv(&d->omega_inv, &d->omega);
    cuzk_fr nf;
    cuzk_fr_from_u64(&nf, d->n);
    cuzk_fr_inv(&d->n_inv, &nf);
    cuzk_fr g;
    if (conv == CUZK_NTT_BELLPERSON)
        cuzk_fr_from_u64(&g, 7);
    else
        cuzk_ntt_root_of_unity(&g, lg + 1, conv);
    coset_apply(d, &g); /* 7 is a non-residue and ω_(lg+1)^n = -1: never an n-th root of unity */
    int rc = cuzk_ntt_domain_tune(d, LG_BLOCK_DEFAULT, LG_RADIX_DEFAULT, err, errlen);
    if (rc != CUZK_OK)
        memset(d, 0, sizeof *d);
    return rc;
}

void cuzk_ntt_domain_release(cuzk_ntt_domain *d)
{
    if (!d)
        return;
    free(d->tw);
    memset(d, 0, sizeof *d);
}

int cuzk_ntt_domain_new(cuzk_ntt_domain **out, unsigned lg, cuzk_ntt_convention conv, char *err,
                        size_t errlen)
{
    if (!out)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "ntt: output pointer is NULL");
    *out = NULL;
    cuzk_ntt_domain *d = malloc(sizeof *d);
    if (!d)
        return cuzk_fail(err, errlen, CUZK_ENOMEM, "ntt: out of memory for a domain");
    int rc = cuzk_ntt_domain_init(d, lg, conv, err, errlen);
    if (rc != CUZK_OK) {
        free(d);
        return rc;
    }
    *out = d;
    return CUZK_OK;
}

void cuzk_ntt_domain_free(cuzk_ntt_domain *d)
{
    cuzk_ntt_domain_release(d);
    free(d);
}

/* ---- in-cache blocks ----------------------------------------------------- */

/* All stages with 2h <= nb on one block of nb elements. */
static void block_dif(cuzk_fr *x, size_t nb, const cuzk_fr *T)
{
    for (size_t h = nb / 2; h >= 1; h /= 2)
        for (size_t b = 0; b < nb; b += 2 * h) {
            cuzk_fr *p = x + b, *q = p + h;
            bfly_plain(&p[0], &q[0]);
            for (size_t j = 1; j < h; j++)
                bfly_dif(&p[j], &q[j], &T[h + j]);
        }
}

static void block_dit(cuzk_fr *x, size_t nb, const cuzk_fr *T)
{
    for (size_t h = 1; h < nb; h *= 2)
        for (size_t b = 0; b < nb; b += 2 * h) {
            cuzk_fr *p = x + b, *q = p + h;
            bfly_plain(&p[0], &q[0]);
            for (size_t j = 1; j < h; j++)
                bfly_dit(&p[j], &q[j], &T[h + j]);
        }
}

typedef struct {
    cuzk_fr *x;
    size_t nb;
    const cuzk_fr *T;
    bool dit;
    const cuzk_fr *scale; /* multiply every element after the stages, or NULL */
} block_ctx;

static void block_task(void *c, size_t task, int worker)
{
    const block_ctx *bc = c;
    cuzk_fr *x = bc->x + task * bc->nb;
    if (bc->dit)
        block_dit(x, bc->nb, bc->T);
    else
        block_dif(x, bc->nb, bc->T);
    if (bc->scale)
        for (size_t i = 0; i < bc->nb; i++)
            f_mul(&x[i], &x[i], bc->scale);
}

/* ---- fused passes over the stages above the block ----------------------- */

typedef struct {
    cuzk_fr *x;
    size_t n;
    unsigned top, r;  /* stages with 2h = 2^top down to 2^(top-r+1) */
    const cuzk_fr *T; /* stage table of the direction */
    cuzk_fr root;     /* primitive 2^top-th root of the direction */
    bool dit;
    const cuzk_fr *scale; /* applied on write-back, or NULL */
} pass_ctx;

/*
 * Columns [task·COLS_PER_TASK, ...) of every 2^top-block, TILE at a time. In a
 * group (block, column j) element m (< R = 2^r) sits at j + m·s. Fused stage q
 * has half-size H = R >> (q+1) in group units; the pair (m, m+H) with
 * u = m mod H uses ω_(2^(top-q))^(j + u·s) = ω_(2^(top-q))^j · ω_2H^u, kept at
 * tw[H + u]. `dit` is a constant in each caller, so both kernels come out
 * without a branch in the butterfly loop.
 */
static inline __attribute__((always_inline)) void pass_body(const pass_ctx *pc, size_t task, const bool dit)
{
    const unsigned r = pc->r;
    const size_t R = (size_t)1 << r, s = (size_t)1 << (pc->top - r), span = (size_t)1 << pc->top;
    const size_t nblk = pc->n >> pc->top;
    size_t j0 = task * COLS_PER_TASK, jend = j0 + COLS_PER_TASK < s ? j0 + COLS_PER_TASK : s;
    cuzk_fr loc[(1 << LG_RADIX_MAX) * TILE], tw[(1 << LG_RADIX_MAX) * TILE], wj;

    fr_pow_u64(&wj, &pc->root, j0);
    for (size_t j = j0; j < jend; j += TILE) {
        for (size_t jj = 0; jj < TILE; jj++) {
            cuzk_fr a = wj;
            for (unsigned q = 0; q < r; q++) {
                size_t H = R >> (q + 1);
                tw[H * TILE + jj] = a;
                for (size_t u = 1; u < H; u++)
                    f_mul(&tw[(H + u) * TILE + jj], &a, &pc->T[H + u]);
                f_mul(&a, &a, &a);
            }
            f_mul(&wj, &wj, &pc->root);
        }
        for (size_t blk = 0; blk < nblk; blk++) {
            cuzk_fr *base = pc->x + blk * span + j;
            for (size_t m = 0; m < R; m++)
                for (size_t jj = 0; jj < TILE; jj++)
                    loc[m * TILE + jj] = base[m * s + jj];
            for (unsigned i = 0; i < r; i++) {
                size_t H = R >> ((dit ? r - 1 - i : i) + 1);
                for (size_t g0 = 0; g0 < R; g0 += 2 * H)
                    for (size_t u = 0; u < H; u++) {
                        cuzk_fr *a = &loc[(g0 + u) * TILE], *b = &loc[(g0 + u + H) * TILE];
                        const cuzk_fr *w = &tw[(H + u) * TILE];
                        for (size_t jj = 0; jj < TILE; jj++) {
                            if (dit)
                                bfly_dit(&a[jj], &b[jj], &w[jj]);
                            else
                                bfly_dif(&a[jj], &b[jj], &w[jj]);
                        }
                    }
            }
            if (pc->scale)
                for (size_t m = 0; m < R * TILE; m++)
                    f_mul(&loc[m], &loc[m], pc->scale);
            for (size_t m = 0; m < R; m++)
                for (size_t jj = 0; jj < TILE; jj++)
                    base[m * s + jj] = loc[m * TILE + jj];
        }
    }
}

static void pass_task_dif(void *c, size_t task, int worker)
{
    pass_body(c, task, false);
}
static void pass_task_dit(void *c, size_t task, int worker)
{
    pass_body(c, task, true);
}

/* ---- transform drivers --------------------------------------------------- */

typedef struct {
    unsigned npass, top[CUZK_NTT_MAX_LG], r[CUZK_NTT_MAX_LG];
    unsigned lb; /* log2 of the in-cache block */
} plan_t;

/* Splits the lg - lb stages above the block evenly into passes of at most
 * lg_radix stages, largest first. */
static void make_plan(plan_t *p, const cuzk_ntt_domain *d)
{
    p->lb = d->lg < d->lg_block ? d->lg : d->lg_block;
    unsigned above = d->lg - p->lb;
    p->npass = (above + d->lg_radix - 1) / d->lg_radix;
    unsigned top = d->lg;
    for (unsigned i = 0; i < p->npass; i++) {
        p->r[i] = above / p->npass + (i < above % p->npass);
        p->top[i] = top;
        top -= p->r[i];
    }
}

static void run_pass(const cuzk_ntt_domain *d, cuzk_fr *x, const plan_t *p, unsigned i, bool inv, bool dit,
                     const cuzk_fr *scale, cuzk_pool *pool)
{
    pass_ctx pc = {x, d->n, p->top[i], p->r[i], d->tw + (inv ? (size_t)1 << p->lb : 0), {{0}}, dit, scale};
    fr_sqr_n(&pc.root, inv ? &d->omega_inv : &d->omega, d->lg - p->top[i]);
    size_t s = (size_t)1 << (p->top[i] - p->r[i]);
    cuzk_pool_run(pool, (s + COLS_PER_TASK - 1) / COLS_PER_TASK, dit ? pass_task_dit : pass_task_dif, &pc);
}

static void run_blocks(const cuzk_ntt_domain *d, cuzk_fr *x, const plan_t *p, bool inv, bool dit,
                       const cuzk_fr *scale, cuzk_pool *pool)
{
    size_t nb = (size_t)1 << p->lb;
    block_ctx bc = {x, nb, d->tw + (inv ? nb : 0), dit, scale};
    cuzk_pool_run(pool, d->n / nb, block_task, &bc);
}

/* Natural in, bit-reversed out. */
static void run_dif(const cuzk_ntt_domain *d, cuzk_fr *x, bool inv, const cuzk_fr *scale, cuzk_pool *pool)
{
    plan_t p;
    make_plan(&p, d);
    for (unsigned i = 0; i < p.npass; i++)
        run_pass(d, x, &p, i, inv, false, NULL, pool);
    run_blocks(d, x, &p, inv, false, scale, pool);
}

/* Bit-reversed in, natural out: the DIF schedule run backwards. */
static void run_dit(const cuzk_ntt_domain *d, cuzk_fr *x, bool inv, const cuzk_fr *scale, cuzk_pool *pool)
{
    plan_t p;
    make_plan(&p, d);
    run_blocks(d, x, &p, inv, true, p.npass ? NULL : scale, pool);
    for (unsigned i = p.npass; i-- > 0;)
        run_pass(d, x, &p, i, inv, true, i == 0 ? scale : NULL, pool);
}

/* ---- coset scaling ------------------------------------------------------- */

typedef struct {
    cuzk_fr *x;
    unsigned lg, q;
    bool rev; /* scale position p by base^bitrev(p) instead of base^p */
    cuzk_fr base, pre;
    const cuzk_fr *tab; /* tab[v] = base^v (natural) or base^(v·2^(lg-q)) (rev), v < 2^q */
} scale_ctx;

/* Chunk hi holds positions p = hi·2^q + lo. Natural: base^p = base^(hi·2^q)
 * · tab[lo]. Reversed: bitrev(p) = bitrev_q(lo)·2^(lg-q) + bitrev_(lg-q)(hi). */
static void scale_task(void *c, size_t hi, int worker)
{
    const scale_ctx *sc = c;
    size_t m = (size_t)1 << sc->q;
    cuzk_fr f;
    fr_pow_u64(&f, &sc->base, sc->rev ? rev_bits(hi, sc->lg - sc->q) : (uint64_t)hi << sc->q);
    f_mul(&f, &f, &sc->pre);
    cuzk_fr *x = sc->x + hi * m;
    for (size_t lo = 0; lo < m; lo++) {
        cuzk_fr t;
        f_mul(&t, &f, &sc->tab[sc->rev ? rev_bits(lo, sc->q) : lo]);
        f_mul(&x[lo], &x[lo], &t);
    }
}

/* x[p] *= pre · base^(p or bitrev(p)) for all p < 2^lg. */
static void scale_powers(cuzk_fr *x, unsigned lg, const cuzk_fr *base, const cuzk_fr *pre, bool rev,
                         cuzk_pool *pool)
{
    unsigned q = lg < LG_SCALE_CHUNK ? lg : LG_SCALE_CHUNK;
    cuzk_fr tab[1 << LG_SCALE_CHUNK], step;
    fr_sqr_n(&step, base, rev ? lg - q : 0);
    tab[0] = CUZK_FR_ONE;
    for (size_t v = 1; v < (size_t)1 << q; v++)
        f_mul(&tab[v], &tab[v - 1], &step);
    scale_ctx sc = {x, lg, q, rev, *base, *pre, tab};
    cuzk_pool_run(pool, (size_t)1 << (lg - q), scale_task, &sc);
}

/* ---- bit reversal -------------------------------------------------------- */

typedef struct {
    cuzk_fr *x;
    unsigned lg;
} bitrev_ctx;

#define BITREV_T (1u << BITREV_Q)
#define BITREV_MIDS_PER_TASK 64

/*
 * Index p = (a, c, b): a the top Q bits, c the middle lg - 2Q, b the low Q.
 * bitrev(p) = (rev b, rev c, rev a), so the 2^Q × 2^Q tile of middle c maps to
 * the tile of middle rev c, transposed with reversed row/column indices. Each
 * task swaps whole tiles through a small buffer, touching 512-byte runs.
 */
static void bitrev_task(void *c, size_t task, int worker)
{
    const bitrev_ctx *bc = c;
    const unsigned mid = bc->lg - 2 * BITREV_Q;
    const size_t rowstride = (size_t)1 << (bc->lg - BITREV_Q), nmid = (size_t)1 << mid;
    cuzk_fr A[BITREV_T][BITREV_T], Bt[BITREV_T][BITREV_T];
    unsigned rq[BITREV_T];
    for (unsigned i = 0; i < BITREV_T; i++)
        rq[i] = (unsigned)rev_bits(i, BITREV_Q);
    size_t c0 = task * BITREV_MIDS_PER_TASK,
           c1 = c0 + BITREV_MIDS_PER_TASK < nmid ? c0 + BITREV_MIDS_PER_TASK : nmid;
    for (size_t cm = c0; cm < c1; cm++) {
        size_t cr = rev_bits(cm, mid);
        if (cr < cm)
            continue;
        cuzk_fr *pa = bc->x + (cm << BITREV_Q), *pb = bc->x + (cr << BITREV_Q);
        for (unsigned a = 0; a < BITREV_T; a++)
            memcpy(A[a], pa + a * rowstride, sizeof A[a]);
        if (cr != cm)
            for (unsigned a = 0; a < BITREV_T; a++)
                memcpy(Bt[a], pb + a * rowstride, sizeof Bt[a]);
        for (unsigned a = 0; a < BITREV_T; a++)
            for (unsigned b = 0; b < BITREV_T; b++) {
                pa[a * rowstride + b] = cr != cm ? Bt[rq[b]][rq[a]] : A[rq[b]][rq[a]];
                if (cr != cm)
                    pb[a * rowstride + b] = A[rq[b]][rq[a]];
            }
    }
}

static void bitrev_permute(cuzk_fr *x, unsigned lg, cuzk_pool *pool)
{
    if (lg < 2 * BITREV_Q) {
        for (size_t i = 0; i < (size_t)1 << lg; i++) {
            size_t j = rev_bits(i, lg);
            if (i < j) {
                cuzk_fr t = x[i];
                x[i] = x[j];
                x[j] = t;
            }
        }
        return;
    }
    bitrev_ctx bc = {x, lg};
    size_t nmid = (size_t)1 << (lg - 2 * BITREV_Q);
    cuzk_pool_run(pool, (nmid + BITREV_MIDS_PER_TASK - 1) / BITREV_MIDS_PER_TASK, bitrev_task, &bc);
}

int cuzk_ntt_bit_reverse(cuzk_fr *data, unsigned lg, cuzk_pool *pool, char *err, size_t errlen)
{
    if (!data)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "ntt: bit_reverse data is NULL");
    if (lg > CUZK_NTT_MAX_LG)
        return cuzk_fail(err, errlen, CUZK_ERANGE, "ntt: bit_reverse size 2^%u exceeds 2^%d", lg,
                         CUZK_NTT_MAX_LG);
    bitrev_permute(data, lg, pool);
    return CUZK_OK;
}

/* ---- public transform ---------------------------------------------------- */

int cuzk_ntt(const cuzk_ntt_domain *d, cuzk_fr *data, cuzk_ntt_dir dir, cuzk_ntt_order order, bool coset,
             cuzk_pool *pool, char *err, size_t errlen)
{
    if (!d || !data)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "ntt: %s is NULL", d ? "data" : "domain");
    if (!d->tw || d->lg > CUZK_NTT_MAX_LG || d->n != (size_t)1 << d->lg || d->lg_radix < 1 ||
        d->lg_radix > LG_RADIX_MAX || d->lg_radix > d->lg_block || d->lg_block < LG_TILE ||
        d->lg_block > LG_BLOCK_MAX)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "ntt: domain is not initialised");
    if (dir != CUZK_NTT_FORWARD && dir != CUZK_NTT_INVERSE)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "ntt: unknown direction %d", (int)dir);
    if (order != CUZK_NTT_NN && order != CUZK_NTT_NR && order != CUZK_NTT_RN)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "ntt: unknown order %d", (int)order);

    bool inv = dir == CUZK_NTT_INVERSE;
    if (coset && !inv)
        scale_powers(data, d->lg, &d->g, &CUZK_FR_ONE, order == CUZK_NTT_RN, pool);
    const cuzk_fr *scale = inv && !coset ? &d->n_inv : NULL;
    if (order == CUZK_NTT_RN) {
        run_dit(d, data, inv, scale, pool);
    } else {
        run_dif(d, data, inv, scale, pool);
        if (order == CUZK_NTT_NN)
            bitrev_permute(data, d->lg, pool);
    }
    if (coset && inv) /* n^-1 rides along with the g^-i scaling */
        scale_powers(data, d->lg, &d->g_inv, &d->n_inv, order == CUZK_NTT_NR, pool);
    return CUZK_OK;
}
