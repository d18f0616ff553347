/*
 * msm_impl.h — the group-generic half of msm.c: Pippenger MSM and the
 * bitmap sum, written once and included twice (MSM_G = g1 over MSM_F = fp,
 * MSM_G = g2 over MSM_F = fp2). It relies on the helpers msm.c defines
 * before the inclusion (recoding, planner, scalar loader) and on the point
 * arithmetic of cuzk/curve.h; only the affine pair addition of the tree sum
 * is written here.
 *
 * MSM. Tasks are (window, point range) pairs handed out by the pool. A task
 * computes its digits a block at a time, adds or subtracts each base into
 * bucket |d| - 1 of its worker's bucket array (prefetching the next bucket),
 * remembers the highest bucket touched, then reduces: running += bucket[b],
 * total += running from the top down gives sum (b + 1) bucket[b]. Reduced
 * buckets are reset to the identity (all zero) so the array is clean for the
 * worker's next task without a full clear. The caller combines the window
 * sums with c doublings per window (Horner, top window first).
 *
 * Tree sum. Each task gathers the selected non-identity bases of its range
 * into worker scratch and halves the list per round: pair (2i, 2i+1) becomes
 * one point, all pairs of a round sharing one inversion (Montgomery's trick).
 * The denominator is x2 - x1, or 2y1 for P + P; zero means P + (-P), whose
 * sum is the identity and is dropped (the batch inversion maps zero to zero).
 * Results are written in place at the front of the list (slot k <= i, read
 * before written). Once a list is short the inversion costs more than it
 * saves, so the remainder is added into an XYZZ accumulator.
 */

#define MSM_PT CAT(cuzk_, MSM_G)
#define MSM_AFF CAT(MSM_PT, _affine)
#define MSM_XYZZ CAT(MSM_PT, _xyzz)
#define MSM_FE CAT(cuzk_, MSM_F)
#define GOP(name) CAT(CAT(MSM_PT, _), name)
#define FOP(name) CAT(CAT(MSM_FE, _), name)
#define LOCAL(name) CAT(CAT(MSM_G, _), name)
#define MSM_CTX LOCAL(msm_ctx)
#define SUM_CTX LOCAL(sum_ctx)

typedef struct {
    const MSM_AFF *bases;
    const uint64_t (*k)[4]; /* canonical scalars */
    size_t n;
    msm_plan plan;
    size_t nbuckets;
    MSM_XYZZ *buckets; /* one array of nbuckets per worker, identity between tasks */
    MSM_XYZZ *partial; /* window sum of every task */
} MSM_CTX;

static inline void LOCAL(prefetch_bucket)(const MSM_XYZZ *b)
{
    const char *p = (const char *)b;
    for (size_t off = 0; off < sizeof *b; off += 64)
        __builtin_prefetch(p + off, 1, 3);
}

static void LOCAL(msm_task)(void *arg, size_t task, int worker)
{
    const MSM_CTX *x = arg;
    unsigned c = x->plan.c, nwin = x->plan.nwin, w = (unsigned)(task % nwin);
    size_t lo = task / nwin * x->plan.chunk, hi = lo + x->plan.chunk;
    if (hi > x->n)
        hi = x->n;
    MSM_XYZZ *b = x->buckets + (size_t)worker * x->nbuckets;
    int32_t dig[MSM_BLOCK];
    uint32_t top = 0;

    for (size_t i0 = lo; i0 < hi; i0 += MSM_BLOCK) {
        size_t m = hi - i0 < MSM_BLOCK ? hi - i0 : MSM_BLOCK;
        for (size_t j = 0; j < m; j++) {
            uint64_t k[4];
            msm_load_scalar(k, x->k, i0 + j);
            dig[j] = msm_digit(k, w, c, nwin);
        }
        for (size_t j = 0; j < m; j++) {
            int32_t d = dig[j];
            if (j + 1 < m && dig[j + 1])
                LOCAL(prefetch_bucket)(&b[(dig[j + 1] > 0 ? dig[j + 1] : -dig[j + 1]) - 1]);
            if (d == 0)
                continue;
            uint32_t idx = (uint32_t)(d > 0 ? d : -d) - 1;
            if (idx >= top)
                top = idx + 1;
            if (d > 0)
                GOP(xyzz_add_affine)(&b[idx], &b[idx], &x->bases[i0 + j]);
            else
                GOP(xyzz_sub_affine)(&b[idx], &b[idx], &x->bases[i0 + j]);
        }
    }

    MSM_XYZZ run, acc;
    GOP(xyzz_set_identity)(&run);
    GOP(xyzz_set_identity)(&acc);
    for (uint32_t i = top; i-- > 0;) {
        if (!GOP(xyzz_is_identity)(&b[i])) {
            GOP(xyzz_add)(&run, &run, &b[i]);
            memset(&b[i], 0, sizeof b[i]);
        }
        GOP(xyzz_add)(&acc, &acc, &run);
    }
    x->partial[task] = acc;
}

