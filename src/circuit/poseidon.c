/*
 * poseidon.c — neptune's Poseidon constants (Strength::Standard) derived from
 * first principles, and the native hash.
 *
 * Round numbers. neptune searches full rounds rf = 2, 4, ..., 1000 and partial
 * rounds rp = 4 .. 199 for the pairs that satisfy the Poseidon paper's
 * inequalities (statistical, interpolation, two Gröbner bounds, for n = 256
 * and M = 128, all in float32), adds its margin (rf + 2, ceil(1.075·rp)) and
 * keeps the pair with the fewest S-boxes width·rf + rp (the smaller rf on a
 * tie). Every bound falls as rp grows, so for one rf only the first secure rp
 * can win; the search stops there. The float32 evaluation matters only in
 * principle (the bounds are far from integers), but it is what neptune does.
 *
 * Round constants. The Grain LFSR of the Poseidon reference scripts: an
 * 80-bit state initialised with field type (2 bits, 1 = prime), S-box code
 * (4 bits, 1 as neptune passes it), field size (12 bits, 255), width (12),
 * rf (10), rp (10) and thirty 1 bits; the update is
 * b[i+80] = b[i+62] ^ b[i+51] ^ b[i+38] ^ b[i+23] ^ b[i+13] ^ b[i]; the first
 * 160 bits are discarded; output bits come from self-shrinking (take bits in
 * pairs, emit the second when the first is 1). Each constant is 255 such bits
 * read big-endian, rejected (and the next 255 tried) when >= r.
 *
 * MDS. The Cauchy matrix M[i][j] = 1/(x_i + y_j) with x = 0 .. t-1 and
 * y = t .. 2t-1, so M[i][j] = 1/(i + j + t): symmetric. Its inverse comes
 * from Gauss-Jordan elimination.
 *
 * Optimized representation (what neptune's hash and circuit walk). The round
 * keys of every round after the first are pushed back through the preceding
 * MDS multiplication (M^-1·k), so that keys are added right after the S-box
 * of the previous round; in the partial rounds only element 0 goes through
 * the S-box, so all but element 0 of each partial round's key can be carried
 * backwards through the linear layers, leaving one scalar per partial round
 * (the "compressed" constants: rf·t + rp values in use order). The dense MDS
 * of the partial rounds is factored as M = M'·M'' where M'' is sparse (first
 * row, first column and identity) and M' is absorbed into the previous
 * round's matrix; doing this rp times from the end leaves one dense
 * "pre-sparse" matrix used after the last full round of the first half, and
 * rp sparse factors, each stored as its first column (w_hat, starting with
 * M''[0][0]) and the rest of its first row (v_rest).
 *
 * Storage: one allocation per set of constants; the MerkleTree sets (one per
 * arity) live in a table of atomic pointers filled under a mutex and kept to
 * the end of the process.
 */
#include "cuzk/poseidon.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct cuzk_poseidon_consts {
    cuzk_poseidon_tables tab;
    cuzk_fr *mem; /* every table, one block */
    bool shared;  /* a cached MerkleTree set: cuzk_poseidon_free leaves it alone */
};

/* ---- round numbers ------------------------------------------------------------------ */

static bool rounds_secure(unsigned width, unsigned rf, unsigned rp)
{
    const float n = 256.0f, m = 128.0f, t = (float)width, p = (float)rp;
    float bounds[4];
    bounds[0] = m <= (n - 3.0f) * (t + 1.0f) ? 6.0f : 10.0f; /* statistical */
    bounds[1] = 0.43f * m + log2f(t) - p;                    /* interpolation */
    bounds[2] = 0.21f * n - p;                               /* Gröbner basis 1 */
    bounds[3] = (0.14f * n - 1.0f - p) / (t - 1.0f);         /* Gröbner basis 2 */
    float need = 0.0f;
    for (int i = 0; i < 4; i++) {
        float c = ceilf(bounds[i]);
        if (c > need)
            need = c;
    }
    return (float)rf >= need;
}

