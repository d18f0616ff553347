/*
 * batch_affine.cu — G1 affine additions that share one inversion across the
 * whole grid (Montgomery's trick, applied level by level), measured two ways
 * against the XYZZ mixed additions of the library's bucket accumulation:
 *
 *  1. one round of N independent pairs P + Q of gathered bases (the inner step);
 *  2. one whole MSM window: the sorted entries of 2^LG random digits over
 *     B = 2^19 buckets summed into the buckets, by a tree of rounds (each
 *     round adds a bucket's points two by two, so a bucket of n points is done
 *     after ceil(log2 n) rounds) against the library's own kernels (k_items,
 *     folds, k_buckets, launched as msm_run step 4 launches them). A round
 *     costs about 1 ms whatever its size, so the tree may end early: once a
 *     round would have fewer than 2^F slots, each bucket sums what it has left
 *     with XYZZ mixed additions. Variants: the end (none, F = 21..25); how a
 *     slot finds its two points (binary search for its key, or an index
 *     written per round); the buckets in 1, 2 or 4 parts, one tree after the
 *     other (lists that much shorter: the VRAM a library tree would need).
 *
 * One batch of n additions, each thread owning the K slots t, t + S, ...,
 * t + (K-1)S (S = ceil(n / K), so that neighbouring threads touch neighbouring
 * slots):
 *   pre    the slot's denominator d; the thread's running product, stored per
 *          slot; the thread's total goes to the next level
 *   levels the same on the totals (K to a thread) until at most 64 remain
 *   top    one thread: running products, one Fermat inversion, back-substitution
 *   back   each level's inverses from the level above (two products an element)
 *   final  1/d from the stored running products, then the affine sum:
 *          lambda = (y_Q - y_P)/d, x = lambda^2 - x_P - x_Q, y = lambda (x_P - x) - y_P
 * Per addition: 5 products and 1 square, plus 3/K products for the levels,
 * against 8 products and 2 squares for an XYZZ mixed addition. The sum is
 * complete: an identity on either side, P = Q (d = 2y, numerator 3x^2),
 * P = -Q and a slot with no partner are selected per slot, with d = 1 where
 * there is nothing to invert.
 *
 * The bases are real curve points (random x until x^3 + 4 is a square; 2^22
 * of them, repeated to fill 2^LG_BASES places), so that sums in different
 * orders agree. Checks: every pair sum against the XYZZ
 * mixed addition of the same pair; every bucket of the window against the
 * library's bucket. Outputs are poisoned before each checked run.
 *
 *   nvcc -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -Iinclude -Isrc -Itests/gpu \
 *        bench/gpu/batch_affine.cu -o batch_affine && ./batch_affine [LG [LG_BASES]]
 * LG: the window's entries (default 27); LG_BASES: how many bases the entries
 * point into (default 27, a PoRep partition's H bases: 12.9 GB).
 */
#include <vector>

#include "bench_gpu.cuh"
#include "gpu/msm_impl.cuh"

#define NT 256       /* threads per block, every kernel */
#define TOP_MAX 64   /* the top level inverts at most this many elements in one thread */
#define LG_POINTS 22 /* distinct points at the most (the bases repeat them) */

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

/* Point i: random x (Montgomery form, below p), stepped by one until x^3 + 4
 * is a square; y = (x^3 + 4)^((p + 1) / 4) (p = 3 mod 4), negated at random. */
static __global__ void k_points(g1_affine_t *pts, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint32_t e[12] = FP_P_WORDS;
    e[0] += 1; /* p + 1: no carry */
    for (int w = 0; w < 12; w++)
        e[w] = (e[w] >> 2) | (w < 11 ? e[w + 1] << 30 : 0);
    fp_t x;
    for (int k = 0; k < 12; k++)
        x.v[k] = mix32(i * 12 + k + 1) & (k == 11 ? 0x0fffffffu : 0xffffffffu);
    fp_t four = fp_dbl(fp_dbl(fp_one()));
    for (;;) {
        fp_t rhs = fp_add(fp_mul(fp_sqr(x), x), four);
        fp_t y = fp_pow(rhs, e);
        if (fp_eq(fp_sqr(y), rhs)) {
            pts[i].x = x;
            pts[i].y = mix32(i ^ 0x5555ull) & 1 ? fp_neg(y) : y;
            return;
        }
        x = fp_add(x, fp_one());
    }
}

/* ---- one batch of additions ------------------------------------------------ */

