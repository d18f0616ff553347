/*
 * porep_synth.c — the synthetic PoRep-shaped circuit of cuzk/porep_synth.h.
 *
 * Shape of the work. The circuit rows are cut into segments of 16384 to
 * 32767 rows (rows spread evenly). Segment s owns a fixed range of rows and a
 * fixed range of aux variables, both known in closed form from (s, shape), so
 * segments are built independently and in parallel. Each segment draws its
 * wiring from its own random stream (seeded by the shape's seed and s), so
 * the circuit does not depend on which thread builds what. The matrices are
 * written in two passes: a counting pass gives every segment's number of
 * terms, prefix sums give its offsets, and a writing pass fills the arrays in
 * place. The witness pass runs the same code with values on.
 *
 * What a segment holds (the SHA-256 gadget, bellperson's conventions):
 *   - a prologue of 8 words of fresh bits: (ONE - x)·x = 0, values drawn
 *     from a hash of (seed, partition, variable), the circuit's "message";
 *   - its public inputs: (Σ 2^i b_i)·ONE = input over 64 prologue bits;
 *   - then SHA-256-like rounds until the segment is full. A round computes
 *     the next message word w = w16 + σ0(w15) + w7 + σ1(w2) (one word in a
 *     few is replaced by fresh bits, keeping fresh bits at a fixed share of
 *     the rows), e' = h + Σ1 + Ch + w (previous round), Σ1(e'), Ch(e',f,g),
 *     a' = Σ1 + Ch + w + Σ0 + Maj, Σ0(a'), b∧c and Maj(a',b,c). XOR is
 *     (2a)·b = a + b - r, AND a·b = r, Ch (f - g)·e = ch - g, Maj
 *     (2bc - b - c)·a = bc - maj. An addition allocates the bits of the
 *     unreduced sum as booleans and adds "Σ ops = Σ 2^i r_i" to a packed
 *     check (bellperson's MultiEq): one row lhs·ONE = rhs per 245 bits,
 *     w and e' sums in one check and a' sums in another; a check is flushed
 *     early when an operand is already in it, so no row repeats a column;
 *   - one step of a Poseidon-like chain per round: pack 4 bits of w into a
 *     field element, v = m·r + m'·p + k, then x = v (+ k' one step in six),
 *     x^2, x^4, r = x^4·x: the ~1 % of aux values that are full field
 *     elements;
 *   - a tail that flushes the packed checks and makes the counts exact.
 * Long-range wiring: the first 16 message words and the state come from the
 * prologues of this segment, the previous one and segment 0 (as labels read
 * parents and replica_id), and one round in eight borrows such a word again.
 * Everything else reads the last few rounds.
 *
 * Exact counts. Rows that define no variable are the packed checks, the
 * input rows and tail rows; their number per segment, D_s, is fixed by the
 * plan (shape->rows - inputs - aux spread evenly). The rounds stop early
 * enough to leave room for a tail that flushes the pending checks and then
 * either repeats a boolean constraint (a row with no new variable) or emits
 * x·ONE = u - v with two new variables, until the segment has exactly D_s
 * such rows; fresh boolean rows fill what is left.
 *
 * Coefficients: A uses 2^0..2^244, -1, three mixing constants and seven
 * round constants (256 values); B uses 1 and the round constants; C uses
 * 2^0..2^244 and -1. So every matrix has one-byte indices.
 *
 * The tuning knobs (FRESH_*, LONG_EVERY, POS_*) were set by measuring the
 * profile (tests/test_porep_synth.c prints it); see the design note.
 */
#include "cuzk/porep_synth.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define SEG_ROWS 16384u   /* segments hold SEG_ROWS .. 2 SEG_ROWS - 1 rows */
#define MIN_ROWS 1024u    /* smallest circuit */
#define PROLOGUE 8u       /* fresh words at the start of a segment */
#define INPUTS_PER_SEG 4u /* input rows per segment: pairs of prologue words */
#define ACC_BITS 245u     /* packed-check capacity: 7 additions of 35 bits */
#define ACC_TERMS 1200u   /* lhs terms of one packed check: 7 additions of <= 5 words */
#define FRESH_NUM 240u    /* fresh boolean rows per FRESH_DEN rows */
#define FRESH_DEN 10000u
#define LONG_EVERY 8u   /* one round in LONG_EVERY borrows a long-range message word */
#define POS_K_EVERY 6u  /* one Poseidon step in POS_K_EVERY adds a round constant inside the S-box */
#define POS_PACK 4u     /* bits packed per Poseidon step */
#define TAIL_MARGIN 4u  /* rows kept free beyond the tail's need */
#define NONE UINT32_MAX /* a constant-zero bit (shifts) */

/* Coefficient table indices. */
enum {
    CI_POW = 0,    /* 2^i at CI_POW + i, i < 245 (so 1 at 0, 2 at 1) */
    CI_NEG = 245,  /* -1 in A and C */
    CI_M = 246,    /* three mixing constants (A) */
    CI_K = 249,    /* seven round constants (A) */
    NA_COEF = 256, /* table sizes */
    NB_COEF = 8,   /* B: 1, then the round constants at 1 + j */
    NC_COEF = 246,
};
#define NUM_M 3u
#define NUM_K 7u

/* ---- randomness ------------------------------------------------------------------------ */

typedef struct {
    uint64_t s[4];
} rng;

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void rng_seed(rng *g, uint64_t a, uint64_t b)
{
    uint64_t x = mix64(a ^ 0x5851f42d4c957f2dull) ^ mix64(b + 0x9e3779b97f4a7c15ull);
    for (int i = 0; i < 4; i++) {
        x += 0x9e3779b97f4a7c15ull;
        g->s[i] = mix64(x);
    }
}