static int LOCAL(msm_run)(MSM_PT *out, const MSM_AFF *bases, const uint64_t (*k)[4], size_t n,
                          unsigned force_c, size_t force_nch, cuzk_pool *pool)
{
    if (!out || force_c > CUZK_MSM_MAX_WINDOW || (n && (!bases || !k)))
        return CUZK_EINVAL;
    if (n == 0) {
        GOP(set_identity)(out);
        return CUZK_OK;
    }
    int nthreads = cuzk_pool_size(pool);
    MSM_CTX x = {.bases = bases,
                 .k = k,
                 .n = n,
                 .plan = msm_make_plan(n, nthreads, sizeof(MSM_XYZZ), force_c, force_nch)};
    x.nbuckets = (size_t)1 << (x.plan.c - 1);
    size_t ntasks = (size_t)x.plan.nwin * x.plan.nch;
    x.buckets = calloc((size_t)nthreads * x.nbuckets, sizeof *x.buckets);
    x.partial = malloc(ntasks * sizeof *x.partial);
    if (!x.buckets || !x.partial) {
        free(x.buckets);
        free(x.partial);
        return CUZK_ENOMEM;
    }
    cuzk_pool_run(pool, ntasks, LOCAL(msm_task), &x);

    MSM_XYZZ acc;
    GOP(xyzz_set_identity)(&acc);
    for (unsigned w = x.plan.nwin; w-- > 0;) {
        for (unsigned i = 0; i < x.plan.c && w + 1 < x.plan.nwin; i++)
            GOP(xyzz_dbl)(&acc, &acc);
        for (size_t ch = 0; ch < x.plan.nch; ch++)
            GOP(xyzz_add)(&acc, &acc, &x.partial[ch * x.plan.nwin + w]);
    }
    GOP(xyzz_to_jacobian)(out, &acc);
    free(x.buckets);
    free(x.partial);
    return CUZK_OK;
}

int GOP(msm)(MSM_PT *out, const MSM_AFF *bases, const cuzk_fr *scalars, size_t n, cuzk_pool *pool)
{
    if (n && !scalars)
        return CUZK_EINVAL;
    uint64_t(*k)[4];
    int rc = msm_canonical(&k, scalars, n, pool);
    if (rc == CUZK_OK)
        rc = LOCAL(msm_run)(out, bases, (const uint64_t(*)[4])k, n, 0, 0, pool);
    free(k);
    return rc;
}

int GOP(msm_u64)(MSM_PT *out, const MSM_AFF *bases, const uint64_t (*k)[4], size_t n, cuzk_pool *pool)
{
    return LOCAL(msm_run)(out, bases, k, n, 0, 0, pool);
}

int GOP(msm_tuned)(MSM_PT *out, const MSM_AFF *bases, const uint64_t (*k)[4], size_t n, unsigned c,
                   size_t nsplit, cuzk_pool *pool)
{
    return LOCAL(msm_run)(out, bases, k, n, c, nsplit, pool);
}

typedef struct {
    const MSM_AFF *bases;
    const uint64_t *bitmap;
    size_t n, chunk;
    bool tree;
    MSM_AFF *pts;      /* chunk points per worker */
    MSM_FE *den, *scr; /* chunk / 2 elements each per worker */
    MSM_XYZZ *partial; /* one sum per task */
} SUM_CTX;

/* Copies the selected non-identity bases of [lo, hi) to dst; lo is a multiple of 64. */
static size_t LOCAL(sum_gather)(MSM_AFF *dst, const MSM_AFF *bases, const uint64_t *bitmap, size_t lo,
                                size_t hi)
{
    size_t m = 0;
    if (!bitmap) {
        for (size_t i = lo; i < hi; i++)
            if (!GOP(affine_is_identity)(&bases[i]))
                dst[m++] = bases[i];
        return m;
    }
    for (size_t base = lo; base < hi; base += 64) {
        uint64_t bits = bitmap[base >> 6];
        if (hi - base < 64)
            bits &= ((uint64_t)1 << (hi - base)) - 1;
        for (; bits; bits &= bits - 1) {
            size_t i = base + (size_t)__builtin_ctzll(bits);
            if (!GOP(affine_is_identity)(&bases[i]))
                dst[m++] = bases[i];
        }
    }
    return m;
}

