/*
 * msm_impl.cuh — the GPU MSM's kernels and driver, shared by msm_g1.cu and
 * msm_g2.cu (one group each, so the two compile in parallel); msm.cu owns the
 * workspace. The algorithm is described in msm.cu.
 */
#ifndef CUZK_GPU_MSM_IMPL_CUH
#define CUZK_GPU_MSM_IMPL_CUH

#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/gpu_msm.h"
#include "cuzk/msm.h"
#define GPU_MODULE "gpu msm"
#include "gpu/cuda_check.cuh"
#include "gpu/ec.cuh"
#include "gpu/fr.cuh"

#define MSM_THREADS 256
#define MSM_MAX_C 20
#define MSM_MAX_W 129 /* msm_windows(2) */
#define MSM_GROUP_M 16  /* smallest group the reduction buffers are sized for (2^19-bucket windows) */
#define MSM_RED_THREADS 32768u /* fewest reduction groups a batch keeps while groups grow (msm_group_m) */
#define MSM_FAN 16      /* points per thread in a tree-reduction step */
#define MSM_ITEMS 1048576u /* target work items per window */
#define MSM_FOLD 16        /* items one thread adds up when folding a bucket's items */
#define MSM_ONES_THREADS (132u * 4u * MSM_THREADS)
#ifndef MSM_ONES_SPLIT
#define MSM_ONES_SPLIT 1 /* launches the ones' sum is cut into (CUZK_MSM_ONES_SPLIT overrides) */
#endif
#define MSM_TREE_MIN ((size_t)1 << 25)    /* G1 windows of this many entries take the batch-affine tree */
#define MSM_TREE_FINISH ((size_t)1 << 23) /* its rounds end in XYZZ sums below this many slots */
#define MSM_C16_MIN (((size_t)1 << 18) - 1) /* from here to MSM_TREE_MIN entries, c = 16 */

enum { CLS_ZERO = 0, CLS_ONE = 1, CLS_TAIL = 2 };

/* ---- host-side helpers ---------------------------------------------------- */

static inline unsigned ceil_div_u(size_t a, size_t b)
{
    return (unsigned)((a + b - 1) / b);
}

/* Signed windows for scalars < r: ceil(256 / c), plus one when the top window could still produce a
 * carry, i.e. when (r - 1)'s bits from (W - 1)·c up, plus an incoming carry, can reach 2^(c-1) (c = 2
 * with r - 1, whose bits 254..255 are 01, needs a 129th window). */
static inline unsigned msm_windows(unsigned c)
{
    static const uint64_t r_minus_1[4] = {0xffffffff00000000ull, 0x53bda402fffe5bfeull, 0x3339d80809a1d805ull,
                                          0x73eda753299d7d48ull};
    unsigned w = (256 + c - 1) / c, pos = (w - 1) * c;
    uint64_t top = 0;
    if (pos < 256) {
        unsigned limb = pos / 64, sh = pos % 64;
        top = r_minus_1[limb] >> sh;
        if (sh && limb + 1 < 4)
            top |= r_minus_1[limb + 1] << (64 - sh);
    }
    if (top + 1 >= (1ull << (c - 1)))
        w++;
    return w;
}

/* Window width for a tail of n scalars, set by `test_gpu_msm bench-c` on the H200 (docs/design/014, seventh
 * and eighth sessions). From MSM_C16_MIN entries up to MSM_TREE_MIN, c = 16 was the fastest or level
 * with every other c at each size measured: 2^18 - 1 (12.1 ms against 15.0 at c = 13), 2^19 (12.7
 * against 15.7 at 15), 2^20 - 1 (18.5 against 22.3 at 15), 2^20, 2^22 - 1 (50.4 against 63.4 at 14) and
 * 2^24 (level); the reduction of a window costs about 3-4 ms at every c up to 16, so the narrower
 * windows' extra accumulation passes are never paid back there. From MSM_TREE_MIN, c = MSM_MAX_C (2^25:
 * 284 ms at 20, 301 at 18; 2^27 - 1: 834 at 20, 922 at 19). Below MSM_C16_MIN, log2(n) - 4 (about 16
 * entries per bucket and window), not measured yet. */
static inline unsigned msm_pick_window(size_t n)
{
    if (n >= MSM_TREE_MIN) /* one threshold for the widest window and the G1 tree */
        return MSM_MAX_C;
    if (n >= MSM_C16_MIN)
        return 16;
    unsigned lg = 0;
    while (((size_t)1 << (lg + 1)) <= n)
        lg++;
    return lg < 8 ? 4 : lg - 4;
}

/* A small tail's items are shortened (down to MSM_ITEM_SHORT entries) until a window has MSM_ITEM_FILL of
 * them, about what the device holds at once: with 16 entries an item, a tail of 0.17 M entries (G2 in the
 * witness shape at 2^24) ran 10.5 K threads a window, a third of one wave, at 0.15 G additions/s against
 * 0.77 alone (docs/design/014, fifteenth session). MSM_ITEM_FILL = 0 keeps the 16-entry floor everywhere. */
#ifndef MSM_ITEM_FILL
#define MSM_ITEM_FILL 0
#endif
#define MSM_ITEM_SHORT 4

/* Work-item length for a tail of n entries: n / MSM_ITEMS, at least 16 — or, below 16 · MSM_ITEM_FILL
 * entries, n / MSM_ITEM_FILL, at least MSM_ITEM_SHORT (msm_items_bound gives the most items it makes). */
static_assert(MSM_ITEM_FILL <= MSM_ITEMS, "MSM_ITEM_FILL above MSM_ITEMS");
static inline unsigned msm_item_len(size_t n)
{
    size_t t = (n + MSM_ITEMS - 1) / MSM_ITEMS;
    if (t < 16)
        t = 16;
#if MSM_ITEM_FILL
    if (t == 16 && n < (size_t)16 * MSM_ITEM_FILL) {
        t = (n + MSM_ITEM_FILL - 1) / MSM_ITEM_FILL;
        t = t < MSM_ITEM_SHORT ? MSM_ITEM_SHORT : t;
    }
#endif
    return (unsigned)t;
}

