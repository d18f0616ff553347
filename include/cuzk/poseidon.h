/*
 * cuzk/poseidon.h — the Poseidon hash over the BLS12-381 scalar field as
 * Filecoin uses it: neptune 11's PoseidonConstants::new() (Strength::Standard,
 * HashType::MerkleTree), its native hash and its "legacy" R1CS gadget
 * (neptune's circuit.rs, not circuit2).
 *
 * A set of constants belongs to one arity (the number of field elements
 * hashed; the permutation width is arity + 1) and one domain tag (state
 * element 0 before the first round). Everything is derived here from first
 * principles the first time it is asked for, so there are no tables to
 * trust: round numbers from the Poseidon security inequalities with neptune's
 * margin (float32 arithmetic, as neptune computes them), round constants from
 * the Grain LFSR, the Cauchy MDS matrix and its inverse, and neptune's
 * optimized representation (compressed round constants, the pre-sparse
 * matrix and the sparse factors) that both the fast native hash and the
 * circuit use. docs/design/016-poseidon.md explains each derivation.
 *
 * Supported arities: 2 to 36 (Filecoin uses 2, 4, 8 and 11). The MerkleTree
 * constants of an arity are built once per process behind a lock and never
 * freed; constants with a custom tag are owned by the caller.
 */
#ifndef CUZK_POSEIDON_H
#define CUZK_POSEIDON_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/common.h"
#include "cuzk/csb.h"
#include "cuzk/field.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUZK_POSEIDON_MIN_ARITY 2u
#define CUZK_POSEIDON_MAX_ARITY 36u

typedef struct cuzk_poseidon_consts cuzk_poseidon_consts; /* opaque; one per (arity, tag) */

/* The tables inside a set of constants, for tests and for code that walks the permutation itself.
 * Matrices are width×width, row-major (m[i·width + j] is row i, column j). neptune multiplies a
 * state row vector by a matrix: new[j] = Σ_i state[i]·m[i][j]. */
typedef struct {
    unsigned arity, width; /* width = arity + 1 */
    unsigned rf, rp;       /* full rounds (even; half before, half after) and partial rounds */
    cuzk_fr tag;           /* state element 0 before the first round */
    const cuzk_fr *rc;     /* (rf + rp)·width Grain round constants, round after round */
    const cuzk_fr *mds;    /* the Cauchy matrix M[i][j] = 1/(i + width + j) (symmetric) */
    const cuzk_fr *mds_inv;
    const cuzk_fr *crc;        /* rf·width + rp compressed round constants */
    const cuzk_fr *pre_sparse; /* the dense matrix used after the last full round of the first half */
    const cuzk_fr *w_hat;      /* rp rows of width values: column 0 of each sparse factor, in use order */
    const cuzk_fr *v_rest;     /* rp rows of width - 1 values: row 0 of each sparse factor, past column 0 */
} cuzk_poseidon_tables;

/* The MerkleTree constants of an arity (tag 2^arity - 1); NULL for an unsupported arity or when memory
 * runs out. Thread-safe; built on first use and kept for the life of the process (do not free). */
const cuzk_poseidon_consts *cuzk_poseidon_get(unsigned arity);

/* Constants with a custom domain tag (SnapDeals uses 2^40 with arity 2); NULL for an unsupported
 * arity, a NULL tag or when memory runs out. The caller frees them with cuzk_poseidon_free. */
const cuzk_poseidon_consts *cuzk_poseidon_get_tag(unsigned arity, const cuzk_fr *tag);

/* Frees constants from cuzk_poseidon_get_tag; NULL and the shared ones from cuzk_poseidon_get are
 * ignored. */
void cuzk_poseidon_free(const cuzk_poseidon_consts *c);

/* The tables of c (borrowed; valid as long as c). */
const cuzk_poseidon_tables *cuzk_poseidon_tables_of(const cuzk_poseidon_consts *c);

/* out = Poseidon(tag, in[0..arity)): state[1] after the permutation. c, in and out must be valid. This walks
 * neptune's optimized representation (compressed constants, sparse partial-round matrices), as neptune's own
 * hash does; in and out may overlap. */
void cuzk_poseidon_hash(const cuzk_poseidon_consts *c, const cuzk_fr *in, cuzk_fr *out);

/* The same hash computed the textbook way (add round constants, S-box x^5, dense MDS, every round).
 * Slower; kept as the reference the optimized walk is tested against. */
void cuzk_poseidon_hash_textbook(const cuzk_poseidon_consts *c, const cuzk_fr *in, cuzk_fr *out);

/* neptune's legacy circuit for out = Poseidon(tag, in): in holds arity allocated variables of cs;
 * *out is the allocated result. Adds 3·(width·rf + rp - 1) + (width·rf + rp - arity) constraints and
 * as many aux variables (311 / 377 / 505 / 598 for arity 2 / 4 / 8 / 11), in neptune's order with
 * neptune's linear combinations. With CUZK_CSB_VALUES the intermediate values follow the optimized
 * walk and *out's value equals cuzk_poseidon_hash of the inputs' values. Returns CUZK_OK, the
 * builder's sticky error (also when it already had one before the call: nothing is added then),
 * CUZK_EINVAL for NULL arguments or CUZK_ENOMEM; on error *out is left unset. */
int cuzk_poseidon_circuit(cuzk_csb *cs, const cuzk_poseidon_consts *c, const cuzk_var *in, cuzk_var *out);

/* neptune's round numbers for a width (= arity + 1), from the Poseidon paper's inequalities for a
 * 256-bit field and 128-bit security plus neptune's margin (+2 full rounds, partial rounds × 1.075,
 * rounded up), in float32 as neptune computes them. Returns CUZK_EINVAL for width < 2 or > 4095. */
int cuzk_poseidon_round_numbers(unsigned width, unsigned *rf, unsigned *rp);

/* The first n round constants of the Grain LFSR stream for (width, rf, rp) with neptune's parameters
 * (prime field, S-box code 1, 255-bit field): 255-bit big-endian candidates, those >= r rejected.
 * Returns CUZK_EINVAL when width, rf or rp does not fit its field of the LFSR's initial state. */
int cuzk_poseidon_grain(cuzk_fr *out, size_t n, unsigned width, unsigned rf, unsigned rp);

#ifdef __cplusplus
}
#endif
#endif