/* One tree round over p[0..m) (no identities): returns the new length. */
static size_t LOCAL(sum_round)(MSM_AFF *p, size_t m, MSM_FE *den, MSM_FE *scr)
{
    size_t half = m / 2, k = 0;
    for (size_t i = 0; i < half; i++) {
        const MSM_AFF *a = &p[2 * i], *b = &p[2 * i + 1];
        if (!FOP(eq)(&a->x, &b->x))
            FOP(sub)(&den[i], &b->x, &a->x);
        else if (FOP(eq)(&a->y, &b->y))
            FOP(dbl)(&den[i], &a->y);
        else
            memset(&den[i], 0, sizeof den[i]);
    }
    FOP(batch_inv)(den, den, half, scr);
    for (size_t i = 0; i < half; i++) {
        if (FOP(is_zero)(&den[i]))
            continue;
        MSM_AFF a = p[2 * i];
        const MSM_AFF *b = &p[2 * i + 1];
        MSM_FE num, lam, x3, y3;
        if (!FOP(eq)(&a.x, &b->x)) {
            FOP(sub)(&num, &b->y, &a.y);
        } else {
            FOP(sqr)(&x3, &a.x);
            FOP(dbl)(&num, &x3);
            FOP(add)(&num, &num, &x3);
        }
        FOP(mul)(&lam, &num, &den[i]);
        FOP(sqr)(&x3, &lam);
        FOP(sub)(&x3, &x3, &a.x);
        FOP(sub)(&x3, &x3, &b->x);
        FOP(sub)(&y3, &a.x, &x3);
        FOP(mul)(&y3, &y3, &lam);
        FOP(sub)(&y3, &y3, &a.y);
        p[k].x = x3;
        p[k].y = y3;
        k++;
    }
    if (m & 1)
        p[k++] = p[m - 1];
    return k;
}

static void LOCAL(sum_task)(void *arg, size_t task, int worker)
{
    const SUM_CTX *x = arg;
    size_t lo = task * x->chunk, hi = lo + x->chunk;
    if (hi > x->n)
        hi = x->n;
    MSM_AFF *p = x->pts + (size_t)worker * x->chunk;
    size_t m = LOCAL(sum_gather)(p, x->bases, x->bitmap, lo, hi);
    if (x->tree) {
        MSM_FE *den = x->den + (size_t)worker * (x->chunk / 2),
               *scr = x->scr + (size_t)worker * (x->chunk / 2);
        while (m > SUM_TREE_MIN)
            m = LOCAL(sum_round)(p, m, den, scr);
    }
    MSM_XYZZ acc;
    GOP(xyzz_set_identity)(&acc);
    for (size_t i = 0; i < m; i++)
        GOP(xyzz_add_affine)(&acc, &acc, &p[i]);
    x->partial[task] = acc;
}

static int LOCAL(sum_run)(MSM_PT *out, const MSM_AFF *bases, const uint64_t *bitmap, size_t n, bool tree,
                          cuzk_pool *pool)
{
    if (!out || (n && !bases))
        return CUZK_EINVAL;
    if (n == 0) {
        GOP(set_identity)(out);
        return CUZK_OK;
    }
    int nthreads = cuzk_pool_size(pool);
    SUM_CTX x = {.bases = bases, .bitmap = bitmap, .n = n, .chunk = sum_chunk(n, nthreads), .tree = tree};
    size_t ntasks = (n + x.chunk - 1) / x.chunk, half = tree ? x.chunk / 2 : 0;
    x.pts = malloc((size_t)nthreads * x.chunk * sizeof *x.pts);
    x.partial = malloc(ntasks * sizeof *x.partial);
    if (tree) {
        x.den = malloc((size_t)nthreads * half * sizeof *x.den);
        x.scr = malloc((size_t)nthreads * half * sizeof *x.scr);
    }
    if (!x.pts || !x.partial || (tree && (!x.den || !x.scr))) {
        free(x.pts);
        free(x.partial);
        free(x.den);
        free(x.scr);
        return CUZK_ENOMEM;
    }
    cuzk_pool_run(pool, ntasks, LOCAL(sum_task), &x);
    MSM_XYZZ acc;
    GOP(xyzz_set_identity)(&acc);
    for (size_t t = 0; t < ntasks; t++)
        GOP(xyzz_add)(&acc, &acc, &x.partial[t]);
    GOP(xyzz_to_jacobian)(out, &acc);
    free(x.pts);
    free(x.partial);
    free(x.den);
    free(x.scr);
    return CUZK_OK;
}

int GOP(sum)(MSM_PT *out, const MSM_AFF *bases, const uint64_t *bitmap, size_t n, cuzk_pool *pool)
{
    return LOCAL(sum_run)(out, bases, bitmap, n, true, pool);
}

int GOP(sum_xyzz)(MSM_PT *out, const MSM_AFF *bases, const uint64_t *bitmap, size_t n, cuzk_pool *pool)
{
    return LOCAL(sum_run)(out, bases, bitmap, n, false, pool);
}

#undef MSM_PT
#undef MSM_AFF
#undef MSM_XYZZ
#undef MSM_FE
#undef GOP
#undef FOP
#undef LOCAL
#undef MSM_CTX
#undef SUM_CTX