enum { A_ADD, A_DBL, A_COPY_P, A_COPY_Q, A_ZERO };

static __device__ int add_kind(const g1_affine_t &P, const g1_affine_t &Q, bool has_q)
{
    if (!has_q)
        return A_COPY_P;
    if (ec_affine_is_identity(P))
        return A_COPY_Q;
    if (ec_affine_is_identity(Q))
        return A_COPY_P;
    if (!fp_eq(P.x, Q.x))
        return A_ADD;
    return fp_eq(P.y, Q.y) ? A_DBL : A_ZERO;
}

static __device__ fp_t add_denom(int kind, const g1_affine_t &P, const g1_affine_t &Q)
{
    if (kind == A_ADD)
        return fp_sub(Q.x, P.x);
    if (kind == A_DBL)
        return fp_dbl(P.y);
    return fp_one();
}

/* P + Q given inv = 1/add_denom. */
static __device__ g1_affine_t add_finish(int kind, const g1_affine_t &P, const g1_affine_t &Q, fp_t inv)
{
    if (kind == A_COPY_P)
        return P;
    if (kind == A_COPY_Q)
        return Q;
    if (kind == A_ZERO) {
        g1_affine_t z = {fp_zero(), fp_zero()};
        return z;
    }
    fp_t num;
    if (kind == A_ADD) {
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

static __device__ g1_affine_t load_pt(const g1_affine_t *p)
{
    g1_affine_t r = {fp_load(&p->x), fp_load(&p->y)};
    return r;
}

/* Slots of a round of independent pairs: slot i adds bases[idx[2i]] and bases[idx[2i + 1]]. */
struct pair_src {
    const g1_affine_t *b;
    const uint32_t *idx;
    g1_affine_t *out;
    __device__ bool load_x(size_t i, fp_t &x1, fp_t &x2) const
    {
        x1 = fp_load(&b[idx[2 * i]].x);
        x2 = fp_load(&b[idx[2 * i + 1]].x);
        return true;
    }
    __device__ bool load(size_t i, g1_affine_t &P, g1_affine_t &Q) const
    {
        P = load_pt(&b[idx[2 * i]]);
        Q = load_pt(&b[idx[2 * i + 1]]);
        return true;
    }
    __device__ void store(size_t i, const g1_affine_t &r) const
    {
        fp_store(&out[i].x, r.x);
        fp_store(&out[i].y, r.y);
    }
};

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
    __device__ size_t src_of(size_t o, bool &has_q) const
    {
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
            return load_pt(&cur[e]);
        uint32_t v = vals[e];
        g1_affine_t p = load_pt(&bases[v & 0x7fffffffu]);
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
        fp_store(&next[o].x, r.x);
        fp_store(&next[o].y, r.y);
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
    return add_denom(add_kind(P, Q, has_q), P, Q);
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
__global__ void __launch_bounds__(NT) k_pre(S src, size_t n, fp_t *pre, size_t ps, fp_t *tot)
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

/* The top: inv[i] = 1/d[i] for n <= TOP_MAX elements, in one thread. */
static __global__ void k_top(const fp_t *d, unsigned n, fp_t *inv)
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
__global__ void __launch_bounds__(NT)
    k_back(const fp_t *d, const fp_t *pre, const fp_t *itot, size_t n, fp_t *inv)
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
__global__ void __launch_bounds__(NT) k_final0(S src, size_t n, const fp_t *pre, size_t ps, const fp_t *itot)
{
    size_t SS = (n + K - 1) / K, t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= SS)
        return;
    fp_t v = fp_load(&itot[t]);
    for (int j = slots_of(t, SS, n, K) - 1; j >= 0; j--) {
        size_t i = t + j * SS;
        g1_affine_t P, Q;
        bool has_q = src.load(i, P, Q);
        int kind = add_kind(P, Q, has_q);
        fp_t id = v;
        if (j > 0) {
            id = fp_mul(v, fp_load(&pre[(i - SS) * ps]));
            v = fp_mul(v, add_denom(kind, P, Q));
        }
        src.store(i, add_finish(kind, P, Q, id));
    }
}

static unsigned blocks(size_t threads)
{
    return (unsigned)((threads + NT - 1) / NT);
}

/* Scratch for batches of up to n additions: per level the running products, the totals (the next level's
 * elements) and the inverses. */
struct levels {
    std::vector<fp_t *> pre, tot, inv;
    std::vector<size_t> cap;
};

static levels levels_alloc(size_t n, int K)
{
    levels L;
    for (size_t m = n;; m = (m + K - 1) / K) {
        fp_t *p, *t, *v;
        CUDA_OK(cudaMalloc(&p, m * sizeof(fp_t)));
        CUDA_OK(cudaMalloc(&v, m * sizeof(fp_t)));
        CUDA_OK(cudaMalloc(&t, ((m + K - 1) / K) * sizeof(fp_t)));
        L.cap.push_back(m);
        L.pre.push_back(p);
        L.inv.push_back(v);
        L.tot.push_back(t);
        if (m <= TOP_MAX)
            break;
    }
    return L;
}

static void levels_free(levels &L)
{
    for (size_t l = 0; l < L.cap.size(); l++) {
        CUDA_OK(cudaFree(L.pre[l]));
        CUDA_OK(cudaFree(L.tot[l]));
        CUDA_OK(cudaFree(L.inv[l]));
    }
}

/* One batch of n slots (1 <= n <= the levels' capacity). The first level's running products go to
 * pre0[i·ps] when pre0 is given (the tree puts them in the y-coordinates of the list the batch writes:
 * slot i's is read before slot i is written, by the thread that owns both), else to the levels' own. */
template <int K, class S> static void batch_run(S src, size_t n, levels &L, fp_t *pre0 = NULL, size_t ps = 1)
{
    if (!pre0) {
        pre0 = L.pre[0];
        ps = 1;
    }
    std::vector<size_t> len(1, n);
    while (len.back() > TOP_MAX)
        len.push_back((len.back() + K - 1) / K);
    size_t top = len.size() - 1;
    if (top == 0) { /* tiny: the top inverts the denominators themselves */
        k_pre<1, S><<<blocks(n), NT>>>(src, n, pre0, ps, L.tot[0]);
        k_top<<<1, 32>>>(L.tot[0], (unsigned)n, L.inv[1]);
        k_final0<1, S><<<blocks(n), NT>>>(src, n, pre0, ps, L.inv[1]);
        return;
    }
    k_pre<K, S><<<blocks(len[1]), NT>>>(src, n, pre0, ps, L.tot[0]);
    for (size_t l = 1; l < top; l++)
        k_pre<K, elems_src>
            <<<blocks(len[l + 1]), NT>>>(elems_src{L.tot[l - 1]}, len[l], L.pre[l], 1, L.tot[l]);
    k_top<<<1, 32>>>(L.tot[top - 1], (unsigned)len[top], L.inv[top]);
    for (size_t l = top - 1; l >= 1; l--)
        k_back<K><<<blocks(len[l + 1]), NT>>>(L.tot[l - 1], L.pre[l], L.inv[l + 1], len[l], L.inv[l]);
    k_final0<K, S><<<blocks(len[1]), NT>>>(src, n, pre0, ps, L.inv[1]);
}

static float elapsed(cudaEvent_t a, cudaEvent_t b)
{
    float ms;
    CUDA_OK(cudaEventElapsedTime(&ms, a, b));
    return ms;
}

/* ---- 1. one round of independent pairs -------------------------------------- */

static __global__ void k_pair_idx(uint32_t *idx, size_t m, unsigned lg_pts)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m)
        idx[i] = mix32(i ^ 0xabcdef12345ull) & ((1u << lg_pts) - 1);
}

