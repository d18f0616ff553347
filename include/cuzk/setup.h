/*
 * cuzk/setup.h — circuit-specific Groth16 setup in bellperson's layout.
 *
 * NOT A TRUSTED CEREMONY. cuzk_groth16_setup draws its toxic waste (tau,
 * alpha, beta, gamma, delta) from getrandom() in this process, or takes it from
 * the caller, and makes no attempt to erase it from memory afterwards. Anyone
 * who knows it can forge proofs. The keys it makes are for tests and
 * benchmarks only; production keys come from a multi-party ceremony.
 *
 * What it computes (prover-internals.md §1, §2.2, the same key bellperson's
 * generator derives from the same toxic waste and the standard generators):
 * with the input rows "z_i · 0 = 0" appended to the circuit (n = n_constraints
 * + n_inputs rows), m the smallest power of two >= n and ω bellperson's m-th
 * root of unity, each variable i has QAP values u_i = A_i(tau), v_i = B_i(tau),
 * w_i = C_i(tau) (Lagrange interpolation of its matrix column over the powers
 * of ω). Then
 *   vk    = [alpha]1, [beta]1, [beta]2, [gamma]2, [delta]1, [delta]2
 *   ic_i  = [(beta u_i + alpha v_i + w_i) / gamma]1   every input
 *   l_i   = [(beta u_i + alpha v_i + w_i) / delta]1   every aux variable
 *   h_i   = [tau^i (tau^m - 1) / delta]1               i = 0 .. m - 2
 * (or, in the coset form of cuzk/groth16.h, h over the coset's Lagrange basis
 * and l over every variable with the C share of the quotient folded in)
 *   a     = [u_i]1   every input, then the aux variables with A density
 *   b_g1  = [v_i]1, b_g2 = [v_i]2   inputs, then aux, with B density
 * Densities are the prover's (cuzk_cs_density, prover-internals.md §1.2): a
 * variable is dense in a matrix when its coefficient, after adding up its
 * terms within each row, is non-zero in some row.
 *
 * Keys that bellperson's files cannot hold are refused: an aux variable whose
 * l point would be the identity (it is unconstrained), or a dense variable
 * whose polynomial vanishes at tau (probability about m / r for a random tau).
 *
 * Threading: every function takes a cuzk_pool (NULL = the calling thread);
 * results are identical for any pool size.
 */
#ifndef CUZK_SETUP_H
#define CUZK_SETUP_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/common.h"
#include "cuzk/cs.h"
#include "cuzk/curve.h"
#include "cuzk/field.h"
#include "cuzk/groth16.h"
#include "cuzk/pool.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Toxic waste of one setup (Montgomery form). All five must be non-zero and
 * tau must lie outside the evaluation domain (tau^m != 1). */
typedef struct {
    cuzk_fr tau, alpha, beta, gamma, delta;
} cuzk_groth16_toxic;

/* Builds a proving key for cs into *out (caller frees with cuzk_groth16_params_free; left empty on
 * failure). tw = NULL draws fresh toxic waste with getrandom(). Not a trusted ceremony. */
int cuzk_groth16_setup(cuzk_groth16_params *out, const cuzk_cs *cs, const cuzk_groth16_toxic *tw,
                       cuzk_pool *pool, char *err, size_t errlen);

/* Where the fixed-base scalar multiplications of a setup run (they are nearly all of its time at scale):
 * NULL = on the CPU pool (cuzk_g1_fixed_base_mul / cuzk_g2_fixed_base_mul). An accelerator computes the
 * same points, out[i] = [k_i] G in affine form with the identity for k = 0, so the key does not depend on
 * where it was made; ctx is handed to its functions as it is. cuzk_gpu_setup_accel() and
 * cuzk_gpu_setup_accel_on() (cuzk/gpu_setup.h) are the CUDA ones. */
typedef struct cuzk_setup_accel {
    const char *name;
    const void *ctx;
    int (*g1_fixed_base)(const void *ctx, cuzk_g1_affine *out, const cuzk_fr *k, size_t n, cuzk_pool *pool,
                         char *err, size_t errlen);
    int (*g2_fixed_base)(const void *ctx, cuzk_g2_affine *out, const cuzk_fr *k, size_t n, cuzk_pool *pool,
                         char *err, size_t errlen);
} cuzk_setup_accel;

/* cuzk_groth16_setup with the fixed-base multiplications on accel (NULL: the CPU). */
int cuzk_groth16_setup_accel(cuzk_groth16_params *out, const cuzk_cs *cs, const cuzk_groth16_toxic *tw,
                             const cuzk_setup_accel *accel, cuzk_pool *pool, char *err, size_t errlen);

/* Options of cuzk_groth16_setup_ex; a zeroed struct (or NULL) is cuzk_groth16_setup. */
typedef struct {
    const cuzk_setup_accel *accel; /* where the fixed-base multiplications run (NULL: the CPU) */
    bool h_coset;                  /* the coset form of the key (cuzk/groth16.h, docs/design/021): same
                                      proofs, two transforms fewer a proof; memory only */
} cuzk_groth16_setup_opts;

