/*
 * msm_impl.h — the group-generic half of msm.c: Pippenger MSM and the
 * bitmap sum, written once and included twice (MSM_G = g1 over MSM_F = fp,
 * MSM_G = g2 over MSM_F = fp2; MSM_FOPS names the field operations, e.g.
 * msm_fp_mul or cuzk_fp2_mul). It relies on the helpers msm.c defines
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
 * Affine buckets (the plan's other method). A bucket is an affine point plus
 * a flag byte. A base going to an empty bucket is copied there (negated for a
 * negative digit). A base going to a filled bucket joins the open batch,
 * which holds at most one addition per bucket (the BUSY flag); when the batch
 * is full all its additions are done at once with one inversion: a forward
 * pass computes each denominator (x2 - x1; 2 y1 for P + P; none for
 * P + (-P), whose bucket simply becomes empty) and the running product, a
 * backward pass peels each inverse off the inverted product and finishes
 * lambda, x3, y3 in place. A base whose bucket is already in the open batch
 * waits in a pending list, retried after each batch. When that list is full,
 * a batch at least half full is run early (windows with few buckets: the top
 * window reaches only 2^(255 - cw) of them, and its batches are halved too);
 * otherwise (very uneven digits: equal scalars, 0/1 witnesses) the base goes
 * to the bucket's XYZZ overflow bucket, so no input costs much more than the
 * XYZZ method. At the end, batches are run until nothing waits, except that a
 * last batch of fewer than MSM_BA_TAIL_MIN additions sends its leftovers to
 * the overflow buckets. The reduction (ba_reduce) is batch-affine as well: it
 * runs the running-sum trick in about 2 sqrt(2^c) lanes side by side, so each
 * step is a batch of additions to distinct lanes.
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
#define FOP(name) CAT(CAT(MSM_FOPS, _), name) /* the field operations msm.c chose for the group */
#define LOCAL(name) CAT(CAT(MSM_G, _), name)
#define MSM_CTX LOCAL(msm_ctx)
#define SUM_CTX LOCAL(sum_ctx)
#define BA_WS LOCAL(ba_ws)

/* One worker's affine buckets, open batch and pending list. */
typedef struct {
    const MSM_AFF *bases;
    MSM_AFF *bkt;                   /* affine buckets, valid where MSM_BKT_AFF */
    MSM_XYZZ *ovf;                  /* overflow buckets, valid where MSM_BKT_OVF */
    uint8_t *flag;                  /* MSM_BKT_* per bucket, all zero between tasks */
    uint32_t *bidx;                 /* batch: bucket of each addition */
    uint8_t *kind;                  /* batch: MSM_BA_ADD / DBL / NEG */
    MSM_AFF *pt;                    /* batch: the point added (already negated for a negative digit) */
    MSM_FE *den, *pre;              /* batch: denominators, products of the earlier ones */
    msm_ba_pending *q;              /* pending list */
    size_t nbatch, batch, nq, qcap; /* batch: this task's batch size, at most cap */
    size_t cap;                     /* room in the batch arrays */
    size_t nb;                      /* buckets; bkt and flag hold 2 * cap more for the reduction's lanes */
    uint32_t top_ovf;               /* highest overflow bucket + 1 in this task (0: none) */
} BA_WS;

