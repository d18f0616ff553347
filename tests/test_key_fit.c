/*
 * test_key_fit.c — the GPU backend's plan for a proving key on a device (src/gpu/key_fit.h): resident,
 * streamed, or no room, from the device's free bytes and what must sit beside the key.
 *
 * Oracles: the sizes of a full PoRep partition as the engine measured them on the H200 (key 44.11 GiB,
 * circuit 5.79 GiB, prover 32.17 GiB plus the 4.17 GB witness, staging 2 × 4 GiB; peak 125,507 MiB with
 * two workers), placed on an H200 and on an 80 GB card; exact boundaries (one byte either way); and
 * random inputs against the same rule computed in 128-bit arithmetic (no saturation), including sizes
 * near 2^64 where 64-bit sums would wrap.
 */
#include <stdint.h>
#include <stdio.h>

#include "gpu/key_fit.h"
#include "testutil.h"

#define GIB 1073741824.0

static uint64_t gib(double g)
{
    return (uint64_t)(g * GIB);
}

/* The rule, in 128 bits. */
static key_fit oracle(const key_fit_in *in)
{
    unsigned __int128 w = in->workers ? in->workers : 1;
    unsigned __int128 base = (unsigned __int128)in->circuit + in->reserve;
    unsigned __int128 res = base + in->key + w * in->prover;
    unsigned __int128 str = base + w * ((unsigned __int128)in->prover + in->stage);
    const unsigned __int128 never = UINT64_MAX; /* a need this large never fits */
    if (res < never && res <= in->free && in->key <= in->resident_cap)
        return KEY_FIT_RESIDENT;
    return str < never && str <= in->free ? KEY_FIT_STREAMED : KEY_FIT_NONE;
}

static key_fit_in porep(double free_gib, unsigned workers)
{
    key_fit_in in = {0};
    in.free = gib(free_gib);
    in.key = gib(44.11);
    in.circuit = gib(5.79);
    in.prover = gib(32.17) + (uint64_t)130278869 * 32;
    in.stage = (uint64_t)8 << 30;
    in.reserve = (uint64_t)512 << 20;
    in.workers = workers;
    in.resident_cap = UINT64_MAX;
    return in;
}

static const char *name(key_fit f)
{
    return f == KEY_FIT_RESIDENT ? "resident" : f == KEY_FIT_STREAMED ? "streamed" : "none";
}

static void expect(const key_fit_in *in, key_fit want, const char *what)
{
    key_fit got = key_fit_of(in);
    CHECK(got == want, "%s: %s, expected %s", what, name(got), name(want));
    CHECK(oracle(in) == want, "%s: the 128-bit rule says %s", what, name(oracle(in)));
}