static uint64_t rotl64(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* xoshiro256** */
static uint64_t rng_next(rng *g)
{
    uint64_t *s = g->s, res = rotl64(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl64(s[3], 45);
    return res;
}

static uint32_t rng_below(rng *g, uint32_t n)
{
    return (uint32_t)(((rng_next(g) >> 32) * n) >> 32);
}

static void rng_fr(rng *g, cuzk_fr *out)
{
    uint64_t x[4];
    do {
        for (int i = 0; i < 4; i++)
            x[i] = rng_next(g);
        x[3] &= ~(3ull << 62);
    } while (!cuzk_fr_from_canonical(out, x));
}

/* ---- the plan: sizes, segment ranges, coefficient tables ---------------------------------- */

typedef struct {
    uint64_t seed, n_inputs, n_c, aux, d, nseg;
    cuzk_fr a_coef[NA_COEF], b_coef[NB_COEF], c_coef[NC_COEF];
    cuzk_fr m[NUM_M], k[NUM_K];
} plan;

static uint64_t seg_row(const plan *p, uint64_t s)
{
    return p->n_c * s / p->nseg;
}

static uint64_t seg_d(const plan *p, uint64_t s)
{
    return p->d * s / p->nseg;
}

/* Global index of segment s's first aux variable. */
static uint64_t seg_var(const plan *p, uint64_t s)
{
    return p->n_inputs + seg_row(p, s) - seg_d(p, s);
}

/* Public input k >= 1 sits in segment (k - 1)·nseg / (inputs - 1); first input of segment s. */
static uint64_t seg_input(const plan *p, uint64_t s)
{
    uint64_t n = p->n_inputs - 1;
    if (n == 0)
        return 1;
    return 1 + (s * n + p->nseg - 1) / p->nseg;
}

int cuzk_porep_shape_scale(cuzk_porep_shape *out, unsigned k, uint64_t seed)
{
    if (!out || k > CUZK_POREP_MAX_SCALE)
        return CUZK_EINVAL;
    uint64_t half = k ? 1ull << (k - 1) : 0;
    uint64_t n_c = CUZK_POREP_ROWS - CUZK_POREP_INPUTS, d = n_c - CUZK_POREP_AUX;
    out->rows = (CUZK_POREP_ROWS + half) >> k;
    out->inputs = (CUZK_POREP_INPUTS + half) >> k;
    if (out->inputs < 2)
        out->inputs = 2;
    out->aux = out->rows - out->inputs - ((d + half) >> k);
    out->seed = seed;
    return CUZK_OK;
}

int cuzk_porep_synth_check(const cuzk_porep_shape *s, char *err, size_t errlen)
{
    if (!s)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "porep_synth: no shape");
    if (s->inputs < 1)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "porep_synth: no inputs (input 0 is ONE)");
    if (s->rows < s->inputs || s->rows - s->inputs < MIN_ROWS)
        return cuzk_fail(err, errlen, CUZK_ERANGE,
                         "porep_synth: %llu rows with %llu inputs leave fewer than %u circuit rows",
                         (unsigned long long)s->rows, (unsigned long long)s->inputs, MIN_ROWS);
    uint64_t n_c = s->rows - s->inputs;
    if (s->aux > n_c || n_c - s->aux > n_c / 16)
        return cuzk_fail(err, errlen, CUZK_ERANGE,
                         "porep_synth: %llu aux for %llu circuit rows: need rows - rows/16 <= aux <= rows",
                         (unsigned long long)s->aux, (unsigned long long)n_c);
    if (s->inputs + s->aux > UINT32_MAX)
        return cuzk_fail(err, errlen, CUZK_ERANGE, "porep_synth: %llu variables do not fit 32-bit indices",
                         (unsigned long long)(s->inputs + s->aux));
    uint64_t nseg = n_c / SEG_ROWS ? n_c / SEG_ROWS : 1;
    if (s->inputs - 1 > INPUTS_PER_SEG * nseg)
        return cuzk_fail(
            err, errlen, CUZK_ERANGE, "porep_synth: %llu public inputs for %llu rows: at most %u per %u rows",
            (unsigned long long)(s->inputs - 1), (unsigned long long)n_c, INPUTS_PER_SEG, SEG_ROWS);
    return CUZK_OK;
}

static void plan_init(plan *p, const cuzk_porep_shape *s)
{
    p->seed = s->seed;
    p->n_inputs = s->inputs;
    p->n_c = s->rows - s->inputs;
    p->aux = s->aux;
    p->d = p->n_c - s->aux;
    p->nseg = p->n_c / SEG_ROWS ? p->n_c / SEG_ROWS : 1;
    rng g;
    rng_seed(&g, s->seed, UINT64_MAX);
    for (unsigned i = 0; i < NUM_M; i++)
        rng_fr(&g, &p->m[i]);
    for (unsigned i = 0; i < NUM_K; i++)
        rng_fr(&g, &p->k[i]);
    cuzk_fr two, pw = CUZK_FR_ONE;
    cuzk_fr_from_u64(&two, 2);
    for (unsigned i = 0; i < CI_NEG; i++) {
        p->a_coef[CI_POW + i] = pw;
        p->c_coef[CI_POW + i] = pw;
        cuzk_fr_mul(&pw, &pw, &two);
    }
    cuzk_fr_neg(&p->a_coef[CI_NEG], &CUZK_FR_ONE);
    p->c_coef[CI_NEG] = p->a_coef[CI_NEG];
    for (unsigned i = 0; i < NUM_M; i++)
        p->a_coef[CI_M + i] = p->m[i];
    p->b_coef[0] = CUZK_FR_ONE;
    for (unsigned i = 0; i < NUM_K; i++) {
        p->a_coef[CI_K + i] = p->k[i];
        p->b_coef[1 + i] = p->k[i];
    }
}

