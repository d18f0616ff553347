/*
 * ntt.cu — radix-2 NTT over Fr on the GPU in a few shared-memory passes
 * (cuzk/gpu_ntt.h; design and measurements in docs/design/009-gpu-ntt.md).
 *
 * Schedule. Natural-to-bit-reversed (NR) is decimation in frequency
 * (Gentleman–Sande), bit-reversed-to-natural (RN) decimation in time
 * (Cooley–Tukey) run through the same stages backwards, NN is DIF followed by
 * a bit-reversal kernel (the CPU code's scheme, src/cpu/ntt.c) or, out of
 * place, by stores to bit-reversed positions (Extras). The lg stages
 * are split into at most three passes of at most 10 stages; a pass reads the
 * whole vector once and writes it once. In a pass over 2^top-blocks with r
 * stages, column j < s = 2^(top-r) of a block holds a group of R = 2^r
 * elements j + m·s whose r butterfly stages touch nothing else. A thread
 * block loads a tile of 2^10 elements (G = 2^10 / R adjacent columns, so
 * every row is G·32 contiguous bytes; in the last pass, s = 1, G whole
 * blocks), runs the r stages in shared memory two at a time (radix 4: a
 * thread takes four elements through two stages in registers) with a barrier
 * after each step, and writes the tile back. lg = 27 is three passes of 9
 * stages, each four radix-4 steps and one radix-2 stage.
 *
 * Twiddles. The pair (m, m + H) of stage half-size H (group units) at column
 * j needs ω_2h^(j + u·s), u = m mod H, h = H·s: a power ω^e of the domain's
 * root with e < 2^lg. Two tables per call, A[i] = ω^i for i < 2^ceil(lg/2)
 * and B[i] = ω^(i·|A|), give any power with one multiplication (none when one
 * half of e is zero, as for every twiddle of the last pass). A thread block
 * fills the R - 1 twiddles per column of its tile into shared memory before
 * the stages (about one multiplication per element of the tile), and in the
 * middle passes reuses them for up to 16 blocks that share the same columns.
 * The butterflies with twiddle 1 (u = 0 at column 0) skip the multiplication.
 *
 * Scaling. A forward coset multiplies element p by g^p (g^bitrev(p) for
 * bit-reversed input) as the first pass loads it; an inverse multiplies by
 * n^-1, or by n^-1·g^-i for a coset, as the last pass stores it (i = p or
 * bitrev(p) after the layout at that point), the factor from tables of g
 * with n^-1 folded into B: two multiplications per element.
 *
 * Extras (cuzk_gpu_ntt_ex). The first pass may load from another vector and
 * multiply by a third as it loads; a constant joins the factors above (or
 * costs one product at the last store when there are none); for NN a vector
 * is subtracted inside the bit-reversal kernel, where each element is loaded
 * before it moves. Each saves a pointwise pass of the caller (the H pipeline).
 * An output vector (dst) makes the transform out of place: the last pass
 * stores there, and for NN it stores each element at its bit-reversed
 * position (pass_store_rev), subtracting sub first, so the bit-reversal
 * kernel and its read and write of the vector are gone.
 *
 * Memory. The tables (at most 2 MiB) live in device memory taken with
 * cudaMallocAsync on the caller's stream and returned with cudaFreeAsync;
 * nothing else is allocated and nothing synchronises.
 *
 * Host execution. Kernel bodies are __host__ __device__ phase functions
 * (fill, load, stage, store) separated by the barriers, so a single-threaded
 * host loop over (block, phase, thread) runs exactly the device schedule; this
 * is how the index logic was checked against the CPU NTT without a GPU.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#include "cuzk/gpu_ntt.h"
#define GPU_MODULE "gpu ntt"
#include "gpu/cuda_check.cuh"
#include "gpu/fr.cuh"

#define NTT_FN static __host__ __device__ __forceinline__

#define NTT_LG_TILE 10 /* elements per tile: 2^10, 32 KiB of data */
#define NTT_THREADS 256
#define NTT_LG_MAX_PASS 10 /* stages per pass */
#define NTT_MAX_PASSES 3   /* ceil(CUZK_NTT_MAX_LG / NTT_LG_MAX_PASS) */
#define NTT_LG_MAX_NB 4    /* a middle-pass thread block runs up to 16 blocks of its columns */
#define NTT_LG_MIN_GRID 10 /* ...but leaves at least 2^10 thread blocks */
#define NTT_LG_BR 4        /* bit reversal swaps 16 x 16 tiles */
#define NTT_BR (1u << NTT_LG_BR)
#define NTT_BR_PAD (NTT_BR + 1)

enum { SCALE_NONE = 0, SCALE_CONST = 1, SCALE_POW = 2, SCALE_POW_REV = 3 };

