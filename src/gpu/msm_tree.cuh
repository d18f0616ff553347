/*
 * msm_tree.cuh — bucket accumulation of one G1 window by a tree of batch-affine
 * additions (docs/design/020, fifth session; measured by bench/gpu/batch_affine.cu).
 *
 * A batch of n additions P + Q in affine coordinates shares one inversion
 * across the whole grid, by Montgomery's trick applied level by level. Each
 * thread owns K slots t, t + S, ..., t + (K-1)S (S = ceil(n / K), so that
 * neighbouring threads touch neighbouring slots):
 *   pre    the slot's denominator d; the thread's running product, stored per
 *          slot; the thread's total goes to the next level
 *   levels the same on the totals (K to a thread) until at most
 *          MSM_TREE_TOP remain
 *   top    one thread: running products, one Fermat inversion, the walk back
 *   back   each level's inverses from the level above (two products an element)
 *   final  1/d from the stored running products, then the affine sum:
 *          lambda = (y_Q - y_P)/d, x = lambda^2 - x_P - x_Q, y = lambda (x_P - x) - y_P
 * Per addition: 5 products and 1 square, plus 3/K products for the levels,
 * against 8 products and 2 squares for an XYZZ mixed addition. The sum is
 * complete: an identity on either side, P = Q (d = 2y, numerator 3x^2),
 * P = -Q and a slot with no partner are selected per slot, with d = 1 where
 * there is nothing to invert.
 *
 * A window's buckets: round r adds each key's remaining points two by two (an
 * odd one is carried), so a key of c points is done after ceil(log2 c) rounds.
 * Round 0 reads the sorted entries through their base index and sign; later
 * rounds read the previous round's sums. A slot finds its key by a binary
 * search over the round's offsets; the first level's running products have
 * an array of their own (round 0's in list[1], which round 0 does not touch).
 * The batch_affine bench measured the alternatives and the library does not
 * use them (k_tree_slots' per-slot index: no faster; running products in the
 * y-coordinates of the list being written: 14 % slower; the keys in parts:
 * more rounds' fixed cost). Once a round would have fewer than `finish`
 * slots and no key holds more than MSM_TREE_FINISH_LEN elements, each key
 * sums what it has left with XYZZ mixed additions, one thread a key (a batch
 * costs about 1 ms whatever its size; 2^23 measured best at 2^27 uniform
 * entries). The second condition keeps a skewed window (many equal scalars:
 * one key with millions of entries) from ending in one thread's long chain;
 * its large keys keep halving instead. CUZK_MSM_TREE_TRACE in the
 * environment prints every round (slots, largest key) on stderr.
 * Round 0 writes at most n/2 + B/2 points for any digits, so the lists never
 * overflow and no window needs another path.
 *
 * Included by msm_impl.cuh (after key_of and grid_for).
 */
#ifndef CUZK_GPU_MSM_TREE_CUH
#define CUZK_GPU_MSM_TREE_CUH

#define MSM_TREE_K 32     /* slots a thread owns in a batch */
#define MSM_TREE_TOP 64   /* the top level inverts at most this many elements in one thread */
#define MSM_TREE_LEVELS 8 /* levels at the most (2^31 slots, K = 32) */
#define MSM_TREE_FINISH_LEN 64 /* the XYZZ end only when no key holds more elements than this */
#define MSM_TREE_MAX_PARTS 8    /* batches a round may be cut into */
#define MSM_TREE_PARTS 2        /* the default cut (msm_tree::parts) */
#define MSM_TREE_SPLIT_MIN ((size_t)1 << 22) /* rounds of at least this many slots are cut */
/* k_tree_pre waits on its gathers (ncu: 59 % of its stalls on L1TEX at 3 blocks an SM and 74 registers):
 * four blocks an SM (64 registers) measured -2 ms a 2^27 - 1 MSM. k_tree_final keeps the compiler's 128
 * registers: three blocks an SM (80) spill and cost +65 ms (docs/design/014, twelfth session). */
#define MSM_TREE_PRE_BLOCKS 4
/* Minimum blocks an SM for k_tree_final and k_tree_back (0: the compiler's choice, 128 and 80 registers
 * with the word-serial product). With FP_MUL_KARATSUBA=1 the compiler takes 142 and 84, one block fewer
 * each, and the tree runs 37 % slower (docs/design/013, thirtieth session); 2 and 3 hold the Karatsuba
 * build to the word-serial build's blocks. */
#ifndef MSM_TREE_FINAL_BLOCKS
#define MSM_TREE_FINAL_BLOCKS 0
#endif
#ifndef MSM_TREE_BACK_BLOCKS
#define MSM_TREE_BACK_BLOCKS 0
#endif
#if MSM_TREE_FINAL_BLOCKS > 0
#define MSM_TREE_FINAL_BOUNDS __launch_bounds__(MSM_THREADS, MSM_TREE_FINAL_BLOCKS)
#else
#define MSM_TREE_FINAL_BOUNDS __launch_bounds__(MSM_THREADS)
#endif
#if MSM_TREE_BACK_BLOCKS > 0
#define MSM_TREE_BACK_BOUNDS __launch_bounds__(MSM_THREADS, MSM_TREE_BACK_BLOCKS)
#else
#define MSM_TREE_BACK_BOUNDS __launch_bounds__(MSM_THREADS)
#endif

