/*
 * cuzk/csb.h — the constraint-system builder that circuit (gadget) code
 * writes into: variables, linear combinations, enforce.
 *
 * The semantics are bellpepper-core 0.2's, so a circuit written against this
 * builder produces the same variables and rows, in the same order, as the
 * Rust circuit it transcribes (porep-circuit.md §3.1):
 * - two index spaces, inputs and aux, each in allocation order; input 0 is
 *   the constant ONE and exists from the start;
 * - a linear combination keeps its terms sorted (inputs before aux, by
 *   index), merges equal variables and drops zero coefficients after every
 *   operation;
 * - every enforce appends one row A · B = C.
 *
 * One builder serves three uses, chosen by flags at creation, so that the
 * same gadget code yields structure, witness or a check:
 * - RECORD keeps the A, B, C matrices (the structure);
 * - VALUES keeps a value per variable (the witness) — without RECORD no
 *   matrices are built at all, the fast witness-only path;
 * - CHECK (with VALUES) evaluates every row as it is enforced and remembers
 *   the first one that fails.
 *
 * Errors are sticky: the first failure (allocation, bad argument) is kept,
 * every later call becomes a no-op, and cuzk_csb_error / cuzk_csb_finish
 * report it. No call crashes on a NULL builder or after an error.
 */
#ifndef CUZK_CSB_H
#define CUZK_CSB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/common.h"
#include "cuzk/cs.h"
#include "cuzk/field.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A variable: bit 31 set for an input, the low 31 bits its index in its own space. */
typedef uint32_t cuzk_var;
#define CUZK_VAR_INPUT 0x80000000u
#define CUZK_VAR_ONE ((cuzk_var)CUZK_VAR_INPUT) /* input 0, the constant 1 */

static inline cuzk_var cuzk_var_aux(uint32_t i)
{
    return (cuzk_var)(i & ~CUZK_VAR_INPUT);
}
static inline cuzk_var cuzk_var_input(uint32_t i)
{
    return (cuzk_var)(i | CUZK_VAR_INPUT);
}
static inline bool cuzk_var_is_input(cuzk_var v)
{
    return (v & CUZK_VAR_INPUT) != 0;
}
static inline uint32_t cuzk_var_index(cuzk_var v)
{
    return v & ~CUZK_VAR_INPUT;
}

/* ---- linear combinations ------------------------------------------------------------------------ */

typedef struct {
    cuzk_var var;
    cuzk_fr coef; /* Montgomery, never zero inside an lc */
} cuzk_lc_term;

/* Terms sorted inputs-before-aux, by index; equal variables merged; zero coefficients removed (always,
 * after every operation). A zeroed struct is an empty lc. */
typedef struct {
    cuzk_lc_term *t;
    uint32_t n, cap;
} cuzk_lc;

/* Empty lc (the same as a zeroed struct). */
void cuzk_lc_init(cuzk_lc *lc);
/* Frees the terms; lc is empty afterwards. */
void cuzk_lc_free(cuzk_lc *lc);
/* n = 0, keeps the capacity. */
void cuzk_lc_clear(cuzk_lc *lc);
/* lc += coef · v. Returns CUZK_OK or CUZK_ENOMEM (lc unchanged). */
int cuzk_lc_add(cuzk_lc *lc, cuzk_var v, const cuzk_fr *coef);
/* lc += small · v (negative ok). CUZK_OK or CUZK_ENOMEM. */
int cuzk_lc_add_u64(cuzk_lc *lc, cuzk_var v, int64_t small_coef);
/* lc += scale · o; scale NULL means 1; o may equal lc. CUZK_OK or CUZK_ENOMEM (lc unchanged). */
int cuzk_lc_add_lc(cuzk_lc *lc, const cuzk_lc *o, const cuzk_fr *scale);
/* dst = src (dst's old terms dropped). CUZK_OK or CUZK_ENOMEM. */
int cuzk_lc_copy(cuzk_lc *dst, const cuzk_lc *src);

/* ---- the builder -------------------------------------------------------------------------------- */

enum {
    CUZK_CSB_RECORD = 1u, /* keep the A, B, C matrices */
    CUZK_CSB_VALUES = 2u, /* keep variable values (alloc gets a value) */
    CUZK_CSB_CHECK = 4u,  /* with VALUES: evaluate each enforce, remember the first failing row */
};

typedef struct cuzk_csb cuzk_csb;

