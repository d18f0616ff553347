/*
 * zpack.c — packing a witness for its upload (cuzk/zpack.h).
 *
 * Two passes over chunks of 2048 words (65,536 values), both parallel on the
 * pool. The first reads every value once: it writes the two bitmaps and, in
 * start[], each word's own count of tail values, and sums its chunk. A
 * prefix over the chunk sums (one per 65,536 values) gives every chunk its
 * first tail index; the second pass turns start[] into the running prefix
 * and copies the tail values, reading z again only where other's bits are
 * set. So z is read once in full (it is the 4 GB side of the work) and the
 * tail is written in order without locks.
 */
#include "cuzk/zpack.h"

#include <stdlib.h>
#include <string.h>

#include "cuzk/common.h"

#define ZPACK_ALIGN 64
#define CHUNK_WORDS 2048

static size_t words_of(size_t n)
{
    return (n + 31) / 32;
}

size_t cuzk_zpack_default_cap(size_t n)
{
    return n / 16 + 64;
}

size_t cuzk_zpack_tail_offset(size_t n)
{
    size_t head = 3 * words_of(n) * sizeof(uint32_t);
    return (head + ZPACK_ALIGN - 1) / ZPACK_ALIGN * ZPACK_ALIGN;
}

size_t cuzk_zpack_bytes(size_t n, size_t cap)
{
    return cuzk_zpack_tail_offset(n) + cap * sizeof(cuzk_fr);
}

size_t cuzk_zpack_used(const cuzk_zpack *zp)
{
    return cuzk_zpack_tail_offset(zp->n) + zp->n_other * sizeof(cuzk_fr);
}

int cuzk_zpack_init(cuzk_zpack *zp, void *buf, size_t bytes, size_t n, size_t cap, char *err, size_t errlen)
{
    memset(zp, 0, sizeof *zp);
    if (!n || n >= ((size_t)1 << 32))
        return cuzk_fail(err, errlen, CUZK_EINVAL, "zpack: %zu values (1 to 2^32 - 1 can be packed)", n);
    if (cap > (SIZE_MAX - cuzk_zpack_tail_offset(n)) / sizeof(cuzk_fr))
        return cuzk_fail(err, errlen, CUZK_EINVAL, "zpack: a tail of %zu values is too large", cap);
    size_t need = cuzk_zpack_bytes(n, cap);
    if (!buf || bytes < need || ((uintptr_t)buf % ZPACK_ALIGN))
        return cuzk_fail(err, errlen, CUZK_EINVAL,
                         "zpack: the buffer (%zu bytes%s) must hold %zu bytes, 64-byte aligned", bytes,
                         buf && ((uintptr_t)buf % ZPACK_ALIGN) ? ", misaligned" : "", need);
    size_t w = words_of(n);
    uint8_t *p = buf;
    zp->n = n, zp->cap = cap;
    zp->ones = (uint32_t *)p;
    zp->other = zp->ones + w;
    zp->start = zp->other + w;
    zp->tail = (cuzk_fr *)(p + cuzk_zpack_tail_offset(n));
    cuzk_fr_from_u64(&zp->one, 1);
    return CUZK_OK;
}

typedef struct {
    cuzk_zpack *zp;
    const cuzk_fr *z;
    size_t *sums; /* per chunk: pass 1 its count, then its first tail index */
} pack_ctx;

static bool fr_zero(const cuzk_fr *a)
{
    return !(a->l[0] | a->l[1] | a->l[2] | a->l[3]);
}

static bool fr_same(const cuzk_fr *a, const cuzk_fr *b)
{
    return !((a->l[0] ^ b->l[0]) | (a->l[1] ^ b->l[1]) | (a->l[2] ^ b->l[2]) | (a->l[3] ^ b->l[3]));
}

/* Words [g0, g1): bitmaps, start[] = each word's own count; returns the words' total. */
static size_t classify(cuzk_zpack *zp, const cuzk_fr *z, size_t g0, size_t g1)
{
    size_t total = 0;
    for (size_t g = g0; g < g1; g++) {
        size_t i0 = g * 32, i1 = i0 + 32 < zp->n ? i0 + 32 : zp->n;
        uint32_t ones = 0, other = 0;
        for (size_t i = i0; i < i1; i++) {
            uint32_t bit = 1u << (i - i0);
            if (fr_same(&z[i], &zp->one))
                ones |= bit;
            else if (!fr_zero(&z[i]))
                other |= bit;
        }
        zp->ones[g] = ones, zp->other[g] = other;
        zp->start[g] = (uint32_t)__builtin_popcount(other);
        total += zp->start[g];
    }
    return total;
}

/* Words [g0, g1), their first tail index `at`: start[] as the running prefix, the tail values copied. */
static void place(cuzk_zpack *zp, const cuzk_fr *z, size_t g0, size_t g1, size_t at)
{
    for (size_t g = g0; g < g1; g++) {
        zp->start[g] = (uint32_t)at;
        for (uint32_t o = zp->other[g]; o; o &= o - 1)
            zp->tail[at++] = z[g * 32 + (size_t)__builtin_ctz(o)];
    }
}

static void chunk_bounds(const cuzk_zpack *zp, size_t t, size_t *g0, size_t *g1)
{
    size_t w = words_of(zp->n);
    *g0 = t * CHUNK_WORDS;
    *g1 = *g0 + CHUNK_WORDS < w ? *g0 + CHUNK_WORDS : w;
}

static void pass1(void *arg, size_t t, int worker)
{
    pack_ctx *c = arg;
    size_t g0, g1;
    chunk_bounds(c->zp, t, &g0, &g1);
    c->sums[t] = classify(c->zp, c->z, g0, g1);
}

static void pass2(void *arg, size_t t, int worker)
{
    pack_ctx *c = arg;
    size_t g0, g1;
    chunk_bounds(c->zp, t, &g0, &g1);
    place(c->zp, c->z, g0, g1, c->sums[t]);
}

bool cuzk_zpack_make(cuzk_zpack *zp, const cuzk_fr *z, cuzk_pool *pool)
{
    size_t w = words_of(zp->n), chunks = (w + CHUNK_WORDS - 1) / CHUNK_WORDS;
    size_t *sums = cuzk_pool_size(pool) > 1 ? malloc(chunks * sizeof *sums) : NULL;
    if (!sums) { /* one thread (or no memory for the chunk sums): the whole range as one chunk */
        zp->n_other = classify(zp, z, 0, w);
        if (zp->n_other > zp->cap)
            return false;
        place(zp, z, 0, w, 0);
        return true;
    }
    pack_ctx c = {zp, z, sums};
    cuzk_pool_run(pool, chunks, pass1, &c);
    size_t at = 0;
    for (size_t t = 0; t < chunks; t++) {
        size_t own = sums[t];
        sums[t] = at;
        at += own;
    }
    zp->n_other = at;
    if (at <= zp->cap)
        cuzk_pool_run(pool, chunks, pass2, &c);
    free(sums);
    return at <= zp->cap;
}

void cuzk_zpack_unpack(const cuzk_zpack *zp, cuzk_fr *z)
{
    for (size_t i = 0; i < zp->n; i++) {
        size_t g = i / 32;
        uint32_t bit = 1u << (i % 32);
        if (zp->other[g] & bit)
            z[i] = zp->tail[zp->start[g] + (size_t)__builtin_popcount(zp->other[g] & (bit - 1))];
        else if (zp->ones[g] & bit)
            z[i] = zp->one;
        else
            memset(&z[i], 0, sizeof z[i]);
    }
}