/* One pass: stages with 2h = 2^top down to 2^(top-r+1). */
typedef struct {
    fr_t *x;
    fr_t *out;             /* where the pass stores: x, or the extras' dst in the last pass */
    const fr_t *src, *mul; /* first pass only (cuzk_gpu_ntt_extra): input from src (NULL: x), times mul */
    const fr_t *sub;       /* folded NN's last pass: subtracted before the permutation */
    const fr_t *wa, *wb;   /* ω^e = wa[e mod 2^lga] · wb[e >> lga] */
    const fr_t *ca, *cb; /* coset factors, same split (cb includes n^-1 for inverse) */
    fr_t scale;          /* SCALE_CONST factor */
    unsigned lg, lga;
    unsigned top, r;
    unsigned lgg;    /* log2 of the groups per tile */
    unsigned lgcols; /* log2 of the column tiles per block (s > 1), 0 when s = 1 */
    unsigned lgnb;   /* log2 of the blocks a thread block runs (s > 1), 0 when s = 1 */
    unsigned revout; /* NN's last pass with dst: its stores permute (pass_store_rev) */
    int load_scale, store_scale;
} pass_args;

/* Tables A and B of powers of one or two bases, from their square ladders. */
typedef struct {
    fr_t ladder[2][CUZK_NTT_MAX_LG]; /* base^(2^b) */
    fr_t pre[2];                     /* factor folded into every B entry */
    fr_t *out[2][2];                 /* [base][A, B] */
    unsigned lga, lgb, nbase;
} table_args;

typedef struct {
    table_args tab;
    unsigned tab_threads;
    unsigned npass;
    pass_args pass[NTT_MAX_PASSES]; /* in execution order */
    unsigned grid[NTT_MAX_PASSES];
    unsigned smem[NTT_MAX_PASSES];
    bool dit, bitrev;
    const fr_t *src, *mul, *sub; /* the extras' vectors, bound to the first pass and the bit reversal */
    fr_t *dst;                   /* the extras' output vector, bound to the last pass (NULL: in place) */
    size_t scratch_elems;
    unsigned ta_off[2][2]; /* element offsets of the tables in the scratch buffer */
} ntt_job;

/* ---- small helpers ------------------------------------------------------- */

NTT_FN unsigned rev_bits(unsigned x, unsigned nbits)
{
    if (nbits == 0)
        return 0;
#ifdef __CUDA_ARCH__
    return __brev(x) >> (32 - nbits);
#else
    unsigned r = 0;
    for (unsigned i = 0; i < nbits; i++)
        r |= ((x >> i) & 1u) << (nbits - 1 - i);
    return r;
#endif
}

NTT_FN unsigned floor_log2(unsigned x)
{
#ifdef __CUDA_ARCH__
    return 31 - __clz(x);
#else
    return 31 - __builtin_clz(x);
#endif
}

NTT_FN fr_t sm_get(const uint4 *p0, const uint4 *p1, unsigned i)
{
    uint4 lo = p0[i], hi = p1[i];
    fr_t r = {{lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w}};
    return r;
}

NTT_FN void sm_put(uint4 *p0, uint4 *p1, unsigned i, fr_t a)
{
    p0[i] = make_uint4(a.v[0], a.v[1], a.v[2], a.v[3]);
    p1[i] = make_uint4(a.v[4], a.v[5], a.v[6], a.v[7]);
}

/* ω^e from the split tables; A[0] = B[0] = 1, so a zero half costs nothing. */
NTT_FN fr_t root_pow(const pass_args *a, unsigned e)
{
    unsigned lo = e & ((1u << a->lga) - 1), hi = e >> a->lga;
    if (hi == 0)
        return fr_load(&a->wa[lo]);
    if (lo == 0)
        return fr_load(&a->wb[hi]);
    return fr_mul(fr_load(&a->wa[lo]), fr_load(&a->wb[hi]));
}

/* x times the factor of position p under mode (SCALE_*). */
NTT_FN fr_t apply_scale(const pass_args *a, int mode, fr_t x, unsigned p)
{
    if (mode == SCALE_CONST)
        return fr_mul(x, a->scale);
    unsigned e = mode == SCALE_POW_REV ? rev_bits(p, a->lg) : p;
    fr_t f = fr_mul(fr_load(&a->ca[e & ((1u << a->lga) - 1)]), fr_load(&a->cb[e >> a->lga]));
    return fr_mul(x, f);
}

/* ---- table kernel -------------------------------------------------------- */

NTT_FN void tables_entry(const table_args *t, unsigned i)
{
    unsigned na = 1u << t->lga, nb = 1u << t->lgb, per = na + nb;
    if (i >= per * t->nbase)
        return;
    unsigned which = i / per, k = i % per;
    bool isb = k >= na;
    unsigned bits = isb ? k - na : k, first = isb ? t->lga : 0, nbits = isb ? t->lgb : t->lga;
    fr_t acc = isb ? t->pre[which] : fr_one();
    for (unsigned b = 0; b < nbits; b++)
        if ((bits >> b) & 1u)
            acc = fr_mul(acc, t->ladder[which][first + b]);
    fr_store(&t->out[which][isb][bits], acc);
}

__global__ void k_tables(table_args t)
{
    tables_entry(&t, blockIdx.x * blockDim.x + threadIdx.x);
}

/* ---- pass kernel phases -------------------------------------------------- */

/* Geometry of a pass, derived from its arguments. */
typedef struct {
    unsigned R, lgE, E, s, lgs;
    bool col;     /* s > 1: a tile is G adjacent columns of one block */
    unsigned lgt; /* log2 of the twiddle columns: lgg when col, else 0 */
} pass_geo;

