/*
 * fr_random.c — uniform random scalars, for the prover's r and s, setup's
 * toxic waste and tests. 255-bit strings from getrandom() are rejected until
 * one is below r (about 1 in 10 is redrawn), so there is no modular bias;
 * the buffer is wiped before returning.
 */
#include <string.h>

#include "cuzk/common.h"
#include "cuzk/field.h"

int cuzk_fr_random(cuzk_fr *r)
{
    uint8_t b[32];
    int rc;
    do {
        if ((rc = cuzk_random_bytes(b, sizeof b)) != CUZK_OK)
            break;
        b[31] &= 0x7f;
    } while (!cuzk_fr_from_le32(r, b));
    volatile uint8_t *w = b;
    for (size_t i = 0; i < sizeof b; i++)
        w[i] = 0;
    return rc;
}
