/*
 * test_zpack.c — the packed witness (cuzk/zpack.h) against the witness itself:
 * fresh random mixtures of zeros, ones, values next to them and random
 * values, at lengths around the word and chunk edges, packed with pools of
 * several sizes. Each packing is checked field by field against what the
 * test computes from z on its own (bitmaps, running counts, the tail in
 * order), and unpacked back to z. The tail's capacity is honoured to the
 * value, and bad buffers are refused with a message.
 */
#include <stdlib.h>
#include <string.h>

#include "cuzk/common.h"
#include "cuzk/zpack.h"
#include "testutil.h"

/* A witness of n values: share_other of 256 random (or next to 0 / 1), the rest 0 or 1. */
static void make_z(cuzk_fr *z, size_t n, unsigned share_other)
{
    cuzk_fr one;
    cuzk_fr_from_u64(&one, 1);
    for (size_t i = 0; i < n; i++) {
        uint64_t r = test_rand64();
        memset(&z[i], 0, sizeof z[i]);
        if ((r & 0xff) < share_other) {
            switch ((r >> 8) % 4) {
            case 0: test_rand_fr(&z[i]); break;
            case 1: z[i] = one, z[i].l[(r >> 16) % 4] ^= 1ull << ((r >> 24) % 64); break; /* next to one */
            case 2: z[i].l[(r >> 16) % 4] = 1ull << ((r >> 24) % 64); break;              /* next to 0 */
            default: z[i].l[0] = 1; break; /* the integer 1 unreduced: not the field's one */
            }
        } else if (r & 0x100) {
            z[i] = one;
        }
    }
    if (n)
        z[0] = one;
}

static bool is_one(const cuzk_fr *a)
{
    cuzk_fr one;
    cuzk_fr_from_u64(&one, 1);
    return !memcmp(a, &one, sizeof one);
}

static bool is_zero(const cuzk_fr *a)
{
    static const cuzk_fr zero;
    return !memcmp(a, &zero, sizeof zero);
}

/* zp against z, field by field, computed here from z alone. */
static void check_pack(const cuzk_zpack *zp, const cuzk_fr *z, size_t n, const char *what)
{
    size_t at = 0, bad_bits = 0, bad_start = 0, bad_tail = 0;
    for (size_t i = 0; i < n; i++) {
        size_t g = i / 32;
        uint32_t bit = 1u << (i % 32);
        if (i % 32 == 0 && zp->start[g] != at)
            bad_start++;
        bool o = !is_one(&z[i]) && !is_zero(&z[i]);
        if (!!(zp->other[g] & bit) != o || !!(zp->ones[g] & bit) != is_one(&z[i]))
            bad_bits++;
        if (o && (at >= zp->n_other || memcmp(&zp->tail[at++], &z[i], sizeof z[i])))
            bad_tail++;
    }
    for (size_t i = n; i % 32; i++) /* the last word's bits past n */
        if ((zp->ones[i / 32] | zp->other[i / 32]) & (1u << (i % 32)))
            bad_bits++;
    CHECK(at == zp->n_other, "%s: %zu tail values, the packing says %zu", what, at, zp->n_other);
    CHECK(!bad_bits && !bad_start && !bad_tail,
          "%s: %zu wrong bits, %zu wrong word starts, %zu wrong tail values", what, bad_bits, bad_start,
          bad_tail);
    CHECK(cuzk_zpack_used(zp) == cuzk_zpack_tail_offset(n) + at * sizeof(cuzk_fr), "%s: bytes used", what);
    cuzk_fr *back = malloc(n * sizeof *back);
    memset(back, 0xa5, n * sizeof *back); /* poisoned: every value must be written */
    cuzk_zpack_unpack(zp, back);
    CHECK(!memcmp(back, z, n * sizeof *z), "%s: unpacked back to z", what);
    free(back);
}

static void *buf_for(size_t n, size_t cap, size_t *bytes)
{
    *bytes = cuzk_zpack_bytes(n, cap);
    return aligned_alloc(64, (*bytes + 63) / 64 * 64);
}