/* Work items one window of any tail of n <= n_max entries can make: its chunks of msm_item_len entries,
 * plus one for each key a chunk boundary splits (at most the window's buckets, 2^(c-1) <= 2^19). The
 * chunk count is not monotone in n (2^25 entries make 2^20 chunks of 32; 2^25 + 1 make 1,016,801 of
 * 33), so the bound is taken over every n: ceil(n / 16) up to 16 · MSM_ITEMS entries, never more than
 * MSM_ITEMS beyond (n / ceil(n / MSM_ITEMS) <= MSM_ITEMS), and with MSM_ITEM_FILL at most
 * min(ceil(n / MSM_ITEM_SHORT), MSM_ITEM_FILL) below 16 · MSM_ITEM_FILL entries. */
static inline size_t msm_items_bound(size_t n_max)
{
    size_t chunks = n_max <= (size_t)16 * MSM_ITEMS ? (n_max + 15) / 16 : MSM_ITEMS;
    size_t fill = (n_max + MSM_ITEM_SHORT - 1) / MSM_ITEM_SHORT;
    if (fill > MSM_ITEM_FILL)
        fill = MSM_ITEM_FILL;
    return (chunks > fill ? chunks : fill) + ((size_t)1 << (MSM_MAX_C - 1));
}

/* Buckets (XYZZ) the workspace keeps, so that all windows of one MSM reduce together: every window of
 * the widest window msm_pick_window chooses for n_max entries, and at least one window of the widest c. */
static inline size_t msm_bucket_cap(size_t n_max)
{
    unsigned c = msm_pick_window(n_max);
    size_t all = (size_t)msm_windows(c) << (c - 1), one = (size_t)1 << (MSM_MAX_C - 1);
    return all > one ? all : one;
}

/* Buckets per reduction group for nw windows of B buckets when red_len partials fit. A group of m costs
 * 2m additions plus its offset (about log2(B) doublings and additions), so larger groups do less work in
 * all, as long as enough threads remain to fill the device: m doubles from 4 while the batch keeps at
 * least MSM_RED_THREADS groups (one 2^19-bucket window: m = 16, measured best alone; 13 such windows:
 * m = 128, 2.2 B additions per window instead of 3.8 B with m = 16), then while the partials do not fit. */
static inline unsigned msm_group_m(unsigned nw, unsigned B, size_t red_len)
{
    unsigned m = 4;
    while (m < B && (size_t)nw * ceil_div_u(B, 2 * m) >= MSM_RED_THREADS)
        m *= 2;
    while (m < B && (size_t)nw * ceil_div_u(B, m) > red_len)
        m *= 2;
    return m;
}

/* Items after one fold level: sum over buckets of ceil(items_b / FOLD) <= items / FOLD + buckets. */
static inline size_t msm_fold_len(size_t max_items, size_t buckets)
{
    return (max_items + MSM_FOLD - 1) / MSM_FOLD + buckets;
}

struct cuzk_gpu_msm {
    cuzk_gpu_group group;
    size_t n_max;
    size_t point_bytes; /* one XYZZ point */
    uint8_t *cls;       /* n_max classes */
    uint8_t *tail_flag; /* n_max: 1 for CLS_TAIL, then 1 for CLS_ONE */
    uint32_t *tail_idx; /* n_max */
    uint32_t *n_sel;    /* 2: number of tail entries, number of ones */
    uint32_t *tail_k;   /* n_max x 8 words: canonical tail scalars */
    uint32_t *keys[2], *vals[3]; /* vals[2]: the third buffer of the sorts pipelined beside the tree */
    uint32_t *counts;   /* 2^(MAX_C-1) + 2: entries per key 0..B, then a 0 */
    uint32_t *offs;     /* 2^(MAX_C-1) + 2: run starts, zeros first, then the total */
    uint32_t *counts2, *offs2; /* the same for every other window when the sorts are pipelined */
    cudaStream_t st_sort;      /* the next window's digits and sort, beside this window's tree */
    cudaEvent_t ev_fork, ev_sorted, ev_join;
    uint32_t *item_cnt; /* 2^(MAX_C-1) + 2 */
    uint32_t *item_off; /* 2^(MAX_C-1) + 2 */
    void *items;        /* item partial sums */
    size_t max_items;
    uint32_t *fold_cnt; /* 2^(MAX_C-1) + 2: items per key after a fold level */
    uint32_t *fold_off; /* 2^(MAX_C-1) + 2 */
    void *folded;       /* msm_fold_len(n_max) XYZZ: the items after a fold level */
    void *buckets;      /* bucket_cap XYZZ: the buckets of every window of one reduction batch */
    size_t bucket_cap;
    void *red[2];       /* tree-reduction buffers */
    size_t red_len;
    void *wins;         /* MSM_MAX_W + 1 XYZZ: window sums, then the ones sum */
    void *cub_tmp;
    size_t cub_bytes;
    struct msm_tree *tree; /* G1: the batch-affine tree's scratch (msm_tree.cuh) */
    size_t tree_min;       /* windows of at least this many entries take the tree */
    size_t tree_finish;    /* the tree ends with XYZZ sums below this many slots in a round */
    size_t ones_split;     /* launches the ones' sum is cut into (msm_ones_split) */
    cudaEvent_t ev[8];
};

/* Launch [j0, j1) of the grid-stride sum of n ones: thread t adds entries lo, lo + stride, ... below hi.
 * False when the thread has nothing to do in a later launch (its partial stays as it is); the first
 * launch (j0 = 0) always runs, to start the partial. */
static inline __host__ __device__ bool ones_range(size_t t, size_t stride, size_t n, size_t j0, size_t j1,
                                                  size_t *lo, size_t *hi)
{
    *lo = t + j0 * stride;
    *hi = t + j1 * stride < n ? t + j1 * stride : n;
    return j0 == 0 || *lo < n;
}

/* The grid-stride steps of a sum of at most n ones over `threads` threads, and the steps of each of at most
 * `split` launches (the last may have fewer; the launches start at 0, per, 2·per, ... below *steps). */
static inline void ones_cut(size_t n, size_t threads, size_t split, size_t *steps, size_t *per)
{
    size_t J = (n + threads - 1) / threads, S = split < 1 ? 1 : split < J ? split : J;
    *steps = J;
    *per = S ? (J + S - 1) / S : 0;
}

/* Launches the ones' sum is cut into: CUZK_MSM_ONES_SPLIT (1..64) or MSM_ONES_SPLIT. A launch's blocks stay
 * resident until it ends, so an MSM on a low-priority side stream (the prover's B2) holds its SMs for a
 * whole launch; shorter launches let the serial stream's blocks take them back sooner (design 020). */