static __global__ void k_check_pairs(const g1_affine_t *b, const uint32_t *idx, size_t n,
                                     const g1_affine_t *out, unsigned long long *bad)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    g1_affine_t P = load_pt(&b[idx[2 * i]]), Q = load_pt(&b[idx[2 * i + 1]]);
    g1_xyzz_t r;
    ec_xyzz_set_identity(r);
    ec_xyzz_add_affine(r, P);
    ec_xyzz_add_affine(r, Q);
    g1_affine_t s = load_pt(&out[i]);
    bool ok = ec_xyzz_is_identity(r) ? ec_affine_is_identity(s)
                                     : fp_eq(fp_mul(s.x, r.ZZ), r.X) && fp_eq(fp_mul(s.y, r.ZZZ), r.Y);
    if (!ok)
        atomicAdd(bad, 1ull);
}

template <int K>
static int bench_pairs(const g1_affine_t *pts, const uint32_t *idx, size_t n, g1_affine_t *out,
                       unsigned long long *bad)
{
    levels L = levels_alloc(n, K);
    pair_src src = {pts, idx, out};
    cudaEvent_t e0, e1;
    CUDA_OK(cudaEventCreate(&e0));
    CUDA_OK(cudaEventCreate(&e1));
    CUDA_OK(cudaMemset(out, 0xa5, n * sizeof *out));
    CUDA_OK(cudaMemset(bad, 0, sizeof *bad));
    batch_run<K>(src, n, L);
    k_check_pairs<<<blocks(n), NT>>>(pts, idx, n, out, bad);
    unsigned long long nbad;
    CUDA_OK(cudaMemcpy(&nbad, bad, sizeof nbad, cudaMemcpyDeviceToHost));
    float best = 1e30f;
    for (int r = 0; r < 3; r++) {
        CUDA_OK(cudaEventRecord(e0));
        batch_run<K>(src, n, L);
        CUDA_OK(cudaEventRecord(e1));
        CUDA_OK(cudaEventSynchronize(e1));
        CUDA_OK(cudaGetLastError());
        float ms = elapsed(e0, e1);
        best = ms < best ? ms : best;
    }
    cudaFuncAttributes fa;
    CUDA_OK(cudaFuncGetAttributes(&fa, (const void *)k_final0<K, pair_src>));
    printf(
        "| pairs, K=%-2d | 2^%-2d | %8.3f ms | %6.3f G add/s | final %3d regs %4zu B local | %llu wrong |\n",
        K, __builtin_ctzll(n), best, n / (best * 1e6), fa.numRegs, (size_t)fa.localSizeBytes, nbad);
    levels_free(L);
    CUDA_OK(cudaEventDestroy(e0));
    CUDA_OK(cudaEventDestroy(e1));
    return nbad ? 1 : 0;
}

