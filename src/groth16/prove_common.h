/*
 * prove_common.h — pieces shared by the two Groth16 provers (prove_bellperson.c,
 * prove_snarkjs.c), implemented in prove_common.c: the split-MSM plan, the
 * randomness for r and s, parallel helpers over Fr vectors and the final
 * verification. Internal to src/.
 */
#ifndef CUZK_SRC_PROVE_COMMON_H
#define CUZK_SRC_PROVE_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/ntt.h"
#include "cuzk/prove.h"

/* How one scalar vector is split (prover-internals.md §1.7): zeros skipped, ones in a bitmap, the rest
 * ("tail") listed by index with canonical scalars. split = false means one plain MSM over everything. */
typedef struct {
    size_t n;
    bool split;
    size_t n_ones, n_tail;
    uint64_t *ones;        /* ceil(n/64) words, bit i = scalar i is 1 (split only) */
    size_t *tail_idx;      /* n_tail indices, ascending (split only) */
    uint64_t (*tail_k)[4]; /* their canonical scalars (split only) */
} prove_split_plan;

/* Classifies n scalars (Montgomery) on the pool; allow_split = false forces a plain MSM. */
int prove_split_plan_build(prove_split_plan *p, const cuzk_fr *scalars, size_t n, bool allow_split,
                           cuzk_pool *pool);
void prove_split_plan_free(prove_split_plan *p);

/* out = sum scalars[i] bases[i] following plan p (built from the same scalars). */
int prove_split_msm_g1(cuzk_g1 *out, const prove_split_plan *p, const cuzk_g1_affine *bases,
                       const cuzk_fr *scalars, cuzk_pool *pool);
int prove_split_msm_g2(cuzk_g2 *out, const prove_split_plan *p, const cuzk_g2_affine *bases,
                       const cuzk_fr *scalars, cuzk_pool *pool);

/* out = given, or a uniform random Fr from getrandom() when given is NULL (name is for messages). */
int prove_scalar(cuzk_fr *out, const cuzk_fr *given, const char *name, char *err, size_t errlen);

/* Zeroes n bytes at p in a way the compiler keeps (for r and s). */
void prove_wipe(void *p, size_t n);

/* Parallel pointwise steps over n elements: a = a * b; a = (a * b - c) * k (k NULL: no factor). */
void prove_vec_mul(cuzk_fr *a, const cuzk_fr *b, size_t n, cuzk_pool *pool);
void prove_vec_quotient(cuzk_fr *a, const cuzk_fr *b, const cuzk_fr *c, const cuzk_fr *k, size_t n,
                        cuzk_pool *pool);

/* First j < n with a[j] b[j] != c[j], or -1. */
int64_t prove_first_unsat(const cuzk_fr *a, const cuzk_fr *b, const cuzk_fr *c, size_t n, cuzk_pool *pool);

/* The forward transforms of the H step: x <- iNTT(x) then coset NTT, natural order in and out. */
int prove_to_coset(const cuzk_ntt_domain *d, cuzk_fr *x, cuzk_pool *pool, char *err, size_t errlen);

/* Every length of pk against the circuit's shape (bellperson's form or the coset form, by pk->h_coset):
 * m = 2^lg, pop_* = the circuit's density popcounts (a_aux, b_input, b_aux). Messages start "what: ". */
int prove_check_shape(const cuzk_groth16_params *pk, const cuzk_cs *cs, size_t m, size_t pop_a, size_t pop_bi,
                      size_t pop_ba, const char *what, char *err, size_t errlen);

/* Verifies proof against vk (pvk if given, else prepared here); CUZK_EVERIFY with a message if it fails. */
int prove_verify(const cuzk_groth16_vk *vk, const cuzk_groth16_pvk *pvk, const cuzk_fr *inputs,
                 size_t n_inputs, const cuzk_groth16_proof *proof, char *err, size_t errlen);

/* The heavy middle of the bellperson prover (steps 3-4 of prove_bellperson.c): the H quotient from the
 * evaluations, then the five MSMs. The CPU does it by default; a device backend passes its own. */