static inline size_t msm_ones_split(void)
{
    const char *s = getenv("CUZK_MSM_ONES_SPLIT");
    long v = s ? strtol(s, NULL, 10) : 0;
    return v >= 1 && v <= 64 ? (size_t)v : (size_t)MSM_ONES_SPLIT;
}

/* ---- kernels ------------------------------------------------------------------ */

static __global__ void k_classify(const fr_t *__restrict__ k, size_t n, uint8_t *cls, uint8_t *tail_flag)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    fr_t a = fr_load(k + i);
    fr_t one = fr_one();
    bool zero = true, isone = true;
#pragma unroll
    for (int j = 0; j < 8; j++) {
        zero &= a.v[j] == 0;
        isone &= a.v[j] == one.v[j];
    }
    uint8_t c = zero ? CLS_ZERO : isone ? CLS_ONE : CLS_TAIL;
    cls[i] = c;
    tail_flag[i] = c == CLS_TAIL;
}

/* flag[i] = class i is one (after the tail was compacted from the same flags). */
static __global__ void k_flag_ones(const uint8_t *__restrict__ cls, size_t n, uint8_t *flag)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        flag[i] = cls[i] == CLS_ONE;
}

/* Group tables (cuzk/msm.h, src/cpu/group_table.c): group g = i / k of the bases, its entry for the mask
 * m of its ones at g·(2^k − 1) + m − 1. The mask of group g from the classes (bases past n count as
 * zeros), and where base i itself stands. */
static inline __host__ __device__ unsigned group_ones_mask(const uint8_t *cls, size_t n, size_t g, unsigned k)
{
    unsigned m = 0;
    for (unsigned j = 0; j < k && g * k + j < n; j++)
        m |= (unsigned)(cls[g * k + j] == CLS_ONE) << j;
    return m;
}

static inline __host__ __device__ uint32_t group_entry(size_t g, unsigned mask, unsigned k)
{
    return (uint32_t)(g * ((1u << k) - 1) + mask - 1);
}

static inline __host__ __device__ uint32_t group_single(uint32_t i, unsigned k)
{
    return group_entry(i / k, 1u << (i % k), k);
}

/* flag[g] = group g holds a one, entry[g] = its table entry (0 where it holds none). */
static __global__ void k_group_ones(const uint8_t *__restrict__ cls, size_t n, unsigned k, uint8_t *flag,
                                    uint32_t *entry)
{
    size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= (n + k - 1) / k)
        return;
    unsigned m = group_ones_mask(cls, n, g, k);
    flag[g] = m != 0;
    entry[g] = m ? group_entry(g, m, k) : 0;
}

/* The tail's base indices as their singletons' places in the table (after k_tail_scalars has read the
 * scalars by the same indices). */
static __global__ void k_tail_single(uint32_t *idx, const uint32_t *__restrict__ n_sel, unsigned k)
{
    size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j < *n_sel)
        idx[j] = group_single(idx[j], k);
}

/* Tail scalar j out of Montgomery form: a·1·2^-256 = a. */
static __global__ void k_tail_scalars(const fr_t *__restrict__ k, const uint32_t *__restrict__ idx,
                               const uint32_t *__restrict__ n_sel, uint32_t *out)
{
    size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= *n_sel)
        return;
    fr_t raw1;
#pragma unroll
    for (int w = 0; w < 8; w++)
        raw1.v[w] = w == 0;
    fr_t a = fr_mul(fr_load(k + idx[j]), raw1);
    uint4 *o = (uint4 *)(out + 8 * j);
    o[0] = make_uint4(a.v[0], a.v[1], a.v[2], a.v[3]);
    o[1] = make_uint4(a.v[4], a.v[5], a.v[6], a.v[7]);
}

/* Bits [pos, pos + c) of the 256-bit k (zero above bit 255), c <= 20. */
static __device__ __forceinline__ uint32_t window_bits(const uint32_t k[8], unsigned pos, unsigned c)
{
    unsigned w = pos >> 5, sh = pos & 31;
    if (w >= 8)
        return 0;
    uint64_t v = k[w] >> sh;
    if (sh + c > 32 && w + 1 < 8)
        v |= (uint64_t)k[w + 1] << (32 - sh);
    return (uint32_t)v & ((1u << c) - 1);
}

/* Signed digit w of k: window value plus the carry out of the windows below, which is 1 when the first
 * window below that is not 2^(c-1) - 1 is at least 2^(c-1) (a window equal to 2^(c-1) - 1 passes the
 * carry it receives on unchanged). */
static __device__ __forceinline__ int32_t signed_digit(const uint32_t k[8], unsigned w, unsigned c)
{
    uint32_t half = 1u << (c - 1), carry = 0;
    for (unsigned i = w; i-- > 0;) {
        uint32_t b = window_bits(k, i * c, c);
        if (b != half - 1) {
            carry = b >= half;
            break;
        }
    }
    int32_t d = (int32_t)(window_bits(k, w * c, c) + carry);
    return d >= (int32_t)half ? d - (int32_t)(1u << c) : d;
}

/* Window w's digit of every tail scalar: key |d| (0 = skip), value = base index | sign << 31. The keys'
 * histogram comes from the sorted keys (k_runs), not from atomics here: with one atomic an entry this
 * kernel was bound by L2 (98 %, ncu) and took 1.07 ms at 2^26 entries (docs/design/014, twelfth
 * session). */
static __global__ void k_digits(const uint32_t *__restrict__ tail_k, const uint32_t *__restrict__ idx,
                                const uint32_t *__restrict__ n_sel, unsigned w, unsigned c, uint32_t *keys,
                                uint32_t *vals)
{
    size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= *n_sel)
        return;
    uint32_t k[8];
    const uint4 *p = (const uint4 *)(tail_k + 8 * j);
    uint4 lo = p[0], hi = p[1];
    k[0] = lo.x, k[1] = lo.y, k[2] = lo.z, k[3] = lo.w, k[4] = hi.x, k[5] = hi.y, k[6] = hi.z, k[7] = hi.w;
    int32_t d = signed_digit(k, w, c);
    keys[j] = (uint32_t)(d < 0 ? -d : d);
    vals[j] = idx[j] | (d < 0 ? 0x80000000u : 0u);
}

/* Each key's run in the sorted keys: first[k] and end[k] (both zeroed before, so a key without entries
 * keeps 0 and 0), written by the entries where a run starts and ends. */