NTT_FN pass_geo geo_of(const pass_args *a)
{
    pass_geo g;
    g.R = 1u << a->r;
    g.lgE = a->r + a->lgg;
    g.E = 1u << g.lgE;
    g.lgs = a->top - a->r;
    g.s = 1u << g.lgs;
    g.col = g.s > 1;
    g.lgt = g.col ? a->lgg : 0;
    return g;
}

/* First column of the tile (0 when s = 1). */
NTT_FN unsigned tile_col0(const pass_args *a, unsigned tile)
{
    return a->lgcols ? (tile & ((1u << a->lgcols) - 1)) << a->lgg : 0;
}

/*
 * Position of tile element e (memory order) in the it-th block of the tile. When s = 1 a tile is G
 * whole blocks: adjacent ones, or with revout the blocks rev(tile) + c·2^(lg - lgE), c < G, whose
 * bit-reversed positions interleave (pass_store_rev).
 */
NTT_FN unsigned tile_pos(const pass_args *a, const pass_geo *g, unsigned tile, unsigned it, unsigned e)
{
    if (!g->col && a->revout) {
        unsigned lgt = a->lg - g->lgE;
        return ((rev_bits(tile, lgt) | ((e >> a->r) << lgt)) << a->r) | (e & (g->R - 1));
    }
    if (!g->col)
        return (tile << g->lgE) + e;
    unsigned blk = ((tile >> a->lgcols) << a->lgnb) + it;
    unsigned m = e >> a->lgg, c = e & ((1u << a->lgg) - 1);
    return (blk << a->top) + tile_col0(a, tile) + c + (m << g->lgs);
}

/* Twiddles of the tile: W[(H + u)·Gt + c] for stage half-size H, u < H. */
NTT_FN void pass_fill(const pass_args *a, unsigned tile, unsigned tid, uint4 *sm)
{
    pass_geo g = geo_of(a);
    uint4 *w0 = sm + 2 * g.E, *w1 = w0 + (g.R << g.lgt);
    unsigned j0 = tile_col0(a, tile);
    for (unsigned idx = (1u << g.lgt) + tid; idx < (g.R << g.lgt); idx += NTT_THREADS) {
        unsigned k = idx >> g.lgt, c = idx & ((1u << g.lgt) - 1);
        unsigned lgh = floor_log2(k), u = k - (1u << lgh), q = a->r - 1 - lgh;
        unsigned e = (j0 + c + (u << g.lgs)) << (a->lg - a->top + q);
        sm_put(w0, w1, idx, root_pow(a, e));
    }
}

NTT_FN void pass_load(const pass_args *a, unsigned tile, unsigned it, unsigned tid, uint4 *sm)
{
    pass_geo g = geo_of(a);
    const fr_t *in = a->src ? a->src : a->x;
    for (unsigned e = tid; e < g.E; e += NTT_THREADS) {
        unsigned p = tile_pos(a, &g, tile, it, e);
        fr_t x = fr_load(&in[p]);
        if (a->mul)
            x = fr_mul(x, fr_load(&a->mul[p]));
        if (a->load_scale != SCALE_NONE)
            x = apply_scale(a, a->load_scale, x, p);
        sm_put(sm, sm + g.E, e, x);
    }
}

/*
 * NN's last pass with dst: the element at p = β·R + m (block β) goes to rev(p) = rev(m)·2^(lg - r) +
 * rev(β), so no bit-reversal kernel runs. The tile's blocks β = rev(tile) + c·2^(lg - lgE) (tile_pos)
 * have rev(β) = tile·G + rev(c): for each m the tile writes G adjacent elements, and thread blocks
 * t and t + 1, which run together, write the runs beside them, so the L2 merges whole lines. Output
 * ordinal f = (mm, cc) puts the low bits of f in the top bits of mm, so the eight threads of a quarter
 * warp read eight bank groups of shared memory (element index m = rev(mm) differs in its low bits).
 * The scale and sub apply at p, before the element moves, as the bit-reversal kernel has them.
 */
NTT_FN void pass_store_rev(const pass_args *a, const pass_geo *g, unsigned tile, unsigned tid,
                           const uint4 *sm)
{
    unsigned t = a->r < 3 ? a->r : 3, lgb = a->lg - a->r;
    for (unsigned f = tid; f < g->E; f += NTT_THREADS) {
        unsigned cc = (f >> t) & ((1u << a->lgg) - 1);
        unsigned mm = ((f & ((1u << t) - 1)) << (a->r - t)) | (f >> (t + a->lgg));
        unsigned e = (rev_bits(cc, a->lgg) << a->r) | rev_bits(mm, a->r), p = tile_pos(a, g, tile, 0, e);
        fr_t x = sm_get(sm, sm + g->E, e);
        if (a->store_scale != SCALE_NONE)
            x = apply_scale(a, a->store_scale, x, p);
        if (a->sub)
            x = fr_sub(x, fr_load(&a->sub[p]));
        fr_store(&a->out[(mm << lgb) | (tile << a->lgg) | cc], x);
    }
}

NTT_FN void pass_store(const pass_args *a, unsigned tile, unsigned it, unsigned tid, const uint4 *sm)
{
    pass_geo g = geo_of(a);
    if (a->revout) {
        pass_store_rev(a, &g, tile, tid, sm);
        return;
    }
    for (unsigned e = tid; e < g.E; e += NTT_THREADS) {
        unsigned p = tile_pos(a, &g, tile, it, e);
        fr_t x = sm_get(sm, sm + g.E, e);
        if (a->store_scale != SCALE_NONE)
            x = apply_scale(a, a->store_scale, x, p);
        fr_store(&a->out[p], x);
    }
}