/* ---- field: powers and the inverse ---------------------------------------------- */

/* a^e, Montgomery form in and out, e in 32-bit words least significant first:
 * fixed 4-bit windows, 384 squares and 96 products. */
static __device__ fp_t fp_pow(fp_t a, const uint32_t e[12])
{
    fp_t tab[16];
    tab[0] = fp_one();
    tab[1] = a;
    for (int k = 2; k < 16; k++)
        tab[k] = fp_mul(tab[k - 1], a);
    fp_t r = fp_one();
    for (int w = 95; w >= 0; w--) {
        for (int s = 0; s < 4; s++)
            r = fp_sqr(r);
        r = fp_mul(r, tab[(e[w >> 3] >> ((w & 7) * 4)) & 15]);
    }
    return r;
}

/* 1/a for a != 0: a^(p-2). */
static __device__ fp_t fp_inv_fermat(fp_t a)
{
    uint32_t e[12] = FP_P_WORDS;
    e[0] -= 2; /* p's low word is 0xffffaaab: no borrow */
    return fp_pow(a, e);
}

/* ---- one batch of additions ------------------------------------------------ */

enum { TREE_ADD, TREE_DBL, TREE_COPY_P, TREE_COPY_Q, TREE_ZERO };

static __device__ int tree_add_kind(const g1_affine_t &P, const g1_affine_t &Q, bool has_q)
{
    if (!has_q)
        return TREE_COPY_P;
    if (ec_affine_is_identity(P))
        return TREE_COPY_Q;
    if (ec_affine_is_identity(Q))
        return TREE_COPY_P;
    if (!fp_eq(P.x, Q.x))
        return TREE_ADD;
    return fp_eq(P.y, Q.y) ? TREE_DBL : TREE_ZERO;
}

static __device__ fp_t tree_add_denom(int kind, const g1_affine_t &P, const g1_affine_t &Q)
{
    if (kind == TREE_ADD)
        return fp_sub(Q.x, P.x);
    if (kind == TREE_DBL)
        return fp_dbl(P.y);
    return fp_one();
}

/* P + Q given inv = 1/tree_add_denom. */
static __device__ g1_affine_t tree_add_finish(int kind, const g1_affine_t &P, const g1_affine_t &Q, fp_t inv)
{
    if (kind == TREE_COPY_P)
        return P;
    if (kind == TREE_COPY_Q)
        return Q;
    if (kind == TREE_ZERO) {
        g1_affine_t z = {fp_zero(), fp_zero()};
        return z;
    }
    fp_t num;
    if (kind == TREE_ADD) {
        num = fp_sub(Q.y, P.y);
    } else {
        fp_t s = fp_sqr(P.x);
        num = fp_add(fp_dbl(s), s);
    }
    fp_t lam = fp_mul(num, inv);
    g1_affine_t r;
    r.x = fp_sub(fp_sub(fp_sqr(lam), P.x), Q.x);
    r.y = fp_sub(fp_mul(lam, fp_sub(P.x, r.x)), P.y);
    return r;
}

static __device__ g1_affine_t tree_load_pt(const g1_affine_t *p)
{
    g1_affine_t r = {fp_load(&p->x), fp_load(&p->y)};
    return r;
}

/* Slots of one tree round: slot o of the next list is key k's j-th (next_off[k] <= o < next_off[k + 1]) and
 * adds the current list's elements cur_off[k] + 2j and + 2j + 1 (the latter only when key k has it). Round
 * 0's list is the sorted entries, read through their base index and sign; later lists are points. A slot
 * finds its key by binary search over next_off, or reads its first element from slot_src (k_tree_slots). */