int cuzk_poseidon_round_numbers(unsigned width, unsigned *rf, unsigned *rp)
{
    if (width < 2 || width > 4095 || !rf || !rp)
        return CUZK_EINVAL;
    unsigned best_f = 0, best_p = 0;
    unsigned long best_cost = ~0ul;
    for (unsigned f = 2; f <= 1000; f += 2) {
        for (unsigned p = 4; p < 200; p++) {
            if (!rounds_secure(width, f, p))
                continue;
            unsigned f2 = f + 2, p2 = (unsigned)ceilf(1.075f * (float)p);
            unsigned long cost = (unsigned long)width * f2 + p2;
            if (cost < best_cost) {
                best_cost = cost;
                best_f = f2;
                best_p = p2;
            }
            break; /* a larger p for this f costs more */
        }
    }
    *rf = best_f;
    *rp = best_p;
    return CUZK_OK;
}

/* ---- Grain LFSR ----------------------------------------------------------------------- */

typedef struct {
    uint8_t b[80]; /* circular: b[pos] is the oldest bit */
    unsigned pos;
} grain;

static unsigned grain_raw(grain *g)
{
    unsigned p = g->pos;
#define G(k) g->b[(p + (k)) % 80]
    unsigned nb = G(62) ^ G(51) ^ G(38) ^ G(23) ^ G(13) ^ G(0);
#undef G
    g->b[p] = (uint8_t)nb;
    g->pos = (p + 1) % 80;
    return nb;
}

static unsigned grain_bit(grain *g)
{
    for (;;) {
        unsigned first = grain_raw(g), second = grain_raw(g);
        if (first)
            return second;
    }
}

static void grain_put(grain *g, unsigned *k, unsigned nbits, unsigned v)
{
    for (unsigned i = nbits; i-- > 0;)
        g->b[(*k)++] = (uint8_t)((v >> i) & 1);
}

int cuzk_poseidon_grain(cuzk_fr *out, size_t n, unsigned width, unsigned rf, unsigned rp)
{
    if (width >= 4096 || rf >= 1024 || rp >= 1024 || (n && !out))
        return CUZK_EINVAL;
    grain g;
    unsigned k = 0;
    grain_put(&g, &k, 2, 1);    /* prime field */
    grain_put(&g, &k, 4, 1);    /* S-box code */
    grain_put(&g, &k, 12, 255); /* field size in bits */
    grain_put(&g, &k, 12, width);
    grain_put(&g, &k, 10, rf);
    grain_put(&g, &k, 10, rp);
    grain_put(&g, &k, 30, (1u << 30) - 1);
    g.pos = 0;
    for (int i = 0; i < 160; i++)
        grain_raw(&g);
    for (size_t done = 0; done < n;) {
        uint64_t x[4] = {0, 0, 0, 0};
        for (int bit = 254; bit >= 0; bit--)
            x[bit / 64] |= (uint64_t)grain_bit(&g) << (bit % 64);
        if (cuzk_fr_from_canonical(&out[done], x))
            done++;
    }
    return CUZK_OK;
}

/* ---- small dense matrices over Fr (t×t, row-major) ----------------------------------- */

/* out = a·b; out must not alias a or b. */
static void mat_mul(cuzk_fr *out, const cuzk_fr *a, const cuzk_fr *b, unsigned t)
{
    for (unsigned i = 0; i < t; i++)
        for (unsigned j = 0; j < t; j++) {
            cuzk_fr acc = CUZK_FR_ZERO, p;
            for (unsigned k = 0; k < t; k++) {
                cuzk_fr_mul(&p, &a[i * t + k], &b[k * t + j]);
                cuzk_fr_add(&acc, &acc, &p);
            }
            out[i * t + j] = acc;
        }
}

/* out = a^-1 by Gauss-Jordan; work holds 2·t·t values. False when a is singular. */
static bool mat_inv(cuzk_fr *out, const cuzk_fr *a, unsigned t, cuzk_fr *work)
{
    const unsigned w = 2 * t;
    for (unsigned i = 0; i < t; i++)
        for (unsigned j = 0; j < t; j++) {
            work[i * w + j] = a[i * t + j];
            work[i * w + t + j] = i == j ? CUZK_FR_ONE : CUZK_FR_ZERO;
        }
    for (unsigned c = 0; c < t; c++) {
        unsigned p = c;
        while (p < t && cuzk_fr_is_zero(&work[p * w + c]))
            p++;
        if (p == t)
            return false;
        if (p != c)
            for (unsigned j = 0; j < w; j++) {
                cuzk_fr tmp = work[c * w + j];
                work[c * w + j] = work[p * w + j];
                work[p * w + j] = tmp;
            }
        cuzk_fr iv;
        cuzk_fr_inv(&iv, &work[c * w + c]);
        for (unsigned j = 0; j < w; j++)
            cuzk_fr_mul(&work[c * w + j], &work[c * w + j], &iv);
        for (unsigned r = 0; r < t; r++) {
            if (r == c || cuzk_fr_is_zero(&work[r * w + c]))
                continue;
            cuzk_fr f = work[r * w + c], p2;
            for (unsigned j = 0; j < w; j++) {
                cuzk_fr_mul(&p2, &f, &work[c * w + j]);
                cuzk_fr_sub(&work[r * w + j], &work[r * w + j], &p2);
            }
        }
    }
    for (unsigned i = 0; i < t; i++)
        for (unsigned j = 0; j < t; j++)
            out[i * t + j] = work[i * w + t + j];
    return true;
}