/* ---- 2. one window -------------------------------------------------------- */

/* Digit of entry i: key 1..B uniformly (key 0, a zero digit, one time in 4096), a random base and sign. */
static __global__ void k_digits_rand(size_t m, unsigned B, unsigned lg_pts, uint32_t *keys, uint32_t *vals,
                                     uint32_t *counts)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m)
        return;
    uint32_t h = mix32(i * 3 + 11);
    uint32_t key = (h & 4095) == 0 ? 0 : 1 + mix32(i * 3 + 12) % B;
    keys[i] = key;
    vals[i] = (mix32(i * 3 + 13) & ((1u << lg_pts) - 1)) | (h & 0x80000000u);
    atomicAdd(&counts[key], 1u);
}

/* Next round's counts: a key with 2 or more elements gets half of them (rounded up); a key down to one
 * element is done and its point becomes the bucket. Only keys k_lo..k_hi take part (a tree over a part
 * of the buckets needs lists that much shorter). */
static __global__ void k_tree_next(tree_src src, unsigned B, unsigned k_lo, unsigned k_hi, uint32_t *next_cnt,
                                   g1_xyzz_t *buckets)
{
    unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k > B + 1)
        return;
    uint32_t c = k >= k_lo && k <= k_hi ? src.cur_cnt[k] : 0;
    next_cnt[k] = c >= 2 ? (c + 1) / 2 : 0;
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

static __global__ void k_check_buckets(const g1_xyzz_t *a, const g1_xyzz_t *b, unsigned B,
                                       unsigned long long *bad)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= B)
        return;
    g1_xyzz_t p = a[i], q = b[i];
    bool ok;
    if (ec_xyzz_is_identity(p) || ec_xyzz_is_identity(q))
        ok = ec_xyzz_is_identity(p) && ec_xyzz_is_identity(q);
    else
        ok = fp_eq(fp_mul(p.X, q.ZZ), fp_mul(q.X, p.ZZ)) && fp_eq(fp_mul(p.Y, q.ZZZ), fp_mul(q.Y, p.ZZZ));
    if (!ok)
        atomicAdd(bad, 1ull);
}

struct window {
    size_t m;
    unsigned B, T;
    uint32_t *keys, *vals, *counts, *offs; /* sorted */
    void *cub_tmp;
    size_t cub_bytes;
};

/* The library's accumulation of one window (msm_run, step 4, after the scan of the counts). */
struct lib_acc {
    uint32_t *item_cnt, *item_off, *fold_cnt, *fold_off;
    g1_xyzz_t *items, *folded;
};

