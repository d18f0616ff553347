/*
 * tower.h — internals of the Fp6/Fp12 tower shared by fp12.c, pairing.c and
 * the tower test.
 *
 * CUZK_FP12_FROB[k-1][i-1] = xi^(i (p^k - 1) / 6) for k = 1..3, i = 1..5,
 * xi = 1 + u: the factor the Frobenius x -> x^(p^k) puts on the coefficient
 * of w^i (w^6 = xi). The entries are literal Montgomery constants; the tower
 * test recomputes every one of them from xi with cuzk_fp2_pow.
 */
#ifndef CUZK_TOWER_H
#define CUZK_TOWER_H

#include "cuzk/pairing.h"

extern const cuzk_fp2 CUZK_FP12_FROB[3][5];

#endif