/* ---- one segment --------------------------------------------------------------------------- */

typedef struct {
    uint32_t v[32]; /* variable of bit i (LSB first), NONE for a constant 0 */
} word;

/* A packed check being filled: lhs·ONE = rhs. */
typedef struct {
    uint32_t used; /* bits */
    uint32_t nl, nr;
    uint32_t lv[ACC_TERMS];
    uint8_t lp[ACC_TERMS];
    uint32_t rv[ACC_BITS];
    uint8_t rp[ACC_BITS];
    uint32_t id;     /* current row's stamp */
    uint32_t *stamp; /* per local variable, then 256 foreign ones */
} acc;

enum { M_COUNT = 1, M_WRITE = 2, M_VALUES = 4 };

/* Per-worker scratch, sized for the largest segment. */
typedef struct {
    uint8_t *bit;
    uint32_t *stamp[2];
    acc acc[2];
} scratch;

typedef struct {
    const plan *p;
    uint64_t seg;
    unsigned mode;
    rng g;
    uint64_t limit, rows; /* rows allowed and emitted in this segment */
    int64_t want_d, d;    /* rows without a new variable: wanted, emitted */
    uint64_t row0;        /* first global row */
    uint64_t var0, nvar;  /* first aux variable (global index), allocated so far */
    uint64_t nnz[3], nnz0[3];
    cuzk_cs *cs;
    uint32_t *col[3]; /* write mode: the segment's first term of each matrix */
    uint8_t *idx[3];
    uint64_t *rowp[3]; /* write mode: row offsets after the segment's first row */
    bool full;
    uint64_t fresh; /* fresh boolean rows so far */
    /* values */
    uint32_t partition;
    uint8_t *bit; /* local variable values (bits) */
    cuzk_fr *z;
    /* long-range words: segment 0's prologue, the previous segment's */
    uint32_t g0, q0;
    acc *acc[2];
    /* Poseidon-like chain */
    bool pos_started;
    uint32_t pos_r;
    cuzk_fr pos_rv;
} seg_ctx;

static inline bool vals(const seg_ctx *s)
{
    return s->mode & M_VALUES;
}

static inline unsigned free_bit(const plan *p, uint32_t partition, uint32_t v)
{
    uint64_t x = mix64(p->seed ^ mix64(((uint64_t)partition << 32 | 0x5bd1e995u) + (v >> 6)));
    return (unsigned)(x >> (v & 63)) & 1;
}

static inline unsigned bitval(const seg_ctx *s, uint32_t v)
{
    if (v >= s->var0 && v - s->var0 < s->nvar)
        return s->bit[v - s->var0];
    return free_bit(s->p, s->partition, v); /* a prologue bit of another segment */
}

static inline void term(seg_ctx *s, int m, uint32_t col, unsigned ci)
{
    if (s->mode & M_WRITE) {
        s->col[m][s->nnz[m]] = col;
        s->idx[m][s->nnz[m]] = (uint8_t)ci;
    }
    s->nnz[m]++;
}

static inline void row_end(seg_ctx *s)
{
    if (s->mode & M_WRITE)
        for (int m = 0; m < 3; m++)
            s->rowp[m][s->rows] = s->nnz0[m] + s->nnz[m];
    s->rows++;
}

static uint32_t alloc_bit(seg_ctx *s, unsigned value)
{
    uint32_t v = (uint32_t)(s->var0 + s->nvar);
    if (vals(s)) {
        s->bit[s->nvar] = (uint8_t)value;
        s->z[v] = value ? CUZK_FR_ONE : CUZK_FR_ZERO;
    }
    s->nvar++;
    return v;
}

static uint32_t alloc_fr(seg_ctx *s, const cuzk_fr *value)
{
    uint32_t v = (uint32_t)(s->var0 + s->nvar);
    if (vals(s)) {
        s->bit[s->nvar] = 2; /* not a bit; never read as one */
        s->z[v] = *value;
    }
    s->nvar++;
    return v;
}

/* Rows the tail needs now: flush the pending checks, then fix the count of rows without variables. */
static uint64_t tail_need(const seg_ctx *s)
{
    int64_t k = (s->acc[0]->nl > 0) + (s->acc[1]->nl > 0);
    int64_t left = s->want_d - s->d - k;
    return (uint64_t)(k + (left < 0 ? -left : left));
}

/* May one more ordinary row be emitted? Sets full once the answer is no. */
static bool room(seg_ctx *s)
{
    if (!s->full && s->rows + 1 + tail_need(s) + TAIL_MARGIN > s->limit)
        s->full = true;
    return !s->full;
}

/* ---- gadgets (each emits one row) ---- */

/* (ONE - x)·x = 0 for a new bit x. */
static uint32_t g_bit(seg_ctx *s, unsigned value)
{
    uint32_t x = alloc_bit(s, value);
    term(s, 0, 0, CI_POW);
    term(s, 0, x, CI_NEG);
    term(s, 1, x, 0);
    row_end(s);
    return x;
}

static uint32_t g_fresh(seg_ctx *s)
{
    s->fresh++;
    uint32_t v = (uint32_t)(s->var0 + s->nvar);
    return g_bit(s, vals(s) ? free_bit(s->p, s->partition, v) : 0);
}

/* (2a)·b = a + b - r */
static uint32_t g_xor(seg_ctx *s, uint32_t a, uint32_t b)
{
    uint32_t r = alloc_bit(s, vals(s) ? bitval(s, a) ^ bitval(s, b) : 0);
    term(s, 0, a, CI_POW + 1);
    term(s, 1, b, 0);
    term(s, 2, a, CI_POW);
    term(s, 2, b, CI_POW);
    term(s, 2, r, CI_NEG);
    row_end(s);
    return r;
}