static void lib_run(const g1_affine_t *bases, window &w, lib_acc &a, g1_xyzz_t *buckets)
{
    unsigned B = w.B, T = w.T;
    uint32_t n_tail = (uint32_t)w.m;
    k_chunk_counts<<<blocks(B + 2), NT>>>(w.offs, B, T, a.item_cnt);
    size_t tb = w.cub_bytes;
    CUDA_OK(cub::DeviceScan::ExclusiveSum(w.cub_tmp, tb, a.item_cnt, a.item_off, (int)B + 2));
    size_t chunks = ceil_div_u(n_tail, T), max_items = chunks + B;
    k_items<fp_t><<<blocks(chunks), NT>>>(bases, w.keys, w.vals, w.offs, a.item_off, B, T, a.items);
    const g1_xyzz_t *lvl = a.items;
    const uint32_t *lvl_cnt = a.item_cnt, *lvl_off = a.item_off;
    size_t lvl_len = max_items, lvl_max = chunks + 1;
    int side = 0;
    while (lvl_max > MSM_FOLD) {
        uint32_t *cnt = side ? a.item_cnt : a.fold_cnt, *off = side ? a.item_off : a.fold_off;
        g1_xyzz_t *dst = side ? a.items : a.folded;
        k_item_counts<<<blocks(B + 2), NT>>>(lvl_cnt, B, MSM_FOLD, cnt);
        tb = w.cub_bytes;
        CUDA_OK(cub::DeviceScan::ExclusiveSum(w.cub_tmp, tb, cnt, off, (int)B + 2));
        lvl_len = msm_fold_len(lvl_len, B);
        k_fold<fp_t><<<blocks(lvl_len), NT>>>(lvl, lvl_off, off, B, dst);
        lvl = dst, lvl_cnt = cnt, lvl_off = off;
        lvl_max = (lvl_max + MSM_FOLD - 1) / MSM_FOLD;
        side ^= 1;
    }
    k_buckets<fp_t><<<blocks(B), NT>>>(lvl, lvl_off, B, buckets);
}

/* The tree over the keys in `parts` equal parts, one after the other: rounds until every key is down to
 * one element, or until a round would have fewer than finish_at slots, when k_tree_finish ends it.
 * Returns the steps (rounds and ends); per-step slot counts, times and whether it was an end go to
 * sizes / ms / end when given. */
struct tree_ws {
    g1_affine_t *list[2];
    uint32_t *cnt[2], *off[2];
    uint32_t *total_h;  /* pinned */
    uint32_t *slot_src; /* NULL: slots search their key */
    bool lean;          /* the first level's running products in the list being written */
    levels L;
};

template <int K>
static int tree_run(const g1_affine_t *bases, window &w, tree_ws &t, size_t finish_at, unsigned parts,
                    g1_xyzz_t *buckets, size_t *sizes, bool *end, float *ms, cudaEvent_t *ev)
{
    unsigned B = w.B;
    CUDA_OK(cudaMemsetAsync(buckets, 0, (size_t)B * sizeof *buckets));
    int r = 0;
    for (unsigned part = 0; part < parts; part++) {
        unsigned k_lo = 1 + part * (B / parts), k_hi = part + 1 == parts ? B : (part + 1) * (B / parts);
        tree_src src = {bases, w.vals, NULL, w.offs, w.counts, NULL, NULL, B, NULL};
        for (int side = 0;; r++, side ^= 1) {
            if (ev)
                CUDA_OK(cudaEventRecord(ev[r]));
            k_tree_next<<<blocks(B + 2), NT>>>(src, B, k_lo, k_hi, t.cnt[side], buckets);
            size_t tb = w.cub_bytes;
            CUDA_OK(cub::DeviceScan::ExclusiveSum(w.cub_tmp, tb, t.cnt[side], t.off[side], (int)B + 2));
            CUDA_OK(cudaMemcpyAsync(t.total_h, t.off[side] + B + 1, 4, cudaMemcpyDeviceToHost));
            CUDA_OK(cudaStreamSynchronize(0));
            size_t n = *t.total_h;
            if (sizes)
                sizes[r] = n;
            if (end)
                end[r] = n == 0 || n < finish_at;
            if (n == 0) {
                r++;
                break;
            }
            if (n < finish_at) {
                k_tree_finish<<<blocks(B + 2), NT>>>(src, k_lo, k_hi, buckets);
                r++;
                break;
            }
            src.next_off = t.off[side];
            src.next = t.list[side];
            if (t.slot_src) {
                k_tree_slots<<<blocks(B + 2), NT>>>(src.cur_off, src.cur_cnt, src.next_off, k_lo, k_hi,
                                                    t.slot_src);
                src.slot_src = t.slot_src;
            }
            if (t.lean)
                batch_run<K>(src, n, t.L, &t.list[side][0].y, sizeof(g1_affine_t) / sizeof(fp_t));
            else
                batch_run<K>(src, n, t.L);
            /* the next round reads what this one wrote */
            src.vals = NULL;
            src.cur = t.list[side];
            src.cur_off = t.off[side];
            src.cur_cnt = t.cnt[side];
        }
    }
    if (ev) {
        CUDA_OK(cudaEventRecord(ev[r]));
        CUDA_OK(cudaEventSynchronize(ev[r]));
        for (int i = 0; i < r; i++)
            ms[i] = elapsed(ev[i], ev[i + 1]);
    }
    return r;
}