int main(void)
{
    test_rng_init("test_key_fit");
    /* the H200 (139.8 GiB, about 139.3 free after the context): everything resident with 1, 2 or 3
     * workers (3: 157.9 GiB: streamed does not fit either, so none) */
    key_fit_in in = porep(139.3, 2);
    expect(&in, KEY_FIT_RESIDENT, "PoRep, H200, 2 workers");
    uint64_t r, s;
    key_fit_needs(&in, &r, &s);
    /* the engine's measured peak with two workers was 125,507 MiB = 122.56 GiB (with the CUDA context) */
    CHECK(r > gib(121.5) && r < gib(123.0), "PoRep, 2 workers: %.2f GiB resident", r / GIB);
    in.workers = 1;
    expect(&in, KEY_FIT_RESIDENT, "PoRep, H200, 1 worker");
    in.workers = 3;
    expect(&in, KEY_FIT_STREAMED, "PoRep, H200, 3 workers");
    in.workers = 4;
    expect(&in, KEY_FIT_NONE, "PoRep, H200, 4 workers");
    /* an 80 GB card (79.6 GiB, about 79.0 free) */
    in = porep(79.0, 1);
    expect(&in, KEY_FIT_STREAMED, "PoRep, 80 GB, 1 worker");
    in.workers = 2;
    expect(&in, KEY_FIT_NONE, "PoRep, 80 GB, 2 workers");
    /* host evaluation: no circuit, no witness on the device; one worker still does not fit resident */
    in = porep(79.0, 1);
    in.circuit = 0;
    in.prover = gib(32.17);
    expect(&in, KEY_FIT_RESIDENT, "PoRep, 80 GB, host evaluation, 1 worker");

    /* boundaries: free exactly the need, and one byte less */
    in = porep(0, 2);
    key_fit_needs(&in, &r, &s);
    in.free = r;
    expect(&in, KEY_FIT_RESIDENT, "free = the resident need");
    in.free = r - 1;
    expect(&in, s <= r - 1 ? KEY_FIT_STREAMED : KEY_FIT_NONE, "free = the resident need - 1");
    in.free = s;
    expect(&in, s >= r ? KEY_FIT_RESIDENT : KEY_FIT_STREAMED, "free = the streamed need");
    in.free = s - 1;
    expect(&in, s - 1 >= r ? KEY_FIT_RESIDENT : KEY_FIT_NONE, "free = the streamed need - 1");
    /* the cap (key_vram less the keys already resident): at the key's size, and one byte short */
    in = porep(139.3, 2);
    in.resident_cap = in.key;
    expect(&in, KEY_FIT_RESIDENT, "cap = the key");
    in.resident_cap = in.key - 1;
    expect(&in, KEY_FIT_STREAMED, "cap = the key - 1");
    in.resident_cap = 0;
    expect(&in, KEY_FIT_STREAMED, "cap 0 (key_vram taken by other keys)");
    /* workers = 0 counts as one */
    in = porep(139.3, 0);
    key_fit_in one = porep(139.3, 1);
    uint64_t r1, s1;
    key_fit_needs(&in, &r, &s);
    key_fit_needs(&one, &r1, &s1);
    CHECK(r == r1 && s == s1, "0 workers: %llu/%llu, 1 worker: %llu/%llu", (unsigned long long)r,
          (unsigned long long)s, (unsigned long long)r1, (unsigned long long)s1);
    /* sums that would wrap in 64 bits saturate: never resident or streamed by wrapping */
    in = porep(139.3, 64);
    in.prover = UINT64_MAX / 3;
    expect(&in, KEY_FIT_NONE, "huge prover x 64 workers");
    in = porep(139.3, 1);
    in.key = UINT64_MAX - 10;
    expect(&in, KEY_FIT_STREAMED, "key near 2^64");
    in.free = UINT64_MAX;
    in.circuit = UINT64_MAX;
    expect(&in, KEY_FIT_NONE, "circuit near 2^64, all memory free");

    /* random inputs, many near the boundaries and near 2^64 */
    for (int i = 0; i < 1000000; i++) {
        key_fit_in x = {0};
        uint64_t v[8];
        for (int k = 0; k < 8; k++) {
            uint64_t t = test_rand64();
            switch (t & 3) {
            case 0: v[k] = t >> (t >> 58); break; /* any size */
            case 1:
                v[k] = (t >> 2) % ((uint64_t)1 << 40); /* device-sized */
                break;
            case 2: v[k] = UINT64_MAX - ((t >> 2) & 0xffff); break;
            default: v[k] = (t >> 2) & 0xff; break;
            }
        }
        x.free = v[0], x.key = v[1], x.circuit = v[2], x.prover = v[3], x.stage = v[4], x.reserve = v[5];
        x.workers = (unsigned)(v[6] % 70);
        x.resident_cap = (v[7] & 1) ? UINT64_MAX : v[7];
        if (i % 4 == 0) { /* free set at a need, give or take one */
            key_fit_needs(&x, &r, &s);
            uint64_t at = (i & 8) ? r : s;
            x.free = at + (uint64_t)((i >> 4) % 3) - 1;
        }
        key_fit got = key_fit_of(&x), want = oracle(&x);
        if (got != want) {
            CHECK(0,
                  "free %llu key %llu circuit %llu prover %llu stage %llu reserve %llu workers %u cap %llu: "
                  "%s, "
                  "the 128-bit rule %s",
                  (unsigned long long)x.free, (unsigned long long)x.key, (unsigned long long)x.circuit,
                  (unsigned long long)x.prover, (unsigned long long)x.stage, (unsigned long long)x.reserve,
                  x.workers, (unsigned long long)x.resident_cap, name(got), name(want));
            break;
        }
    }
    printf("test_key_fit: 1,000,000 random plans against the 128-bit rule\n");
    return test_finish("test_key_fit");
}