/* Stage q of the pass (q = 0 has the largest half-size): all butterflies of the tile. */
template <bool DIT>
NTT_FN void pass_stage(const pass_args *a, unsigned tile, unsigned q, unsigned tid, uint4 *sm)
{
    pass_geo g = geo_of(a);
    uint4 *s0 = sm, *s1 = sm + g.E;
    const uint4 *w0 = sm + 2 * g.E, *w1 = w0 + (g.R << g.lgt);
    unsigned lgh = a->r - 1 - q, H = 1u << lgh;
    unsigned j0 = tile_col0(a, tile);
    for (unsigned b = tid; b < g.E / 2; b += NTT_THREADS) {
        unsigned p, c;
        if (g.col) {
            c = b & ((1u << a->lgg) - 1);
            p = b >> a->lgg;
        } else {
            p = b & ((g.R >> 1) - 1);
            c = b >> (a->r - 1);
        }
        unsigned u = p & (H - 1), m = ((p >> lgh) << (lgh + 1)) | u;
        unsigned ia, ib;
        if (g.col) {
            ia = (m << a->lgg) | c;
            ib = ((m + H) << a->lgg) | c;
        } else {
            ia = (c << a->r) | m;
            ib = (c << a->r) | (m + H);
        }
        bool one = u == 0 && (!g.col || j0 + c == 0);
        fr_t x = sm_get(s0, s1, ia), y = sm_get(s0, s1, ib);
        if (DIT) {
            if (!one)
                y = fr_mul(y, sm_get(w0, w1, ((H + u) << g.lgt) | (g.col ? c : 0)));
            sm_put(s0, s1, ia, fr_add(x, y));
            sm_put(s0, s1, ib, fr_sub(x, y));
        } else {
            fr_t d = fr_sub(x, y);
            if (!one)
                d = fr_mul(d, sm_get(w0, w1, ((H + u) << g.lgt) | (g.col ? c : 0)));
            sm_put(s0, s1, ia, fr_add(x, y));
            sm_put(s0, s1, ib, d);
        }
    }
}

/* Shared-memory index of group element m at column c of the tile. */
NTT_FN unsigned sm_index(const pass_args *a, const pass_geo *g, unsigned m, unsigned c)
{
    return g->col ? (m << a->lgg) | c : (c << a->r) | m;
}

/*
 * Stages q and q + 1 of the pass in one step (radix 4): each thread takes the four elements
 * m, m + Q, m + 2Q, m + 3Q of a block of 2H = 4Q (H the half-size of stage q), whose butterflies in the
 * two stages touch nothing else. Stage q pairs (m, m + 2Q) and (m + Q, m + 3Q) with twiddles u = v and
 * v + Q; stage q + 1 pairs (m, m + Q) and (m + 2Q, m + 3Q), both with u = v. Against two radix-2 stages:
 * the same four products, half the shared-memory traffic and barriers, three twiddle reads instead of four.
 * DIF runs stage q first, DIT stage q + 1 first.
 */
template <bool DIT>
NTT_FN void pass_stage4(const pass_args *a, unsigned tile, unsigned q, unsigned tid, uint4 *sm)
{
    pass_geo g = geo_of(a);
    uint4 *s0 = sm, *s1 = sm + g.E;
    const uint4 *w0 = sm + 2 * g.E, *w1 = w0 + (g.R << g.lgt);
    unsigned lgh = a->r - 1 - q, H = 1u << lgh, Q = H >> 1;
    unsigned j0 = tile_col0(a, tile);
    for (unsigned b = tid; b < g.E / 4; b += NTT_THREADS) {
        unsigned p, c;
        if (g.col) {
            c = b & ((1u << a->lgg) - 1);
            p = b >> a->lgg;
        } else {
            p = b & ((g.R >> 2) - 1);
            c = b >> (a->r - 2);
        }
        unsigned v = p & (Q - 1), m = ((p >> (lgh - 1)) << (lgh + 1)) | v, tc = g.col ? c : 0;
        bool one = v == 0 && (!g.col || j0 + c == 0); /* u = v has twiddle 1; u = v + Q never does */
        unsigned i0 = sm_index(a, &g, m, c), i1 = sm_index(a, &g, m + Q, c);
        unsigned i2 = sm_index(a, &g, m + 2 * Q, c), i3 = sm_index(a, &g, m + 3 * Q, c);
        fr_t x0 = sm_get(s0, s1, i0), x1 = sm_get(s0, s1, i1), x2 = sm_get(s0, s1, i2),
             x3 = sm_get(s0, s1, i3);
        fr_t wh1 = sm_get(w0, w1, ((H + v + Q) << g.lgt) | tc);
        if (DIT) {
            if (!one) {
                fr_t wl = sm_get(w0, w1, ((Q + v) << g.lgt) | tc);
                x1 = fr_mul(x1, wl);
                x3 = fr_mul(x3, wl);
            }
            fr_t t = fr_sub(x0, x1);
            x0 = fr_add(x0, x1);
            x1 = t;
            t = fr_sub(x2, x3);
            x2 = fr_add(x2, x3);
            x3 = fr_mul(t, wh1);
            if (!one)
                x2 = fr_mul(x2, sm_get(w0, w1, ((H + v) << g.lgt) | tc));
            t = fr_sub(x0, x2);
            x0 = fr_add(x0, x2);
            x2 = t;
            t = fr_sub(x1, x3);
            x1 = fr_add(x1, x3);
            x3 = t;
        } else {
            fr_t t = fr_sub(x0, x2);
            x0 = fr_add(x0, x2);
            x2 = one ? t : fr_mul(t, sm_get(w0, w1, ((H + v) << g.lgt) | tc));
            t = fr_sub(x1, x3);
            x1 = fr_add(x1, x3);
            x3 = fr_mul(t, wh1);
            fr_t wl = one ? fr_one() : sm_get(w0, w1, ((Q + v) << g.lgt) | tc);
            t = fr_sub(x0, x1);
            x0 = fr_add(x0, x1);
            x1 = one ? t : fr_mul(t, wl);
            t = fr_sub(x2, x3);
            x2 = fr_add(x2, x3);
            x3 = one ? t : fr_mul(t, wl);
        }
        sm_put(s0, s1, i0, x0);
        sm_put(s0, s1, i1, x1);
        sm_put(s0, s1, i2, x2);
        sm_put(s0, s1, i3, x3);
    }
}