/* a·b = r */
static uint32_t g_and(seg_ctx *s, uint32_t a, uint32_t b)
{
    uint32_t r = alloc_bit(s, vals(s) ? bitval(s, a) & bitval(s, b) : 0);
    term(s, 0, a, CI_POW);
    term(s, 1, b, 0);
    term(s, 2, r, CI_POW);
    row_end(s);
    return r;
}

/* (f - g)·e = ch - g */
static uint32_t g_ch(seg_ctx *s, uint32_t e, uint32_t f, uint32_t g)
{
    uint32_t r = alloc_bit(s, vals(s) ? (bitval(s, e) ? bitval(s, f) : bitval(s, g)) : 0);
    term(s, 0, f, CI_POW);
    term(s, 0, g, CI_NEG);
    term(s, 1, e, 0);
    term(s, 2, r, CI_POW);
    term(s, 2, g, CI_NEG);
    row_end(s);
    return r;
}

/* (2bc - b - c)·a = bc - maj */
static uint32_t g_maj(seg_ctx *s, uint32_t a, uint32_t b, uint32_t c, uint32_t bc)
{
    unsigned m = 0;
    if (vals(s)) {
        unsigned x = bitval(s, a), y = bitval(s, b), w = bitval(s, c);
        m = (x & y) | (x & w) | (y & w);
    }
    uint32_t r = alloc_bit(s, m);
    term(s, 0, bc, CI_POW + 1);
    term(s, 0, b, CI_NEG);
    term(s, 0, c, CI_NEG);
    term(s, 1, a, 0);
    term(s, 2, bc, CI_POW);
    term(s, 2, r, CI_NEG);
    row_end(s);
    return r;
}

/* ---- words ---- */

static void w_rotr(word *out, const word *x, unsigned n)
{
    for (unsigned i = 0; i < 32; i++)
        out->v[i] = x->v[(i + n) % 32];
}

/* The word of 32 consecutive variables starting at v (a prologue word). */
static void w_at(word *out, uint32_t v)
{
    for (unsigned i = 0; i < 32; i++)
        out->v[i] = v + i;
}

static uint64_t w_value(const seg_ctx *s, const word *x)
{
    uint64_t r = 0;
    for (unsigned i = 0; i < 32; i++)
        if (x->v[i] != NONE && bitval(s, x->v[i]))
            r |= 1ull << i;
    return r;
}

static bool w_fresh(seg_ctx *s, word *out)
{
    for (unsigned i = 0; i < 32; i++) {
        if (!room(s))
            return false;
        out->v[i] = g_fresh(s);
    }
    return true;
}

/* rotr p ⊕ rotr q ⊕ (rotr or shr) r: two XOR rows per bit, one where the shift brings in a zero. */
static bool w_sigma(seg_ctx *s, word *out, const word *x, unsigned p, unsigned q, unsigned r, bool shr)
{
    for (unsigned i = 0; i < 32; i++) {
        uint32_t third = shr ? (i + r < 32 ? x->v[i + r] : NONE) : x->v[(i + r) % 32];
        if (!room(s))
            return false;
        uint32_t t = g_xor(s, x->v[(i + p) % 32], x->v[(i + q) % 32]);
        if (third == NONE) {
            out->v[i] = t;
            continue;
        }
        if (!room(s))
            return false;
        out->v[i] = g_xor(s, t, third);
    }
    return true;
}

/* ---- packed checks (MultiEq) ---- */

static uint32_t *stamp_of(const seg_ctx *s, acc *a, uint32_t v)
{
    if (v >= s->var0 && v - s->var0 < s->nvar)
        return &a->stamp[v - s->var0];
    /* Foreign variables are prologue words 0..3 of segment 0 or 4..7 of the previous segment. */
    uint64_t base = s->limit;
    if (v >= s->g0 && v - s->g0 < 128)
        return &a->stamp[base + (v - s->g0)];
    return &a->stamp[base + 128 + (v - s->q0) % 128];
}

static void acc_flush(seg_ctx *s, acc *a)
{
    if (a->nl == 0)
        return;
    for (uint32_t i = 0; i < a->nl; i++)
        term(s, 0, a->lv[i], CI_POW + a->lp[i]);
    term(s, 1, 0, 0);
    for (uint32_t i = 0; i < a->nr; i++)
        term(s, 2, a->rv[i], CI_POW + a->rp[i]);
    row_end(s);
    s->d++;
    a->used = a->nl = a->nr = 0;
    a->id++;
}

/* r = Σ ops as the bits of the unreduced sum (boolean rows), checked through the packed check `which`.
 * Returns false (out incomplete, nothing added to the check) when the segment fills up. */
static bool w_add(seg_ctx *s, int which, word *out, const word *const *ops, unsigned nops)
{
    unsigned nbits = 32;
    while ((uint64_t)nops * 0xffffffffull >> nbits)
        nbits++;
    uint64_t sum = 0;
    if (vals(s))
        for (unsigned j = 0; j < nops; j++)
            sum += w_value(s, ops[j]);
    uint32_t res[36];
    for (unsigned i = 0; i < nbits; i++) {
        if (!room(s))
            return false;
        res[i] = g_bit(s, (unsigned)(sum >> i) & 1);
    }
    for (unsigned i = 0; i < 32; i++)
        out->v[i] = res[i];
    acc *a = s->acc[which];
    /* Flush first when full, or when an operand is already in the row (its terms would merge). */
    bool clash = a->used + nbits > ACC_BITS;
    for (unsigned j = 0; j < nops && !clash; j++)
        for (unsigned i = 0; i < 32 && !clash; i++)
            clash = ops[j]->v[i] != NONE && *stamp_of(s, a, ops[j]->v[i]) == a->id;
    if (clash) {
        if (!room(s))
            return false;
        acc_flush(s, a);
    }
    for (unsigned j = 0; j < nops; j++)
        for (unsigned i = 0; i < 32; i++) {
            uint32_t v = ops[j]->v[i];
            if (v == NONE)
                continue;
            *stamp_of(s, a, v) = a->id;
            a->lv[a->nl] = v;
            a->lp[a->nl++] = (uint8_t)(a->used + i);
        }
    for (unsigned i = 0; i < nbits; i++) {
        a->rv[a->nr] = res[i];
        a->rp[a->nr++] = (uint8_t)(a->used + i);
    }
    a->used += nbits;
    return true;
}

