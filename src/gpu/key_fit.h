/*
 * key_fit.h — whether a proving key can stay resident on a device, counting what the device must still
 * hold beside it: the resident circuit (device evaluation), and one prover for each GPU worker of the
 * device (with device evaluation, the witness too). Plain C, no CUDA: the GPU backend calls it once per
 * key and device, at the key's first load; tests/test_key_fit.c checks it on the host.
 *
 * On an H200 (139.8 GiB) a full PoRep key (44.1 GiB), its circuit (5.8 GiB) and two provers (36.1 GiB
 * each with the witness) fit: 122.5 GiB with the 0.5 GiB reserve (the engine's measured peak: 122.6). On
 * an 80 GB card (79.6 GiB) the key resident leaves no room for even one prover (86.5 GiB): it is
 * streamed, each prover then holding two 4 GiB staging buffers (50.3 GiB with one worker), and two
 * workers do not fit at all.
 */
#ifndef CUZK_GPU_KEY_FIT_H
#define CUZK_GPU_KEY_FIT_H

#include <stdint.h>

typedef enum {
    KEY_FIT_RESIDENT = 0, /* the key, the circuit and every prover fit */
    KEY_FIT_STREAMED = 1, /* only with the key left in host memory (streamed) */
    KEY_FIT_NONE = 2,     /* not even streamed: fewer workers, or host evaluation, are needed */
} key_fit;

typedef struct {
    uint64_t free;         /* device bytes free before the key's load */
    uint64_t key;          /* the resident key (cuzk_gpu_pk_bytes) */
    uint64_t circuit;      /* the resident circuit (cuzk_gpu_cs_bytes) with device evaluation, else 0 */
    uint64_t prover;       /* one prover (cuzk_gpu_prover_bytes, plus the witness with device evaluation) */
    uint64_t stage;        /* the two staging buffers a prover of the streamed key adds */
    uint64_t reserve;      /* left free for what is not counted (CUDA's own allocations, rounding) */
    unsigned workers;      /* provers the key will have on the device (at least 1 is counted) */
    uint64_t resident_cap; /* key_vram less the keys already resident there, or UINT64_MAX: no cap */
} key_fit_in;

static inline uint64_t key_fit_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static inline uint64_t key_fit_mul(uint64_t a, unsigned k)
{
    return k && a > UINT64_MAX / k ? UINT64_MAX : a * k;
}

/* Bytes the device needs with the key resident / streamed (saturating at 2^64 - 1: never wraps). */
static inline void key_fit_needs(const key_fit_in *in, uint64_t *resident, uint64_t *streamed)
{
    unsigned w = in->workers ? in->workers : 1;
    uint64_t base = key_fit_add(in->circuit, in->reserve);
    *resident = key_fit_add(key_fit_add(base, in->key), key_fit_mul(in->prover, w));
    *streamed = key_fit_add(base, key_fit_mul(key_fit_add(in->prover, in->stage), w));
}

/* Resident when it all fits and the key is within the cap; else streamed when that fits; else none. A
 * need of 2^64 - 1 bytes or more (saturated) never fits. */
static inline key_fit key_fit_of(const key_fit_in *in)
{
    uint64_t resident, streamed;
    key_fit_needs(in, &resident, &streamed);
    if (resident < UINT64_MAX && resident <= in->free && in->key <= in->resident_cap)
        return KEY_FIT_RESIDENT;
    return streamed < UINT64_MAX && streamed <= in->free ? KEY_FIT_STREAMED : KEY_FIT_NONE;
}

#endif