static __global__ void k_runs(const uint32_t *__restrict__ keys, const uint32_t *__restrict__ n_sel,
                              uint32_t *first, uint32_t *end)
{
    size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t n = *n_sel;
    if (e >= n)
        return;
    uint32_t k = keys[e];
    if (e == 0 || keys[e - 1] != k)
        first[k] = (uint32_t)e;
    if (e + 1 == n || keys[e + 1] != k)
        end[k] = (uint32_t)e + 1;
}

/* counts[k] = end[k] - first[k] for keys 0..B (in place of end), and 0 past B. */
static __global__ void k_run_counts(const uint32_t *__restrict__ first, unsigned B, uint32_t *end)
{
    unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k <= B + 1)
        end[k] = k <= B ? end[k] - first[k] : 0;
}

/* Items per key: ceil(count / T) for keys 1..B; key 0 (zero digits) and the entry past B have none. */
static __global__ void k_item_counts(const uint32_t *__restrict__ counts, unsigned B, unsigned T, uint32_t *item_cnt)
{
    unsigned b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b > B + 1)
        return;
    item_cnt[b] = b == 0 || b > B ? 0 : (counts[b] + T - 1) / T;
}

/* The key b in 1..B whose run of items holds item t: off[b] <= t < off[b + 1] (off ascending). */
static __device__ __forceinline__ unsigned key_of(uint32_t t, const uint32_t *__restrict__ off, unsigned B)
{
    unsigned lo = 1, hi = B;
    while (lo < hi) {
        unsigned mid = (lo + hi + 1) >> 1;
        if (off[mid] <= t)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Items per key for the accumulation chunks: the sorted entries with a non-zero digit, from base =
 * offs[1] on, are cut into chunks of T; key b (1..B) gets one item per chunk its run meets, none when its
 * run is empty. Key 0 (zero digits) and the entry past B have none. */
static __global__ void k_chunk_counts(const uint32_t *__restrict__ offs, unsigned B, unsigned T,
                                      uint32_t *item_cnt)
{
    unsigned b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b > B + 1)
        return;
    uint32_t n = 0;
    if (b >= 1 && b <= B && offs[b + 1] > offs[b]) {
        uint32_t base = offs[1];
        n = (offs[b + 1] - 1 - base) / T - (offs[b] - base) / T + 1;
    }
    item_cnt[b] = n;
}

/* Blocks of k_items resident per SM: G1 is capped at 128 registers (two 256-thread blocks, 64 bytes of
 * spill), G2's points are twice as large and keep the compiler's choice. */
template <class F> struct items_min_blocks {
    static const int value = 1;
};
template <> struct items_min_blocks<fp_t> {
    static const int value = 2;
};

/* One chunk: sorted entries [lo, lo + T) from base = offs[1] (the non-zero digits), summed into an XYZZ
 * partial per key the chunk meets, each written to that key's item for this chunk. Every thread adds
 * exactly T points (the last chunk fewer), so no lane of a warp idles while another finishes a longer
 * run: items cut per bucket (T entries, then the rest) left lanes idle for much of the kernel when
 * buckets held 2.5 items on average (docs/design/014, fourth session). The sign is applied by selecting
 * y or -y before one mixed addition: with an add and a subtract in two branches, a warp whose entries
 * have mixed signs ran both additions one after the other (0.35 G additions/s instead of 1.97). */
template <class F>
__global__ void __launch_bounds__(MSM_THREADS, items_min_blocks<F>::value)
    k_items(const ec_affine<F> *__restrict__ bases, const uint32_t *__restrict__ keys,
            const uint32_t *__restrict__ vals, const uint32_t *__restrict__ offs,
            const uint32_t *__restrict__ item_off, unsigned B, unsigned T, ec_xyzz<F> *items)
{
    uint32_t q = blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t base = offs[1], end = offs[B + 1];
    if ((size_t)q * T >= (size_t)(end - base))
        return;
    uint32_t lo = base + q * T;
    uint32_t hi = end - lo > T ? lo + T : end;
    uint32_t key = keys[lo];
    ec_xyzz<F> acc;
    ec_xyzz_set_identity(acc);
    for (uint32_t e = lo; e < hi; e++) {
        uint32_t k = keys[e];
        if (k != key) {
            items[item_off[key] + q - (offs[key] - base) / T] = acc;
            ec_xyzz_set_identity(acc);
            key = k;
        }
        uint32_t v = vals[e];
        ec_affine<F> p = bases[v & 0x7fffffffu];
        F y = p.y, ny = f_neg(p.y);
        if (v >> 31)
            y = ny;
        if (!ec_affine_is_identity(p))
            ec_xyzz_madd(acc, p.x, y);
    }
    items[item_off[key] + q - (offs[key] - base) / T] = acc;
}

/* One fold level: output t of key b (out_off[b] <= t < out_off[b + 1]) is the sum of items
 * in_off[b] + j·FOLD .. + FOLD - 1 (within key b's items) of the level before, j = t - out_off[b]. A
 * bucket's items are laid out by the same scan as the entries, so this is k_items one level up. */
template <class F>
__global__ void __launch_bounds__(MSM_THREADS) k_fold(const ec_xyzz<F> *__restrict__ in,
                                                      const uint32_t *__restrict__ in_off,
                                                      const uint32_t *__restrict__ out_off, unsigned B,
                                                      ec_xyzz<F> *out)
{
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= out_off[B + 1])
        return;
    unsigned b = key_of(t, out_off, B);
    uint32_t lo = in_off[b] + (t - out_off[b]) * MSM_FOLD, end = in_off[b + 1];
    uint32_t hi = lo + MSM_FOLD < end ? lo + MSM_FOLD : end;
    ec_xyzz<F> acc = in[lo];
    for (uint32_t e = lo + 1; e < hi; e++)
        ec_xyzz_add(acc, in[e]);
    out[t] = acc;
}

/* Bucket b (key b + 1) = sum of its items. */
template <class F>
__global__ void __launch_bounds__(MSM_THREADS) k_buckets(const ec_xyzz<F> *__restrict__ items,
                                                         const uint32_t *__restrict__ item_off, unsigned B,
                                                         ec_xyzz<F> *buckets)
{
    unsigned b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= B)
        return;
    uint32_t lo = item_off[b + 1], hi = item_off[b + 2];
    ec_xyzz<F> acc;
    ec_xyzz_set_identity(acc);
    for (uint32_t i = lo; i < hi; i++)
        ec_xyzz_add(acc, items[i]);
    buckets[b] = acc;
}