/* The pass's r stages run in steps, a barrier after each: two stages a step (radix 4) while two are left,
 * then one (NTT_RADIX4=0 at build time: one stage a step, for comparison). */
#ifndef NTT_RADIX4
#define NTT_RADIX4 1
#endif
NTT_FN unsigned pass_steps(const pass_args *a)
{
    return NTT_RADIX4 ? (a->r + 1) / 2 : a->r;
}

/* Step k of the pass: stages i = 2k, 2k + 1 of the execution order (DIT runs q = r - 1 - i, backwards). */
template <bool DIT>
NTT_FN void pass_step(const pass_args *a, unsigned tile, unsigned k, unsigned tid, uint4 *sm)
{
    if (!NTT_RADIX4) {
        pass_stage<DIT>(a, tile, DIT ? a->r - 1 - k : k, tid, sm);
        return;
    }
    unsigned i = 2 * k;
    if (i + 1 < a->r)
        pass_stage4<DIT>(a, tile, DIT ? a->r - 2 - i : i, tid, sm);
    else
        pass_stage<DIT>(a, tile, DIT ? a->r - 1 - i : i, tid, sm);
}

/* Three thread blocks an SM: shared memory (64 KiB a block) allows three, and the radix-4 step needs
 * ≈ 110 registers unbounded, which would leave two (2^27 forward NR: 50.6 ms with two, 47.0 with three,
 * 48.9 with radix 2; docs/design/009, eleventh session). */
#ifndef NTT_MIN_BLOCKS
#define NTT_MIN_BLOCKS 3
#endif
template <bool DIT, bool REV>
__global__ void __launch_bounds__(NTT_THREADS, NTT_MIN_BLOCKS) k_pass(pass_args arg)
{
    extern __shared__ uint4 sm[];
    pass_args a = arg;
    a.revout = REV; /* a constant here, so the passes without it carry none of pass_store_rev's code */
    pass_fill(&a, blockIdx.x, threadIdx.x, sm);
    unsigned nb = 1u << a.lgnb, steps = pass_steps(&a);
    for (unsigned it = 0; it < nb; it++) {
        pass_load(&a, blockIdx.x, it, threadIdx.x, sm);
        __syncthreads();
        for (unsigned k = 0; k < steps; k++) {
            pass_step<DIT>(&a, blockIdx.x, k, threadIdx.x, sm);
            __syncthreads();
        }
        pass_store(&a, blockIdx.x, it, threadIdx.x, sm);
        if (it + 1 < nb)
            __syncthreads();
    }
}

/* ---- bit reversal -------------------------------------------------------- */

/*
 * lg >= 8: position (a, c, b) with a, b the top and bottom 4 bits swaps with
 * (rev b, rev c, rev a), so the 16 x 16 tile of middle c trades places with
 * the tile of rev c, transposed. Thread block c handles the pair when
 * c <= rev c; rows are 512 contiguous bytes. Shared rows are padded to 17
 * elements so the transposed reads hit distinct banks.
 */
typedef struct {
    fr_t *x;
    const fr_t *sub; /* subtracted where each element is loaded, before it moves (cuzk_gpu_ntt_extra) */
    unsigned lg;
} bitrev_args;

NTT_FN fr_t br_load(const bitrev_args *a, unsigned pos)
{
    fr_t x = fr_load(&a->x[pos]);
    return a->sub ? fr_sub(x, fr_load(&a->sub[pos])) : x;
}

NTT_FN unsigned br_pos(const bitrev_args *a, unsigned row, unsigned mid, unsigned col)
{
    return (row << (a->lg - NTT_LG_BR)) | (mid << NTT_LG_BR) | col;
}