/* ---- Poseidon-like chain: p = pack(8 bits of w); v = m·r + m'·p + k; v^2, v^4, r = v^5 ---- */

static void pos_step(seg_ctx *s, const word *w)
{
    unsigned off = rng_below(&s->g, 32 - POS_PACK + 1);
    unsigned mr = rng_below(&s->g, NUM_M), mp = rng_below(&s->g, NUM_M), kv = rng_below(&s->g, NUM_K);
    bool inner = rng_below(&s->g, POS_K_EVERY) == 0;
    unsigned ki = rng_below(&s->g, NUM_K);
    const plan *p = s->p;
    cuzk_fr pv = CUZK_FR_ZERO, vv = CUZK_FR_ZERO, x = CUZK_FR_ZERO, s2 = CUZK_FR_ZERO, s4 = CUZK_FR_ZERO,
            t = CUZK_FR_ZERO;
    /* p = Σ 2^i w[off + i] */
    if (!room(s))
        return;
    if (vals(s)) {
        uint64_t b = 0;
        for (unsigned i = 0; i < POS_PACK; i++)
            b |= (uint64_t)bitval(s, w->v[off + i]) << i;
        cuzk_fr_from_u64(&pv, b);
    }
    uint32_t pk = alloc_fr(s, &pv);
    for (unsigned i = 0; i < POS_PACK; i++)
        term(s, 0, w->v[off + i], CI_POW + i);
    term(s, 1, 0, 0);
    term(s, 2, pk, CI_POW);
    row_end(s);
    /* v = m·r + m'·p + k */
    if (!room(s))
        return;
    if (vals(s)) {
        cuzk_fr_mul(&vv, &p->m[mp], &pv);
        cuzk_fr_add(&vv, &vv, &p->k[kv]);
        if (s->pos_started) {
            cuzk_fr_mul(&t, &p->m[mr], &s->pos_rv);
            cuzk_fr_add(&vv, &vv, &t);
        }
    }
    uint32_t v = alloc_fr(s, &vv);
    if (s->pos_started)
        term(s, 0, s->pos_r, CI_M + mr);
    term(s, 0, pk, CI_M + mp);
    term(s, 0, 0, CI_K + kv);
    term(s, 1, 0, 0);
    term(s, 2, v, CI_POW);
    row_end(s);
    /* x = v (+ k inside the S-box); s2 = x·x */
    if (!room(s))
        return;
    if (vals(s)) {
        x = vv;
        if (inner)
            cuzk_fr_add(&x, &x, &p->k[ki]);
        cuzk_fr_sqr(&s2, &x);
    }
    uint32_t v2 = alloc_fr(s, &s2);
    term(s, 0, v, CI_POW);
    if (inner)
        term(s, 0, 0, CI_K + ki);
    term(s, 1, v, 0);
    if (inner)
        term(s, 1, 0, 1 + ki);
    term(s, 2, v2, CI_POW);
    row_end(s);
    /* s4 = s2·s2 */
    if (!room(s))
        return;
    if (vals(s))
        cuzk_fr_sqr(&s4, &s2);
    uint32_t v4 = alloc_fr(s, &s4);
    term(s, 0, v2, CI_POW);
    term(s, 1, v2, 0);
    term(s, 2, v4, CI_POW);
    row_end(s);
    /* r = s4·x */
    if (!room(s))
        return;
    if (vals(s))
        cuzk_fr_mul(&t, &x, &s4);
    uint32_t r = alloc_fr(s, &t);
    term(s, 0, v4, CI_POW);
    term(s, 1, v, 0);
    if (inner)
        term(s, 1, 0, 1 + ki);
    term(s, 2, r, CI_POW);
    row_end(s);
    s->pos_started = true;
    s->pos_r = r;
    if (vals(s))
        s->pos_rv = t;
}

/* ---- the segment ---- */

typedef struct {
    word st[8]; /* a b c d e f g h */
    word w[16]; /* message window: w[i % 16] holds w_{i-16} at round i */
    word el[4]; /* e' operands for the next round: h, Σ1, Ch, w */
    word al[5]; /* a' operands: Σ1, Ch, w, Σ0, Maj */
} sha;

/* A long-range word: one of segment 0's first four prologue words or the previous segment's last four. */
static void long_word(seg_ctx *s, word *out)
{
    word x;
    uint32_t j = rng_below(&s->g, 8);
    w_at(&x, j < 4 ? s->g0 + 32 * j : s->q0 + 32 * (j - 4));
    w_rotr(out, &x, rng_below(&s->g, 32));
}