struct tree_src {
    const g1_affine_t *bases; /* round 0 */
    const uint32_t *vals;     /* round 0 */
    const g1_affine_t *cur;   /* later rounds */
    const uint32_t *cur_off, *cur_cnt, *next_off;
    const uint32_t *slot_src; /* when set: slot o's first element, bit 31 = it has a partner */
    unsigned B;
    g1_affine_t *next;
    size_t o0; /* the batch's first slot in the round (a round cut into parts) */
    __device__ size_t src_of(size_t o, bool &has_q) const
    {
        o += o0;
        if (slot_src) {
            uint32_t v = slot_src[o];
            has_q = v >> 31;
            return v & 0x7fffffffu;
        }
        unsigned k = key_of((uint32_t)o, next_off, B);
        uint32_t j = (uint32_t)o - next_off[k];
        has_q = 2 * j + 1 < cur_cnt[k];
        return cur_off[k] + 2 * j;
    }
    __device__ g1_affine_t elem(size_t e) const
    {
        if (!vals)
            return tree_load_pt(&cur[e]);
        uint32_t v = vals[e];
        g1_affine_t p = tree_load_pt(&bases[v & 0x7fffffffu]);
        if (v >> 31)
            p.y = fp_neg(p.y);
        return p;
    }
    __device__ fp_t elem_x(size_t e) const
    {
        return vals ? fp_load(&bases[vals[e] & 0x7fffffffu].x) : fp_load(&cur[e].x);
    }
    __device__ bool load_x(size_t o, fp_t &x1, fp_t &x2) const
    {
        bool has_q;
        size_t e = src_of(o, has_q);
        if (!has_q)
            return false;
        x1 = elem_x(e);
        x2 = elem_x(e + 1);
        return true;
    }
    __device__ bool load(size_t o, g1_affine_t &P, g1_affine_t &Q) const
    {
        bool has_q;
        size_t e = src_of(o, has_q);
        P = elem(e);
        Q = has_q ? elem(e + 1) : P;
        return has_q;
    }
    __device__ void store(size_t o, const g1_affine_t &r) const
    {
        fp_store(&next[o0 + o].x, r.x);
        fp_store(&next[o0 + o].y, r.y);
    }
};

/* The denominator of slot i: from the x-coordinates alone in the common case. */
template <class S> static __device__ fp_t slot_denom(const S &src, size_t i)
{
    fp_t x1, x2;
    if (src.load_x(i, x1, x2) && !fp_eq(x1, x2) && !fp_is_zero(x1) && !fp_is_zero(x2))
        return fp_sub(x2, x1);
    g1_affine_t P, Q;
    bool has_q = src.load(i, P, Q);
    return tree_add_denom(tree_add_kind(P, Q, has_q), P, Q);
}

/* The elements of a level above the first: their own values are the denominators. */
struct elems_src {
    const fp_t *d;
};

static __device__ fp_t slot_denom(const elems_src &src, size_t i)
{
    return fp_load(&src.d[i]);
}

/* Upward, any level: running products of the denominators over the thread's K slots, stored per slot;
 * the thread's total goes to the level above. */
template <int K, class S>
__global__ void __launch_bounds__(MSM_THREADS, MSM_TREE_PRE_BLOCKS)
    k_tree_pre(S src, size_t n, fp_t *pre, size_t ps, fp_t *tot)
{
    size_t SS = (n + K - 1) / K, t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= SS)
        return;
    fp_t run;
    for (int j = 0; j < K; j++) {
        size_t i = t + j * SS;
        if (i >= n)
            break;
        fp_t d = slot_denom(src, i);
        run = j ? fp_mul(run, d) : d;
        fp_store(&pre[i * ps], run);
    }
    fp_store(&tot[t], run);
}

/* The top: inv[i] = 1/d[i] for n <= MSM_TREE_TOP elements, in one thread. */
static __global__ void k_tree_top(const fp_t *d, unsigned n, fp_t *inv)
{
    if (threadIdx.x != 0 || blockIdx.x != 0)
        return;
    fp_t run = fp_load(&d[0]);
    fp_store(&inv[0], run);
    for (unsigned i = 1; i < n; i++) {
        run = fp_mul(run, fp_load(&d[i]));
        fp_store(&inv[i], run);
    }
    fp_t v = fp_inv_fermat(run);
    for (unsigned i = n - 1; i > 0; i--) {
        fp_t r = fp_mul(v, fp_load(&inv[i - 1]));
        v = fp_mul(v, fp_load(&d[i]));
        fp_store(&inv[i], r);
    }
    fp_store(&inv[0], v);
}

/* Valid slots of thread t: t + j·SS < n. */
static __device__ int slots_of(size_t t, size_t SS, size_t n, int K)
{
    size_t j = (n - t + SS - 1) / SS;
    return j < (size_t)K ? (int)j : K;
}

/* Level l > 0, downward: inv[i] = 1/d[i] from the inverses of the totals. */
template <int K>
__global__ void MSM_TREE_BACK_BOUNDS
    k_tree_back(const fp_t *d, const fp_t *pre, const fp_t *itot, size_t n, fp_t *inv)
{
    size_t SS = (n + K - 1) / K, t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= SS)
        return;
    fp_t v = fp_load(&itot[t]);
    for (int j = slots_of(t, SS, n, K) - 1; j > 0; j--) {
        size_t i = t + j * SS;
        fp_t r = fp_mul(v, fp_load(&pre[i - SS]));
        v = fp_mul(v, fp_load(&d[i]));
        fp_store(&inv[i], r);
    }
    fp_store(&inv[t], v);
}