typedef struct {
    const cuzk_groth16_params *pk;
    cuzk_fr *a, *b, *c; /* m evaluations each, zero-padded; the callee may overwrite them. NULL (only for
                           an accel with rows_ok) when the caller handed in its evaluations: then */
    const cuzk_fr *rows[3]; /* A·z, B·z, C·z on the nc circuit rows (read only), */
    size_t nc;
    const cuzk_fr *z_in; /* and a's next ni rows are the inputs z[0 .. ni); everything after is zero */
    size_t ni;
    size_t m;           /* 2^lg */
    unsigned lg;
    const cuzk_fr *aux; /* n_aux values: the L scalars */
    size_t n_aux;
    const cuzk_fr *sa, *sb; /* pk->n_a and pk->n_b scalars of the A and B queries */
    bool split;             /* split MSMs allowed (CUZK_PROVE_NO_SPLIT clears it) */
    bool check;             /* an accel with evals: check a∘b = c (CUZK_EUNSAT naming the first bad row) */
} prove_heavy_in;

typedef struct {
    cuzk_g1 h, l, a, b1;
    cuzk_g2 b2;
} prove_heavy_out;

typedef struct {
    int (*heavy)(void *ctx, const prove_heavy_in *in, prove_heavy_out *out, cuzk_pool *pool, char *err,
                 size_t errlen);
    void *ctx;
    bool rows_ok; /* takes the caller's rows as they are (prove_heavy_in.rows): no padded host copies */
    bool evals;   /* evaluates a, b, c from z (z_in: all n_inputs + n_aux values), checks them and gathers
                     the A/B scalars itself: a, b, c, rows, sa and sb are then NULL */
} prove_accel;

/* cuzk_groth16_prove_ex with the heavy middle done by accel (NULL = the CPU). */
int prove_bellperson(cuzk_groth16_proof *out, const cuzk_groth16_params *pk, const cuzk_cs *cs,
                     const cuzk_fr *z, const cuzk_fr *r, const cuzk_fr *s, const cuzk_prove_opts *opts,
                     const prove_accel *accel, cuzk_pool *pool, char *err, size_t errlen);

/* The heavy middle of the snarkjs prover (prove_snarkjs.c, steps 2-5): from the A and B evaluations, the
 * H scalars on the odd coset and the five MSMs over the zkey's point sections. */
typedef struct {
    const cuzk_snarkjs_zkey *zk;
    cuzk_fr *a, *b; /* n = domain_size evaluations each; the callee may overwrite them */
    size_t n;
    unsigned lg;
    const cuzk_fr *w; /* zk->n_vars witness values */
    bool split;       /* split MSMs allowed */
} prove_zkey_in;

typedef struct {
    cuzk_g1 h, a, b1, c;
    cuzk_g2 b2;
} prove_zkey_out;

typedef struct {
    int (*heavy)(void *ctx, const prove_zkey_in *in, prove_zkey_out *out, cuzk_pool *pool, char *err,
                 size_t errlen);
    void *ctx;
} prove_zkey_accel;

/* cuzk_groth16_prove_zkey_ex with the heavy middle done by accel (NULL = the CPU). */
int prove_snarkjs(cuzk_groth16_proof *out, cuzk_fr *public_out, const cuzk_snarkjs_zkey *zk, const cuzk_fr *w,
                  size_t n_w, const cuzk_fr *r, const cuzk_fr *s, const cuzk_prove_opts *opts,
                  const prove_zkey_accel *accel, cuzk_pool *pool, char *err, size_t errlen);

/* Decodes a whole point section of a zkey into a new malloc'd array *out (G1 or G2 affine, checked on
 * the curve); the message names the first bad point. */
int prove_zkey_decode(void **out, const cuzk_snarkjs_points *pts, bool g2, cuzk_pool *pool, char *err,
                      size_t errlen);

/* Pool tasks needed to cover n items in blocks of `block`. */
static inline size_t prove_blocks(size_t n, size_t block)
{
    return (n + block - 1) / block;
}

#endif
