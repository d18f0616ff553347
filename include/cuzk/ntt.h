/*
 * cuzk/ntt.h — number-theoretic transforms over Fr on the CPU.
 *
 * A domain of size n = 2^lg (lg = 0..28) fixes a primitive n-th root of unity
 * ω, a coset shift g and small twiddle tables. Transforms work in place on n
 * Montgomery-form Fr elements owned by the caller:
 *
 *   forward:  X[i] = Σ_j x[j] · ω^(i·j)                 (evaluations at ω^i)
 *   inverse:  x[j] = n^-1 · Σ_i X[i] · ω^(-i·j)         (coefficients)
 *   coset forward: evaluations at g·ω^i (x[j] is first multiplied by g^j);
 *   coset inverse: inverse, then coefficient j is multiplied by g^-j.
 *
 * Orders name the input and output layout: NN natural → natural, NR natural →
 * bit-reversed (no permutation pass: what a GPU pipeline wants before a
 * pointwise step), RN bit-reversed → natural. Position p of a bit-reversed
 * vector holds index bitrev_lg(p). An NR forward followed by an RN inverse is
 * the identity, with no permutation anywhere.
 *
 * Root conventions (the ω for a given n differs between them, and so does
 * every transform):
 *   CUZK_NTT_BELLPERSON  ω_lg = (7^t)^(2^(32-lg)), t = (r-1)/2^32, g = 7
 *                        (blstrs ROOT_OF_UNITY, MULTIPLICATIVE_GENERATOR).
 *   CUZK_NTT_SNARKJS     ω_lg = (5^t)^(2^(32-lg)), 5 being the smallest
 *                        quadratic non-residue (ffjavascript's nqr);
 *                        g = ω_(lg+1), the shift of snarkjs' Groth16 "odd
 *                        coset" (the evaluation points are the odd powers of
 *                        ω_(lg+1)).
 * docs/design/002-cpu-ntt.md records where these come from.
 *
 * Threading: every transform takes a cuzk_pool (NULL = calling thread only);
 * results are bit-identical for any pool size. A domain is read-only during a
 * transform, so several threads may share one.
 */
#ifndef CUZK_NTT_H
#define CUZK_NTT_H

#include <stdbool.h>
#include <stddef.h>

#include "cuzk/common.h"
#include "cuzk/field.h"
#include "cuzk/pool.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUZK_NTT_MAX_LG 28      /* largest supported domain: 2^28 elements (8 GiB of data) */
#define CUZK_NTT_TWO_ADICITY 32 /* r - 1 = 2^32 · t, t odd */

typedef enum { CUZK_NTT_BELLPERSON = 0, CUZK_NTT_SNARKJS = 1 } cuzk_ntt_convention;
typedef enum { CUZK_NTT_FORWARD = 0, CUZK_NTT_INVERSE = 1 } cuzk_ntt_dir;
typedef enum { CUZK_NTT_NN = 0, CUZK_NTT_NR = 1, CUZK_NTT_RN = 2 } cuzk_ntt_order;

/*
 * A transform domain. The public fields are read-only for callers; tw and the
 * tuning fields belong to the implementation. Initialise with
 * cuzk_ntt_domain_init (caller-owned struct, undo with _release) or get one
 * from cuzk_ntt_domain_new (undo with _free). A copy of the struct shares the
 * twiddle table: pass domains by pointer and release each init exactly once.
 */
typedef struct {
    unsigned lg; /* n = 2^lg */
    size_t n;
    cuzk_ntt_convention conv;
    cuzk_fr omega, omega_inv; /* primitive n-th root of unity and its inverse */
    cuzk_fr n_inv;            /* n^-1 */
    cuzk_fr g, g_inv;         /* coset shift and its inverse */
    cuzk_fr z_inv;            /* (g^n - 1)^-1 = 1 / Z(X) on the coset, Z(X) = X^n - 1 */
    /* implementation */
    unsigned lg_block, lg_radix;
    cuzk_fr *tw;
} cuzk_ntt_domain;

/* out = ω_lg, the primitive 2^lg-th root of unity of a convention, lg = 0..32. */
int cuzk_ntt_root_of_unity(cuzk_fr *out, unsigned lg, cuzk_ntt_convention conv);

/* Builds the domain of size 2^lg (lg <= CUZK_NTT_MAX_LG) into a caller-owned
 * struct; allocates 2·min(2^lg, 2^12) Fr of twiddles (256 KiB at most). */
int cuzk_ntt_domain_init(cuzk_ntt_domain *d, unsigned lg, cuzk_ntt_convention conv, char *err, size_t errlen);
/* Frees what _init allocated and zeroes d; NULL and zeroed structs are fine. */
void cuzk_ntt_domain_release(cuzk_ntt_domain *d);
/* Heap-allocating form of _init; *out is NULL on failure. */
int cuzk_ntt_domain_new(cuzk_ntt_domain **out, unsigned lg, cuzk_ntt_convention conv, char *err,
                        size_t errlen);
/* Releases and frees a domain from _new; NULL is fine. */
void cuzk_ntt_domain_free(cuzk_ntt_domain *d);

/* Replaces the coset shift (and g_inv, z_inv); rejects g = 0 and any g with
 * g^n = 1, for which the coset is the domain itself and Z vanishes on it. */
int cuzk_ntt_domain_set_coset(cuzk_ntt_domain *d, const cuzk_fr *g, char *err, size_t errlen);

/* Tuning knob (benchmarks and tests): stages on blocks of 2^lg_block elements
 * run in cache; the stages above are fused lg_radix at a time per memory pass.
 * 1 <= lg_radix <= min(lg_block, 8), 2 <= lg_block <= 16. Defaults: 12 and 8. */
int cuzk_ntt_domain_tune(cuzk_ntt_domain *d, unsigned lg_block, unsigned lg_radix, char *err, size_t errlen);

/* Transforms data (d->n elements) in place: direction, layout, optional coset
 * (see the top of this header). Borrows d and pool. */
int cuzk_ntt(const cuzk_ntt_domain *d, cuzk_fr *data, cuzk_ntt_dir dir, cuzk_ntt_order order, bool coset,
             cuzk_pool *pool, char *err, size_t errlen);

/* Permutes 2^lg elements in place (lg <= CUZK_NTT_MAX_LG): data[p] <-> data[bitrev_lg(p)]. */
int cuzk_ntt_bit_reverse(cuzk_fr *data, unsigned lg, cuzk_pool *pool, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