/* Level 0, downward: the additions themselves. */
template <int K, class S>
__global__ void MSM_TREE_FINAL_BOUNDS
    k_tree_final(S src, size_t n, const fp_t *pre, size_t ps, const fp_t *itot)
{
    size_t SS = (n + K - 1) / K, t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= SS)
        return;
    fp_t v = fp_load(&itot[t]);
    for (int j = slots_of(t, SS, n, K) - 1; j >= 0; j--) {
        size_t i = t + j * SS;
        g1_affine_t P, Q;
        bool has_q = src.load(i, P, Q);
        int kind = tree_add_kind(P, Q, has_q);
        fp_t id = v;
        if (j > 0) {
            id = fp_mul(v, fp_load(&pre[(i - SS) * ps]));
            v = fp_mul(v, tree_add_denom(kind, P, Q));
        }
        src.store(i, tree_add_finish(kind, P, Q, id));
    }
}

/* Next round's counts: a key with 2 or more elements gets half of them (rounded up); a key down to one
 * element is done and its point becomes the bucket. Only keys k_lo..k_hi take part (a tree over a part
 * of the buckets needs lists that much shorter). *cur_max (when given, zeroed before): the most elements
 * any key still holds. */
static __global__ void k_tree_next(tree_src src, unsigned B, unsigned k_lo, unsigned k_hi, uint32_t *next_cnt,
                                   g1_xyzz_t *buckets, uint32_t *cur_max = NULL)
{
    unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k > B + 1)
        return;
    uint32_t c = k >= k_lo && k <= k_hi ? src.cur_cnt[k] : 0;
    next_cnt[k] = c >= 2 ? (c + 1) / 2 : 0;
    if (cur_max && c >= 2)
        atomicMax(cur_max, c);
    if (c == 1) {
        g1_affine_t p = src.elem(src.cur_off[k]);
        g1_xyzz_t r;
        ec_xyzz_set_identity(r);
        ec_xyzz_add_affine(r, p);
        buckets[k - 1] = r;
    }
}

/* slot_src for the next round: one thread a key writes its slots' first elements and partner bits. */
static __global__ void k_tree_slots(const uint32_t *cur_off, const uint32_t *cur_cnt,
                                    const uint32_t *next_off, unsigned k_lo, unsigned k_hi,
                                    uint32_t *slot_src)
{
    unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < k_lo || k > k_hi)
        return;
    uint32_t c = cur_cnt[k], o = next_off[k], e = cur_off[k];
    if (c < 2)
        return;
    for (uint32_t j = 0; 2 * j < c; j++)
        slot_src[o + j] = (e + 2 * j) | (2 * j + 1 < c ? 0x80000000u : 0u);
}

/* The tree's end once a round would be small: every key still holding 2 or more elements sums them with
 * XYZZ mixed additions, one thread a key (a round's fixed cost, about 1 ms, is then paid no more). */
static __global__ void k_tree_finish(tree_src src, unsigned k_lo, unsigned k_hi, g1_xyzz_t *buckets)
{
    unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < k_lo || k > k_hi || src.cur_cnt[k] < 2)
        return;
    g1_xyzz_t acc;
    ec_xyzz_set_identity(acc);
    for (uint32_t e = src.cur_off[k], end = e + src.cur_cnt[k]; e < end; e++)
        ec_xyzz_add_affine(acc, src.elem(e));
    buckets[k - 1] = acc;
}

/* ---- host side ------------------------------------------------------------------ */

/* Scratch for batches of up to cap slots: per level l >= 1 the running products, and per level the totals
 * (the next level's elements) and the inverses (level 0's running products: `pre0` of tree_batch, or
 * pre[0] when the levels were made with it). */
struct msm_tree_levels {
    int n;
    size_t cap[MSM_TREE_LEVELS];
    fp_t *pre[MSM_TREE_LEVELS], *tot[MSM_TREE_LEVELS], *inv[MSM_TREE_LEVELS];
};

/* Level sizes for a batch of n slots, K to a thread, until at most MSM_TREE_TOP; returns the top level. */
static inline int tree_level_lens(size_t n, int K, size_t len[MSM_TREE_LEVELS])
{
    int top = 0;
    len[0] = n;
    while (len[top] > MSM_TREE_TOP && top + 1 < MSM_TREE_LEVELS) {
        len[top + 1] = (len[top] + K - 1) / K;
        top++;
    }
    return top;
}

/* Totals a level of len elements writes (at least MSM_TREE_TOP: a tiny batch's top reads its own). */
static inline size_t tree_tot_len(size_t len, int K)
{
    size_t t = (len + K - 1) / K;
    return t > MSM_TREE_TOP ? t : MSM_TREE_TOP;
}

/* Inverses level l holds: its len elements' for l >= 1; level 0's own are never stored (the additions use
 * them as they come), so inv[0] only holds a tiny batch's (n <= MSM_TREE_TOP, inverted by the top). */
static inline size_t tree_inv_len(int l, size_t len)
{
    return l && len > MSM_TREE_TOP ? len : MSM_TREE_TOP;
}