static void check_sizes(cuzk_pool **pools, int npools)
{
    const size_t lens[] = {1, 2, 31, 32, 33, 63, 64, 65, 1000, 65535, 65536, 65537, 3 * 65536 + 17, 300001};
    const unsigned shares[] = {0, 3, 40, 255};
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++)
        for (size_t si = 0; si < sizeof shares / sizeof shares[0]; si++) {
            size_t n = lens[li];
            cuzk_fr *z = malloc(n * sizeof *z);
            make_z(z, n, shares[si]);
            size_t others = 0;
            for (size_t i = 0; i < n; i++)
                others += !is_one(&z[i]) && !is_zero(&z[i]);
            cuzk_pool *pool = pools[(li + si) % npools];
            char what[96], err[256];
            snprintf(what, sizeof what, "n %zu, %zu others, %d threads", n, others, cuzk_pool_size(pool));
            size_t bytes;
            void *buf = buf_for(n, others, &bytes);
            cuzk_zpack zp;
            CHECK(cuzk_zpack_init(&zp, buf, bytes, n, others, err, sizeof err) == CUZK_OK, "%s: init %s",
                  what, err);
            size_t w = (n + 31) / 32; /* the layout the device reads by offset from ones (zpack.h) */
            CHECK((void *)zp.ones == buf && zp.other == zp.ones + w && zp.start == zp.other + w &&
                      (uint8_t *)zp.tail == (uint8_t *)buf + cuzk_zpack_tail_offset(n) &&
                      cuzk_zpack_tail_offset(n) >= 3 * w * sizeof(uint32_t) &&
                      cuzk_zpack_tail_offset(n) % 64 == 0,
                  "%s: layout", what);
            CHECK(cuzk_zpack_make(&zp, z, pool), "%s: packs with a tail of exactly its others", what);
            check_pack(&zp, z, n, what);
            if (others) { /* one value short: refused, and it says how many there were */
                CHECK(cuzk_zpack_init(&zp, buf, bytes, n, others - 1, err, sizeof err) == CUZK_OK, "%s: init",
                      what);
                CHECK(!cuzk_zpack_make(&zp, z, pool) && zp.n_other == others,
                      "%s: a tail one short is refused (counted %zu)", what, zp.n_other);
            }
            free(buf);
            free(z);
        }
}

static void check_refusals(void)
{
    char err[256] = "";
    cuzk_zpack zp;
    size_t bytes;
    void *buf = buf_for(100, 10, &bytes);
    CHECK(cuzk_zpack_init(&zp, buf, bytes, 0, 10, err, sizeof err) == CUZK_EINVAL && strstr(err, "0 values"),
          "no values: %s", err);
    CHECK(cuzk_zpack_init(&zp, buf, bytes, (size_t)1 << 32, 10, err, sizeof err) == CUZK_EINVAL,
          "2^32 values");
    CHECK(cuzk_zpack_init(&zp, buf, bytes - 1, 100, 10, err, sizeof err) == CUZK_EINVAL &&
              strstr(err, "must hold"),
          "a buffer a byte short: %s", err);
    CHECK(cuzk_zpack_init(&zp, (uint8_t *)buf + 8, bytes, 100, 1, err, sizeof err) == CUZK_EINVAL &&
              strstr(err, "misaligned"),
          "a misaligned buffer: %s", err);
    CHECK(cuzk_zpack_init(&zp, NULL, bytes, 100, 10, err, sizeof err) == CUZK_EINVAL, "no buffer");
    CHECK(cuzk_zpack_init(&zp, buf, bytes, 100, SIZE_MAX / 8, err, sizeof err) == CUZK_EINVAL, "a huge tail");
    CHECK(cuzk_zpack_init(&zp, buf, bytes, 100, 10, err, sizeof err) == CUZK_OK, "the right buffer: %s", err);
    CHECK(cuzk_zpack_default_cap(1600) == 164, "the default tail: n / 16 + 64");
    free(buf);
}

int main(void)
{
    test_rng_init("test_zpack");
    cuzk_pool *pools[3] = {NULL, cuzk_pool_new(3), cuzk_pool_new(8)};
    CHECK(pools[1] && pools[2], "pools");
    check_sizes(pools, 3);
    check_refusals();
    cuzk_pool_free(pools[1]);
    cuzk_pool_free(pools[2]);
    return test_finish("test_zpack");
}
