/*
 * test_key_fit.c — the GPU backend's plan for a proving key on a device (src/gpu/key_fit.h): which of
 * its vectors stay resident and which are streamed, or no room, from the device's free bytes and what
 * must sit beside the key.
 *
 * Oracles: the sizes of a full PoRep partition as the engine measured them on the H200 (key 44.11 GiB in
 * five vectors, circuit 5.79 GiB, prover 32.17 GiB plus the 4.17 GB witness, staging 2 × 4 GiB; peak
 * 125,507 MiB with two workers), placed on an H200 and on an 80 GB card; exact boundaries (one byte
 * either way); the key_vram cap; and random inputs against the same rule computed independently (every
 * subset enumerated by recursion, in 128-bit arithmetic without saturation), including sizes near 2^64
 * where 64-bit sums would wrap.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gpu/key_fit.h"
#include "testutil.h"

#define GIB 1073741824.0
typedef unsigned __int128 u128;

static uint64_t gib(double g)
{
    return (uint64_t)(g * GIB);
}

/* ---- the oracle: every subset, 128-bit sums ---- */
typedef struct {
    const key_fit_in *in;
    int found;
    unsigned best;
    u128 best_r, best_need;
} search;

static u128 need128(const key_fit_in *in, unsigned mask, u128 r)
{
    u128 w = in->workers ? in->workers : 1, largest = 0;
    for (int i = 0; i < KEY_FIT_VECTORS; i++)
        if (!(mask & (1u << i)) && in->vec[i] > largest)
            largest = in->vec[i];
    u128 stage = largest < in->stage_cap ? largest : in->stage_cap;
    if (stage < in->stage_min)
        stage = in->stage_min;
    u128 per = (u128)in->prover + (mask == KEY_FIT_ALL ? 0 : 2 * stage);
    return (u128)in->circuit + in->reserve + r + w * per;
}

static int fits128(const key_fit_in *in, unsigned mask, u128 r, u128 *need)
{
    *need = need128(in, mask, r);
    return *need < (u128)UINT64_MAX && *need <= in->free && r <= in->resident_cap;
}

static void visit(search *s, int i, unsigned mask, u128 r)
{
    if (i == KEY_FIT_VECTORS) {
        u128 need;
        if (mask == KEY_FIT_ALL || !fits128(s->in, mask, r, &need))
            return;
        if (!s->found || r > s->best_r || (r == s->best_r && need < s->best_need) ||
            (r == s->best_r && need == s->best_need && mask < s->best)) {
            s->found = 1, s->best = mask, s->best_r = r, s->best_need = need;
        }
        return;
    }
    visit(s, i + 1, mask, r);
    visit(s, i + 1, mask | 1u << i, r + s->in->vec[i]);
}

static key_fit oracle(const key_fit_in *in, unsigned *mask)
{
    u128 all = 0, need;
    for (int i = 0; i < KEY_FIT_VECTORS; i++)
        all += in->vec[i];
    if (fits128(in, KEY_FIT_ALL, all, &need)) {
        *mask = KEY_FIT_ALL;
        return KEY_FIT_RESIDENT;
    }
    search s = {in, 0, 0, 0, 0};
    visit(&s, 0, 0, 0);
    *mask = s.found ? s.best : 0;
    return s.found ? KEY_FIT_STREAMED : KEY_FIT_NONE;
}

/* ---- the PoRep partition ---- */
static key_fit_in porep(double free_gib, unsigned workers)
{
    key_fit_in in = {0};
    in.free = gib(free_gib);
    uint64_t n_h = ((uint64_t)1 << 27) - 1, n_l = 130169893, n_a = 129778383, n_b = 33063153;
    in.vec[0] = n_h * 96, in.vec[1] = n_l * 96, in.vec[2] = n_a * 96, in.vec[3] = n_b * 96;
    in.vec[4] = n_b * 192;
    in.circuit = gib(5.79);
    in.prover = gib(32.17) + (uint64_t)130278869 * 32;
    in.stage_cap = (uint64_t)4 << 30;
    in.stage_min = 192;
    in.reserve = (uint64_t)512 << 20;
    in.workers = workers;
    in.resident_cap = UINT64_MAX;
    return in;
}

