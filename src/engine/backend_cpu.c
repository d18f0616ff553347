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
 */
#include <stdint.h>

#include "cuzk/engine.h"
#include "cuzk/prove.h"
#include "cuzk/setup.h"

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
    int rc = cuzk_groth16_prove_ex(&p->proof, p->pk, p->cs, p->z, &p->r, &p->s, &opts, (cuzk_pool *)state,
                                   err, errlen);
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