/* out[j] = Σ_i v[i]·m[i][j] (row vector times matrix); out must not alias v. */
static void vec_mat(cuzk_fr *out, const cuzk_fr *v, const cuzk_fr *m, unsigned t)
{
    for (unsigned j = 0; j < t; j++) {
        cuzk_fr acc = CUZK_FR_ZERO, p;
        for (unsigned i = 0; i < t; i++) {
            cuzk_fr_mul(&p, &v[i], &m[i * t + j]);
            cuzk_fr_add(&acc, &acc, &p);
        }
        out[j] = acc;
    }
}

/* ---- building a set of constants ------------------------------------------------------ */

/* The compressed round constants (see the note at the top). */
static void build_compressed(cuzk_poseidon_tables *tb, cuzk_fr *crc, cuzk_fr *scratch)
{
    const unsigned t = tb->width, hf = tb->rf / 2, rp = tb->rp;
    const cuzk_fr *rc = tb->rc, *minv = tb->mds_inv;
    cuzk_fr *acc = scratch, *tmp = scratch + t;
    size_t o = 0;
    memcpy(crc, rc, t * sizeof *crc); /* round 0's keys, added before the first S-box */
    o += t;
    for (unsigned r = 1; r < hf; r++, o += t)
        vec_mat(&crc[o], &rc[(size_t)r * t], minv, t);
    /* walk the partial rounds backwards from the first round of the second half */
    const unsigned last = hf + rp;
    memcpy(acc, &rc[(size_t)last * t], t * sizeof *acc);
    cuzk_fr *scalars = &crc[o + t]; /* rp slots after the round-(hf-1) keys */
    for (unsigned i = 0; i < rp; i++) {
        vec_mat(tmp, acc, minv, t);
        scalars[rp - 1 - i] = tmp[0];
        tmp[0] = CUZK_FR_ZERO;
        const cuzk_fr *prev = &rc[(size_t)(last - i - 1) * t];
        for (unsigned j = 0; j < t; j++)
            cuzk_fr_add(&acc[j], &prev[j], &tmp[j]);
    }
    vec_mat(&crc[o], acc, minv, t);
    o += t + rp;
    for (unsigned r = last + 1; r < tb->rf + rp; r++, o += t)
        vec_mat(&crc[o], &rc[(size_t)r * t], minv, t);
}

/* The pre-sparse matrix and the sparse factors; scratch holds 6·t·t values. */
static bool build_sparse(cuzk_poseidon_tables *tb, cuzk_fr *pre, cuzk_fr *w_hat, cuzk_fr *v_rest,
                         cuzk_fr *scratch)
{
    const unsigned t = tb->width, s = t - 1, rp = tb->rp;
    cuzk_fr *cur = scratch, *prime = cur + t * t, *hat = prime + t * t, *hat_inv = hat + s * s;
    cuzk_fr *work = hat_inv + s * s; /* 2·s·s */
    memcpy(cur, tb->mds, (size_t)t * t * sizeof *cur);
    for (unsigned k = 0; k < rp; k++) {
        for (unsigned i = 0; i < s; i++)
            for (unsigned j = 0; j < s; j++)
                hat[i * s + j] = cur[(i + 1) * t + j + 1];
        if (!mat_inv(hat_inv, hat, s, work))
            return false;
        unsigned slot = rp - 1 - k; /* factored from the end, used from the start */
        cuzk_fr *wh = &w_hat[(size_t)slot * t], *vr = &v_rest[(size_t)slot * s];
        wh[0] = cur[0];
        for (unsigned i = 0; i < s; i++) {
            vr[i] = cur[i + 1];
            cuzk_fr acc = CUZK_FR_ZERO, p;
            for (unsigned j = 0; j < s; j++) { /* w·M̂^-1 with w the rest of column 0 */
                cuzk_fr_mul(&p, &cur[(j + 1) * t], &hat_inv[j * s + i]);
                cuzk_fr_add(&acc, &acc, &p);
            }
            wh[i + 1] = acc;
        }
        for (unsigned i = 0; i < t; i++)
            for (unsigned j = 0; j < t; j++)
                prime[i * t + j] =
                    (i == 0 || j == 0) ? (i == j ? CUZK_FR_ONE : CUZK_FR_ZERO) : cur[i * t + j];
        mat_mul(cur, tb->mds, prime, t);
    }
    memcpy(pre, cur, (size_t)t * t * sizeof *pre);
    return true;
}