/* Group g of m buckets of window v (nw windows of B buckets each, one after the other, G = ceil(B / m)
 * groups per window): out[v·G + g] = sum_{i in group} (i + 1)·S_i, by the running sum from the top. */
template <class F>
__global__ void __launch_bounds__(MSM_THREADS) k_bucket_groups(const ec_xyzz<F> *__restrict__ all_buckets,
                                                               unsigned B, unsigned m, unsigned nw,
                                                               ec_xyzz<F> *out)
{
    unsigned G = (B + m - 1) / m;
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nw * G)
        return;
    unsigned v = t / G, g = t % G;
    const ec_xyzz<F> *buckets = all_buckets + (size_t)v * B;
    unsigned lo = g * m, hi = lo + m < B ? lo + m : B;
    ec_xyzz<F> run, acc;
    ec_xyzz_set_identity(run);
    ec_xyzz_set_identity(acc);
    for (unsigned i = hi; i-- > lo;) {
        ec_xyzz_add(run, buckets[i]);
        ec_xyzz_add(acc, run);
    }
    /* acc = sum (i - lo + 1)·S_i; add lo·(sum S_i) */
    if (lo) {
        ec_xyzz_mul_small(run, lo);
        ec_xyzz_add(acc, run);
    }
    out[t] = acc;
}

/* Grid-stride sum of the bases whose scalar is one, from their compacted indices (*n_ones of them), so
 * that every lane of a warp adds at every step (over the classes, a warp with ones in half its lanes ran
 * at half speed); one partial per thread. One launch runs the grid-stride steps [j0, j1): the first
 * (j0 = 0) starts every partial at the identity, a later one adds to it, so the sum can be cut into
 * short launches whose blocks leave the SMs often (msm_ones_split). */
template <class F>
__global__ void __launch_bounds__(MSM_THREADS, items_min_blocks<F>::value)
    k_ones(const ec_affine<F> *__restrict__ bases, const uint32_t *__restrict__ idx,
           const uint32_t *__restrict__ n_ones, ec_xyzz<F> *partials, size_t j0, size_t j1)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x, stride = (size_t)gridDim.x * blockDim.x;
    size_t lo, hi;
    if (!ones_range(t, stride, *n_ones, j0, j1, &lo, &hi))
        return;
    ec_xyzz<F> acc;
    if (j0)
        acc = partials[t];
    else
        ec_xyzz_set_identity(acc);
    for (size_t i = lo; i < hi; i += stride)
        ec_xyzz_add_affine(acc, bases[idx[i]]);
    partials[t] = acc;
}

/* nw segments of n points each (in[v·n ..]): out[v·n' + t] = in[v·n + t·FAN] + ... (within the segment),
 * n' = ceil(n / FAN). One segment is a plain tree-reduction step. */
template <class F>
__global__ void __launch_bounds__(MSM_THREADS) k_reduce(const ec_xyzz<F> *__restrict__ in, size_t n, unsigned nw,
                                                        ec_xyzz<F> *out)
{
    size_t n2 = (n + MSM_FAN - 1) / MSM_FAN;
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n2 * nw)
        return;
    size_t v = t / n2, j = t % n2;
    size_t lo = j * MSM_FAN, hi = lo + MSM_FAN < n ? lo + MSM_FAN : n;
    const ec_xyzz<F> *seg = in + v * n;
    ec_xyzz<F> acc = seg[lo];
    for (size_t i = lo + 1; i < hi; i++)
        ec_xyzz_add(acc, seg[i]);
    out[t] = acc;
}

/* ---- host driver ---------------------------------------------------------------- */

/* Host-side XYZZ operations on the same bytes (for the final combination). */
template <class F> struct host_xyzz;
template <> struct host_xyzz<fp_t> {
    typedef cuzk_g1_xyzz X;
    typedef cuzk_g1 J;
    static void id(X *r) { cuzk_g1_xyzz_set_identity(r); }
    static void add(X *r, const X *a, const X *b) { cuzk_g1_xyzz_add(r, a, b); }
    static void dbl(X *r, const X *a) { cuzk_g1_xyzz_dbl(r, a); }
    static void to_jac(J *r, const X *a) { cuzk_g1_xyzz_to_jacobian(r, a); }
};
template <> struct host_xyzz<fp2_t> {
    typedef cuzk_g2_xyzz X;
    typedef cuzk_g2 J;
    static void id(X *r) { cuzk_g2_xyzz_set_identity(r); }
    static void add(X *r, const X *a, const X *b) { cuzk_g2_xyzz_add(r, a, b); }
    static void dbl(X *r, const X *a) { cuzk_g2_xyzz_dbl(r, a); }
    static void to_jac(J *r, const X *a) { cuzk_g2_xyzz_to_jacobian(r, a); }
};

static inline unsigned grid_for(size_t n)
{
    return ceil_div_u(n ? n : 1, MSM_THREADS);
}

#include "gpu/msm_tree.cuh"

/* Tree-reduces nw segments of n points each at src (which may be one of ws->red) into dst[0 .. nw), one
 * launch per level for all segments. */
template <class F>
static int reduce_to(cuzk_gpu_msm *ws, const ec_xyzz<F> *src, size_t n, unsigned nw, ec_xyzz<F> *dst,
                     cudaStream_t st, char *err, size_t errlen)
{
    ec_xyzz<F> *bufs[2] = {(ec_xyzz<F> *)ws->red[0], (ec_xyzz<F> *)ws->red[1]};
    const ec_xyzz<F> *cur = src;
    int which = src == bufs[0] ? 1 : 0;
    while (n > 1) {
        size_t m = (n + MSM_FAN - 1) / MSM_FAN;
        k_reduce<F><<<grid_for(m * nw), MSM_THREADS, 0, st>>>(cur, n, nw, bufs[which]);
        CU(cudaGetLastError(), "k_reduce launch");
        cur = bufs[which];
        which ^= 1;
        n = m;
    }
    CU(cudaMemcpyAsync(dst, cur, nw * sizeof(ec_xyzz<F>), cudaMemcpyDeviceToDevice, st),
       "cudaMemcpyAsync (reduce)");
    return CUZK_OK;
}

