/*
 * cuzk/catalog.h — named test circuits built from the gadgets of
 * cuzk/gadgets.h, with their structural fingerprint.
 *
 * Each circuit allocates fresh inputs for one gadget (bits, numbers or state
 * words, with a deterministic witness drawn from a seed), then runs the
 * gadget. The fingerprint is what the Filecoin circuit notes compare
 * (porep-circuit.md §9.2): inputs, aux, constraints, nnz of A, B, C, the
 * three density popcounts the prover uses, the R1CS digest (bellpepper's
 * TestConstraintSystem::hash layout) and the witness digest, plus the rows
 * the gadget itself added (without the allocation of its inputs) and the
 * first row the witness fails (-1: satisfied). `cuzk inspect --circuit NAME`
 * prints it.
 */
#ifndef CUZK_CATALOG_H
#define CUZK_CATALOG_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/csb.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Number of circuits, and the name / one-line description of circuit i (NULL past the end). */
size_t cuzk_catalog_count(void);
const char *cuzk_catalog_name(size_t i);
const char *cuzk_catalog_summary(size_t i);

/* Builds circuit NAME with the witness of seed into cs (any flags); *setup_rows = the rows of the input
 * allocation, before the gadget (may be NULL). CUZK_EINVAL for an unknown name (message in err), else
 * the builder's error. */
int cuzk_catalog_build(const char *name, uint64_t seed, cuzk_csb *cs, uint64_t *setup_rows, char *err,
                       size_t errlen);

typedef struct {
    uint64_t n_inputs, n_aux, n_constraints; /* n_inputs includes ONE */
    uint64_t gadget_constraints;             /* n_constraints minus the rows allocating the inputs */
    uint64_t nnz_a, nnz_b, nnz_c;
    uint64_t a_aux, b_input, b_aux; /* density popcounts (cuzk_cs_density) */
    uint8_t digest[32];             /* cuzk_cs_digest */
    uint8_t witness_digest[32];     /* cuzk_witness_digest */
    int64_t first_failure;          /* cuzk_cs_check of the witness: -1 satisfied */
} cuzk_catalog_fp;

/* Builds NAME (RECORD + VALUES), finishes it and fills *fp. */
int cuzk_catalog_fingerprint(const char *name, uint64_t seed, cuzk_catalog_fp *fp, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