/* cuzk_groth16_setup with options. The coset form also refuses tau on the coset (tau^m = 7^m). */
int cuzk_groth16_setup_ex(cuzk_groth16_params *out, const cuzk_cs *cs, const cuzk_groth16_toxic *tw,
                          const cuzk_groth16_setup_opts *opts, cuzk_pool *pool, char *err, size_t errlen);

/* Fills *tw with fresh non-zero toxic waste from getrandom(), tau outside the domain of size m
 * (a power of two); CUZK_EIO if the system has no randomness to give. */
int cuzk_groth16_toxic_random(cuzk_groth16_toxic *tw, size_t m, char *err, size_t errlen);

/* log2 of the evaluation domain of cs: the smallest k with 2^k >= n_constraints + n_inputs;
 * CUZK_ERANGE if k would exceed 31. */
int cuzk_groth16_domain_lg(unsigned *lg, const cuzk_cs *cs, char *err, size_t errlen);

/* Evaluates every variable's QAP polynomials at tau (input rows included): u[i] = A_i(tau),
 * v[i] = B_i(tau), w[i] = C_i(tau) for the n_inputs + n_aux variables (caller-owned arrays). Checks
 * the CSR structure of cs; rejects tau inside the domain. */
int cuzk_groth16_qap_eval(cuzk_fr *u, cuzk_fr *v, cuzk_fr *w, const cuzk_cs *cs, const cuzk_fr *tau,
                          cuzk_pool *pool, char *err, size_t errlen);

/* out[i] = [k_i] G for the standard generator and n scalars (Montgomery Fr), by a fixed-base table of
 * signed c-bit windows (c in 2..16, 0 = chosen from n); affine outputs, identity for k = 0. */
int cuzk_g1_fixed_base_mul(cuzk_g1_affine *out, const cuzk_fr *k, size_t n, unsigned c, cuzk_pool *pool,
                           char *err, size_t errlen);
int cuzk_g2_fixed_base_mul(cuzk_g2_affine *out, const cuzk_fr *k, size_t n, unsigned c, cuzk_pool *pool,
                           char *err, size_t errlen);

/* Progress of a long computation: done of total units, called on the calling thread between steps, first
 * with done = 0 and last with done = total. */
typedef void (*cuzk_setup_progress_fn)(void *ctx, uint64_t done, uint64_t total);

/* Where the two G1 transforms of cuzk_groth16_params_to_coset run (nearly all of its work): NULL = the CPU
 * pool. g1_transform computes out_j = sum_{t < n-1} root^(jt) c step^t src_t for j < n, affine (the
 * identity all-zero), for n a power of two and src holding n - 1 points; any implementation gives the same
 * points. The second call (h's) comes from a thread the conversion starts, beside its CPU work, with a pool
 * of its own. cuzk_gpu_coset_accel() (cuzk/gpu_setup.h) is the CUDA one. */
typedef struct cuzk_coset_accel {
    const char *name;
    const void *ctx;
    int (*g1_transform)(const void *ctx, cuzk_g1_affine *out, const cuzk_g1_affine *src, size_t n,
                        const cuzk_fr *c, const cuzk_fr *step, const cuzk_fr *root, cuzk_pool *pool,
                        char *err, size_t errlen);
} cuzk_coset_accel;

/* Options of cuzk_groth16_params_to_coset; a zeroed struct (or NULL) means the CPU and no progress. */
typedef struct {
    const cuzk_coset_accel *accel;   /* where the transforms run (NULL: the CPU) */
    cuzk_setup_progress_fn progress; /* units: scalar multiplications and C terms */
    void *progress_ctx;
    size_t heavy_terms; /* a column of C with more terms than this is summed by the whole pool (its +-1 terms
                         * as batch-affine sums, the rest as an MSM) instead of by one task; 0: 1024 */
} cuzk_groth16_coset_opts;

/* Takes pk, a key in bellperson's form for the circuit cs (as read from .params: one a ceremony made, say),
 * to the coset form of cuzk/groth16.h in place, without the toxic waste (docs/design/022): h becomes m
 * points over the coset's Lagrange basis and l covers every variable with C's share of the quotient folded
 * in. The proofs stay the same bytes; the points differ from cuzk_groth16_setup_ex's by multiples of the
 * one point of degree m - 1 that bellperson's key lacks, which the proofs of satisfying witnesses never
 * see. Costs two G1 transforms of m points (m log2 m scalar multiplications) and a pass over
 * C's terms. The key must belong to cs: sizes are checked (CUZK_EINVAL naming the first mismatch), but a
 * key of another circuit of the same shape converts into one whose proofs fail verification. pk is left
 * as it was on any error. */
int cuzk_groth16_params_to_coset(cuzk_groth16_params *pk, const cuzk_cs *cs,
                                 const cuzk_groth16_coset_opts *opts, cuzk_pool *pool, char *err,
                                 size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