static inline size_t tree_levels_bytes(size_t cap, int K, bool pre0)
{
    size_t len[MSM_TREE_LEVELS], b = 0;
    int top = tree_level_lens(cap, K, len);
    for (int l = 0; l <= top; l++)
        b += ((l || pre0 ? len[l] : 0) + tree_inv_len(l, len[l]) + tree_tot_len(len[l], K)) * sizeof(fp_t);
    return b;
}

static inline void tree_levels_free(msm_tree_levels *L)
{
    for (int l = 0; l < L->n; l++) {
        cudaFree(L->pre[l]);
        cudaFree(L->tot[l]);
        cudaFree(L->inv[l]);
    }
    L->n = 0;
}

/* Levels for batches of up to cap slots (cap >= 1); pre0: also level 0's running products. */
static inline int tree_levels_alloc(msm_tree_levels *L, size_t cap, int K, bool pre0, char *err,
                                    size_t errlen)
{
    size_t len[MSM_TREE_LEVELS];
    int top = tree_level_lens(cap, K, len);
    memset(L, 0, sizeof *L);
    for (int l = 0; l <= top; l++) {
        L->n = l + 1;
        L->cap[l] = len[l];
        cudaError_t e = cudaSuccess;
        if (l || pre0)
            e = cudaMalloc((void **)&L->pre[l], len[l] * sizeof(fp_t));
        if (e == cudaSuccess)
            e = cudaMalloc((void **)&L->inv[l], tree_inv_len(l, len[l]) * sizeof(fp_t));
        if (e == cudaSuccess)
            e = cudaMalloc((void **)&L->tot[l], tree_tot_len(len[l], K) * sizeof(fp_t));
        if (e != cudaSuccess) {
            cudaGetLastError();
            tree_levels_free(L);
            return cuda_fail(err, errlen, "cudaMalloc of the msm tree's levels", e);
        }
    }
    return CUZK_OK;
}

/* Where a batch's chain of small kernels runs (the levels, the one-thread inversion, the walk back: latency,
 * not throughput): on a stream of the highest priority, so that its few blocks are dispatched ahead of
 * any large kernel beside it (another batch's gathers or additions, B2), between two events. */
struct tree_chain {
    cudaStream_t hi;
    cudaEvent_t pre_done, chain_done; /* pre_done: the slots' denominators are read */
};

/* One batch of n slots (1 <= n <= the levels' capacity) on st, its chain on ch->hi when ch is given;
 * level 0's running products go to pre0[i·ps]. */
template <int K, class S>
static int tree_batch(S src, size_t n, const msm_tree_levels *L, fp_t *pre0, size_t ps, cudaStream_t st,
                      char *err, size_t errlen, const tree_chain *ch = NULL)
{
    size_t len[MSM_TREE_LEVELS];
    int top = tree_level_lens(n, K, len);
    if (top >= L->n || n > L->cap[0])
        return cuzk_fail(err, errlen, CUZK_EINVAL, "gpu msm: a tree batch of %zu slots exceeds its scratch",
                         n);
    if (top == 0) /* tiny: the top inverts the denominators themselves */
        k_tree_pre<1, S><<<grid_for(n), MSM_THREADS, 0, st>>>(src, n, pre0, ps, L->tot[0]);
    else
        k_tree_pre<K, S><<<grid_for(len[1]), MSM_THREADS, 0, st>>>(src, n, pre0, ps, L->tot[0]);
    cudaStream_t cs = ch ? ch->hi : st;
    int rc = ch ? cuda_join(st, ch->pre_done, cs, CUZK_OK, "the msm tree chain's start", err, errlen) : CUZK_OK;
    if (rc)
        return rc;
    if (top == 0) {
        k_tree_top<<<1, 32, 0, cs>>>(L->tot[0], (unsigned)n, L->inv[0]);
    } else {
        for (int l = 1; l < top; l++)
            k_tree_pre<K, elems_src><<<grid_for(len[l + 1]), MSM_THREADS, 0, cs>>>(
                elems_src{L->tot[l - 1]}, len[l], L->pre[l], 1, L->tot[l]);
        k_tree_top<<<1, 32, 0, cs>>>(L->tot[top - 1], (unsigned)len[top], L->inv[top]);
        for (int l = top - 1; l >= 1; l--)
            k_tree_back<K><<<grid_for(len[l + 1]), MSM_THREADS, 0, cs>>>(L->tot[l - 1], L->pre[l],
                                                                         L->inv[l + 1], len[l], L->inv[l]);
    }
    if (ch && (rc = cuda_join(cs, ch->chain_done, st, CUZK_OK, "the msm tree chain's end", err, errlen)))
        return rc;
    if (top == 0)
        k_tree_final<1, S><<<grid_for(n), MSM_THREADS, 0, st>>>(src, n, pre0, ps, L->inv[0]);
    else
        k_tree_final<K, S><<<grid_for(len[1]), MSM_THREADS, 0, st>>>(src, n, pre0, ps, L->inv[1]);
    CU(cudaGetLastError(), "msm tree batch launch");
    return CUZK_OK;
}