template <int K>
static int bench_window(const g1_affine_t *pts, unsigned lg, unsigned lgb, unsigned long long *bad)
{
    window w;
    w.m = (size_t)1 << lg;
    w.B = 1u << 19;
    w.T = msm_item_len(w.m);
    unsigned B = w.B;
    uint32_t *keys0, *vals0;
    CUDA_OK(cudaMalloc(&keys0, w.m * 4));
    CUDA_OK(cudaMalloc(&vals0, w.m * 4));
    CUDA_OK(cudaMalloc(&w.keys, w.m * 4));
    CUDA_OK(cudaMalloc(&w.vals, w.m * 4));
    CUDA_OK(cudaMalloc(&w.counts, (B + 2) * 4));
    CUDA_OK(cudaMalloc(&w.offs, (B + 2) * 4));
    CUDA_OK(cudaMemset(w.counts, 0, (B + 2) * 4));
    k_digits_rand<<<blocks(w.m), NT>>>(w.m, B, lgb, keys0, vals0, w.counts);
    size_t sort_b = 0, scan_b = 0;
    CUDA_OK(cub::DeviceRadixSort::SortPairs(NULL, sort_b, keys0, w.keys, vals0, w.vals, (int)w.m, 0, 20));
    CUDA_OK(cub::DeviceScan::ExclusiveSum(NULL, scan_b, w.counts, w.offs, (int)B + 2));
    w.cub_bytes = sort_b > scan_b ? sort_b : scan_b;
    CUDA_OK(cudaMalloc(&w.cub_tmp, w.cub_bytes));
    size_t tb = w.cub_bytes;
    CUDA_OK(cub::DeviceRadixSort::SortPairs(w.cub_tmp, tb, keys0, w.keys, vals0, w.vals, (int)w.m, 0, 20));
    tb = w.cub_bytes;
    CUDA_OK(cub::DeviceScan::ExclusiveSum(w.cub_tmp, tb, w.counts, w.offs, (int)B + 2));
    CUDA_OK(cudaFree(keys0));
    CUDA_OK(cudaFree(vals0));

    lib_acc a;
    size_t chunks = ceil_div_u(w.m, w.T);
    CUDA_OK(cudaMalloc(&a.item_cnt, (B + 2) * 4));
    CUDA_OK(cudaMalloc(&a.item_off, (B + 2) * 4));
    CUDA_OK(cudaMalloc(&a.fold_cnt, (B + 2) * 4));
    CUDA_OK(cudaMalloc(&a.fold_off, (B + 2) * 4));
    CUDA_OK(cudaMalloc(&a.items, (chunks + B) * sizeof(g1_xyzz_t)));
    CUDA_OK(cudaMalloc(&a.folded, msm_fold_len(chunks + B, B) * sizeof(g1_xyzz_t)));
    tree_ws t;
    size_t cap = w.m / 2 + B + 1;
    for (int s = 0; s < 2; s++) {
        CUDA_OK(cudaMalloc(&t.list[s], cap * sizeof(g1_affine_t)));
        CUDA_OK(cudaMalloc(&t.cnt[s], (B + 2) * 4));
        CUDA_OK(cudaMalloc(&t.off[s], (B + 2) * 4));
    }
    CUDA_OK(cudaMallocHost(&t.total_h, 4));
    t.L = levels_alloc(cap, K);
    g1_xyzz_t *b_lib, *b_tree;
    CUDA_OK(cudaMalloc(&b_lib, (size_t)B * sizeof *b_lib));
    CUDA_OK(cudaMalloc(&b_tree, (size_t)B * sizeof *b_tree));
    CUDA_OK(cudaMemset(b_lib, 0xa5, (size_t)B * sizeof *b_lib));
    CUDA_OK(cudaMemset(b_tree, 0xa5, (size_t)B * sizeof *b_tree));

    cudaEvent_t e0, e1, ev[40];
    CUDA_OK(cudaEventCreate(&e0));
    CUDA_OK(cudaEventCreate(&e1));
    for (int i = 0; i < 40; i++)
        CUDA_OK(cudaEventCreate(&ev[i]));
    /* the library, checked against nothing (it is the reference), then timed */
    lib_run(pts, w, a, b_lib);
    float best_lib = 1e30f;
    for (int r = 0; r < 3; r++) {
        CUDA_OK(cudaEventRecord(e0));
        lib_run(pts, w, a, b_lib);
        CUDA_OK(cudaEventRecord(e1));
        CUDA_OK(cudaEventSynchronize(e1));
        float x = elapsed(e0, e1);
        best_lib = x < best_lib ? x : best_lib;
    }
    CUDA_OK(cudaGetLastError());
    printf("one window: 2^%u entries over %u buckets (T = %u for the library), K = %d\n", lg, B, w.T, K);
    printf("| %-50s | %8.3f ms | %6.3f G entries/s |\n", "library (k_items, folds, k_buckets)", best_lib,
           w.m / (best_lib * 1e6));
    /* the tree, ended by XYZZ sums once a round would have fewer slots than finish_at (0: never) */
    unsigned long long nbad = 0;
    uint32_t *slot_src;
    CUDA_OK(cudaMalloc(&slot_src, cap * 4));
    struct {
        bool index;
        int lg_finish; /* 0: to the end */
        unsigned parts;
        bool lean;
    } vs[] = {{false, 0, 1, false}, {false, 23, 1, false}, {true, 0, 1, false},  {true, 21, 1, false},
              {true, 22, 1, false}, {true, 23, 1, false},  {true, 24, 1, false}, {true, 25, 1, false},
              {true, 22, 2, false}, {true, 21, 4, false},  {true, 22, 1, true},  {true, 23, 1, true}};
    for (size_t f = 0; f < sizeof vs / sizeof vs[0]; f++) {
        size_t finish_at = vs[f].lg_finish ? (size_t)1 << vs[f].lg_finish : 0;
        t.slot_src = vs[f].index ? slot_src : NULL;
        t.lean = vs[f].lean;
        CUDA_OK(cudaMemset(b_tree, 0xa5, (size_t)B * sizeof *b_tree));
        size_t sizes[40];
        bool end[40];
        int steps = tree_run<K>(pts, w, t, finish_at, vs[f].parts, b_tree, sizes, end, NULL, NULL);
        unsigned long long fbad;
        CUDA_OK(cudaMemset(bad, 0, sizeof *bad));
        k_check_buckets<<<blocks(B), NT>>>(b_lib, b_tree, B, bad);
        CUDA_OK(cudaMemcpy(&fbad, bad, sizeof fbad, cudaMemcpyDeviceToHost));
        CUDA_OK(cudaGetLastError());
        nbad += fbad;
        float best_tree = 1e30f, ms[40] = {0}, msr[40];
        for (int r = 0; r < 3; r++) {
            CUDA_OK(cudaEventRecord(e0));
            tree_run<K>(pts, w, t, finish_at, vs[f].parts, b_tree, NULL, NULL, msr, ev);
            CUDA_OK(cudaEventRecord(e1));
            CUDA_OK(cudaEventSynchronize(e1));
            float x = elapsed(e0, e1);
            if (x < best_tree) {
                best_tree = x;
                for (int i = 0; i < steps; i++)
                    ms[i] = msr[i];
            }
        }
        CUDA_OK(cudaGetLastError());
        char name[64];
        const char *how = vs[f].index ? "slot index" : "key search";
        int len = snprintf(name, sizeof name, "tree (%s)", how);
        if (finish_at)
            len += snprintf(name + len, sizeof name - len, ", XYZZ below 2^%d", vs[f].lg_finish);
        else
            len += snprintf(name + len, sizeof name - len, " to the end");
        if (vs[f].parts > 1)
            len += snprintf(name + len, sizeof name - len, ", %u parts", vs[f].parts);
        if (vs[f].lean)
            snprintf(name + len, sizeof name - len, ", lean");
        printf("| %-50s | %8.3f ms | %6.3f G entries/s | %.2fx | %llu buckets differ |\n", name, best_tree,
               w.m / (best_tree * 1e6), best_lib / best_tree, fbad);
        printf("  steps (slots: ms):");
        for (int i = 0; i < steps; i++)
            printf(end[i] ? " | end at %zu: %.3f" : " %zu: %.3f", sizes[i], ms[i]);
        printf("\n");
    }
    for (int i = 0; i < 40; i++)
        CUDA_OK(cudaEventDestroy(ev[i]));
    CUDA_OK(cudaEventDestroy(e0));
    CUDA_OK(cudaEventDestroy(e1));
    levels_free(t.L);
    for (int s = 0; s < 2; s++) {
        CUDA_OK(cudaFree(t.list[s]));
        CUDA_OK(cudaFree(t.cnt[s]));
        CUDA_OK(cudaFree(t.off[s]));
    }
    CUDA_OK(cudaFreeHost(t.total_h));
    CUDA_OK(cudaFree(slot_src));
    void *fr[] = {a.item_cnt, a.item_off, a.fold_cnt, a.fold_off, a.items, a.folded, b_lib,
                  b_tree,     w.keys,     w.vals,     w.counts,   w.offs,  w.cub_tmp};
    for (size_t i = 0; i < sizeof fr / sizeof fr[0]; i++)
        CUDA_OK(cudaFree(fr[i]));
    return nbad ? 1 : 0;
}

