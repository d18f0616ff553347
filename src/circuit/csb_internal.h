/*
 * csb_internal.h — helpers the gadget files share with the builder, not part
 * of the public contract.
 *
 * Gadgets build long linear combinations (an addmany of ten 32-bit operands,
 * a 255-bit unpacking) term by term in no useful order. Inserting each term
 * into a sorted lc would cost O(n) per term, so they append terms unsorted
 * with csb_lc_push and restore the lc invariants (sorted, merged, zero-free)
 * once with csb_lc_normalize. Between the two the lc must not be handed to
 * any cuzk_lc_* function or to enforce.
 */
#ifndef CUZK_CSB_INTERNAL_H
#define CUZK_CSB_INTERNAL_H

#include "cuzk/csb.h"

/* Appends coef · v without merging or sorting (zero coefficients are skipped). CUZK_OK or ENOMEM. */
int csb_lc_push(cuzk_lc *lc, cuzk_var v, const cuzk_fr *coef);
/* Sorts, merges equal variables, drops zero coefficients. */
void csb_lc_normalize(cuzk_lc *lc);
/* r = 2^k in Fr (k < 256). */
void csb_fr_pow2(cuzk_fr *r, unsigned k);
/* True when the builder needs linear combinations at all (RECORD or CHECK); without them gadgets only
 * count their rows. */
static inline bool csb_need_lc(const cuzk_csb *cs)
{
    return (cuzk_csb_flags(cs) & (CUZK_CSB_RECORD | CUZK_CSB_CHECK)) != 0;
}
/* True when the builder keeps values. */
static inline bool csb_has_values(const cuzk_csb *cs)
{
    return (cuzk_csb_flags(cs) & CUZK_CSB_VALUES) != 0;
}

#endif