/* The scratch of one G1 workspace's trees, for windows of up to n_max entries and B_max buckets. The
 * region (list[0] and pre_hi, msm_tree_region_bytes) is the workspace's own, or memory its owner lends
 * for the duration of every MSM (the prover's b and c, idle while it runs its MSMs). */
struct msm_tree {
    size_t cap;           /* slots round 0 can have: n_max/2 + B_max/2 + 1 */
    g1_affine_t *list[2]; /* round 0 writes list[0] (cap), round 1 list[1] (cap/2 + B_max), ... */
    size_t list_len[2];
    fp_t *pre_hi;              /* running products of rounds >= 1 (list_len[1]); round 0's sit in list[1] */
    void *own;                 /* the region, when not lent */
    uint32_t *cnt[2], *off[2]; /* B_max + 2 each */
    uint32_t *max_d;           /* the most elements a key holds this round */
    uint32_t *total_h;         /* pinned: the next round's slots, then max_d */
    void *scan_tmp;            /* CUB's scratch for the rounds' scans (the workspace's own serves the sorts,
                                * which run beside the tree) */
    size_t scan_bytes;
    bool trace;                /* CUZK_MSM_TREE_TRACE set: every window's rounds on stderr */
    msm_tree_levels L;
    /* A round of at least split_min slots is cut into `parts` batches, issued alternately on the caller's
     * stream (levels L) and the tree's own (st2, levels L2), each batch starting once the one before it
     * has read its denominators, so that one batch's gathers and chain can run beside the other's
     * additions. Measured on a 2^27 - 1 MSM (docs/design/020, tenth session): 2 parts with the chains at
     * the highest priority -15 ms, each part beyond the second about +1 ms a round. */
    unsigned parts;
    size_t split_min;
    cudaStream_t st2;
    cudaEvent_t ev_fork, ev_join, ev_pre[MSM_TREE_MAX_PARTS], ev_chain[MSM_TREE_MAX_PARTS];
    cudaStream_t hi[2]; /* the batches' chains (struct tree_chain), by the parity of their part */
    msm_tree_levels L2;
};

/* CUB's scratch for a scan of B_max + 2 counts. */
static inline size_t msm_tree_scan_bytes(size_t B_max)
{
    size_t b = 0;
    cub::DeviceScan::ExclusiveSum(NULL, b, (const uint32_t *)NULL, (uint32_t *)NULL, (int)B_max + 2);
    return b ? b : 1;
}

static inline size_t msm_tree_cap(size_t n_max, size_t B_max)
{
    return n_max / 2 + B_max / 2 + 1;
}

/* list[0] and pre_hi: a round never has more slots than the one before it (a key of c >= 2 elements
 * leaves ceil(c / 2) < c), so rounds >= 1 fit list_len[1]; round 0's running products (cap elements of
 * 48 bytes) fit list[1] (cap/2 + B_max points of 96), which round 0 does not touch. */
static inline size_t msm_tree_region_bytes(size_t n_max, size_t B_max)
{
    size_t cap = msm_tree_cap(n_max, B_max);
    return cap * sizeof(g1_affine_t) + (cap / 2 + B_max) * sizeof(fp_t);
}

/* Device bytes of a tree besides its region. */
static inline size_t msm_tree_rest_bytes(size_t n_max, size_t B_max)
{
    size_t cap = msm_tree_cap(n_max, B_max);
    return (cap / 2 + B_max) * sizeof(g1_affine_t) + 4 * (B_max + 2) * 4 + msm_tree_scan_bytes(B_max) +
           tree_levels_bytes(cap, MSM_TREE_K, false) + tree_levels_bytes((cap + 1) / 2, MSM_TREE_K, false);
}

static inline void msm_tree_free(msm_tree *t)
{
    if (!t)
        return;
    void *ptrs[] = {t->own, t->list[1], t->cnt[0], t->cnt[1], t->off[0], t->off[1], t->max_d, t->scan_tmp};
    for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++)
        if (ptrs[i])
            cudaFree(ptrs[i]);
    if (t->total_h)
        cudaFreeHost(t->total_h);
    tree_levels_free(&t->L);
    tree_levels_free(&t->L2);
    cudaEvent_t evs[] = {t->ev_fork, t->ev_join};
    for (int i = 0; i < 2; i++)
        if (evs[i])
            cudaEventDestroy(evs[i]);
    for (int i = 0; i < MSM_TREE_MAX_PARTS; i++) {
        if (t->ev_pre[i])
            cudaEventDestroy(t->ev_pre[i]);
        if (t->ev_chain[i])
            cudaEventDestroy(t->ev_chain[i]);
    }
    cudaStream_t sts[] = {t->st2, t->hi[0], t->hi[1]};
    for (int i = 0; i < 3; i++)
        if (sts[i])
            cudaStreamDestroy(sts[i]);
    free(t);
}