/* porep()'s key with the witness vectors as group tables of k: ceil(n / k) groups of 2^k − 1 entries
 * each (cuzk/msm.h's layout, counted here from the lengths in vec), in every row k = 2..4. */
static void porep_tables(key_fit_in *in)
{
    for (unsigned k = 2; k <= KEY_FIT_TABLE_MAX_K; k++)
        for (int i = 0; i < KEY_FIT_VECTORS; i++) {
            uint64_t point = i == 4 ? 192 : 96, n = in->vec[i] / point;
            in->table[k][i] = i == 0 ? in->vec[0] : (n + k - 1) / k * ((1u << k) - 1) * point;
        }
    in->table_headroom = (uint64_t)8 << 30;
}

/* The tables' oracle: from k_max down, the first k offered whose whole-key need (128-bit sums of the
 * table row, the reserve and the headroom) fits the free bytes and whose bytes fit the cap. */
static unsigned tables_oracle(const key_fit_in *in, unsigned k_max)
{
    for (unsigned k = k_max > KEY_FIT_TABLE_MAX_K ? KEY_FIT_TABLE_MAX_K : k_max; k >= 2; k--) {
        key_fit_in t = *in;
        u128 r = 0, need;
        int offered = 0;
        for (int i = 0; i < KEY_FIT_VECTORS; i++) {
            t.vec[i] = in->table[k][i];
            r += in->table[k][i];
            offered |= in->table[k][i] != 0;
        }
        need = need128(&t, KEY_FIT_ALL, r) + in->table_headroom;
        if (offered && need < (u128)UINT64_MAX && need <= in->free && r <= in->resident_cap)
            return k;
    }
    return 0;
}

static const char *name(key_fit f)
{
    return f == KEY_FIT_RESIDENT ? "resident" : f == KEY_FIT_STREAMED ? "streamed" : "none";
}

static void expect(const key_fit_in *in, key_fit want, unsigned want_mask, const char *what)
{
    unsigned got_mask = 99, o_mask = 99;
    key_fit got = key_fit_plan(in, &got_mask), o = oracle(in, &o_mask);
    CHECK(got == want && got_mask == want_mask, "%s: %s with 0x%x, expected %s with 0x%x", what, name(got),
          got_mask, name(want), want_mask);
    CHECK(o == want && o_mask == want_mask, "%s: the oracle says %s with 0x%x", what, name(o), o_mask);
}

/* The most workers up to in->workers (at least 1) with which the oracle finds a plan; 0 when none. */
static unsigned most_workers(const key_fit_in *in)
{
    unsigned most = 0, m;
    for (unsigned w = 1; w <= (in->workers ? in->workers : 1); w++) {
        key_fit_in y = *in;
        y.workers = w;
        if (oracle(&y, &m) != KEY_FIT_NONE)
            most = w;
    }
    return most;
}