static bool sha_round(seg_ctx *s, sha *h, uint64_t i)
{
    word *b = &h->st[1], *c = &h->st[2], *f = &h->st[5], *g = &h->st[6];
    word fresh, lw, s0, s1, wn, e1, a1, S1, S0, ch, mj, bc;
    bool lng = i >= 16 && rng_below(&s->g, LONG_EVERY) == 0;
    if (lng)
        long_word(s, &lw);
    const word *w16 = &h->w[i % 16];
    if ((uint64_t)s->fresh * FRESH_DEN < (uint64_t)FRESH_NUM * s->rows) {
        if (!w_fresh(s, &fresh))
            return false;
        w16 = &fresh;
    }
    if (!w_sigma(s, &s0, &h->w[(i + 1) % 16], 7, 18, 3, true) ||
        !w_sigma(s, &s1, &h->w[(i + 14) % 16], 17, 19, 10, true))
        return false;
    const word *wops[4] = {w16, &s0, lng ? &lw : &h->w[(i + 9) % 16], &s1};
    if (!w_add(s, 0, &wn, wops, 4))
        return false;
    const word *eops[4] = {&h->el[0], &h->el[1], &h->el[2], &h->el[3]};
    if (!w_add(s, 0, &e1, eops, 4) || !w_sigma(s, &S1, &e1, 6, 11, 25, false))
        return false;
    for (unsigned k = 0; k < 32; k++) {
        if (!room(s))
            return false;
        ch.v[k] = g_ch(s, e1.v[k], f->v[k], g->v[k]);
    }

    const word *aops[5] = {&h->al[0], &h->al[1], &h->al[2], &h->al[3], &h->al[4]};
    if (!w_add(s, 1, &a1, aops, 5) || !w_sigma(s, &S0, &a1, 2, 13, 22, false))
        return false;
    for (unsigned k = 0; k < 32; k++) {
        if (!room(s))
            return false;
        bc.v[k] = g_and(s, b->v[k], c->v[k]);
        if (!room(s))
            return false;
        mj.v[k] = g_maj(s, a1.v[k], b->v[k], c->v[k], bc.v[k]);
    }
    pos_step(s, &wn);
    if (s->full)
        return false;
    /* h = g, g = f, f = e'; d = c, c = b, b = a' (e' and a' are this round's e and a). */
    word hold = h->st[7];
    h->st[7] = *g;
    h->st[6] = *f;
    h->st[5] = e1;
    h->st[4] = e1;
    h->st[3] = *c;
    h->st[2] = *b;
    h->st[1] = a1;
    h->st[0] = a1;
    h->w[i % 16] = wn;
    h->el[0] = hold;
    h->el[1] = S1;
    h->el[2] = ch;
    h->el[3] = wn;
    h->al[0] = S1;
    h->al[1] = ch;
    h->al[2] = wn;
    h->al[3] = S0;
    h->al[4] = mj;
    return true;
}

/* Rows that complete the segment: pending checks, then repeated booleans (no new variable) or
 * x·ONE = u - v (two new variables) until the count of rows without a variable is exact, then fresh
 * booleans. */
static void tail(seg_ctx *s)
{
    acc_flush(s, s->acc[0]);
    acc_flush(s, s->acc[1]);
    uint32_t x = (uint32_t)s->var0; /* the first prologue bit */
    while (s->d < s->want_d) {
        term(s, 0, 0, CI_POW);
        term(s, 0, x, CI_NEG);
        term(s, 1, x, 0);
        row_end(s);
        s->d++;
    }
    while (s->d > s->want_d) {
        unsigned vb = 0, xb = 0;
        if (vals(s)) {
            vb = free_bit(s->p, s->partition, (uint32_t)(s->var0 + s->nvar + 1));
            xb = bitval(s, x);
        }
        cuzk_fr uv;
        cuzk_fr_from_u64(&uv, xb + vb);
        uint32_t u = alloc_fr(s, &uv);
        uint32_t v = alloc_bit(s, vb);
        term(s, 0, x, CI_POW);
        term(s, 1, 0, 0);
        term(s, 2, u, CI_POW);
        term(s, 2, v, CI_NEG);
        row_end(s);
        s->d--;
    }
    while (s->rows < s->limit)
        g_fresh(s);
}

/* Builds (count, write or evaluate) segment s->seg; fields p, seg, mode, cs/z, partition set. */
static void seg_run(seg_ctx *s, scratch *sc)
{
    const plan *p = s->p;
    uint64_t sg = s->seg;
    rng_seed(&s->g, p->seed, sg);
    s->row0 = seg_row(p, sg);
    s->limit = seg_row(p, sg + 1) - s->row0;
    s->want_d = (int64_t)(seg_d(p, sg + 1) - seg_d(p, sg));
    s->var0 = seg_var(p, sg);
    s->rows = s->nvar = s->fresh = 0;
    s->d = 0;
    s->full = false;
    s->pos_started = false;
    s->bit = sc->bit;
    s->g0 = (uint32_t)seg_var(p, 0);
    s->q0 = (uint32_t)(sg ? seg_var(p, sg - 1) + 32 * 4 : s->var0 + 32 * 4);
    for (int j = 0; j < 2; j++) {
        acc *a = &sc->acc[j];
        a->used = a->nl = a->nr = 0;
        a->id = 1;
        a->stamp = sc->stamp[j];
        memset(a->stamp, 0, (s->limit + 256) * sizeof *a->stamp);
        s->acc[j] = a;
    }
    memset(s->nnz, 0, sizeof s->nnz);
    if (s->mode & M_WRITE) {
        cuzk_csr *mx[3] = {&s->cs->a, &s->cs->b, &s->cs->c};
        for (int m = 0; m < 3; m++) {
            s->col[m] = mx[m]->col + s->nnz0[m];
            s->idx[m] = mx[m]->idx8 + s->nnz0[m];
            s->rowp[m] = mx[m]->row + s->row0 + 1;
        }
    }

    /* Prologue: 8 fresh words. */
    for (unsigned k = 0; k < 32 * PROLOGUE; k++)
        g_fresh(s);
    /* Public inputs: pack 64 prologue bits. */
    uint64_t in_lo = seg_input(p, sg), in_hi = seg_input(p, sg + 1);
    for (uint64_t in = in_lo; in < in_hi; in++) {
        uint32_t base = (uint32_t)(s->var0 + 64 * ((in - in_lo) % INPUTS_PER_SEG));
        uint64_t val = 0;
        for (unsigned i = 0; i < 64; i++) {
            term(s, 0, base + i, CI_POW + i);
            if (vals(s))
                val |= (uint64_t)s->bit[base + i - s->var0] << i;
        }
        term(s, 1, 0, 0);
        term(s, 2, (uint32_t)in, CI_POW);
        row_end(s);
        s->d++;
        if (vals(s))
            cuzk_fr_from_u64(&s->z[in], val);
    }

    /* State and message window from this segment's prologue and the long-range words. */
    sha h;
    word src[8], x;
    for (unsigned j = 0; j < 8; j++)
        w_at(&h.st[j], (uint32_t)(s->var0 + 32 * j));
    for (unsigned j = 0; j < 4; j++) {
        w_at(&src[j], s->g0 + 32 * j);
        w_at(&src[4 + j], s->q0 + 32 * j);
    }
    /* Window slot j is read at round j (as w16) and, from slot 9 on, at round j - 9 (as w7). Each source
     * word takes one slot, and a word also read by an early e' addition (F0..F3 at round 0, the old h
     * F7, F6, F5 at rounds 1..3) sits at least four rounds away, so no packed check holds one word
     * twice (its terms would merge). Segment 0 has no foreign words; its own stand in, and the checks
     * flush early where they meet. Sources: 0..7 own prologue, 8..11 segment 0's, 12..15 previous. */
    static const uint8_t slot_src[16] = {8, 9, 10, 11, 0, 1, 7, 6, 5, 12, 13, 14, 15, 2, 3, 4};
    for (unsigned j = 0; j < 16; j++) {
        unsigned q = slot_src[j];
        w_rotr(&h.w[j], q < 8 ? &h.st[q] : &src[q - 8], j);
    }
    for (unsigned j = 0; j < 4; j++)
        w_rotr(&h.el[j], &h.st[j], 3 + 4 * j);
    for (unsigned j = 0; j < 5; j++) {
        w_at(&x, (uint32_t)(s->var0 + 32 * ((4 + j) % 8)));
        w_rotr(&h.al[j], &x, 3 + 4 * j);
    }
    for (uint64_t i = 0; room(s) && sha_round(s, &h, i); i++)
        ;
    tail(s);
}