NTT_FN void bitrev_load(const bitrev_args *a, unsigned c, unsigned tid, uint4 *sm)
{
    unsigned cr = rev_bits(c, a->lg - 2 * NTT_LG_BR), n2 = NTT_BR * NTT_BR_PAD;
    unsigned row = tid >> NTT_LG_BR, col = tid & (NTT_BR - 1), i = row * NTT_BR_PAD + col;
    sm_put(sm, sm + n2, i, br_load(a, br_pos(a, row, c, col)));
    if (cr != c)
        sm_put(sm + 2 * n2, sm + 3 * n2, i, br_load(a, br_pos(a, row, cr, col)));
}

NTT_FN void bitrev_store(const bitrev_args *a, unsigned c, unsigned tid, const uint4 *sm)
{
    unsigned cr = rev_bits(c, a->lg - 2 * NTT_LG_BR), n2 = NTT_BR * NTT_BR_PAD;
    unsigned row = tid >> NTT_LG_BR, col = tid & (NTT_BR - 1);
    unsigned i = rev_bits(col, NTT_LG_BR) * NTT_BR_PAD + rev_bits(row, NTT_LG_BR);
    const uint4 *other = cr != c ? sm + 2 * n2 : sm;
    fr_store(&a->x[br_pos(a, row, c, col)], sm_get(other, other + n2, i));
    if (cr != c)
        fr_store(&a->x[br_pos(a, row, cr, col)], sm_get(sm, sm + n2, i));
}

__global__ void __launch_bounds__(NTT_BR *NTT_BR) k_bitrev(bitrev_args a)
{
    __shared__ uint4 sm[4 * NTT_BR * NTT_BR_PAD];
    unsigned c = blockIdx.x;
    if (rev_bits(c, a.lg - 2 * NTT_LG_BR) < c)
        return;
    bitrev_load(&a, c, threadIdx.x, sm);
    __syncthreads();
    bitrev_store(&a, c, threadIdx.x, sm);
}

/* lg < 8: one thread block of 2^lg threads. */
NTT_FN void bitrev_small_load(const bitrev_args *a, unsigned tid, uint4 *sm)
{
    if (tid < (1u << a->lg))
        sm_put(sm, sm + NTT_BR * NTT_BR, tid, br_load(a, tid));
}

NTT_FN void bitrev_small_store(const bitrev_args *a, unsigned tid, const uint4 *sm)
{
    if (tid < (1u << a->lg))
        fr_store(&a->x[tid], sm_get(sm, sm + NTT_BR * NTT_BR, rev_bits(tid, a->lg)));
}

__global__ void __launch_bounds__(NTT_BR *NTT_BR) k_bitrev_small(bitrev_args a)
{
    __shared__ uint4 sm[2 * NTT_BR * NTT_BR];
    bitrev_small_load(&a, threadIdx.x, sm);
    __syncthreads();
    bitrev_small_store(&a, threadIdx.x, sm);
}

/* ---- host side: plan ----------------------------------------------------- */

static fr_t fr_of(const cuzk_fr *a)
{
    fr_t r;
    memcpy(&r, a, sizeof r);
    return r;
}

/* ladder[b] = base^(2^b) for b < lg. */
static void make_ladder(fr_t *ladder, const cuzk_fr *base, unsigned lg)
{
    cuzk_fr p = *base;
    for (unsigned b = 0; b < lg; b++) {
        ladder[b] = fr_of(&p);
        cuzk_fr_sqr(&p, &p);
    }
}

/*
 * Everything a transform launches, with device pointers left to ntt_bind.
 * Passes split lg into npass = ceil(lg / 10) near-equal parts, the larger
 * parts last (the last pass reads whole contiguous blocks); a middle pass
 * needs s >= G so that a tile's columns lie in one block, which every such
 * split satisfies for lg <= 28.
 */
