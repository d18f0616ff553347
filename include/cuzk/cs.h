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

#include "cuzk/common.h"
#include "cuzk/field.h"
#include "cuzk/pool.h"
#include "cuzk/snarkjs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One matrix in compressed sparse rows: the terms of row i are k = row[i] .. row[i+1]-1, variable col[k]
 * times the coefficient cuzk_csr_coef(m, k) (Montgomery). Duplicate columns add up. Coefficients are held
 * in one of two forms, and every reader goes through cuzk_csr_coef, so both work everywhere:
 * - plain: val[k], one 32-byte Fr per term; coef, idx8 and idx16 are NULL;
 * - compact: a table coef[0 .. n_coef) of distinct values and one narrow index per term, idx8[k] when
 *   n_coef <= 256, else idx16[k] (n_coef <= 65536); val and the other index array are NULL.
 * Real circuits use few distinct coefficients (±1, 2, powers of two, a few hash constants), so the compact
 * form stores 4 + 1 (or 4 + 2) bytes per term instead of 4 + 32. */
typedef struct {
    uint64_t *row; /* n_constraints + 1 offsets (owned) */
    uint32_t *col; /* owned */
    cuzk_fr *val;  /* owned; plain form only */
    uint64_t nnz;
    cuzk_fr *coef;   /* owned; compact form: the table of coefficients */
    uint32_t n_coef; /* entries in coef */
    uint8_t *idx8;   /* owned; compact form with n_coef <= 256 */
    uint16_t *idx16; /* owned; compact form with n_coef > 256 */
} cuzk_csr;

/* The coefficient of term k, whichever form m holds. */
static inline const cuzk_fr *cuzk_csr_coef(const cuzk_csr *m, uint64_t k)
{
    if (m->val)
        return &m->val[k];
    return &m->coef[m->idx8 ? m->idx8[k] : m->idx16[k]];
}

typedef struct {
    size_t n_inputs; /* including ONE */
    size_t n_aux;
    size_t n_constraints; /* circuit rows, before the prover's input rows */
    cuzk_csr a, b, c;
} cuzk_cs;

/* Shapes of cuzk_cs_random's circuits and witnesses. */
typedef enum {
    CUZK_CS_RANDOM_UNIFORM = 0, /* witness values and coefficients uniform in Fr */
    CUZK_CS_RANDOM_BITS = 1,    /* Groth16-like: aux values mostly 0 or 1, coefficients mostly +-1 */
} cuzk_cs_shape;

/* Copies a circom .r1cs into *out (zeroed first): n_inputs = 1 + n_pub_out + n_pub_in, n_aux the rest of
 * the wires. Borrows r1cs; *out owns its arrays (free with cuzk_cs_free). */
int cuzk_cs_from_snarkjs(cuzk_cs *out, const cuzk_snarkjs_r1cs *r1cs, char *err, size_t errlen);

/* True when m holds coefficients for its nnz terms in exactly one of the two forms and, in the compact
 * form, every index lies inside the table (n_coef <= 256 with idx8, <= 65536 with idx16). O(nnz). */
bool cuzk_csr_coefs_ok(const cuzk_csr *m);

/* Converts m from the plain to the compact form in place: the distinct coefficients, in order of first
 * appearance, become the table; u8 indices when there are at most 256 of them, else u16. A compact m is
 * left as it is. Returns CUZK_ERANGE when there are more than 65536 distinct values and CUZK_ENOMEM when
 * the new arrays cannot be allocated; m is unchanged (plain, still valid) in both cases. */
int cuzk_csr_compact(cuzk_csr *m);

/* cuzk_csr_compact on A, B and C. A matrix with too many distinct coefficients stays plain (CUZK_OK all
 * the same: both forms are valid); CUZK_ENOMEM if an allocation fails (matrices done so far stay
 * compact, the rest plain). */
int cuzk_cs_compact(cuzk_cs *cs);

/* Bytes held by the three matrices (row offsets, columns, coefficients or table and indices). */
size_t cuzk_cs_bytes(const cuzk_cs *cs);

/* Frees the three matrices and zeroes cs; a zeroed struct is fine. */
void cuzk_cs_free(cuzk_cs *cs);

/* a[j] = <A_j, z>, b[j] = <B_j, z>, c[j] = <C_j, z> for the n_constraints circuit rows; z holds the
 * n_inputs + n_aux values (Montgomery). Any of a, b, c may be NULL to skip that matrix. Rows are split
 * over the pool; the result does not depend on the number of threads. */
void cuzk_cs_eval(const cuzk_cs *cs, const cuzk_fr *z, cuzk_fr *a, cuzk_fr *b, cuzk_fr *c, cuzk_pool *pool);

/* Index of the first circuit row with <A_j,z> <B_j,z> != <C_j,z>, or -1 when z satisfies every row. */
int64_t cuzk_cs_check(const cuzk_cs *cs, const cuzk_fr *z, cuzk_pool *pool);

/* bellperson's density bitmaps (bit i of word i/64, LSB first; ceil(n/64) words each, bits past n zero):
 * a_aux bit j = aux j has a non-zero coefficient in some A row, b_input / b_aux the same for B. Terms of
 * one variable in one row are added up first, so a variable whose coefficients cancel is not dense. Any
 * pointer may be NULL to skip that bitmap. Returns CUZK_ENOMEM if a row's scratch cannot be allocated. */
int cuzk_cs_density(const cuzk_cs *cs, uint64_t *a_aux, uint64_t *b_input, uint64_t *b_aux);
/* The same on pool's threads (NULL or one thread: on the caller's), in blocks of rows; the bitmaps are
 * the same whatever the threads. */
int cuzk_cs_density_pool(const cuzk_cs *cs, uint64_t *a_aux, uint64_t *b_input, uint64_t *b_aux, cuzk_pool *pool);

/* The set bits among the first n of a bitmap laid out as above (bits past n are not counted). */
size_t cuzk_cs_density_count(const uint64_t *bits, size_t n);

/* The three bitmaps' popcounts (a_aux, b_input, b_aux) without keeping the bitmaps: they are made, scanned
 * on pool (as cuzk_cs_density_pool) and freed here. CUZK_OK, or CUZK_ENOMEM. */
int cuzk_cs_density_pops(const cuzk_cs *cs, size_t pop[3], cuzk_pool *pool);

/* Builds a random satisfiable circuit with n_inputs >= 1 inputs (ONE included), n_aux aux variables and
 * n_constraints rows into *cs (zeroed first; free with cuzk_cs_free; plain form) and its witness into z
 * (caller owned, n_inputs + n_aux values, z[0] = 1). Every aux variable is constrained: aux j has a
 * non-zero merged C coefficient in row j mod n_constraints (rows own several variables when n_aux >
 * n_constraints), so n_aux > 0 needs n_constraints > 0 (else CUZK_EINVAL). Same seed and arguments,
 * same circuit. For tests and benchmarks. */
int cuzk_cs_random(cuzk_cs *cs, cuzk_fr *z, size_t n_inputs, size_t n_aux, size_t n_constraints,
                   uint64_t seed, cuzk_cs_shape shape);

#ifdef __cplusplus
}
#endif
#endif