static cuzk_poseidon_consts *build(unsigned arity, const cuzk_fr *tag)
{
    if (arity < CUZK_POSEIDON_MIN_ARITY || arity > CUZK_POSEIDON_MAX_ARITY)
        return NULL;
    const unsigned t = arity + 1;
    unsigned rf, rp;
    if (cuzk_poseidon_round_numbers(t, &rf, &rp) != CUZK_OK)
        return NULL;
    const size_t n_rc = (size_t)(rf + rp) * t, tt = (size_t)t * t, n_crc = (size_t)rf * t + rp;
    const size_t total = n_rc + 3 * tt + n_crc + (size_t)rp * t + (size_t)rp * (t - 1);
    cuzk_poseidon_consts *c = calloc(1, sizeof *c);
    cuzk_fr *mem = malloc(total * sizeof *mem);
    cuzk_fr *scratch = malloc(6 * tt * sizeof *scratch);
    if (!c || !mem || !scratch)
        goto fail;
    c->mem = mem;
    cuzk_poseidon_tables *tb = &c->tab;
    tb->arity = arity;
    tb->width = t;
    tb->rf = rf;
    tb->rp = rp;
    tb->tag = *tag;
    cuzk_fr *rc = mem, *mds = rc + n_rc, *minv = mds + tt, *crc = minv + tt, *pre = crc + n_crc;
    cuzk_fr *w_hat = pre + tt, *v_rest = w_hat + (size_t)rp * t;
    tb->rc = rc;
    tb->mds = mds;
    tb->mds_inv = minv;
    tb->crc = crc;
    tb->pre_sparse = pre;
    tb->w_hat = w_hat;
    tb->v_rest = v_rest;
    if (cuzk_poseidon_grain(rc, n_rc, t, rf, rp) != CUZK_OK)
        goto fail;
    for (unsigned i = 0; i < t; i++)
        for (unsigned j = 0; j < t; j++)
            cuzk_fr_from_u64(&mds[i * t + j], i + j + t);
    cuzk_fr_batch_inv(mds, mds, tt, scratch);
    if (!mat_inv(minv, mds, t, scratch))
        goto fail;
    build_compressed(tb, crc, scratch);
    if (!build_sparse(tb, pre, w_hat, v_rest, scratch))
        goto fail;
    free(scratch);
    return c;
fail:
    free(scratch);
    free(mem);
    free(c);
    return NULL;
}

/* ---- the public constants ------------------------------------------------------------- */

static _Atomic(cuzk_poseidon_consts *) merkle[CUZK_POSEIDON_MAX_ARITY + 1];
static pthread_mutex_t merkle_lock = PTHREAD_MUTEX_INITIALIZER;

const cuzk_poseidon_consts *cuzk_poseidon_get(unsigned arity)
{
    if (arity < CUZK_POSEIDON_MIN_ARITY || arity > CUZK_POSEIDON_MAX_ARITY)
        return NULL;
    cuzk_poseidon_consts *c = atomic_load_explicit(&merkle[arity], memory_order_acquire);
    if (c)
        return c;
    pthread_mutex_lock(&merkle_lock);
    c = atomic_load_explicit(&merkle[arity], memory_order_relaxed);
    if (!c) {
        cuzk_fr tag;
        cuzk_fr_from_u64(&tag, (1ull << arity) - 1);
        c = build(arity, &tag);
        if (c) {
            c->shared = true;
            atomic_store_explicit(&merkle[arity], c, memory_order_release);
        }
    }
    pthread_mutex_unlock(&merkle_lock);
    return c;
}

const cuzk_poseidon_consts *cuzk_poseidon_get_tag(unsigned arity, const cuzk_fr *tag)
{
    if (!tag)
        return NULL;
    return build(arity, tag);
}