/* A new builder with the given flags; ONE (input 0, value 1) exists already. NULL on ENOMEM or when
 * CHECK is asked without VALUES. Free with cuzk_csb_free. */
cuzk_csb *cuzk_csb_new(unsigned flags);
/* Frees everything; NULL is fine. */
void cuzk_csb_free(cuzk_csb *cs);
/* The flags the builder was made with (0 for NULL). */
unsigned cuzk_csb_flags(const cuzk_csb *cs);

/* A new aux variable (in *out). value is used only with VALUES (NULL there means 0) and ignored
 * otherwise. After an error *out is set to ONE and the call does nothing. */
int cuzk_csb_alloc(cuzk_csb *cs, const cuzk_fr *value, cuzk_var *out);
/* A new input variable, the same rules. */
int cuzk_csb_alloc_input(cuzk_csb *cs, const cuzk_fr *value, cuzk_var *out);
/* Appends the row a · b = c (borrowed; NULL means an empty lc). Every variable must exist
 * (CUZK_EINVAL otherwise, sticky). With CHECK the row is evaluated; the first failing row index is
 * kept (a failing row is not an error). */
int cuzk_csb_enforce(cuzk_csb *cs, const cuzk_lc *a, const cuzk_lc *b, const cuzk_lc *c);

/* The value of v (VALUES only; zero without VALUES, for an unknown variable or a NULL builder). */
void cuzk_csb_value(const cuzk_csb *cs, cuzk_var v, cuzk_fr *out);
/* <lc, values> (VALUES only; zero otherwise). */
void cuzk_csb_lc_value(const cuzk_csb *cs, const cuzk_lc *lc, cuzk_fr *out);

uint64_t cuzk_csb_n_inputs(const cuzk_csb *cs); /* ONE included */
uint64_t cuzk_csb_n_aux(const cuzk_csb *cs);
uint64_t cuzk_csb_n_constraints(const cuzk_csb *cs);
/* CHECK: the first unsatisfied row index, or -1 (also -1 without CHECK). */
int64_t cuzk_csb_first_failure(const cuzk_csb *cs);
/* Sticky: the first error (CUZK_OK if none; CUZK_EINVAL for a NULL builder). */
int cuzk_csb_error(const cuzk_csb *cs);
/* Records rc as the builder's error when it is the first one (CUZK_OK changes nothing); returns the
 * sticky error. Lets gadget code route failures of its own (an lc that could not grow) into the builder. */
int cuzk_csb_note(cuzk_csb *cs, int rc);
/* Overwrites the value of aux or input v (VALUES only): for tests that corrupt a witness. */
int cuzk_csb_set_value(cuzk_csb *cs, cuzk_var v, const cuzk_fr *value);

/* Hands the recorded system over in our prover's form (cuzk/cs.h: unified index, inputs first, then
 * aux at n_inputs + i; circuit rows only, the prover adds the x·0 = 0 input rows itself), compacted
 * (cuzk_cs_compact), and, with VALUES, z = inputs ‖ aux values (malloc'd, caller frees). out may be
 * NULL to take only z; z may be NULL to take only the structure. out needs RECORD, z needs VALUES
 * (CUZK_EINVAL otherwise). Returns the sticky error if there is one (nothing handed over then). The
 * builder keeps its counts and values; its matrices move into *out. */
int cuzk_csb_finish(cuzk_csb *cs, cuzk_cs *out, cuzk_fr **z);

/* ---- digests (bellpepper-core TestConstraintSystem::hash, porep-circuit.md §9.3) ----------------- */

/* BLAKE2s-256 over BE u64 num_inputs ‖ BE u64 num_aux ‖ BE u64 num_constraints, then per row, for A,
 * B, C: BE u64 term count, then per term 'I'|'A' ‖ BE u64 index (in its own space) ‖ 32-byte
 * big-endian canonical coefficient (terms of one variable merged, zeros dropped, inputs before aux, by
 * index). CUZK_ENOMEM if a row's scratch cannot be allocated. */
int cuzk_cs_digest(const cuzk_cs *cs, uint8_t out[32]);
/* BLAKE2s-256 over the 32-byte little-endian canonical values of the inputs then the aux variables. */
void cuzk_witness_digest(size_t n_inputs, size_t n_aux, const cuzk_fr *z, uint8_t out[32]);

#ifdef __cplusplus
}
#endif
#endif