int main(int argc, char **argv)
{
    int lg = argc > 1 ? atoi(argv[1]) : 27, lgb = argc > 2 ? atoi(argv[2]) : 27;
    if (lg < 20 || lg > 28) {
        fprintf(stderr, "batch_affine: LG must be 20..28 (a window of 2^LG entries), got '%s'\n", argv[1]);
        return 2;
    }
    if (lgb < 12 || lgb > 28) {
        fprintf(stderr, "batch_affine: LG_BASES must be 12..28 (2^LG_BASES bases), got '%s'\n", argv[2]);
        return 2;
    }
    /* 2^LG_POINTS distinct points (fewer when LG_BASES is smaller), repeated to fill 2^LG_BASES places:
     * the gathers touch as much memory as a key of that size, the values repeat */
    int lgp = lgb < LG_POINTS ? lgb : LG_POINTS;
    size_t npts = (size_t)1 << lgp, nb = (size_t)1 << lgb, n = (size_t)1 << (lg - 1);
    g1_affine_t *pts, *out;
    uint32_t *idx;
    unsigned long long *bad;
    CUDA_OK(cudaMalloc(&pts, nb * sizeof *pts));
    CUDA_OK(cudaMalloc(&idx, 2 * n * sizeof *idx));
    CUDA_OK(cudaMalloc(&out, n * sizeof *out));
    CUDA_OK(cudaMalloc(&bad, sizeof *bad));
    cudaEvent_t e0, e1;
    CUDA_OK(cudaEventCreate(&e0));
    CUDA_OK(cudaEventCreate(&e1));
    CUDA_OK(cudaEventRecord(e0));
    k_points<<<blocks(npts), NT>>>(pts, npts);
    CUDA_OK(cudaEventRecord(e1));
    CUDA_OK(cudaEventSynchronize(e1));
    CUDA_OK(cudaGetLastError());
    for (size_t at = npts; at < nb; at += npts)
        CUDA_OK(cudaMemcpy(pts + at, pts, npts * sizeof *pts, cudaMemcpyDeviceToDevice));
    printf("2^%d curve points in %.1f ms, repeated to 2^%d bases (%.1f GB)\n", lgp, elapsed(e0, e1), lgb,
           nb * sizeof *pts / 1e9);
    k_pair_idx<<<blocks(2 * n), NT>>>(idx, 2 * n, (unsigned)lgb);
    int fails = 0;
    printf("1. one round of independent pairs (gathered from 2^%d bases)\n", lgb);
    fails += bench_pairs<32>(pts, idx, n, out, bad);
    fails += bench_pairs<16>(pts, idx, n, out, bad);
    fails += bench_pairs<8>(pts, idx, n, out, bad);
    for (size_t m = n / 4; m >= n / 256; m /= 4)
        fails += bench_pairs<32>(pts, idx, m, out, bad);
    CUDA_OK(cudaFree(idx));
    CUDA_OK(cudaFree(out));
    printf("2. one window\n");
    fails += bench_window<32>(pts, (unsigned)lg, (unsigned)lgb, bad);
    printf("batch_affine: %s\n", fails ? "FAILED" : "done, every sum and bucket checked");
    return fails ? 1 : 0;
}