/* Window sums wins[w0 .. w0 + nw) from the buckets of those windows (nw·B at ws->buckets). */
template <class F>
static int reduce_windows(cuzk_gpu_msm *ws, unsigned w0, unsigned nw, unsigned B, ec_xyzz<F> *wins,
                          cudaStream_t st, char *err, size_t errlen)
{
    unsigned m = msm_group_m(nw, B, ws->red_len), G = ceil_div_u(B, m);
    ec_xyzz<F> *red0 = (ec_xyzz<F> *)ws->red[0];
    k_bucket_groups<F><<<grid_for((size_t)nw * G), MSM_THREADS, 0, st>>>((const ec_xyzz<F> *)ws->buckets, B, m, nw,
                                                                         red0);
    CU(cudaGetLastError(), "k_bucket_groups launch");
    return reduce_to<F>(ws, red0, G, nw, wins + w0, st, err, errlen);
}

/* Whether the batch-affine tree sums the windows of n_tail entries (a G1 workspace, at least tree_min). */
template <class F> static bool tree_takes(const cuzk_gpu_msm *ws, size_t n_tail)
{
    return false;
}

template <> inline bool tree_takes<fp_t>(const cuzk_gpu_msm *ws, size_t n_tail)
{
    return ws->tree && n_tail >= ws->tree_min;
}

/* Window w's digits of the tail, sorted by key on st: counts/offs get the histogram and the run starts,
 * *keys and *vals the sorted keys and values (each one of the two buffers given). */
static int window_sort(cuzk_gpu_msm *ws, unsigned w, unsigned c, unsigned B, uint32_t n_tail, uint32_t *counts,
                       uint32_t *offs, uint32_t *val_in, uint32_t *val_alt, cudaStream_t st, uint32_t **keys,
                       uint32_t **vals, char *err, size_t errlen)
{
    CU(cudaMemsetAsync(counts, 0, (B + 2) * 4, st), "cudaMemsetAsync (counts)");
    CU(cudaMemsetAsync(offs, 0, (B + 2) * 4, st), "cudaMemsetAsync (offs)");
    k_digits<<<grid_for(n_tail), MSM_THREADS, 0, st>>>(ws->tail_k, ws->tail_idx, ws->n_sel, w, c, ws->keys[0],
                                                       val_in);
    CU(cudaGetLastError(), "k_digits launch");
    cub::DoubleBuffer<uint32_t> kb(ws->keys[0], ws->keys[1]), vb(val_in, val_alt);
    size_t tb = ws->cub_bytes;
    CU(cub::DeviceRadixSort::SortPairs(ws->cub_tmp, tb, kb, vb, (int)n_tail, 0, c, st),
       "cub::DeviceRadixSort::SortPairs");
    /* the histogram: run ends less run starts (offs holds the starts until the scan) */
    k_runs<<<grid_for(n_tail), MSM_THREADS, 0, st>>>(kb.Current(), ws->n_sel, offs, counts);
    k_run_counts<<<grid_for(B + 2), MSM_THREADS, 0, st>>>(offs, B, counts);
    CU(cudaGetLastError(), "k_runs launch");
    /* run starts: offs[0..B+1] = exclusive scan of counts[0..B] (B + 2 entries with the total) */
    tb = ws->cub_bytes;
    CU(cub::DeviceScan::ExclusiveSum(ws->cub_tmp, tb, counts, offs, (int)B + 2, st),
       "cub::DeviceScan::ExclusiveSum (offsets)");
    *keys = kb.Current();
    *vals = vb.Current();
    return CUZK_OK;
}

/* st waits for whatever was issued on st_sort (an error path leaves no sort running into the next MSM);
 * returns rc. */
static int msm_sort_join(cuzk_gpu_msm *ws, cudaStream_t st, int rc, char *err, size_t errlen)
{
    return cuda_join(ws->st_sort, ws->ev_join, st, rc, "the msm sort stream's join", err, errlen);
}

/* One window's buckets by the batch-affine tree, when it applies (a G1 workspace, at least tree_min
 * entries); *done says whether it did. */
template <class F>
static int tree_try(cuzk_gpu_msm *ws, const ec_affine<F> *bases, const uint32_t *vals, const uint32_t *counts,
                    const uint32_t *offs, uint32_t n_tail, unsigned B, ec_xyzz<F> *buckets, cudaStream_t st,
                    bool *done, char *err, size_t errlen)
{
    *done = false;
    return CUZK_OK;
}

template <>
inline int tree_try<fp_t>(cuzk_gpu_msm *ws, const g1_affine_t *bases, const uint32_t *vals,
                          const uint32_t *counts, const uint32_t *offs, uint32_t n_tail, unsigned B,
                          g1_xyzz_t *buckets, cudaStream_t st, bool *done, char *err, size_t errlen)
{
    *done = tree_takes<fp_t>(ws, n_tail);
    if (!*done)
        return CUZK_OK;
    return msm_tree_window(ws->tree, bases, vals, counts, offs, B, ws->tree_finish, buckets, st, err, errlen);
}