static int ntt_prepare(ntt_job *job, unsigned lg, cuzk_ntt_dir dir, cuzk_ntt_order order, bool coset,
                       const cuzk_ntt_domain *dom, const cuzk_gpu_ntt_extra *ex, char *err, size_t errlen)
{
    memset(job, 0, sizeof *job);
    bool inv = dir == CUZK_NTT_INVERSE;
    job->dit = order == CUZK_NTT_RN;
    job->bitrev = order == CUZK_NTT_NN;

    table_args *t = &job->tab;
    t->lga = (lg + 1) / 2;
    t->lgb = lg - t->lga;
    t->nbase = coset ? 2 : 1;
    make_ladder(t->ladder[0], inv ? &dom->omega_inv : &dom->omega, lg);
    t->pre[0] = fr_one();
    if (coset) {
        make_ladder(t->ladder[1], inv ? &dom->g_inv : &dom->g, lg);
        t->pre[1] = inv ? fr_of(&dom->n_inv) : fr_one();
    }
    size_t per = ((size_t)1 << t->lga) + ((size_t)1 << t->lgb);
    for (unsigned w = 0; w < t->nbase; w++) {
        job->ta_off[w][0] = (unsigned)(w * per);
        job->ta_off[w][1] = (unsigned)(w * per + ((size_t)1 << t->lga));
    }
    job->scratch_elems = per * t->nbase;
    job->tab_threads = (unsigned)job->scratch_elems;

    unsigned npass = (lg + NTT_LG_MAX_PASS - 1) / NTT_LG_MAX_PASS;
    unsigned lge = lg < NTT_LG_TILE ? lg : NTT_LG_TILE;
    unsigned rbase = lg / npass, extra = lg % npass, top = lg;
    pass_args dif[NTT_MAX_PASSES];
    unsigned grid[NTT_MAX_PASSES], smem[NTT_MAX_PASSES];
    for (unsigned i = 0; i < npass; i++) {
        pass_args *p = &dif[i];
        memset(p, 0, sizeof *p);
        p->lg = lg;
        p->lga = t->lga;
        p->r = rbase + (i >= npass - extra ? 1 : 0);
        p->top = top;
        p->lgg = lge - p->r;
        unsigned lgs = top - p->r, lgblk = lg - top;
        if (lgs > 0) {
            if (lgs < p->lgg)
                return cuzk_fail(err, errlen, CUZK_EINVAL, "gpu ntt: internal plan error at 2^%u, pass %u",
                                 lg, i);
            p->lgcols = lgs - p->lgg;
            p->lgnb = lgblk < NTT_LG_MAX_NB ? lgblk : NTT_LG_MAX_NB;
            while (p->lgnb > 0 && p->lgcols + lgblk - p->lgnb < NTT_LG_MIN_GRID)
                p->lgnb--;
            grid[i] = 1u << (p->lgcols + lgblk - p->lgnb);
        } else {
            grid[i] = 1u << (lg - lge);
        }
        unsigned tw = (1u << p->r) << (lgs > 0 ? p->lgg : 0);
        smem[i] = (2u << lge) * 16 + 2 * tw * 16;
        top -= p->r;
    }
    job->npass = npass;
    for (unsigned i = 0; i < npass; i++) {
        unsigned k = job->dit ? npass - 1 - i : i;
        job->pass[i] = dif[k];
        job->grid[i] = grid[k];
        job->smem[i] = smem[k];
    }
    pass_args *first = &job->pass[0], *last = &job->pass[npass - 1];
    if (coset && !inv)
        first->load_scale = job->dit ? SCALE_POW_REV : SCALE_POW;
    if (inv && !coset) {
        last->store_scale = SCALE_CONST;
        last->scale = fr_of(&dom->n_inv);
    }
    if (inv && coset)
        last->store_scale = job->dit ? SCALE_POW : SCALE_POW_REV;
    if (ex) {
        job->src = (const fr_t *)ex->src;
        job->mul = (const fr_t *)ex->mul;
        job->sub = (const fr_t *)ex->sub;
        job->dst = (fr_t *)ex->dst;
        if (job->bitrev && job->dst) { /* the permutation rides in the last pass's stores */
            job->bitrev = false;
            last->revout = 1;
        }
        if (ex->scale) { /* into the factors the transform applies anyway, else one more at the last store */
            fr_t k = fr_of(ex->scale);
            if (coset)
                t->pre[1] = fr_mul(t->pre[1], k); /* the coset table: loads (forward) or stores (inverse) */
            else if (inv) {
                last->scale = fr_mul(last->scale, k);
                fr_t one = fr_one();
                if (memcmp(&last->scale, &one, sizeof one) == 0) /* n^-1 taken back: no product at all */
                    last->store_scale = SCALE_NONE;
            } else {
                last->store_scale = SCALE_CONST;
                last->scale = k;
            }
        }
    }
    return CUZK_OK;
}

/* Fills in the device pointers: data x, tables in scratch. */
static void ntt_bind(ntt_job *job, fr_t *x, fr_t *scratch)
{
    table_args *t = &job->tab;
    for (unsigned w = 0; w < t->nbase; w++)
        for (unsigned h = 0; h < 2; h++)
            t->out[w][h] = scratch + job->ta_off[w][h];
    for (unsigned i = 0; i < job->npass; i++) {
        pass_args *p = &job->pass[i];
        p->x = x;
        p->out = i + 1 == job->npass && job->dst ? job->dst : x;
        p->src = i == 0 ? job->src : NULL;
        p->mul = i == 0 ? job->mul : NULL;
        p->sub = p->revout ? job->sub : NULL;
        p->wa = t->out[0][0];
        p->wb = t->out[0][1];
        p->ca = t->nbase > 1 ? t->out[1][0] : NULL;
        p->cb = t->nbase > 1 ? t->out[1][1] : NULL;
    }
}

/* ---- host side: entry point ---------------------------------------------- */

