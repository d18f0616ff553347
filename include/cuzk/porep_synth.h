/*
 * cuzk/porep_synth.h — a synthetic circuit shaped like one partition of a
 * 32 GiB PoRep (StackedDrg) proof, and its witnesses, at any size.
 *
 * The engine, the benchmarks and the GPU backend need PoRep-sized work
 * without the Filecoin circuits: a satisfiable R1CS whose sizes, non-zeros
 * per row, density bitmaps, witness value distribution and locality look like
 * the real partition (reference/cuzk-spec.md §5). The circuit is built from
 * the gadgets of a SHA-256 circuit (booleans, XOR, AND, Ch, Maj, additions
 * checked by packed linear rows) with a Poseidon-like x^5 chain on the side
 * and public inputs packed from witness bits, so every witness satisfies it
 * by construction (docs/design/011-porep-synth.md).
 *
 * A shape fixes the sizes and the seed fixes the circuit (wiring and
 * constants): the same shape always gives the same matrices, bit for bit. A
 * "proof" is several partitions of one circuit; partition p gets its own
 * witness (its own free bits, hence its own public inputs). Both builders
 * split the work over a pool and give identical bytes for any thread count.
 * The matrices come out in the compact form of cuzk/cs.h (one-byte
 * coefficient indices).
 */
#ifndef CUZK_POREP_SYNTH_H
#define CUZK_POREP_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/cs.h"
#include "cuzk/field.h"
#include "cuzk/pool.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One 32 GiB PoRep partition as cuzk's PCE extraction measured it: rows include the one input row per
 * input that the prover appends, so the circuit itself has ROWS - INPUTS rows. */
#define CUZK_POREP_ROWS 130278869ull
#define CUZK_POREP_INPUTS 328ull
#define CUZK_POREP_AUX 130169893ull
#define CUZK_POREP_PARTITIONS 10u
#define CUZK_POREP_MAX_SCALE 16u /* 2^16 times smaller: 1988 rows */

typedef struct {
    uint64_t rows;   /* circuit rows + inputs (the n of the QAP before padding to 2^k) */
    uint64_t inputs; /* public inputs, ONE included */
    uint64_t aux;    /* private variables */
    uint64_t seed;   /* wiring and constants */
} cuzk_porep_shape;

/* The full-scale shape divided by 2^k (k <= CUZK_POREP_MAX_SCALE), ratios kept: rows, and rows - inputs
 * - aux (the rows that define no variable), are the full numbers / 2^k rounded; inputs the same but at
 * least 2. k = 0 gives the full partition exactly. CUZK_EINVAL for k out of range or a NULL out. */
int cuzk_porep_shape_scale(cuzk_porep_shape *out, unsigned k, uint64_t seed);

/* CUZK_OK when the generator can build the shape, else CUZK_EINVAL or CUZK_ERANGE with the reason:
 * at least 1024 circuit rows, 1 <= inputs, aux <= circuit rows <= aux + circuit rows / 16 (rows that
 * define no variable are the packed addition checks and the input rows), at most 4 public inputs per
 * 16384 rows, fewer than 2^32 variables. */
int cuzk_porep_synth_check(const cuzk_porep_shape *shape, char *err, size_t errlen);

/* Builds the circuit into *cs (zeroed first; free with cuzk_cs_free): n_inputs = shape->inputs, n_aux =
 * shape->aux, n_constraints = shape->rows - shape->inputs, all three matrices compact. Deterministic in
 * the shape; the pool only changes the speed. CUZK_ENOMEM when the matrices do not fit (nothing is
 * left allocated). */
int cuzk_porep_synth_cs(cuzk_cs *cs, const cuzk_porep_shape *shape, cuzk_pool *pool, char *err,
                        size_t errlen);

/* Writes the witness of partition `partition` into z (caller owned, shape->inputs + shape->aux values,
 * Montgomery): z[0] = 1, then the public inputs, then the aux values. It satisfies the circuit of
 * cuzk_porep_synth_cs for the same shape; different partitions give different witnesses. Deterministic
 * in (shape, partition), whatever the pool. */
int cuzk_porep_synth_witness(cuzk_fr *z, const cuzk_porep_shape *shape, uint32_t partition, cuzk_pool *pool,
                             char *err, size_t errlen);

/* The numbers the generator is tuned to, measured the way bellperson's prover sees a circuit: rows and
 * nnz A include the input rows (z_i · 0 = 0, one A term each), densities are cuzk_cs_density's. */
typedef struct {
    uint64_t rows, inputs, aux;
    uint64_t nnz_a, nnz_b, nnz_c;
    uint64_t a_aux_dense, b_input_dense, b_aux_dense; /* popcounts of the three density bitmaps */
    uint64_t aux_bits;                                /* aux values that are 0 or 1 */
    double a_per_row, b_per_row, c_per_row;           /* nnz / rows */
    double a_aux_density, b_aux_density;              /* popcount / aux */
    double bits_fraction;                             /* aux_bits / aux */
} cuzk_porep_profile;

/* The profile of cs (any circuit) and, if z is not NULL, of its witness (else aux_bits and bits_fraction
 * are 0). CUZK_ENOMEM if the density bitmaps cannot be allocated. */
int cuzk_porep_profile_measure(cuzk_porep_profile *out, const cuzk_cs *cs, const cuzk_fr *z);

/* The real partition's profile (PCE extraction numbers; bits_fraction 0.99, the usual estimate). */
void cuzk_porep_profile_target(cuzk_porep_profile *out);

#ifdef __cplusplus
}
#endif
#endif