template <class F>
static int msm_run(typename host_xyzz<F>::J *out, const ec_affine<F> *bases, const fr_t *scalars, size_t n,
                   cuzk_gpu_msm *ws, unsigned window, cudaStream_t st, cuzk_gpu_msm_stats *stats, char *err,
                   size_t errlen, unsigned table_k = 0)
{
    typedef host_xyzz<F> H;
    if (n > ws->n_max)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "gpu msm: %zu points exceed the workspace's %zu", n,
                         ws->n_max);
    if (window == 1 || window > MSM_MAX_C)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "gpu msm: window %u outside 2..%d", window, MSM_MAX_C);
    /* bases as a group table (table_k > 0): its entries must be indexable with 31 bits, as k_digits puts
     * the sign in the 32nd */
    if (table_k && (table_k < 2 || table_k > CUZK_GROUP_TABLE_MAX_K ||
                    cuzk_group_table_len(n, table_k) > ((size_t)1 << 31)))
        return cuzk_fail(err, errlen, CUZK_EINVAL, "gpu msm: group table k = %u outside 2..%d or over 2^31 entries",
                         table_k, CUZK_GROUP_TABLE_MAX_K);
    if (n == 0) {
        typename H::X z;
        H::id(&z);
        H::to_jac(out, &z);
        if (stats)
            memset(stats, 0, sizeof *stats);
        return CUZK_OK;
    }
    ec_xyzz<F> *wins = (ec_xyzz<F> *)ws->wins;
    ec_xyzz<F> *red0 = (ec_xyzz<F> *)ws->red[0];

    CU(cudaEventRecord(ws->ev[0], st), "cudaEventRecord");
    /* 1. classify and compact the tail */
    k_classify<<<grid_for(n), MSM_THREADS, 0, st>>>(scalars, n, ws->cls, ws->tail_flag);
    CU(cudaGetLastError(), "k_classify launch");
    size_t tb = ws->cub_bytes;
    CU(cub::DeviceSelect::Flagged(ws->cub_tmp, tb, thrust::counting_iterator<uint32_t>(0), ws->tail_flag,
                                  ws->tail_idx, ws->n_sel, (int)n, st),
       "cub::DeviceSelect::Flagged");
    uint32_t n_tail = 0;
    CU(cudaMemcpyAsync(&n_tail, ws->n_sel, 4, cudaMemcpyDeviceToHost, st), "cudaMemcpyAsync (tail count)");
    CU(cudaEventRecord(ws->ev[1], st), "cudaEventRecord");

    /* 2. ones: their indices compacted into keys[1] (free until the windows), then summed; with a group
     * table, the entries of the groups that hold a one instead (listed first in vals[0], free until the
     * windows too) */
    if (table_k) {
        size_t groups = (n + table_k - 1) / table_k;
        k_group_ones<<<grid_for(groups), MSM_THREADS, 0, st>>>(ws->cls, n, table_k, ws->tail_flag, ws->vals[0]);
        CU(cudaGetLastError(), "k_group_ones launch");
        tb = ws->cub_bytes;
        CU(cub::DeviceSelect::Flagged(ws->cub_tmp, tb, (const uint32_t *)ws->vals[0], ws->tail_flag, ws->keys[1],
                                      ws->n_sel + 1, (int)groups, st),
           "cub::DeviceSelect::Flagged (groups)");
    } else {
        k_flag_ones<<<grid_for(n), MSM_THREADS, 0, st>>>(ws->cls, n, ws->tail_flag);
        CU(cudaGetLastError(), "k_flag_ones launch");
        tb = ws->cub_bytes;
        CU(cub::DeviceSelect::Flagged(ws->cub_tmp, tb, thrust::counting_iterator<uint32_t>(0), ws->tail_flag,
                                      ws->keys[1], ws->n_sel + 1, (int)n, st),
           "cub::DeviceSelect::Flagged (ones)");
    }
    {
        /* the grid-stride steps for n ones at most, in ws->ones_split launches */
        size_t J, Js;
        ones_cut(n, MSM_ONES_THREADS, ws->ones_split, &J, &Js);
        for (size_t j0 = 0; j0 < J; j0 += Js) {
            k_ones<F><<<MSM_ONES_THREADS / MSM_THREADS, MSM_THREADS, 0, st>>>(
                bases, ws->keys[1], ws->n_sel + 1, red0, j0, j0 + Js < J ? j0 + Js : J);
            CU(cudaGetLastError(), "k_ones launch");
        }
    }
    int rc = reduce_to<F>(ws, red0, MSM_ONES_THREADS, 1, wins + MSM_MAX_W, st, err, errlen);
    if (rc)
        return rc;
    CU(cudaEventRecord(ws->ev[2], st), "cudaEventRecord");
    CU(cudaStreamSynchronize(st), "cudaStreamSynchronize (tail count)");

    unsigned c = window ? window : msm_pick_window(n_tail);
    unsigned W = n_tail ? msm_windows(c) : 0, B = 1u << (c - 1);
    unsigned T = msm_item_len(n_tail);
    float t_digits = 0, t_acc = 0, t_red = 0;

    /* 3. tail scalars */
    if (n_tail) {
        k_tail_scalars<<<grid_for(n_tail), MSM_THREADS, 0, st>>>(scalars, ws->tail_idx, ws->n_sel, ws->tail_k);
        CU(cudaGetLastError(), "k_tail_scalars launch");
        if (table_k) {
            k_tail_single<<<grid_for(n_tail), MSM_THREADS, 0, st>>>(ws->tail_idx, ws->n_sel, table_k);
            CU(cudaGetLastError(), "k_tail_single launch");
        }
    }
    /* 4. windows, their buckets kept side by side in batches of up to nb windows, each batch reduced at
     * once (one k_bucket_groups and one launch per tree level for all its windows) */
    unsigned nb = (unsigned)(ws->bucket_cap / B), w0 = 0;
    if (nb > W)
        nb = W;
    /* With the tree, window w + 1's digits and sort (memory-bound) run on st_sort beside window w's tree
     * (multiply-bound): windows alternate between two count/offset sets, and a window's sorted values
     * stay in one of the three value buffers while the next window sorts in the other two. */
    bool pipe = tree_takes<F>(ws, n_tail) && W > 1;
    uint32_t *kcur = NULL, *vcur = NULL, *vnext = NULL, *knext = NULL;
    if (pipe) {
        if ((rc = cuda_join(st, ws->ev_fork, ws->st_sort, CUZK_OK, "the msm sort stream's fork", err, errlen)))
            return rc;
        if ((rc = window_sort(ws, 0, c, B, n_tail, ws->counts, ws->offs, ws->vals[0], ws->vals[1], ws->st_sort,
                              &knext, &vnext, err, errlen)))
            return msm_sort_join(ws, st, rc, err, errlen);
        CU(cudaEventRecord(ws->ev_sorted, ws->st_sort), "cudaEventRecord (sorted)");
    }
    for (unsigned w = 0; w < W; w++) {
        CU(cudaEventRecord(ws->ev[3], st), "cudaEventRecord");
        uint32_t *counts = w & 1 && pipe ? ws->counts2 : ws->counts, *offs = w & 1 && pipe ? ws->offs2 : ws->offs;
        if (pipe) {
            CU(cudaStreamWaitEvent(st, ws->ev_sorted, 0), "cudaStreamWaitEvent (sorted)");
            kcur = knext, vcur = vnext;
            if (w + 1 < W) { /* after everything before this window's tree: the buffers it takes are free */
                uint32_t *v[2], k = 0;
                for (int i = 0; i < 3; i++)
                    if (ws->vals[i] != vcur)
                        v[k++] = ws->vals[i];
                if ((rc = cuda_join(st, ws->ev_fork, ws->st_sort, CUZK_OK, "the msm sort stream's fork", err,
                                    errlen)))
                    return msm_sort_join(ws, st, rc, err, errlen);
                if ((rc = window_sort(ws, w + 1, c, B, n_tail, w & 1 ? ws->counts : ws->counts2,
                                      w & 1 ? ws->offs : ws->offs2, v[0], v[1], ws->st_sort, &knext, &vnext, err,
                                      errlen)))
                    return msm_sort_join(ws, st, rc, err, errlen);
                CU(cudaEventRecord(ws->ev_sorted, ws->st_sort), "cudaEventRecord (sorted)");
            }
        } else if ((rc = window_sort(ws, w, c, B, n_tail, counts, offs, ws->vals[0], ws->vals[1], st, &kcur,
                                     &vcur, err, errlen))) {
            return rc;
        }
        CU(cudaEventRecord(ws->ev[4], st), "cudaEventRecord");
        bool by_tree;
        ec_xyzz<F> *win_buckets = (ec_xyzz<F> *)ws->buckets + (size_t)(w - w0) * B;
        if ((rc = tree_try<F>(ws, bases, vcur, counts, offs, n_tail, B, win_buckets, st, &by_tree, err,
                              errlen)))
            return pipe ? msm_sort_join(ws, st, rc, err, errlen) : rc;
        if (!by_tree) {
            k_chunk_counts<<<grid_for(B + 2), MSM_THREADS, 0, st>>>(ws->offs, B, T, ws->item_cnt);
            CU(cudaGetLastError(), "k_chunk_counts launch");
            tb = ws->cub_bytes;
            /* item_off[b] = first item of key b; item_off[B + 1] = number of items */
            CU(cub::DeviceScan::ExclusiveSum(ws->cub_tmp, tb, ws->item_cnt, ws->item_off, (int)B + 2, st),
               "cub::DeviceScan::ExclusiveSum (items)");
            size_t chunks = ceil_div_u(n_tail, T), max_items = chunks + B;
            k_items<F><<<grid_for(chunks), MSM_THREADS, 0, st>>>(bases, kcur, vcur, ws->offs,
                                                                 ws->item_off, B, T, (ec_xyzz<F> *)ws->items);
            CU(cudaGetLastError(), "k_items launch");
            /* Fold: while a bucket may still hold more than FOLD items (one bucket can hold all the entries:
             * equal scalars, or the top window of scalars near r, whose digit is only a carry), its items
             * are summed FOLD at a time in parallel, so no thread adds more than FOLD points in a row. */
            const ec_xyzz<F> *lvl = (const ec_xyzz<F> *)ws->items;
            const uint32_t *lvl_cnt = ws->item_cnt, *lvl_off = ws->item_off;
            size_t lvl_len = max_items, lvl_max = chunks + 1; /* bound on one bucket's items */
            int side = 0;
            while (lvl_max > MSM_FOLD) {
                uint32_t *cnt = side ? ws->item_cnt : ws->fold_cnt, *off = side ? ws->item_off : ws->fold_off;
                ec_xyzz<F> *dst = side ? (ec_xyzz<F> *)ws->items : (ec_xyzz<F> *)ws->folded;
                k_item_counts<<<grid_for(B + 2), MSM_THREADS, 0, st>>>(lvl_cnt, B, MSM_FOLD, cnt);
                CU(cudaGetLastError(), "k_item_counts launch (fold)");
                tb = ws->cub_bytes;
                CU(cub::DeviceScan::ExclusiveSum(ws->cub_tmp, tb, cnt, off, (int)B + 2, st),
                   "cub::DeviceScan::ExclusiveSum (fold)");
                lvl_len = msm_fold_len(lvl_len, B);
                k_fold<F><<<grid_for(lvl_len), MSM_THREADS, 0, st>>>(lvl, lvl_off, off, B, dst);
                CU(cudaGetLastError(), "k_fold launch");
                lvl = dst, lvl_cnt = cnt, lvl_off = off;
                lvl_max = (lvl_max + MSM_FOLD - 1) / MSM_FOLD;
                side ^= 1;
            }
            k_buckets<F><<<grid_for(B), MSM_THREADS, 0, st>>>(lvl, lvl_off, B, win_buckets);
            CU(cudaGetLastError(), "k_buckets launch");
        }
        CU(cudaEventRecord(ws->ev[5], st), "cudaEventRecord");
        bool flush = w + 1 == W || w + 1 - w0 == nb;
        if (flush) {
            if ((rc = reduce_windows<F>(ws, w0, w + 1 - w0, B, wins, st, err, errlen)))
                return rc;
            w0 = w + 1;
        }
        CU(cudaEventRecord(ws->ev[6], st), "cudaEventRecord");
        if (stats) {
            float a, b2, c2 = 0;
            CU(cudaEventSynchronize(ws->ev[6]), "cudaEventSynchronize");
            cudaEventElapsedTime(&a, ws->ev[3], ws->ev[4]);
            cudaEventElapsedTime(&b2, ws->ev[4], ws->ev[5]);
            if (flush)
                cudaEventElapsedTime(&c2, ws->ev[5], ws->ev[6]);
            t_digits += a, t_acc += b2, t_red += c2;
        }
    }
    /* 5. read back and combine */
    typename H::X host_w[MSM_MAX_W + 1];
    CU(cudaMemcpyAsync(host_w, wins, (MSM_MAX_W + 1) * sizeof(ec_xyzz<F>), cudaMemcpyDeviceToHost, st),
       "cudaMemcpyAsync (window sums)");
    CU(cudaEventRecord(ws->ev[7], st), "cudaEventRecord");
    CU(cudaStreamSynchronize(st), "cudaStreamSynchronize (window sums)");
    typename H::X acc;
    H::id(&acc);
    for (unsigned w = W; w-- > 0;) {
        for (unsigned i = 0; i < c; i++)
            H::dbl(&acc, &acc);
        H::add(&acc, &acc, &host_w[w]);
    }
    H::add(&acc, &acc, &host_w[MSM_MAX_W]);
    H::to_jac(out, &acc);
    if (stats) {
        memset(stats, 0, sizeof *stats);
        stats->n = n;
        stats->n_tail = n_tail;
        stats->window = n_tail ? c : 0;
        stats->windows = W;
        /* zero/one counts are not read back (that would cost a synchronisation); n_one + n_zero = n - n_tail */
        cudaEventElapsedTime(&stats->ms_classify, ws->ev[0], ws->ev[1]);
        cudaEventElapsedTime(&stats->ms_ones, ws->ev[1], ws->ev[2]);
        stats->ms_digits_sort = t_digits;
        stats->ms_accumulate = t_acc;
        stats->ms_reduce = t_red;
        cudaEventElapsedTime(&stats->ms_total, ws->ev[0], ws->ev[7]);
    }
    return CUZK_OK;
}

#endif