/* A tree for windows of up to n_max entries; its region is lent[0 .. lent_bytes) when that is large
 * enough, else its own. */
static inline int msm_tree_new(msm_tree **out, size_t n_max, size_t B_max, void *lent, size_t lent_bytes,
                               char *err, size_t errlen)
{
    *out = NULL;
    msm_tree *t = (msm_tree *)calloc(1, sizeof *t);
    if (!t)
        return cuzk_fail(err, errlen, CUZK_ENOMEM, "gpu msm: out of host memory");
    t->cap = msm_tree_cap(n_max, B_max);
    t->scan_bytes = msm_tree_scan_bytes(B_max);
    t->list_len[0] = t->cap;
    t->list_len[1] = t->cap / 2 + B_max;
    size_t region = msm_tree_region_bytes(n_max, B_max);
    void *base = lent && lent_bytes >= region ? lent : NULL;
    struct {
        void **p;
        size_t bytes;
    } allocs[] = {
        {&t->own, base ? 0 : region},
        {(void **)&t->list[1], t->list_len[1] * sizeof(g1_affine_t)},
        {(void **)&t->cnt[0], (B_max + 2) * 4},
        {(void **)&t->cnt[1], (B_max + 2) * 4},
        {(void **)&t->off[0], (B_max + 2) * 4},
        {(void **)&t->off[1], (B_max + 2) * 4},
        {(void **)&t->max_d, 4},
        {&t->scan_tmp, t->scan_bytes},
    };
    for (size_t i = 0; i < sizeof allocs / sizeof allocs[0]; i++) {
        if (!allocs[i].bytes)
            continue;
        cudaError_t e = cudaMalloc(allocs[i].p, allocs[i].bytes);
        if (e != cudaSuccess) {
            cudaGetLastError();
            msm_tree_free(t);
            return cuda_fail(err, errlen, "cudaMalloc of the msm tree", e);
        }
    }
    if (!base)
        base = t->own;
    t->list[0] = (g1_affine_t *)base;
    t->pre_hi = (fp_t *)((char *)base + t->cap * sizeof(g1_affine_t));
    t->trace = getenv("CUZK_MSM_TREE_TRACE") != NULL;
    cudaError_t e = cudaMallocHost((void **)&t->total_h, 8);
    if (e != cudaSuccess) {
        cudaGetLastError();
        msm_tree_free(t);
        return cuda_fail(err, errlen, "cudaMallocHost of the msm tree", e);
    }
    int rc = tree_levels_alloc(&t->L, t->cap, MSM_TREE_K, false, err, errlen);
    if (rc == CUZK_OK)
        rc = tree_levels_alloc(&t->L2, (t->cap + 1) / 2, MSM_TREE_K, false, err, errlen);
    if (rc) {
        msm_tree_free(t);
        return rc;
    }
    int least = 0, greatest = 0;
    e = cudaDeviceGetStreamPriorityRange(&least, &greatest);
    if (e == cudaSuccess)
        e = cudaStreamCreateWithPriority(&t->st2, cudaStreamNonBlocking, gpu_work_priority());
    for (int i = 0; e == cudaSuccess && i < 2; i++)
        e = cudaStreamCreateWithPriority(&t->hi[i], cudaStreamNonBlocking, greatest);
    cudaEvent_t *evs[2 + 2 * MSM_TREE_MAX_PARTS] = {&t->ev_fork, &t->ev_join};
    for (int i = 0; i < MSM_TREE_MAX_PARTS; i++)
        evs[2 + 2 * i] = &t->ev_pre[i], evs[3 + 2 * i] = &t->ev_chain[i];
    for (int i = 0; e == cudaSuccess && i < 2 + 2 * MSM_TREE_MAX_PARTS; i++)
        e = cudaEventCreateWithFlags(evs[i], cudaEventDisableTiming);
    if (e != cudaSuccess) {
        cudaGetLastError();
        msm_tree_free(t);
        return cuda_fail(err, errlen, "the msm tree's stream and events", e);
    }
    const char *parts = getenv("CUZK_MSM_TREE_PARTS");
    t->parts = parts && atoi(parts) >= 1 && atoi(parts) <= MSM_TREE_MAX_PARTS ? (unsigned)atoi(parts)
                                                                                : MSM_TREE_PARTS;
    t->split_min = MSM_TREE_SPLIT_MIN;
    *out = t;
    return CUZK_OK;
}