typedef struct {
    const MSM_AFF *bases;
    const uint64_t (*k)[4]; /* canonical scalars */
    size_t n;
    msm_plan plan;
    size_t nbuckets;
    MSM_XYZZ *buckets; /* one array of nbuckets per worker, identity between tasks */
    BA_WS *ws;         /* affine method: one per worker */
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

/* Places base p (negated if neg) into bucket b: copied into an empty bucket
 * or added to the open batch; false when the bucket is already in the batch. */
static inline bool LOCAL(ba_place)(BA_WS *ws, uint32_t b, const MSM_AFF *p, uint32_t neg)
{
    uint8_t f = ws->flag[b];
    MSM_AFF *dst;
    if (!(f & MSM_BKT_AFF)) {
        dst = &ws->bkt[b];
        ws->flag[b] = f | MSM_BKT_AFF;
    } else if (!(f & MSM_BKT_BUSY)) {
        size_t m = ws->nbatch++;
        ws->bidx[m] = b;
        dst = &ws->pt[m];
        ws->flag[b] = f | MSM_BKT_BUSY;
    } else {
        return false;
    }
    dst->x = p->x;
    if (neg)
        FOP(neg)(&dst->y, &p->y);
    else
        dst->y = p->y;
    return true;
}

/* Adds base p (negated if neg) into the XYZZ overflow bucket of b. */
static void LOCAL(ba_overflow)(BA_WS *ws, uint32_t b, const MSM_AFF *p, uint32_t neg)
{
    if (!(ws->flag[b] & MSM_BKT_OVF)) {
        GOP(xyzz_set_identity)(&ws->ovf[b]);
        ws->flag[b] |= MSM_BKT_OVF;
        if (b >= ws->top_ovf)
            ws->top_ovf = b + 1;
    }
    if (neg)
        GOP(xyzz_sub_affine)(&ws->ovf[b], &ws->ovf[b], p);
    else
        GOP(xyzz_add_affine)(&ws->ovf[b], &ws->ovf[b], p);
}

/* Runs the open batch: bucket[bidx[i]] += pt[i] for every i, one inversion. */
static void LOCAL(ba_exec)(BA_WS *ws)
{
    size_t m = ws->nbatch, first = m;
    MSM_FE acc;
    for (size_t i = 0; i < m; i++) {
        const MSM_AFF *a = &ws->bkt[ws->bidx[i]], *p = &ws->pt[i];
        if (!FOP(eq)(&a->x, &p->x)) {
            ws->kind[i] = MSM_BA_ADD;
            FOP(sub)(&ws->den[i], &p->x, &a->x);
        } else if (FOP(eq)(&a->y, &p->y)) {
            ws->kind[i] = MSM_BA_DBL; /* y != 0: no point of order 2 in the subgroup */
            FOP(dbl)(&ws->den[i], &a->y);
        } else {
            ws->kind[i] = MSM_BA_NEG;
            continue;
        }
        if (first == m) {
            first = i;
            acc = ws->den[i];
        } else {
            ws->pre[i] = acc;
            FOP(mul)(&acc, &acc, &ws->den[i]);
        }
    }
    if (first < m)
        FOP(inv)(&acc, &acc); /* a product of non-zero denominators */
    for (size_t i = m; i-- > 0;) {
        uint32_t b = ws->bidx[i];
        MSM_AFF *a = &ws->bkt[b];
        const MSM_AFF *p = &ws->pt[i];
        if (ws->kind[i] == MSM_BA_NEG) {
            ws->flag[b] &= (uint8_t) ~(MSM_BKT_AFF | MSM_BKT_BUSY);
            continue;
        }
        ws->flag[b] &= (uint8_t)~MSM_BKT_BUSY;
        MSM_FE inv, num, lam, x3, t;
        if (i > first) {
            FOP(mul)(&inv, &acc, &ws->pre[i]);
            FOP(mul)(&acc, &acc, &ws->den[i]);
        } else {
            inv = acc;
        }
        if (ws->kind[i] == MSM_BA_ADD) {
            FOP(sub)(&num, &p->y, &a->y);
        } else {
            FOP(sqr)(&t, &a->x);
            FOP(dbl)(&num, &t);
            FOP(add)(&num, &num, &t);
        }
        FOP(mul)(&lam, &num, &inv);
        FOP(sqr)(&x3, &lam);
        FOP(sub)(&x3, &x3, &a->x);
        FOP(sub)(&x3, &x3, &p->x);
        FOP(sub)(&t, &a->x, &x3);
        FOP(mul)(&t, &t, &lam);
        FOP(sub)(&a->y, &t, &a->y);
        a->x = x3;
    }
    ws->nbatch = 0;
}

/* Retries the pending list after a batch: bases whose bucket is free are
 * placed (running the batch whenever it fills), the others stay in order. */
static void LOCAL(ba_drain)(BA_WS *ws)
{
    size_t w = 0;
    for (size_t r = 0; r < ws->nq; r++) {
        msm_ba_pending e = ws->q[r];
        if (!LOCAL(ba_place)(ws, e.b, &ws->bases[e.i], e.neg))
            ws->q[w++] = e;
        else if (ws->nbatch == ws->batch)
            LOCAL(ba_exec)(ws);
    }
    ws->nq = w;
}

/* out = sum (b + 1) B_b over the buckets b < top (affine and overflow), then
 * all their flags cleared. The affine buckets are cut into L lanes of S = 2^s
 * consecutive buckets (S about sqrt(top) / 2, L <= cap); lane j keeps an
 * affine running sum R_j and total A_j in the bucket slots past nb, and all
 * lanes step down together, so each step is two batches (R_j += B, then
 * A_j += R_j) of at most L additions sharing an inversion each. Lane j then
 * holds A_j = sum (t + 1) B_(jS+t) and R_j = sum B_(jS+t), and the weights
 * b + 1 = jS + t + 1 give out = sum A_j + 2^s sum j R_j, the last sum by a
 * running sum over the lanes. Overflow buckets (rare) get the XYZZ running
 * sum up to the highest of them. */
static void LOCAL(ba_reduce)(BA_WS *ws, uint32_t top, MSM_XYZZ *out)
{
    GOP(xyzz_set_identity)(out);
    if (top == 0)
        return;
    unsigned s = 0;
    while (((size_t)4 << (2 * s)) < top)
        s++;
    while (((top + ((size_t)1 << s) - 1) >> s) > ws->cap)
        s++;
    size_t S = (size_t)1 << s, L = (top + S - 1) >> s;
    uint32_t runb = (uint32_t)ws->nb, accb = (uint32_t)(ws->nb + ws->cap);
    for (size_t t = S; t-- > 0;) {
        for (size_t j = 0; j < L; j++) {
            size_t b = j * S + t;
            if (b < top && (ws->flag[b] & MSM_BKT_AFF))
                LOCAL(ba_place)(ws, runb + (uint32_t)j, &ws->bkt[b], 0); /* one per lane: never busy */
        }
        if (ws->nbatch)
            LOCAL(ba_exec)(ws);
        for (size_t j = 0; j < L; j++)
            if (ws->flag[runb + j] & MSM_BKT_AFF)
                LOCAL(ba_place)(ws, accb + (uint32_t)j, &ws->bkt[runb + j], 0);
        if (ws->nbatch)
            LOCAL(ba_exec)(ws);
    }
    MSM_XYZZ r, q;
    GOP(xyzz_set_identity)(&r);
    GOP(xyzz_set_identity)(&q);
    for (size_t j = L; j-- > 0;) {
        if (ws->flag[accb + j] & MSM_BKT_AFF)
            GOP(xyzz_add_affine)(out, out, &ws->bkt[accb + j]);
        if (j == 0)
            break;
        if (ws->flag[runb + j] & MSM_BKT_AFF)
            GOP(xyzz_add_affine)(&r, &r, &ws->bkt[runb + j]);
        GOP(xyzz_add)(&q, &q, &r);
    }
    for (unsigned i = 0; i < s; i++)
        GOP(xyzz_dbl)(&q, &q);
    GOP(xyzz_add)(out, out, &q);
    if (ws->top_ovf) {
        GOP(xyzz_set_identity)(&r);
        GOP(xyzz_set_identity)(&q);
        for (uint32_t i = ws->top_ovf; i-- > 0;) {
            if (ws->flag[i] & MSM_BKT_OVF)
                GOP(xyzz_add)(&r, &r, &ws->ovf[i]);
            GOP(xyzz_add)(&q, &q, &r);
        }
        GOP(xyzz_add)(out, out, &q);
        ws->top_ovf = 0;
    }
    memset(ws->flag, 0, top);
    memset(ws->flag + runb, 0, L);
    memset(ws->flag + accb, 0, L);
}

static void LOCAL(ba_task)(void *arg, size_t task, int worker)
{
    const MSM_CTX *x = arg;
    unsigned c = x->plan.c, nwin = x->plan.nwin, w = (unsigned)(task % nwin);
    size_t lo = task / nwin * x->plan.chunk, hi = lo + x->plan.chunk;
    if (hi > x->n)
        hi = x->n;
    BA_WS *ws = &x->ws[worker];
    int32_t dig[MSM_BLOCK];
    uint32_t top = 0;
    /* The top window's digits reach only 2^(255 - cw) of the buckets (256 of 4096 at c = 13): its
     * batches stay at half of those, or the pending list would overflow. */
    unsigned hb = 255 - c * w;
    size_t reach = hb + 1 < c ? ((size_t)1 << hb) + 1 : x->nbuckets;
    ws->batch = reach / 2 < ws->cap ? reach / 2 : ws->cap;
    if (ws->batch == 0)
        ws->batch = 1;

    for (size_t i0 = lo; i0 < hi; i0 += MSM_BLOCK) {
        size_t m = hi - i0 < MSM_BLOCK ? hi - i0 : MSM_BLOCK;
        for (size_t j = 0; j < m; j++) {
            uint64_t k[4];
            msm_load_scalar(k, x->k, i0 + j);
            dig[j] = msm_digit(k, w, c, nwin);
        }
        for (size_t j = 0; j < m; j++) {
            int32_t d = dig[j];
            if (j + 1 < m && dig[j + 1]) {
                int32_t dn = dig[j + 1];
                uint32_t nb = (uint32_t)(dn > 0 ? dn : -dn) - 1;
                __builtin_prefetch(&ws->flag[nb], 1, 3);
                __builtin_prefetch((const char *)&ws->bkt[nb], 1, 3); /* its first and last line */
                __builtin_prefetch((const char *)&ws->bkt[nb] + sizeof(MSM_AFF) - 1, 1, 3);
            }
            const MSM_AFF *p = &x->bases[i0 + j];
            if (d == 0 || GOP(affine_is_identity)(p))
                continue;
            uint32_t b = (uint32_t)(d > 0 ? d : -d) - 1, neg = d < 0;
            if (b >= top)
                top = b + 1;
            if (!LOCAL(ba_place)(ws, b, p, neg)) {
                if (ws->nq == ws->qcap && 2 * ws->nbatch >= ws->batch) { /* few buckets: run it early */
                    LOCAL(ba_exec)(ws);
                    LOCAL(ba_drain)(ws);
                }
                if (ws->nq < ws->qcap)
                    ws->q[ws->nq++] = (msm_ba_pending){.b = b, .neg = neg, .i = i0 + j};
                else
                    LOCAL(ba_overflow)(ws, b, p, neg);
            }
            if (ws->nbatch == ws->batch) {
                LOCAL(ba_exec)(ws);
                LOCAL(ba_drain)(ws);
            }
        }
    }
    for (;;) {
        if (ws->nbatch)
            LOCAL(ba_exec)(ws);
        if (!ws->nq)
            break;
        LOCAL(ba_drain)(ws);
        if (ws->nbatch < MSM_BA_TAIL_MIN) {
            for (size_t r = 0; r < ws->nq; r++)
                LOCAL(ba_overflow)(ws, ws->q[r].b, &ws->bases[ws->q[r].i], ws->q[r].neg);
            ws->nq = 0;
        }
    }

    LOCAL(ba_reduce)(ws, top, &x->partial[task]);
}

/* Allocates the affine method's per-worker state (flags zeroed). */
static int LOCAL(ba_alloc)(MSM_CTX *x, int nthreads)
{
    size_t nb = x->nbuckets, t = (size_t)nthreads;
    size_t batch = nb / 2 < MSM_BA_BATCH ? nb / 2 : MSM_BA_BATCH;
    if (batch == 0)
        batch = 1;
    x->ws = calloc(t, sizeof *x->ws);
    if (!x->ws)
        return CUZK_ENOMEM;
    BA_WS *w0 = &x->ws[0];
    size_t nbl = nb + 2 * batch; /* the buckets, then the reduction's lanes */
    w0->bkt = malloc(t * nbl * sizeof *w0->bkt);
    w0->ovf = malloc(t * nb * sizeof *w0->ovf);
    w0->flag = calloc(t * nbl, 1);
    w0->bidx = malloc(t * batch * sizeof *w0->bidx);
    w0->kind = malloc(t * batch);
    w0->pt = malloc(t * batch * sizeof *w0->pt);
    w0->den = malloc(t * batch * sizeof *w0->den);
    w0->pre = malloc(t * batch * sizeof *w0->pre);
    w0->q = malloc(t * batch * sizeof *w0->q);
    if (!w0->bkt || !w0->ovf || !w0->flag || !w0->bidx || !w0->kind || !w0->pt || !w0->den || !w0->pre ||
        !w0->q)
        return CUZK_ENOMEM;
    for (size_t i = 0; i < t; i++) {
        BA_WS *w = &x->ws[i];
        w->bases = x->bases;
        w->bkt = w0->bkt + i * nbl;
        w->ovf = w0->ovf + i * nb;
        w->flag = w0->flag + i * nbl;
        w->nb = nb;
        w->bidx = w0->bidx + i * batch;
        w->kind = w0->kind + i * batch;
        w->pt = w0->pt + i * batch;
        w->den = w0->den + i * batch;
        w->pre = w0->pre + i * batch;
        w->q = w0->q + i * batch;
        w->batch = w->qcap = w->cap = batch;
    }
    return CUZK_OK;
}

static void LOCAL(ba_free)(MSM_CTX *x)
{
    if (!x->ws)
        return;
    BA_WS *w0 = &x->ws[0];
    free(w0->bkt);
    free(w0->ovf);
    free(w0->flag);
    free(w0->bidx);
    free(w0->kind);
    free(w0->pt);
    free(w0->den);
    free(w0->pre);
    free(w0->q);
    free(x->ws);
    x->ws = NULL;
}

static int LOCAL(msm_run)(MSM_PT *out, const MSM_AFF *bases, const uint64_t (*k)[4], size_t n,
                          unsigned force_c, size_t force_nch, int force_buckets, cuzk_pool *pool)
{
    if (!out || force_c > CUZK_MSM_MAX_WINDOW || (n && (!bases || !k)) ||
        (force_buckets != CUZK_MSM_BUCKETS_AUTO && force_buckets != CUZK_MSM_BUCKETS_XYZZ &&
         force_buckets != CUZK_MSM_BUCKETS_AFFINE))
        return CUZK_EINVAL;
    if (n == 0) {
        GOP(set_identity)(out);
        return CUZK_OK;
    }
    int nthreads = cuzk_pool_size(pool);
    MSM_CTX x = {.bases = bases,
                 .k = k,
                 .n = n,
                 .plan = msm_make_plan(n, nthreads, sizeof(MSM_XYZZ), sizeof(MSM_AFF) + sizeof(MSM_XYZZ) + 1,
                                       force_c, force_nch, force_buckets)};
    x.nbuckets = (size_t)1 << (x.plan.c - 1);
    size_t ntasks = (size_t)x.plan.nwin * x.plan.nch;
    bool affine = x.plan.buckets == CUZK_MSM_BUCKETS_AFFINE;
    int rc = CUZK_OK;
    x.partial = malloc(ntasks * sizeof *x.partial);
    if (affine)
        rc = LOCAL(ba_alloc)(&x, nthreads);
    else
        x.buckets = calloc((size_t)nthreads * x.nbuckets, sizeof *x.buckets);
    if (!x.partial || rc != CUZK_OK || (!affine && !x.buckets)) {
        LOCAL(ba_free)(&x);
        free(x.buckets);
        free(x.partial);
        return CUZK_ENOMEM;
    }
    cuzk_pool_run(pool, ntasks, affine ? LOCAL(ba_task) : LOCAL(msm_task), &x);

    MSM_XYZZ acc;
    GOP(xyzz_set_identity)(&acc);
    for (unsigned w = x.plan.nwin; w-- > 0;) {
        for (unsigned i = 0; i < x.plan.c && w + 1 < x.plan.nwin; i++)
            GOP(xyzz_dbl)(&acc, &acc);
        for (size_t ch = 0; ch < x.plan.nch; ch++)
            GOP(xyzz_add)(&acc, &acc, &x.partial[ch * x.plan.nwin + w]);
    }
    GOP(xyzz_to_jacobian)(out, &acc);
    LOCAL(ba_free)(&x);
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
        rc = LOCAL(msm_run)(out, bases, (const uint64_t(*)[4])k, n, 0, 0, CUZK_MSM_BUCKETS_AUTO, pool);
    free(k);
    return rc;
}

int GOP(msm_u64)(MSM_PT *out, const MSM_AFF *bases, const uint64_t (*k)[4], size_t n, cuzk_pool *pool)
{
    return LOCAL(msm_run)(out, bases, k, n, 0, 0, CUZK_MSM_BUCKETS_AUTO, pool);
}

int GOP(msm_tuned)(MSM_PT *out, const MSM_AFF *bases, const uint64_t (*k)[4], size_t n, unsigned c,
                   size_t nsplit, cuzk_pool *pool)
{
    return LOCAL(msm_run)(out, bases, k, n, c, nsplit, CUZK_MSM_BUCKETS_AUTO, pool);
}

int GOP(msm_tuned_buckets)(MSM_PT *out, const MSM_AFF *bases, const uint64_t (*k)[4], size_t n, unsigned c,
                           size_t nsplit, cuzk_msm_buckets buckets, cuzk_pool *pool)
{
    return LOCAL(msm_run)(out, bases, k, n, c, nsplit, (int)buckets, pool);
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
#undef BA_WS