static int launch_job(ntt_job *job, fr_t *x, cudaStream_t st, char *err, size_t errlen)
{
    cudaError_t e;
    void (*kernels[3])(pass_args) = {k_pass<false, false>, k_pass<true, false>, k_pass<false, true>};
    for (int k = 0; k < 3; k++) {
        e = cudaFuncSetAttribute(kernels[k], cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 (4u << NTT_LG_TILE) * 16);
        if (e != cudaSuccess)
            return cuda_fail(err, errlen, "cudaFuncSetAttribute(max dynamic shared memory)", e);
    }
    fr_t *scratch = NULL;
    e = cudaMallocAsync((void **)&scratch, job->scratch_elems * sizeof(fr_t), st);
    if (e != cudaSuccess)
        return cuda_fail(err, errlen, "cudaMallocAsync of the twiddle tables", e);
    ntt_bind(job, x, scratch);
    int rc = CUZK_OK;
    k_tables<<<(job->tab_threads + 127) / 128, 128, 0, st>>>(job->tab);
    if ((e = cudaGetLastError()) != cudaSuccess)
        rc = cuda_fail(err, errlen, "launch of the table kernel", e);
    for (unsigned i = 0; rc == CUZK_OK && i < job->npass; i++) {
        unsigned k = job->pass[i].revout ? 2 : job->dit ? 1 : 0;
        kernels[k]<<<job->grid[i], NTT_THREADS, job->smem[i], st>>>(job->pass[i]);
        if ((e = cudaGetLastError()) != cudaSuccess)
            rc = cuda_fail(err, errlen, "launch of a pass kernel", e);
    }
    if (rc == CUZK_OK && job->bitrev) {
        bitrev_args ba = {x, job->sub, job->pass[0].lg};
        if (ba.lg >= 2 * NTT_LG_BR)
            k_bitrev<<<1u << (ba.lg - 2 * NTT_LG_BR), NTT_BR * NTT_BR, 0, st>>>(ba);
        else
            k_bitrev_small<<<1, NTT_BR * NTT_BR, 0, st>>>(ba);
        if ((e = cudaGetLastError()) != cudaSuccess)
            rc = cuda_fail(err, errlen, "launch of the bit-reversal kernel", e);
    }
    e = cudaFreeAsync(scratch, st);
    if (rc == CUZK_OK && e != cudaSuccess)
        rc = cuda_fail(err, errlen, "cudaFreeAsync of the twiddle tables", e);
    return rc;
}

static bool misaligned(const void *v)
{
    return ((uintptr_t)v & 31) != 0;
}

/* Whether the vectors of `bytes` at a and b share a byte. */
static bool overlap(const void *a, const void *b, size_t bytes)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return x < y + bytes && y < x + bytes;
}

extern "C" int cuzk_gpu_ntt_ex(cuzk_fr *d_data, unsigned lg, cuzk_ntt_dir dir, cuzk_ntt_order order,
                               bool coset, const cuzk_ntt_domain *dom, const cuzk_gpu_ntt_extra *ex,
                               void *stream, char *err, size_t errlen)
{
    if (!d_data || !dom)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "gpu ntt: %s is NULL", dom ? "data" : "domain");
    if (lg > CUZK_NTT_MAX_LG)
        return cuzk_fail(err, errlen, CUZK_ERANGE, "gpu ntt: size 2^%u exceeds the maximum 2^%d", lg,
                         CUZK_NTT_MAX_LG);
    if (dom->lg != lg || dom->n != (size_t)1 << lg || !dom->tw)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "gpu ntt: domain (2^%u, %s) does not match size 2^%u",
                         dom->lg, dom->tw ? "initialised" : "not initialised", lg);
    if (dir != CUZK_NTT_FORWARD && dir != CUZK_NTT_INVERSE)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "gpu ntt: unknown direction %d", (int)dir);
    if (order != CUZK_NTT_NN && order != CUZK_NTT_NR && order != CUZK_NTT_RN)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "gpu ntt: unknown order %d", (int)order);
    if (misaligned(d_data))
        return cuzk_fail(err, errlen, CUZK_EINVAL, "gpu ntt: data pointer %p is not 32-byte aligned",
                         (void *)d_data);
    cuzk_gpu_ntt_extra exl;
    if (ex) {
        exl = *ex;
        if (exl.dst == d_data) /* in place */
            exl.dst = NULL;
        ex = &exl;
        const void *v[4] = {ex->src, ex->mul, ex->sub, ex->dst};
        static const char *const name[4] = {"src", "mul", "sub", "dst"};
        for (int i = 0; i < 4; i++)
            if (misaligned(v[i]))
                return cuzk_fail(err, errlen, CUZK_EINVAL, "gpu ntt: %s pointer %p is not 32-byte aligned",
                                 name[i], v[i]);
        if (ex->sub && (order != CUZK_NTT_NN || ex->sub == d_data))
            return cuzk_fail(err, errlen, CUZK_EINVAL, "gpu ntt: sub needs the NN order and its own vector");
        size_t bytes = sizeof(cuzk_fr) << lg;
        if (ex->dst && (overlap(ex->dst, d_data, bytes) || (ex->sub && overlap(ex->dst, ex->sub, bytes))))
            return cuzk_fail(err, errlen, CUZK_EINVAL, "gpu ntt: dst overlaps the %s",
                             overlap(ex->dst, d_data, bytes) ? "data" : "sub vector");
        if (lg == 0 && (ex->src || ex->mul || ex->scale || ex->sub || ex->dst))
            return cuzk_fail(err, errlen, CUZK_EINVAL, "gpu ntt: the extras need 2^1 elements or more");
    }
    if (lg == 0) /* every transform of one element is the identity */
        return CUZK_OK;
    ntt_job job;
    int rc = ntt_prepare(&job, lg, dir, order, coset, dom, ex, err, errlen);
    if (rc != CUZK_OK)
        return rc;
    return launch_job(&job, (fr_t *)d_data, (cudaStream_t)stream, err, errlen);
}

extern "C" int cuzk_gpu_ntt(cuzk_fr *d_data, unsigned lg, cuzk_ntt_dir dir, cuzk_ntt_order order, bool coset,
                            const cuzk_ntt_domain *dom, void *stream, char *err, size_t errlen)
{
    return cuzk_gpu_ntt_ex(d_data, lg, dir, order, coset, dom, NULL, stream, err, errlen);
}