int main(void)
{
    test_rng_init("test_key_fit");
    /* the H200 (139.8 GiB, about 139.3 free after the context) */
    key_fit_in in = porep(139.3, 2);
    uint64_t key = key_fit_resident(&in, KEY_FIT_ALL);
    CHECK(key > gib(44.0) && key < gib(44.2), "PoRep key: %.2f GiB", key / GIB);
    expect(&in, KEY_FIT_RESIDENT, KEY_FIT_ALL, "PoRep, H200, 2 workers");
    /* the engine's measured peak with two workers was 125,507 MiB = 122.56 GiB (with the CUDA context) */
    uint64_t r = key_fit_need(&in, KEY_FIT_ALL);
    CHECK(r > gib(122.0) && r < gib(123.0), "PoRep, 2 workers: %.2f GiB resident", r / GIB);
    in.workers = 1;
    expect(&in, KEY_FIT_RESIDENT, KEY_FIT_ALL, "PoRep, H200, 1 worker");
    in.workers = 4;
    expect(&in, KEY_FIT_NONE, 0, "PoRep, H200, 4 workers");
    /* an 80 GB card (79.6 GiB, about 79.0 free): with one worker h, l and b_g1 resident (26.6 GiB, the
     * most that fits beside the prover and its staging), a and b_g2 streamed; two workers do not fit */
    in = porep(79.0, 1);
    expect(&in, KEY_FIT_STREAMED, 1 | 2 | 8, "PoRep, 80 GB, 1 worker");
    in.workers = 2;
    expect(&in, KEY_FIT_NONE, 0, "PoRep, 80 GB, 2 workers");
    CHECK(key_fit_workers(&in) == 1, "PoRep, 80 GB: fits with %u workers, not 1", key_fit_workers(&in));
    in = porep(139.3, 4);
    CHECK(key_fit_workers(&in) == most_workers(&in) && key_fit_workers(&in) >= 2,
          "PoRep, H200, 4 asked: fits with %u workers (the oracle: %u)", key_fit_workers(&in),
          most_workers(&in));
    in = porep(10.0, 2);
    CHECK(key_fit_workers(&in) == 0, "PoRep, 10 GB: fits with %u workers, not 0", key_fit_workers(&in));
    /* host evaluation: no circuit, no witness on the device: one worker fits with the whole key */
    in = porep(79.0, 1);
    in.circuit = 0;
    in.prover = gib(32.17);
    expect(&in, KEY_FIT_RESIDENT, KEY_FIT_ALL, "PoRep, 80 GB, host evaluation, 1 worker");

    /* boundaries: free exactly the whole key's need, and one byte less (then some vectors streamed);
     * exactly the wholly streamed need, and one byte less (then not mask 0) */
    in = porep(0, 2);
    r = key_fit_need(&in, KEY_FIT_ALL);
    in.free = r;
    expect(&in, KEY_FIT_RESIDENT, KEY_FIT_ALL, "free = the whole key's need");
    in.free = r - 1;
    unsigned m;
    key_fit f = oracle(&in, &m);
    CHECK(f == KEY_FIT_STREAMED, "free = the whole key's need - 1: the oracle says %s", name(f));
    expect(&in, f, m, "free = the whole key's need - 1");
    in.free = key_fit_need(&in, 0);
    f = oracle(&in, &m);
    expect(&in, f, m, "free = the wholly streamed need");
    in.free = key_fit_need(&in, 0) - 1;
    f = oracle(&in, &m);
    CHECK(f == KEY_FIT_NONE || m != 0, "free = the wholly streamed need - 1: mask 0 chosen");
    expect(&in, f, m, "free = the wholly streamed need - 1");
    /* the cap (key_vram less the keys already resident): the key's size, one byte less (every vector but
     * the smallest, b_g1), and 0 (wholly streamed) */
    in = porep(139.3, 2);
    in.resident_cap = key;
    expect(&in, KEY_FIT_RESIDENT, KEY_FIT_ALL, "cap = the key");
    in.resident_cap = key - 1;
    expect(&in, KEY_FIT_STREAMED, KEY_FIT_ALL & ~8u, "cap = the key - 1");
    in.resident_cap = 0;
    expect(&in, KEY_FIT_STREAMED, 0, "cap 0 (key_vram taken by other keys)");
    /* workers = 0 counts as one */
    in = porep(139.3, 0);
    key_fit_in one = porep(139.3, 1);
    for (unsigned k = 0; k <= KEY_FIT_ALL; k++)
        CHECK(key_fit_need(&in, k) == key_fit_need(&one, k), "0 workers, mask 0x%x: %llu, 1 worker: %llu", k,
              (unsigned long long)key_fit_need(&in, k), (unsigned long long)key_fit_need(&one, k));
    /* sums that would wrap in 64 bits saturate: never resident or streamed by wrapping */
    in = porep(139.3, 64);
    in.prover = UINT64_MAX / 3;
    expect(&in, KEY_FIT_NONE, 0, "huge prover x 64 workers");
    in = porep(139.3, 1);
    in.vec[0] = UINT64_MAX - 10;
    f = oracle(&in, &m);
    CHECK(f == KEY_FIT_STREAMED && !(m & 1), "h near 2^64: the oracle says %s with 0x%x", name(f), m);
    expect(&in, f, m, "h near 2^64");
    in.free = UINT64_MAX;
    in.circuit = UINT64_MAX;
    expect(&in, KEY_FIT_NONE, 0, "circuit near 2^64, all memory free");

    /* group tables (docs/design/020, thirty-seventh session): on the H200 one worker takes k = 3 (k = 4's
     * +87 GiB does not fit), within the 130 GiB; two workers take none, not even k = 2 */
    in = porep(139.3, 1);
    porep_tables(&in);
    CHECK(key_fit_tables(&in, 4) == 3, "PoRep tables, H200, 1 worker: k = %u, expected 3",
          key_fit_tables(&in, 4));
    CHECK(key_fit_tables(&in, 2) == 2, "PoRep tables, H200, 1 worker, k up to 2: k = %u",
          key_fit_tables(&in, 2));
    key_fit_in t3 = in;
    for (int i = 0; i < KEY_FIT_VECTORS; i++)
        t3.vec[i] = in.table[3][i];
    r = key_fit_need(&t3, KEY_FIT_ALL);
    printf(
        "test_key_fit: PoRep with tables of k = 3, one worker: %.2f GiB of the device (tables +%.2f GiB)\n",
        r / GIB, (key_fit_resident(&t3, KEY_FIT_ALL) - key) / GIB);
    CHECK(r < gib(130.0), "PoRep, k = 3, 1 worker: %.2f GiB, over the 130 GiB target", r / GIB);
    in.workers = 2;
    CHECK(key_fit_tables(&in, 4) == 0, "PoRep tables, H200, 2 workers: k = %u, expected none",
          key_fit_tables(&in, 4));
    in.workers = 1;
    CHECK(key_fit_tables(&in, 1) == 0 && key_fit_tables(&in, 0) == 0, "k_max below 2 took a table");
    in.free = r + in.table_headroom; /* exactly k = 3's need with the headroom, then one byte less */
    CHECK(key_fit_tables(&in, 4) == 3, "free = k = 3's need: k = %u", key_fit_tables(&in, 4));
    in.free--;
    CHECK(key_fit_tables(&in, 4) == 2, "free = k = 3's need - 1: k = %u, expected 2", key_fit_tables(&in, 4));
    in = porep(139.3, 1);
    porep_tables(&in);
    in.resident_cap = key; /* key_vram at the plain key's size: no room for tables */
    CHECK(key_fit_tables(&in, 4) == 0, "cap = the key: tables of k = %u", key_fit_tables(&in, 4));
    memset(in.table, 0, sizeof in.table); /* none offered (a zkey): none taken, whatever the room */
    in.resident_cap = UINT64_MAX, in.free = UINT64_MAX - 1;
    CHECK(key_fit_tables(&in, 4) == 0, "no tables offered: k = %u", key_fit_tables(&in, 4));

    /* random inputs, many near the boundaries and near 2^64 */
    size_t tried = 0, kinds[3] = {0, 0, 0}, tables_taken[4] = {0, 0, 0, 0}; /* none, k = 2, 3, 4 */
    for (int i = 0; i < 300000; i++) {
        key_fit_in x = {0};
        uint64_t v[12];
        for (int k = 0; k < 12; k++) {
            uint64_t t = test_rand64();
            switch (t & 3) {
            case 0: v[k] = t >> (t >> 58); break;                   /* any size */
            case 1: v[k] = (t >> 2) % ((uint64_t)1 << 40); break;   /* device-sized */
            case 2: v[k] = UINT64_MAX - ((t >> 2) & 0xffff); break; /* near 2^64 */
            default: v[k] = (t >> 2) & 0xff; break;                 /* tiny */
            }
        }
        x.free = v[0];
        for (int k = 0; k < KEY_FIT_VECTORS; k++)
            x.vec[k] = v[1 + k];
        x.circuit = v[6], x.prover = v[7], x.stage_cap = v[8], x.stage_min = v[9] & 0xfff, x.reserve = v[10];
        x.workers = (unsigned)(v[11] % 70);
        x.resident_cap = (v[11] & 64) ? UINT64_MAX : v[11] >> 7;
        if (i % 3 == 0) { /* device-like sizes, free set at some plan's need, give or take one */
            for (int k = 0; k < KEY_FIT_VECTORS; k++)
                x.vec[k] %= (uint64_t)1 << 36;
            x.circuit %= (uint64_t)1 << 34, x.prover %= (uint64_t)1 << 36, x.reserve %= (uint64_t)1 << 30;
            x.stage_cap %= (uint64_t)1 << 33, x.workers %= 5;
            x.free = key_fit_need(&x, (unsigned)(v[0] % 32)) + (uint64_t)(i / 3 % 3) - 1;
        }
        unsigned gm = 99, om = 99;
        key_fit got = key_fit_plan(&x, &gm), want = oracle(&x, &om);
        kinds[want]++;
        tried++;
        if (got != want || gm != om) {
            CHECK(0, "random plan %d: %s with 0x%x, the oracle %s with 0x%x (free %llu, workers %u)", i,
                  name(got), gm, name(want), om, (unsigned long long)x.free, x.workers);
            break;
        }
        /* tables: rows scaled from vec (the ratios of k = 2..4, or sizes near 2^64), a headroom */
        for (unsigned k = 2; k <= KEY_FIT_TABLE_MAX_K; k++)
            for (int j = 0; j < KEY_FIT_VECTORS; j++)
                x.table[k][j] = (v[j] & 7) == 7 ? UINT64_MAX - (v[j] >> 40)
                                : j == 0        ? x.vec[0]
                                                : x.vec[j] / k * ((1u << k) - 1) + (v[j] >> 60);
        x.table_headroom = (v[10] & 3) == 3 ? UINT64_MAX - (v[10] >> 50) : (v[10] >> 2) % ((uint64_t)1 << 34);
        if (i % 3 ==
            1) { /* device-like sizes, free set at one k's need with the headroom, give or take one */
            unsigned k = 2 + (unsigned)(test_rand64() % 3);
            x.circuit %= (uint64_t)1 << 34, x.prover %= (uint64_t)1 << 36, x.reserve %= (uint64_t)1 << 30;
            x.stage_cap %= (uint64_t)1 << 33, x.workers %= 5, x.table_headroom %= (uint64_t)1 << 34;
            key_fit_in t = x;
            for (int j = 0; j < KEY_FIT_VECTORS; j++)
                t.vec[j] = x.table[k][j] % ((uint64_t)1 << 38), x.table[k][j] = t.vec[j];
            t.reserve = key_fit_add(x.reserve, x.table_headroom);
            x.free = key_fit_need(&t, KEY_FIT_ALL) + (uint64_t)(i / 3 % 3) - 1;
        }
        unsigned kmax = (unsigned)(test_rand64() % 6), gk = key_fit_tables(&x, kmax),
                 ok_ = tables_oracle(&x, kmax);
        tables_taken[ok_ ? ok_ - 1 : 0]++;
        if (gk != ok_) {
            CHECK(0, "random tables %d: k = %u, the oracle %u (k up to %u)", i, gk, ok_, kmax);
            break;
        }
        if (x.workers <= 8) { /* the workers a refusal names: the most with which the oracle finds a plan */
            unsigned most = most_workers(&x);
            if (key_fit_workers(&x) != most) {
                CHECK(0, "random plan %d: fits with %u workers, the oracle %u (of %u)", i,
                      key_fit_workers(&x), most, x.workers);
                break;
            }
        }
    }
    printf("test_key_fit: %zu random plans against the oracle (%zu resident, %zu in part or wholly streamed, "
           "%zu no room)\n",
           tried, kinds[0], kinds[1], kinds[2]);
    CHECK(kinds[0] > 1000 && kinds[1] > 1000 && kinds[2] > 1000, "the random plans miss a kind");
    printf("test_key_fit: tables against their oracle: none %zu, k = 2 %zu, k = 3 %zu, k = 4 %zu\n",
           tables_taken[0], tables_taken[1], tables_taken[2], tables_taken[3]);
    CHECK(tables_taken[0] > 1000 && tables_taken[1] > 300 && tables_taken[2] > 300 && tables_taken[3] > 300,
          "the random tables miss a k");
    return test_finish("test_key_fit");
}