/* ---- drivers ------------------------------------------------------------------------------- */

typedef struct {
    const plan *p;
    unsigned mode;
    cuzk_cs *cs;
    cuzk_fr *z;
    uint32_t partition;
    uint64_t (*nnz)[3]; /* per segment: counted, then offsets */
    scratch *sc;        /* one per worker */
    atomic_bool bad;    /* a segment did not come out at its planned size */
} drive_ctx;

static void drive_task(void *arg, size_t task, int worker)
{
    drive_ctx *d = arg;
    seg_ctx s = {.p = d->p, .seg = task, .mode = d->mode, .cs = d->cs, .z = d->z, .partition = d->partition};
    if (d->mode & M_WRITE)
        memcpy(s.nnz0, d->nnz[task], sizeof s.nnz0);
    seg_run(&s, &d->sc[worker]);
    uint64_t want_vars = s.limit - (uint64_t)s.want_d;
    if (s.rows != s.limit || s.nvar != want_vars || s.d != s.want_d)
        atomic_store(&d->bad, true);
    if (d->mode & M_COUNT)
        memcpy(d->nnz[task], s.nnz, sizeof s.nnz);
}

static void scratch_free(scratch *sc, int n)
{
    if (!sc)
        return;
    for (int i = 0; i < n; i++) {
        free(sc[i].bit);
        free(sc[i].stamp[0]);
        free(sc[i].stamp[1]);
    }
    free(sc);
}

static scratch *scratch_new(const plan *p, int n)
{
    uint64_t most = p->n_c / p->nseg + 1;
    scratch *sc = calloc((size_t)n, sizeof *sc);
    if (!sc)
        return NULL;
    for (int i = 0; i < n; i++) {
        sc[i].bit = malloc(most);
        sc[i].stamp[0] = malloc((most + 256) * sizeof(uint32_t));
        sc[i].stamp[1] = malloc((most + 256) * sizeof(uint32_t));
        if (!sc[i].bit || !sc[i].stamp[0] || !sc[i].stamp[1]) {
            scratch_free(sc, n);
            return NULL;
        }
    }
    return sc;
}

int cuzk_porep_synth_cs(cuzk_cs *cs, const cuzk_porep_shape *shape, cuzk_pool *pool, char *err, size_t errlen)
{
    if (!cs)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "porep_synth: no output");
    memset(cs, 0, sizeof *cs);
    int rc = cuzk_porep_synth_check(shape, err, errlen);
    if (rc)
        return rc;
    plan *p = malloc(sizeof *p);
    int nw = cuzk_pool_size(pool);
    drive_ctx d = {.p = p, .cs = cs};
    if (!p)
        return cuzk_fail(err, errlen, CUZK_ENOMEM, "porep_synth: out of memory");
    plan_init(p, shape);
    d.nnz = malloc(p->nseg * sizeof *d.nnz);
    d.sc = scratch_new(p, nw);
    rc = CUZK_ENOMEM;
    if (!d.nnz || !d.sc)
        goto out;
    d.mode = M_COUNT;
    atomic_init(&d.bad, false);
    cuzk_pool_run(pool, p->nseg, drive_task, &d);
    if (atomic_load(&d.bad)) {
        rc = CUZK_EINVAL;
        goto out;
    }
    uint64_t tot[3] = {0, 0, 0};
    for (uint64_t sg = 0; sg < p->nseg; sg++)
        for (int m = 0; m < 3; m++) {
            uint64_t n = d.nnz[sg][m];
            d.nnz[sg][m] = tot[m];
            tot[m] += n;
        }
    cs->n_inputs = p->n_inputs;
    cs->n_aux = p->aux;
    cs->n_constraints = p->n_c;
    cuzk_csr *mx[3] = {&cs->a, &cs->b, &cs->c};
    const cuzk_fr *tab[3] = {p->a_coef, p->b_coef, p->c_coef};
    const uint32_t ntab[3] = {NA_COEF, NB_COEF, NC_COEF};
    for (int m = 0; m < 3; m++) {
        mx[m]->nnz = tot[m];
        mx[m]->row = malloc((p->n_c + 1) * sizeof *mx[m]->row);
        mx[m]->col = malloc((tot[m] ? tot[m] : 1) * sizeof *mx[m]->col);
        mx[m]->idx8 = malloc(tot[m] ? tot[m] : 1);
        mx[m]->coef = malloc(ntab[m] * sizeof *mx[m]->coef);
        mx[m]->n_coef = ntab[m];
        if (!mx[m]->row || !mx[m]->col || !mx[m]->idx8 || !mx[m]->coef)
            goto out;
        memcpy(mx[m]->coef, tab[m], ntab[m] * sizeof *mx[m]->coef);
        mx[m]->row[0] = 0;
    }
    d.mode = M_WRITE;
    cuzk_pool_run(pool, p->nseg, drive_task, &d);
    rc = atomic_load(&d.bad) ? CUZK_EINVAL : CUZK_OK;
