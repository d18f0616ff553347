/*
 * key_fit.h — which of a proving key's vectors stay resident on a device, counting what the device must
 * still hold beside them: the resident circuit (device evaluation), and one prover for each GPU worker
 * of the device (with device evaluation, the witness too), each prover with two staging buffers when
 * some vector is streamed. Plain C, no CUDA: the GPU backend calls it once per key and device, at the
 * key's first load; tests/test_key_fit.c checks it on the host.
 *
 * On an H200 (139.8 GiB) a full PoRep key (44.1 GiB), its circuit (5.8 GiB) and two provers (36.1 GiB
 * each with the witness) fit: 122.5 GiB with the 0.5 GiB reserve (the engine's measured peak: 122.6). On
 * an 80 GB card (79.6 GiB) the whole key resident leaves no room for even one prover (86.5 GiB): with one
 * worker H, L and B1 stay resident (26.6 GiB) and A and B2 are streamed (each prover then holding two
 * 4 GiB staging buffers); two workers do not fit even with the whole key streamed.
 *
 * A wholly resident key may then hold its witness vectors as group tables (key_fit_tables), which take
 * (2^k − 1) / k times their bytes: on the H200 with one worker the PoRep key's tables of k = 3 (+43 GiB)
 * fit, with two not even k = 2's, as the tables must leave table_headroom (8 GiB) free.
 */
#ifndef CUZK_GPU_KEY_FIT_H
#define CUZK_GPU_KEY_FIT_H

#include <stdint.h>

#define KEY_FIT_VECTORS 5 /* h, l, a, b_g1, b_g2: bit i of a plan's mask is vec[i] (CUZK_GPU_PK_*) */
#define KEY_FIT_ALL 31u
#define KEY_FIT_TABLE_MAX_K 4 /* group tables of k = 2..4 (CUZK_GROUP_TABLE_MAX_K) */

typedef enum {
    KEY_FIT_RESIDENT = 0, /* the whole key, the circuit and every prover fit */
    KEY_FIT_STREAMED = 1, /* only with some vectors (or all: mask 0) left in host memory, streamed */
    KEY_FIT_NONE = 2,     /* not even wholly streamed: fewer workers, or host evaluation, are needed */
} key_fit;

typedef struct {
    uint64_t free;                 /* device bytes free before the key's load */
    uint64_t vec[KEY_FIT_VECTORS]; /* the key's vectors' device bytes */
    uint64_t circuit;      /* the resident circuit (cuzk_gpu_cs_bytes) with device evaluation, else 0 */
    uint64_t prover;       /* one prover (cuzk_gpu_prover_bytes, plus the witness with device evaluation) */
    uint64_t stage_cap;    /* the most bytes of one staging buffer (CUZK_GPU_STAGE_BYTES) */
    uint64_t stage_min;    /* the least (one G2 point) */
    uint64_t reserve;      /* left free for what is not counted (CUDA's own allocations, rounding) */
    unsigned workers;      /* provers the key will have on the device (at least 1 is counted) */
    uint64_t resident_cap; /* key_vram less the keys already resident there, or UINT64_MAX: no cap */
    uint64_t table[KEY_FIT_TABLE_MAX_K + 1][KEY_FIT_VECTORS]; /* the vectors' device bytes with the witness
                                                   vectors as group tables of k (row k = 2..4; a row of
                                                   zeros: k not offered) */
    uint64_t table_headroom; /* device bytes a plan with tables leaves free beyond `reserve` */
} key_fit_in;

static inline uint64_t key_fit_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static inline uint64_t key_fit_mul(uint64_t a, unsigned k)
{
    return k && a > UINT64_MAX / k ? UINT64_MAX : a * k;
}

/* Device bytes of the vectors in mask (saturating). */
static inline uint64_t key_fit_resident(const key_fit_in *in, unsigned mask)
{
    uint64_t b = 0;
    for (int i = 0; i < KEY_FIT_VECTORS; i++)
        if (mask >> i & 1)
            b = key_fit_add(b, in->vec[i]);
    return b;
}

/* One staging buffer for the vectors outside mask: the largest of them up to stage_cap, at least
 * stage_min (cuzk_gpu_stage_bytes). */