void cuzk_poseidon_free(const cuzk_poseidon_consts *c)
{
    if (!c || c->shared)
        return;
    cuzk_poseidon_consts *m = (cuzk_poseidon_consts *)c;
    free(m->mem);
    free(m);
}

const cuzk_poseidon_tables *cuzk_poseidon_tables_of(const cuzk_poseidon_consts *c)
{
    return c ? &c->tab : NULL;
}

/* ---- native hash ---------------------------------------------------------------------- */

static void quintic(cuzk_fr *x)
{
    cuzk_fr x2, x4;
    cuzk_fr_sqr(&x2, x);
    cuzk_fr_sqr(&x4, &x2);
    cuzk_fr_mul(x, x, &x4);
}

void cuzk_poseidon_hash_textbook(const cuzk_poseidon_consts *c, const cuzk_fr *in, cuzk_fr *out)
{
    const cuzk_poseidon_tables *tb = &c->tab;
    const unsigned t = tb->width, hf = tb->rf / 2;
    cuzk_fr st[CUZK_POSEIDON_MAX_ARITY + 1], nx[CUZK_POSEIDON_MAX_ARITY + 1];
    st[0] = tb->tag;
    memcpy(&st[1], in, tb->arity * sizeof *st);
    for (unsigned r = 0; r < tb->rf + tb->rp; r++) {
        const cuzk_fr *k = &tb->rc[(size_t)r * t];
        bool full = r < hf || r >= hf + tb->rp;
        for (unsigned i = 0; i < t; i++)
            cuzk_fr_add(&st[i], &st[i], &k[i]);
        for (unsigned i = 0; i < (full ? t : 1); i++)
            quintic(&st[i]);
        vec_mat(nx, st, tb->mds, t);
        memcpy(st, nx, t * sizeof *st);
    }
    *out = st[1];
}

void cuzk_poseidon_hash(const cuzk_poseidon_consts *c, const cuzk_fr *in, cuzk_fr *out)
{
    const cuzk_poseidon_tables *tb = &c->tab;
    const unsigned t = tb->width, hf = tb->rf / 2, s = t - 1;
    cuzk_fr st[CUZK_POSEIDON_MAX_ARITY + 1], nx[CUZK_POSEIDON_MAX_ARITY + 1];
    const cuzk_fr *k = tb->crc;
    st[0] = tb->tag;
    memcpy(&st[1], in, tb->arity * sizeof *st);
    for (unsigned i = 0; i < t; i++)
        cuzk_fr_add(&st[i], &st[i], &k[i]);
    k += t;
    for (unsigned r = 0; r < hf; r++) { /* first half: S-box, next round's keys, mix */
        for (unsigned i = 0; i < t; i++) {
            quintic(&st[i]);
            cuzk_fr_add(&st[i], &st[i], &k[i]);
        }
        k += t;
        vec_mat(nx, st, r == hf - 1 ? tb->pre_sparse : tb->mds, t);
        memcpy(st, nx, t * sizeof *st);
    }
    for (unsigned r = 0; r < tb->rp; r++) { /* partial: one S-box, one scalar, sparse mix */
        quintic(&st[0]);
        cuzk_fr_add(&st[0], &st[0], k++);
        const cuzk_fr *wh = &tb->w_hat[(size_t)r * t], *vr = &tb->v_rest[(size_t)r * s];
        cuzk_fr acc = CUZK_FR_ZERO, p;
        for (unsigned i = 0; i < t; i++) {
            cuzk_fr_mul(&p, &st[i], &wh[i]);
            cuzk_fr_add(&acc, &acc, &p);
        }
        for (unsigned j = 1; j < t; j++) {
            cuzk_fr_mul(&p, &st[0], &vr[j - 1]);
            cuzk_fr_add(&st[j], &st[j], &p);
        }
        st[0] = acc;
    }
    for (unsigned r = 0; r < hf; r++) { /* second half: keys for all but the last round */
        bool last = r == hf - 1;
        for (unsigned i = 0; i < t; i++) {
            quintic(&st[i]);
            if (!last)
                cuzk_fr_add(&st[i], &st[i], &k[i]);
        }
        if (!last)
            k += t;
        vec_mat(nx, st, tb->mds, t);
        memcpy(st, nx, t * sizeof *st);
    }
    *out = st[1];
}