out:
    if (rc == CUZK_ENOMEM)
        cuzk_fail(err, errlen, rc, "porep_synth: out of memory for a %llu-row circuit",
                  (unsigned long long)shape->rows);
    else if (rc)
        cuzk_fail(err, errlen, rc, "porep_synth: a segment did not come out at its planned size");
    if (rc)
        cuzk_cs_free(cs);
    scratch_free(d.sc, nw);
    free(d.nnz);
    free(p);
    return rc;
}

int cuzk_porep_synth_witness(cuzk_fr *z, const cuzk_porep_shape *shape, uint32_t partition, cuzk_pool *pool,
                             char *err, size_t errlen)
{
    if (!z)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "porep_synth: no witness buffer");
    int rc = cuzk_porep_synth_check(shape, err, errlen);
    if (rc)
        return rc;
    plan *p = malloc(sizeof *p);
    int nw = cuzk_pool_size(pool);
    if (!p)
        return cuzk_fail(err, errlen, CUZK_ENOMEM, "porep_synth: out of memory");
    plan_init(p, shape);
    drive_ctx d = {.p = p, .mode = M_VALUES, .z = z, .partition = partition, .sc = scratch_new(p, nw)};
    if (!d.sc) {
        free(p);
        return cuzk_fail(err, errlen, CUZK_ENOMEM, "porep_synth: out of memory");
    }
    z[0] = CUZK_FR_ONE;
    atomic_init(&d.bad, false);
    cuzk_pool_run(pool, p->nseg, drive_task, &d);
    rc = atomic_load(&d.bad) ? cuzk_fail(err, errlen, CUZK_EINVAL,
                                         "porep_synth: a segment did not come out at its planned size")
                             : CUZK_OK;
    scratch_free(d.sc, nw);
    free(p);
    return rc;
}

/* ---- profile ------------------------------------------------------------------------------- */

int cuzk_porep_profile_measure(cuzk_porep_profile *out, const cuzk_cs *cs, const cuzk_fr *z)
{
    memset(out, 0, sizeof *out);
    size_t pop[3];
    int rc = cuzk_cs_density_pops(cs, pop, NULL);
    if (rc != CUZK_OK)
        return rc;
    out->rows = cs->n_constraints + cs->n_inputs;
    out->inputs = cs->n_inputs;
    out->aux = cs->n_aux;
    out->nnz_a = cs->a.nnz + cs->n_inputs;
    out->nnz_b = cs->b.nnz;
    out->nnz_c = cs->c.nnz;
    out->a_aux_dense = pop[0];
    out->b_input_dense = pop[1];
    out->b_aux_dense = pop[2];
    if (z)
        for (size_t j = 0; j < cs->n_aux; j++) {
            const cuzk_fr *v = &z[cs->n_inputs + j];
            out->aux_bits += cuzk_fr_is_zero(v) || cuzk_fr_is_one(v);
        }
    double rows = out->rows ? (double)out->rows : 1, aux = out->aux ? (double)out->aux : 1;
    out->a_per_row = (double)out->nnz_a / rows;
    out->b_per_row = (double)out->nnz_b / rows;
    out->c_per_row = (double)out->nnz_c / rows;
    out->a_aux_density = (double)out->a_aux_dense / aux;
    out->b_aux_density = (double)out->b_aux_dense / aux;
    out->bits_fraction = (double)out->aux_bits / aux;
    return CUZK_OK;
}

void cuzk_porep_profile_target(cuzk_porep_profile *out)
{
    memset(out, 0, sizeof *out);
    out->rows = CUZK_POREP_ROWS;
    out->inputs = CUZK_POREP_INPUTS;
    out->aux = CUZK_POREP_AUX;
    out->nnz_a = 309405051ull;
    out->nnz_b = 130327340ull;
    out->nnz_c = 282656500ull;
    out->a_aux_dense = 129753292ull;
    out->b_input_dense = 1;
    out->b_aux_dense = 33112281ull;
    out->aux_bits = (uint64_t)(0.99 * (double)CUZK_POREP_AUX);
    out->a_per_row = (double)out->nnz_a / (double)out->rows;
    out->b_per_row = (double)out->nnz_b / (double)out->rows;
    out->c_per_row = (double)out->nnz_c / (double)out->rows;
    out->a_aux_density = (double)out->a_aux_dense / (double)out->aux;
    out->b_aux_density = (double)out->b_aux_dense / (double)out->aux;
    out->bits_fraction = 0.99;
}
