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
 * The batch and the tree are the library's (src/gpu/msm_tree.cuh, which says
 * how they work); this program times them against each other and against the
 * library's XYZZ accumulation, with variants the library does not take.
 *
 * The bases are real curve points (random x until x^3 + 4 is a square; 2^22
 * of them, repeated to fill 2^LG_BASES places), so that sums in different
 * orders agree. Checks: every pair sum against the XYZZ
 * mixed addition of the same pair; every bucket of the window against the
 * library's bucket. Outputs are poisoned before each checked run.
 *
 *   cmake --build build --target batch_affine && build/batch_affine [LG [LG_BASES]]
 * LG: the window's entries (default 27); LG_BASES: how many bases the entries
 * point into (default 27, a PoRep partition's H bases: 12.9 GB).
 */
#include <vector>

#include "bench_gpu.cuh"
#include "gpu/msm_impl.cuh"

#define NT 256       /* threads per block, every kernel */
#define LG_POINTS 22 /* distinct points at the most (the bases repeat them) */

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
        P = tree_load_pt(&b[idx[2 * i]]);
        Q = tree_load_pt(&b[idx[2 * i + 1]]);
        return true;
    }
    __device__ void store(size_t i, const g1_affine_t &r) const
    {
        fp_store(&out[i].x, r.x);
        fp_store(&out[i].y, r.y);
    }
};

/* A library call that must succeed here. */
static void lib_ok(int rc, const char *err)
{
    if (rc) {
        fprintf(stderr, "batch_affine: %s\n", err);
        exit(2);
    }
}

static unsigned blocks(size_t threads)
{
    return (unsigned)((threads + NT - 1) / NT);
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
    g1_affine_t P = tree_load_pt(&b[idx[2 * i]]), Q = tree_load_pt(&b[idx[2 * i + 1]]);
    g1_xyzz_t r;
    ec_xyzz_set_identity(r);
    ec_xyzz_add_affine(r, P);
    ec_xyzz_add_affine(r, Q);
    g1_affine_t s = tree_load_pt(&out[i]);
    bool ok = ec_xyzz_is_identity(r) ? ec_affine_is_identity(s)
                                     : fp_eq(fp_mul(s.x, r.ZZ), r.X) && fp_eq(fp_mul(s.y, r.ZZZ), r.Y);
    if (!ok)
        atomicAdd(bad, 1ull);
}

template <int K>
static int bench_pairs(const g1_affine_t *pts, const uint32_t *idx, size_t n, g1_affine_t *out,
                       unsigned long long *bad)
{
    char err[256] = "";
    msm_tree_levels L;
    lib_ok(tree_levels_alloc(&L, n, K, true, err, sizeof err), err);
    pair_src src = {pts, idx, out};
    cudaEvent_t e0, e1;
    CUDA_OK(cudaEventCreate(&e0));
    CUDA_OK(cudaEventCreate(&e1));
    CUDA_OK(cudaMemset(out, 0xa5, n * sizeof *out));
    CUDA_OK(cudaMemset(bad, 0, sizeof *bad));
    lib_ok(tree_batch<K>(src, n, &L, L.pre[0], 1, 0, err, sizeof err), err);
    k_check_pairs<<<blocks(n), NT>>>(pts, idx, n, out, bad);
    unsigned long long nbad;
    CUDA_OK(cudaMemcpy(&nbad, bad, sizeof nbad, cudaMemcpyDeviceToHost));
    float best = 1e30f;
    for (int r = 0; r < 3; r++) {
        CUDA_OK(cudaEventRecord(e0));
        lib_ok(tree_batch<K>(src, n, &L, L.pre[0], 1, 0, err, sizeof err), err);
        CUDA_OK(cudaEventRecord(e1));
        CUDA_OK(cudaEventSynchronize(e1));
        CUDA_OK(cudaGetLastError());
        float ms = elapsed(e0, e1);
        best = ms < best ? ms : best;
    }
    cudaFuncAttributes fa;
    CUDA_OK(cudaFuncGetAttributes(&fa, (const void *)k_tree_final<K, pair_src>));
    printf(
        "| pairs, K=%-2d | 2^%-2d | %8.3f ms | %6.3f G add/s | final %3d regs %4zu B local | %llu wrong |\n",
        K, __builtin_ctzll(n), best, n / (best * 1e6), fa.numRegs, (size_t)fa.localSizeBytes, nbad);
    tree_levels_free(&L);
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
    msm_tree_levels L;
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
        tree_src src = {bases, w.vals, NULL, w.offs, w.counts, NULL, NULL, B, NULL, 0};
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
            char err[256] = "";
            if (t.lean)
                lib_ok(tree_batch<K>(src, n, &t.L, &t.list[side][0].y, sizeof(g1_affine_t) / sizeof(fp_t), 0,
                                     err, sizeof err),
                       err);
            else
                lib_ok(tree_batch<K>(src, n, &t.L, t.L.pre[0], 1, 0, err, sizeof err), err);
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
    char err[256] = "";
    lib_ok(tree_levels_alloc(&t.L, cap, K, true, err, sizeof err), err);
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
    /* the library's own tree (msm_tree_window: key search, its own running products, its default end) */
    {
        msm_tree *lt;
        lib_ok(msm_tree_new(&lt, w.m, B, NULL, 0, err, sizeof err), err);
        CUDA_OK(cudaMemset(b_tree, 0xa5, (size_t)B * sizeof *b_tree));
        lib_ok(msm_tree_window(lt, pts, w.vals, w.counts, w.offs, B, MSM_TREE_FINISH, b_tree, 0, err, sizeof err),
               err);
        unsigned long long fbad;
        CUDA_OK(cudaMemset(bad, 0, sizeof *bad));
        k_check_buckets<<<blocks(B), NT>>>(b_lib, b_tree, B, bad);
        CUDA_OK(cudaMemcpy(&fbad, bad, sizeof fbad, cudaMemcpyDeviceToHost));
        nbad += fbad;
        float best = 1e30f;
        for (int r = 0; r < 3; r++) {
            CUDA_OK(cudaEventRecord(e0));
            lib_ok(msm_tree_window(lt, pts, w.vals, w.counts, w.offs, B, MSM_TREE_FINISH, b_tree, 0, err, sizeof err),
                   err);
            CUDA_OK(cudaEventRecord(e1));
            CUDA_OK(cudaEventSynchronize(e1));
            float x = elapsed(e0, e1);
            best = x < best ? x : best;
        }
        printf("| %-50s | %8.3f ms | %6.3f G entries/s | %.2fx | %llu buckets differ |\n",
               "library msm_tree_window (its default end)", best, w.m / (best * 1e6), best_lib / best, fbad);
        msm_tree_free(lt);
    }
    for (int i = 0; i < 40; i++)
        CUDA_OK(cudaEventDestroy(ev[i]));
    CUDA_OK(cudaEventDestroy(e0));
    CUDA_OK(cudaEventDestroy(e1));
    tree_levels_free(&t.L);
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
