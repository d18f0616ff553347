/*
 * cuzk/cs.h — a rank-1 constraint system in memory, the prover's view of a
 * circuit: A·z ∘ B·z = C·z row by row.
 *
 * Variables use bellperson's unified index: inputs first, variable 0 being
 * the constant ONE, then the auxiliary (private) variables at
 * n_inputs .. n_inputs + n_aux - 1. Each matrix is stored in compressed
 * sparse rows. A circom/snarkjs .r1cs maps onto this directly (wire 0 = ONE,
 * then the public outputs and inputs, then the private wires).
 */
#ifndef CUZK_CS_H
#define CUZK_CS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/field.h"
#include "cuzk/pool.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One matrix: the terms of row i are k = row[i] .. row[i+1]-1, coefficient
 * val[k] (Montgomery) times variable col[k]. Duplicate columns add up. */
typedef struct {
    uint64_t *row; /* n_constraints + 1 offsets (owned) */
    uint32_t *col; /* owned */
    cuzk_fr *val;  /* owned */
    uint64_t nnz;
} cuzk_csr;

typedef struct {
    size_t n_inputs; /* including ONE */
    size_t n_aux;
    size_t n_constraints; /* circuit rows, before the prover's input rows */
    cuzk_csr a, b, c;
} cuzk_cs;

#ifdef __cplusplus
}
#endif
#endif
