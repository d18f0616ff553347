/*
 * setup_internal.h — what setup.c shares with coset_key.c (the key's conversion to the coset form).
 * Internal to src/.
 */
#ifndef CUZK_SRC_SETUP_INTERNAL_H
#define CUZK_SRC_SETUP_INTERNAL_H

#include <stddef.h>

#include "cuzk/cs.h"

/* Checks the shape of cs (inputs, index range, every matrix's rows, columns and coefficients) before a
 * setup or a conversion reads it: CUZK_EINVAL / CUZK_ERANGE with a message naming the first fault. */
int cuzk_setup_check_cs(const cuzk_cs *cs, char *err, size_t errlen);

#endif
