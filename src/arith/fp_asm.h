/*
 * fp_asm.h — the switch for the x86-64 MULX/ADX field multiplication.
 *
 * CUZK_ASM (set by CMake, default on for x86-64) enables it; the code is only
 * compiled when the compiler targets BMI2 and ADX. Until an assembly routine
 * is provided the portable path is used and CUZK_FP_HAVE_ASM is 0.
 */
#ifndef CUZK_FP_ASM_H
#define CUZK_FP_ASM_H

#include <stdint.h>

#define CUZK_FP_HAVE_ASM 0

#endif