/* One round of n slots: one batch, or `parts` batches pipelined over two streams (struct msm_tree). */
static inline int tree_round(msm_tree *t, tree_src src, size_t n, fp_t *pre, cudaStream_t st, char *err,
                             size_t errlen)
{
    unsigned P = t->parts;
    if (P < 2 || n < t->split_min || n < P) {
        tree_chain ch = {t->hi[0], t->ev_pre[0], t->ev_chain[0]};
        return tree_batch<MSM_TREE_K>(src, n, &t->L, pre, 1, st, err, errlen, &ch);
    }
    size_t per = (n + P - 1) / P; /* at most ceil(cap / 2): L2's capacity */
    int rc = cuda_join(st, t->ev_fork, t->st2, CUZK_OK, "the msm tree's fork", err, errlen);
    if (rc)
        return rc;
    for (unsigned p = 0; p < P && rc == CUZK_OK; p++) {
        size_t o0 = p * per;
        if (o0 >= n)
            break;
        cudaStream_t s = p & 1 ? t->st2 : st;
        cudaError_t e = p ? cudaStreamWaitEvent(s, t->ev_pre[p - 1], 0) : cudaSuccess;
        if (e != cudaSuccess) {
            rc = cuda_fail(err, errlen, "cudaStreamWaitEvent (tree part)", e);
            break;
        }
        tree_src part = src;
        part.o0 = o0;
        tree_chain ch = {t->hi[p & 1], t->ev_pre[p], t->ev_chain[p]};
        rc = tree_batch<MSM_TREE_K>(part, n - o0 < per ? n - o0 : per, p & 1 ? &t->L2 : &t->L, pre + o0, 1, s,
                                    err, errlen, &ch);
    }
    /* joined whatever happened: nothing of this round may still run on st2 once st moves on */
    return cuda_join(t->st2, t->ev_join, st, rc, "the msm tree's join", err, errlen);
}

/* Buckets[0 .. B) of one window from its sorted entries: vals (base index | sign << 31), counts[k] and
 * offs[k] per key k in 0..B+1 (key 0, the zero digits, is skipped). The tree ends with XYZZ sums once a
 * round would have fewer than `finish` slots. Synchronizes st once per round (the next round's size). */
static inline int msm_tree_window(msm_tree *t, const g1_affine_t *bases, const uint32_t *vals,
                                  const uint32_t *counts, const uint32_t *offs, unsigned B, size_t finish,
                                  g1_xyzz_t *buckets, cudaStream_t st, char *err, size_t errlen)
{
    CU(cudaMemsetAsync(buckets, 0, (size_t)B * sizeof *buckets, st), "cudaMemsetAsync (tree buckets)");
    tree_src src = {bases, vals, NULL, offs, counts, NULL, NULL, B, NULL, 0};
    for (int side = 0, round = 0;; side ^= 1, round++) {
        CU(cudaMemsetAsync(t->max_d, 0, 4, st), "cudaMemsetAsync (tree round)");
        k_tree_next<<<grid_for(B + 2), MSM_THREADS, 0, st>>>(src, B, 1, B, t->cnt[side], buckets, t->max_d);
        CU(cudaGetLastError(), "k_tree_next launch");
        size_t tb = t->scan_bytes;
        CU(cub::DeviceScan::ExclusiveSum(t->scan_tmp, tb, t->cnt[side], t->off[side], (int)B + 2, st),
           "cub::DeviceScan::ExclusiveSum (tree)");
        CU(cudaMemcpyAsync(t->total_h, t->off[side] + B + 1, 4, cudaMemcpyDeviceToHost, st),
           "cudaMemcpyAsync (tree round)");
        CU(cudaMemcpyAsync(t->total_h + 1, t->max_d, 4, cudaMemcpyDeviceToHost, st),
           "cudaMemcpyAsync (tree round)");
        CU(cudaStreamSynchronize(st), "cudaStreamSynchronize (tree round)");
        size_t n = t->total_h[0], most = t->total_h[1];
        if (t->trace)
            fprintf(stderr, "msm tree: round %d, %zu slots, a key holds at most %zu elements%s\n", round, n,
                    most, n && n < finish && most <= MSM_TREE_FINISH_LEN ? ": XYZZ end" : "");
        if (n == 0)
            return CUZK_OK;
        /* the end in XYZZ sums, one thread a key, only once no key has many left: a skewed window (many
         * equal scalars) keeps halving its large keys instead */
        if (n < finish && most <= MSM_TREE_FINISH_LEN) {
            k_tree_finish<<<grid_for(B + 2), MSM_THREADS, 0, st>>>(src, 1, B, buckets);
            CU(cudaGetLastError(), "k_tree_finish launch");
            return CUZK_OK;
        }
        if (n > t->list_len[side])
            return cuzk_fail(err, errlen, CUZK_EIO,
                             "gpu msm: a tree round of %zu slots exceeds its list (%zu)", n,
                             t->list_len[side]);
        src.next_off = t->off[side];
        src.next = t->list[side];
        fp_t *pre = src.vals ? (fp_t *)t->list[1] : t->pre_hi;
        int rc = tree_round(t, src, n, pre, st, err, errlen);
        if (rc)
            return rc;
        /* the next round reads what this one wrote */
        src.vals = NULL;
        src.cur = t->list[side];
        src.cur_off = t->off[side];
        src.cur_cnt = t->cnt[side];
    }
}

#endif