static inline uint64_t key_fit_stage(const key_fit_in *in, unsigned mask)
{
    uint64_t largest = 0;
    for (int i = 0; i < KEY_FIT_VECTORS; i++)
        if (!(mask >> i & 1) && in->vec[i] > largest)
            largest = in->vec[i];
    largest = largest < in->stage_cap ? largest : in->stage_cap;
    return largest > in->stage_min ? largest : in->stage_min;
}

/* Bytes the device needs with the vectors of mask resident and the others streamed (saturating at
 * 2^64 - 1: never wraps). */
static inline uint64_t key_fit_need(const key_fit_in *in, unsigned mask)
{
    unsigned w = in->workers ? in->workers : 1;
    uint64_t stage = key_fit_stage(in, mask);
    uint64_t per = mask == KEY_FIT_ALL ? in->prover : key_fit_add(in->prover, key_fit_add(stage, stage));
    uint64_t base = key_fit_add(in->circuit, in->reserve);
    return key_fit_add(key_fit_add(base, key_fit_resident(in, mask)), key_fit_mul(per, w));
}

/* Whether mask's plan fits: its need within free (a need of 2^64 - 1 or more, saturated, never fits) and
 * its resident bytes within the cap. */
static inline int key_fit_fits(const key_fit_in *in, unsigned mask)
{
    uint64_t need = key_fit_need(in, mask);
    return need < UINT64_MAX && need <= in->free && key_fit_resident(in, mask) <= in->resident_cap;
}

/* The plan: the whole key resident when that fits; else, of the plans that fit, the one with the most
 * resident bytes (the fewest copied a proof), then the smallest need, then the smallest mask; mask 0 is
 * the key wholly streamed. *mask = the vectors kept resident (0 with KEY_FIT_NONE). */
static inline key_fit key_fit_plan(const key_fit_in *in, unsigned *mask)
{
    *mask = 0;
    if (key_fit_fits(in, KEY_FIT_ALL)) {
        *mask = KEY_FIT_ALL;
        return KEY_FIT_RESIDENT;
    }
    int found = 0;
    for (unsigned m = 0; m < KEY_FIT_ALL; m++) {
        if (!key_fit_fits(in, m))
            continue;
        uint64_t r = key_fit_resident(in, m), rb = key_fit_resident(in, *mask);
        if (!found || r > rb || (r == rb && key_fit_need(in, m) < key_fit_need(in, *mask)))
            *mask = m;
        found = 1;
    }
    return found ? KEY_FIT_STREAMED : KEY_FIT_NONE;
}

/* For a key wholly resident (key_fit_plan's KEY_FIT_RESIDENT): the largest k, up to k_max, whose tables
 * fit in its place (the need counted with table[k] for vec, table_headroom more left free, the resident
 * bytes within the cap); 0 when none does. The tables are a speed-up a proof can do without, so they
 * never take the room a worker or the key itself needs: they come after the plan, only where all fits. */
static inline unsigned key_fit_tables(const key_fit_in *in, unsigned k_max)
{
    for (unsigned k = k_max < KEY_FIT_TABLE_MAX_K ? k_max : KEY_FIT_TABLE_MAX_K; k >= 2; k--) {
        key_fit_in t = *in;
        int offered = 0;
        for (int i = 0; i < KEY_FIT_VECTORS; i++) {
            t.vec[i] = in->table[k][i];
            offered |= in->table[k][i] != 0;
        }
        t.reserve = key_fit_add(in->reserve, in->table_headroom);
        if (offered && key_fit_fits(&t, KEY_FIT_ALL))
            return k;
    }
    return 0;
}

/* The most workers, up to in->workers, with whose provers some plan fits (not always the wholly streamed
 * one: keeping the largest vector resident shrinks every prover's staging); 0 when not even one worker's
 * does. What a refusal tells the user to set. */
static inline unsigned key_fit_workers(const key_fit_in *in)
{
    key_fit_in t = *in;
    unsigned mask;
    for (unsigned w = in->workers ? in->workers : 1; w >= 1; w--) {
        t.workers = w;
        if (key_fit_plan(&t, &mask) != KEY_FIT_NONE)
            return w;
    }
    return 0;
}

#endif
