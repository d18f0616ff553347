/*
 * backend_cpu.c — the engine's CPU backend (cuzk/engine.h).
 *
 * The CPU prover (cuzk/prove.h) is one call, so the three phases collapse:
 * `pre` and `post` do nothing and `device` runs cuzk_groth16_prove_ex as a
 * whole, under the device lock, on the GPU worker's pool. The engine has
 * already checked the witness (a∘b = c after synthesis) and verifies the
 * proof in post, so the prover's own check and verification are switched
 * off. With host evaluation (the default here) the prover takes the a, b, c
 * synthesis made; with device evaluation (cuzk_engine_config.eval) it
 * evaluates them itself inside the device phase and checks the witness
 * there, which is how the engine's device-evaluation path is tested
 * without a GPU. "Devices" are virtual: each is one lock domain,
 * so two devices let two proofs run at once.
 *
 * A worker's state is its pool (borrowed from the engine); the prover's
 * scratch is allocated per call inside cuzk_groth16_prove_ex, which
 * part_bytes estimates for the budget: the three domain-sized polynomials,
 * the density-selected scalars and the split-MSM plans.
 *
 * CUZK_FAULT_DEVICE_LOST="D[@N],..." in the environment makes device D report
 * itself lost (CUZK_EDEVICE) at its N-th device phase (default the first) and
 * at every one after, as a GPU does after a fatal error: a drill for the
 * engine's and the daemon's handling of a lost device, on any machine.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cuzk/engine.h"
#include "cuzk/prove.h"
#include "cuzk/setup.h"

#define FAULT_DEVICES 64

/* CUZK_FAULT_DEVICE_LOST, parsed once: lose_at[d] = the device phase of device d that finds it lost (1 = the
 * first), 0 = never; fault_bad: the variable is malformed (every device phase then fails, saying so). */
static struct {
    pthread_once_t once;
    uint64_t lose_at[FAULT_DEVICES];
    atomic_uint_fast64_t calls[FAULT_DEVICES];
    bool bad;
    char text[64];
} fault = {.once = PTHREAD_ONCE_INIT};

static void fault_parse(void)
{
    const char *v = getenv("CUZK_FAULT_DEVICE_LOST");
    if (!v || !*v)
        return;
    snprintf(fault.text, sizeof fault.text, "%s", v);
    for (const char *p = v;;) {
        char *end;
        if (*p < '0' || *p > '9')
            break;
        unsigned long d = strtoul(p, &end, 10), n = 1;
        p = end;
        if (*p == '@') {
            if (p[1] < '0' || p[1] > '9')
                break;
            n = strtoul(p + 1, &end, 10);
            p = end;
        }
        if (d >= FAULT_DEVICES || n < 1 || n > (1ul << 40))
            break;
        fault.lose_at[d] = n;
        if (!*p)
            return;
        if (*p++ != ',')
            break;
    }
    fault.bad = true;
}

/* The injected loss of p's device, if CUZK_FAULT_DEVICE_LOST asks for one now. */
static int fault_check(const cuzk_engine_part *p, char *err, size_t errlen)
{
    pthread_once(&fault.once, fault_parse);
    if (fault.bad)
        return cuzk_fail(
            err, errlen, CUZK_EINVAL,
            "cpu backend: CUZK_FAULT_DEVICE_LOST '%s' is not a list of DEVICE[@CALL] (e.g. 1@3,0)",
            fault.text);
    if (p->dev < 0 || p->dev >= FAULT_DEVICES || !fault.lose_at[p->dev])
        return CUZK_OK;
    uint64_t call = atomic_fetch_add(&fault.calls[p->dev], 1) + 1;
    if (call < fault.lose_at[p->dev])
        return CUZK_OK;
    return cuzk_fail(err, errlen, CUZK_EDEVICE,
                     "cpu backend: device %d lost at its device phase %llu (CUZK_FAULT_DEVICE_LOST=%s)",
                     p->dev, (unsigned long long)call, fault.text);
}

static int cpu_worker_new(void *ctx, int dev, int worker, cuzk_pool *pool, void **state, char *err,
                          size_t errlen)
{
    *state = pool;
    return CUZK_OK;
}

static uint64_t cpu_part_bytes(void *ctx, const cuzk_groth16_params *pk, const cuzk_cs *cs, bool device_eval)
{
    (void)device_eval; /* the prover's own a, b, c are counted either way */
    unsigned lg = 0;
    if (cuzk_groth16_domain_lg(&lg, cs, NULL, 0) != CUZK_OK)
        lg = 31;
    uint64_t m = (uint64_t)1 << lg, n = cs->n_inputs + cs->n_aux;
    return 3 * m * sizeof(cuzk_fr) + (uint64_t)(pk->n_a + pk->n_b) * sizeof(cuzk_fr) +
           n * (sizeof(cuzk_fr) + sizeof(uint64_t)) + 3 * (n / 8 + 64);
}

static int cpu_device(void *ctx, void *state, cuzk_engine_part *p, char *err, size_t errlen)
{
    int rc = fault_check(p, err, errlen);
    if (rc != CUZK_OK)
        return rc;
    cuzk_prove_opts opts = {.flags = CUZK_PROVE_NO_VERIFY, .pvk = p->pvk};
    if (p->a && p->b && p->c && p->n_abc == p->cs->n_constraints) { /* synthesis evaluated them already */
        opts.abc[0] = p->a, opts.abc[1] = p->b, opts.abc[2] = p->c;
        opts.flags |= CUZK_PROVE_NO_CHECK;
    } else if (!p->check) { /* device evaluation: the prover evaluates (and checks unless told not to) */
        opts.flags |= CUZK_PROVE_NO_CHECK;
    }
    for (int i = 0; i < 3; i++)
        opts.density[i] = p->density[i], opts.density_pop[i] = p->density_pop[i]; /* the key's, once */
    opts.density_counted = true;
    cuzk_engine_stage(p, "prove", false);
    rc = cuzk_groth16_prove_ex(&p->proof, p->pk, p->cs, p->z, &p->r, &p->s, &opts, (cuzk_pool *)state, err,
                               errlen);
    cuzk_engine_stage(p, "prove", true);
    return rc;
}

static const cuzk_engine_backend CPU_BACKEND = {
    .name = "cpu",
    .n_devices = 0,
    .worker_new = cpu_worker_new,
    .part_bytes = cpu_part_bytes,
    .device = cpu_device,
    .device_eval = true, /* the prover evaluates a, b, c itself when synthesis did not */
};

const cuzk_engine_backend *cuzk_engine_backend_cpu(void)
{
    return &CPU_BACKEND;
}
