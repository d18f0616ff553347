/*
 * fp_asm.h — the x86-64 MULX/ADCX/ADOX Montgomery multiplication for Fp (6
 * limbs) and Fr (4 limbs), the ADD/ADC addition and subtraction of both
 * fields, the switch that enables them, and the internal entry points that
 * tests and benchmarks call explicitly.
 *
 * One switch: CUZK_ASM (set by CMake for the library on x86-64) compiles the
 * assembly in; at run time arith_use_adx() checks once that the CPU has BMI2
 * and ADX and that CUZK_NO_ASM=1 is not set (fp_adx.c), caches the answer,
 * and every multiplication then costs one well-predicted branch on that
 * cached flag. Without the switch, or on an older CPU, the portable __int128
 * code in mont.h runs. Both paths return the fully reduced product, so they
 * agree bit for bit on every reduced input.
 *
 * The algorithm is operand-scanning Montgomery (CIOS), one 64-bit word of b
 * per round. A round adds a·b[i] to the accumulator t and then q·m with
 * q = t[0]·(-m^-1) mod 2^64, which clears t[0]; the accumulator then shifts
 * down one word. MULX leaves the flags alone, so each product row runs two
 * independent carry chains: ADCX adds the low halves (CF) and ADOX the high
 * halves (OF). Both moduli keep their top bit clear, so t < 2m holds after
 * every round and fits n words; a round needs n + 1 words, which seven (or
 * five) registers provide. The shift is free: the register that held t[0]
 * is zero after the reduction and becomes the next round's top word, so the
 * rounds are written out with the register names rotated by one. A final
 * conditional subtraction (SUB/SBB into copies, CMOV back) reduces t < 2m to
 * t < m.
 *
 * Registers: rax/rbx hold each product's low/high half, rdx the multiplier,
 * r8..r14 (Fp) or r8..r12 (Fr) the accumulator, and the three pointers take
 * whatever the compiler gives them; the modulus and -m^-1 are read from
 * memory (RIP-relative, static constants). No frame pointer register is used,
 * so the code also builds with -fno-omit-frame-pointer (sanitizers).
 *
 * Squaring is the multiplication with b = a. A dedicated squaring (15 cross
 * products doubled plus 6 squares, then a separate reduction) saves 15 of the
 * 72 MULX but serialises the six reduction rounds after the product instead
 * of overlapping them with it; blst, which has one, measures the same for
 * its squaring and its multiplication on this machine, so it was not written.
 *
 * The file also holds the inner loop of the inversion (divsteps62_asm), which
 * mont_inv() runs under the same switch. It uses only CMOV and plain ALU
 * instructions, but it follows the run-time switch anyway so that
 * CUZK_NO_ASM=1 gives the portable multiplication and inversion for A/B runs.
 *
 * Addition, subtraction, negation and doubling (fp_add_asm and the others,
 * reached through the inline arith_fp_add ... arith_fr_dbl at the end) are
 * plain ADD/ADC/SUB/SBB/CMOV code, which every x86-64 runs. They follow the
 * build switch only: no CPU check, and CUZK_NO_ASM does not affect them, so
 * an inlined addition costs no branch. They replace the portable mont_add and
 * mont_sub, which gcc 12 compiles to 20 ns (the conditional subtraction is
 * vectorized and stalls on store-to-load forwarding) where this takes 3 ns;
 * the _portable and _asm entry points below let tests and benchmarks compare
 * the two in one binary, and -DCUZK_ASM=OFF builds the portable library.
 *
 * The asm sections are excluded from clang-format, which would fold the
 * instruction strings into unreadable lines.
 */
#ifndef CUZK_FP_ASM_H
#define CUZK_FP_ASM_H

#include <stdbool.h>
#include <stdint.h>

#if defined(CUZK_ASM) && CUZK_ASM && defined(__x86_64__) && defined(__GNUC__)
#define CUZK_FP_HAVE_ASM 1
#else
#define CUZK_FP_HAVE_ASM 0
#endif

#include "cuzk/field.h"
#include "mont.h"

/* ---- internal entry points (tests, benchmarks) ---------------------------- */

/* True when the library was built with the assembly (CUZK_ASM). */
bool cuzk_arith_asm_compiled(void);
/* True when this CPU has BMI2 and ADX (the assembly can run here); always
 * false when the assembly is not compiled in. */
bool cuzk_arith_cpu_has_adx(void);
/* True when field multiplication uses the assembly: compiled in, CPU support,
 * and CUZK_NO_ASM=1 not set in the environment at the first call. */
bool cuzk_arith_asm_active(void);

/* Montgomery products on raw limbs; inputs reduced, outputs fully reduced.
 * Without the assembly compiled in, or on a CPU without ADX, the _adx forms
 * run the portable code (check the two predicates above to know which). */
void cuzk_fp_mul_portable(uint64_t r[6], const uint64_t a[6], const uint64_t b[6]);
void cuzk_fp_mul_adx(uint64_t r[6], const uint64_t a[6], const uint64_t b[6]);
void cuzk_fp_sqr_portable(uint64_t r[6], const uint64_t a[6]);
void cuzk_fp_sqr_adx(uint64_t r[6], const uint64_t a[6]);
void cuzk_fr_mul_portable(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]);
void cuzk_fr_mul_adx(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]);

/* Addition, subtraction, negation and doubling on raw limbs (inputs reduced,
 * outputs reduced): the portable code of mont.h, and the x86-64 assembly
 * (which needs no CPU check) or, when it is not compiled in, the portable
 * code again. The library's own calls take the assembly whenever it is
 * compiled in. */
void cuzk_fp_add_portable(uint64_t r[6], const uint64_t a[6], const uint64_t b[6]);
void cuzk_fp_sub_portable(uint64_t r[6], const uint64_t a[6], const uint64_t b[6]);
void cuzk_fp_neg_portable(uint64_t r[6], const uint64_t a[6]);
void cuzk_fp_dbl_portable(uint64_t r[6], const uint64_t a[6]);
void cuzk_fp_add_asm(uint64_t r[6], const uint64_t a[6], const uint64_t b[6]);
void cuzk_fp_sub_asm(uint64_t r[6], const uint64_t a[6], const uint64_t b[6]);
void cuzk_fp_neg_asm(uint64_t r[6], const uint64_t a[6]);
void cuzk_fp_dbl_asm(uint64_t r[6], const uint64_t a[6]);
void cuzk_fr_add_portable(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]);
void cuzk_fr_sub_portable(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]);
void cuzk_fr_neg_portable(uint64_t r[4], const uint64_t a[4]);
void cuzk_fr_dbl_portable(uint64_t r[4], const uint64_t a[4]);
void cuzk_fr_add_asm(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]);
void cuzk_fr_sub_asm(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]);
void cuzk_fr_neg_asm(uint64_t r[4], const uint64_t a[4]);
void cuzk_fr_dbl_asm(uint64_t r[4], const uint64_t a[4]);

/* The x86-64 CMOV version of mont_divsteps62 (the inversion's inner loop)
 * when the assembly is compiled in, else mont_divsteps62 itself. */
int64_t cuzk_arith_divsteps62(int64_t delta, uint64_t f, uint64_t g, int64_t t[4]);

/* Fermat inversions a^(m-2), kept as the reference for the fast inversions. */
bool cuzk_fp_inv_fermat(cuzk_fp *r, const cuzk_fp *a);
bool cuzk_fr_inv_fermat(cuzk_fr *r, const cuzk_fr *a);

#if CUZK_FP_HAVE_ASM

/* Dispatch state: 0 not yet decided, 1 assembly, -1 portable. */
extern int cuzk_arith_asm_state;
/* Decides the state once (CPU check, CUZK_NO_ASM) and returns it. */
int cuzk_arith_asm_init(void);

/* The cached run-time decision; one load and one predicted branch. */
static inline __attribute__((always_inline)) bool arith_use_adx(void)
{
    int s = __atomic_load_n(&cuzk_arith_asm_state, __ATOMIC_RELAXED);
    if (__builtin_expect(s > 0, 1))
        return true;
    return s == 0 && cuzk_arith_asm_init() > 0;
}

static const uint64_t ASM_P[6] = {0xb9feffffffffaaab, 0x1eabfffeb153ffff, 0x6730d2a0f6b0f624,
                                  0x64774b84f38512bf, 0x4b1ba7b6434bacd7, 0x1a0111ea397fe69a};
static const uint64_t ASM_P_INV = 0x89f3fffcfffcfffd;
static const uint64_t ASM_R[4] = {0xffffffff00000001, 0x53bda402fffe5bfe, 0x3339d80809a1d805,
                                  0x73eda753299d7d48};
static const uint64_t ASM_R_INV = 0xfffffffeffffffff;

/* clang-format off */

/* t[lo] += x.lo on the CF chain, t[hi] += x.hi on the OF chain, x = rdx * src. */
#define ASM_MAC(src, lo, hi)                                                                       \
    "mulx " src ", %%rax, %%rbx\n\t"                                                               \
    "adcx %%rax, %%" lo "\n\t"                                                                     \
    "adox %%rbx, %%" hi "\n\t"

/* First Fp round: t = a * b[0] (one carry chain, nothing to add yet). */
#define FP_ROUND0(T0, T1, T2, T3, T4, T5, T6)                                                      \
    "mov 0(%[b]), %%rdx\n\t"                                                                       \
    "mulx 0(%[a]), %%" T0 ", %%" T1 "\n\t"                                                         \
    "mulx 8(%[a]), %%rax, %%" T2 "\n\t"                                                            \
    "add %%rax, %%" T1 "\n\t"                                                                      \
    "mulx 16(%[a]), %%rax, %%" T3 "\n\t"                                                           \
    "adc %%rax, %%" T2 "\n\t"                                                                      \
    "mulx 24(%[a]), %%rax, %%" T4 "\n\t"                                                           \
    "adc %%rax, %%" T3 "\n\t"                                                                      \
    "mulx 32(%[a]), %%rax, %%" T5 "\n\t"                                                           \
    "adc %%rax, %%" T4 "\n\t"                                                                      \
    "mulx 40(%[a]), %%rax, %%" T6 "\n\t"                                                           \
    "adc %%rax, %%" T5 "\n\t"                                                                      \
    "adc $0, %%" T6 "\n\t"

/* t += a * b[i]; T6 is zero on entry (it held the word the last reduction cleared). */
#define FP_MULADD(OFF, T0, T1, T2, T3, T4, T5, T6)                                                 \
    "mov " OFF "(%[b]), %%rdx\n\t"                                                                 \
    "xor %%eax, %%eax\n\t"                                                                         \
    ASM_MAC("0(%[a])", T0, T1) ASM_MAC("8(%[a])", T1, T2) ASM_MAC("16(%[a])", T2, T3)              \
    ASM_MAC("24(%[a])", T3, T4) ASM_MAC("32(%[a])", T4, T5) ASM_MAC("40(%[a])", T5, T6)            \
    "adc $0, %%" T6 "\n\t"

/* t += q * p with q = t[0] * (-p^-1); afterwards T0 is zero. */
#define FP_REDUCE(T0, T1, T2, T3, T4, T5, T6)                                                      \
    "mov %%" T0 ", %%rdx\n\t"                                                                      \
    "imul %[pinv], %%rdx\n\t"                                                                      \
    "xor %%eax, %%eax\n\t"                                                                         \
    ASM_MAC("%[p]", T0, T1) ASM_MAC("8+%[p]", T1, T2) ASM_MAC("16+%[p]", T2, T3)                   \
    ASM_MAC("24+%[p]", T3, T4) ASM_MAC("32+%[p]", T4, T5) ASM_MAC("40+%[p]", T5, T6)               \
    "adc $0, %%" T6 "\n\t"

/* r = a * b / 2^384 mod p. */
static inline __attribute__((always_inline)) void fp_mul_asm(uint64_t r[6], const uint64_t a[6],
                                                             const uint64_t b[6])
{
    __asm__ volatile(
        FP_ROUND0("r8", "r9", "r10", "r11", "r12", "r13", "r14")
        FP_REDUCE("r8", "r9", "r10", "r11", "r12", "r13", "r14")
        FP_MULADD("8", "r9", "r10", "r11", "r12", "r13", "r14", "r8")
        FP_REDUCE("r9", "r10", "r11", "r12", "r13", "r14", "r8")
        FP_MULADD("16", "r10", "r11", "r12", "r13", "r14", "r8", "r9")
        FP_REDUCE("r10", "r11", "r12", "r13", "r14", "r8", "r9")
        FP_MULADD("24", "r11", "r12", "r13", "r14", "r8", "r9", "r10")
        FP_REDUCE("r11", "r12", "r13", "r14", "r8", "r9", "r10")
        FP_MULADD("32", "r12", "r13", "r14", "r8", "r9", "r10", "r11")
        FP_REDUCE("r12", "r13", "r14", "r8", "r9", "r10", "r11")
        FP_MULADD("40", "r13", "r14", "r8", "r9", "r10", "r11", "r12")
        FP_REDUCE("r13", "r14", "r8", "r9", "r10", "r11", "r12")
        /* t = (r14, r8, r9, r10, r11, r12) < 2p; subtract p into copies, keep on borrow */
        "mov %%r14, %%rax\n\t"
        "sub %[p], %%rax\n\t"
        "mov %%r8, %%rbx\n\t"
        "sbb 8+%[p], %%rbx\n\t"
        "mov %%r9, %%rdx\n\t"
        "sbb 16+%[p], %%rdx\n\t"
        "mov %%r10, %%r13\n\t"
        "sbb 24+%[p], %%r13\n\t"
        "mov %%r11, %[a]\n\t"
        "sbb 32+%[p], %[a]\n\t"
        "mov %%r12, %[b]\n\t"
        "sbb 40+%[p], %[b]\n\t"
        "cmovnc %%rax, %%r14\n\t"
        "cmovnc %%rbx, %%r8\n\t"
        "cmovnc %%rdx, %%r9\n\t"
        "cmovnc %%r13, %%r10\n\t"
        "cmovnc %[a], %%r11\n\t"
        "cmovnc %[b], %%r12\n\t"
        "mov %%r14, 0(%[r])\n\t"
        "mov %%r8, 8(%[r])\n\t"
        "mov %%r9, 16(%[r])\n\t"
        "mov %%r10, 24(%[r])\n\t"
        "mov %%r11, 32(%[r])\n\t"
        "mov %%r12, 40(%[r])\n\t"
        : [a] "+&r"(a), [b] "+&r"(b)
        : [r] "r"(r), [p] "m"(ASM_P), [pinv] "m"(ASM_P_INV)
        : "rax", "rbx", "rdx", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "cc", "memory");
}

/* r = a^2 / 2^384 mod p. */
static inline __attribute__((always_inline)) void fp_sqr_asm(uint64_t r[6], const uint64_t a[6])
{
    fp_mul_asm(r, a, a);
}

/* First Fr round: t = a * b[0]. */
#define FR_ROUND0(T0, T1, T2, T3, T4)                                                              \
    "mov 0(%[b]), %%rdx\n\t"                                                                       \
    "mulx 0(%[a]), %%" T0 ", %%" T1 "\n\t"                                                         \
    "mulx 8(%[a]), %%rax, %%" T2 "\n\t"                                                            \
    "add %%rax, %%" T1 "\n\t"                                                                      \
    "mulx 16(%[a]), %%rax, %%" T3 "\n\t"                                                           \
    "adc %%rax, %%" T2 "\n\t"                                                                      \
    "mulx 24(%[a]), %%rax, %%" T4 "\n\t"                                                           \
    "adc %%rax, %%" T3 "\n\t"                                                                      \
    "adc $0, %%" T4 "\n\t"

#define FR_MULADD(OFF, T0, T1, T2, T3, T4)                                                         \
    "mov " OFF "(%[b]), %%rdx\n\t"                                                                 \
    "xor %%eax, %%eax\n\t"                                                                         \
    ASM_MAC("0(%[a])", T0, T1) ASM_MAC("8(%[a])", T1, T2) ASM_MAC("16(%[a])", T2, T3)              \
    ASM_MAC("24(%[a])", T3, T4)                                                                    \
    "adc $0, %%" T4 "\n\t"

#define FR_REDUCE(T0, T1, T2, T3, T4)                                                              \
    "mov %%" T0 ", %%rdx\n\t"                                                                      \
    "imul %[rinv], %%rdx\n\t"                                                                      \
    "xor %%eax, %%eax\n\t"                                                                         \
    ASM_MAC("%[m]", T0, T1) ASM_MAC("8+%[m]", T1, T2) ASM_MAC("16+%[m]", T2, T3)                   \
    ASM_MAC("24+%[m]", T3, T4)                                                                     \
    "adc $0, %%" T4 "\n\t"

/* r = a * b / 2^256 mod r. */
static inline __attribute__((always_inline)) void fr_mul_asm(uint64_t r[4], const uint64_t a[4],
                                                             const uint64_t b[4])
{
    __asm__ volatile(
        FR_ROUND0("r8", "r9", "r10", "r11", "r12")
        FR_REDUCE("r8", "r9", "r10", "r11", "r12")
        FR_MULADD("8", "r9", "r10", "r11", "r12", "r8")
        FR_REDUCE("r9", "r10", "r11", "r12", "r8")
        FR_MULADD("16", "r10", "r11", "r12", "r8", "r9")
        FR_REDUCE("r10", "r11", "r12", "r8", "r9")
        FR_MULADD("24", "r11", "r12", "r8", "r9", "r10")
        FR_REDUCE("r11", "r12", "r8", "r9", "r10")
        /* t = (r12, r8, r9, r10) < 2r */
        "mov %%r12, %%rax\n\t"
        "sub %[m], %%rax\n\t"
        "mov %%r8, %%rbx\n\t"
        "sbb 8+%[m], %%rbx\n\t"
        "mov %%r9, %%rdx\n\t"
        "sbb 16+%[m], %%rdx\n\t"
        "mov %%r10, %%r11\n\t"
        "sbb 24+%[m], %%r11\n\t"
        "cmovnc %%rax, %%r12\n\t"
        "cmovnc %%rbx, %%r8\n\t"
        "cmovnc %%rdx, %%r9\n\t"
        "cmovnc %%r11, %%r10\n\t"
        "mov %%r12, 0(%[r])\n\t"
        "mov %%r8, 8(%[r])\n\t"
        "mov %%r9, 16(%[r])\n\t"
        "mov %%r10, 24(%[r])\n\t"
        :
        : [r] "r"(r), [a] "r"(a), [b] "r"(b), [m] "m"(ASM_R), [rinv] "m"(ASM_R_INV)
        : "rax", "rbx", "rdx", "r8", "r9", "r10", "r11", "r12", "cc", "memory");
}

/*
 * Addition, subtraction, negation and doubling: plain ADD/ADC/SUB/SBB/CMOV,
 * which every x86-64 has. The loads and stores stay in C and the assembly
 * works on register values, so the compiler knows exactly what is read and
 * written (outputs may alias inputs) and can schedule the loads when it
 * inlines these; the second operand may come straight from memory ("rm").
 * Both moduli leave the top bit clear, so a + b never carries out.
 *   add, dbl: t = a + b, s = t - m into copies, CMOVNC takes s unless the
 *             subtraction borrowed (the latency of one carry chain plus one).
 *   sub:      t = a - b, then t += m & -borrow; the mask is built in s[n-1]
 *             and ANDed into copies of m before the ADC chain, since AND
 *             clears CF. A CMOV form (u = a + m - b in two more chains,
 *             take u on borrow) has the shorter critical path on paper but a
 *             quarter more instructions, and measured slower in a dependent
 *             chain (3.2 ns against 2.9).
 *   neg:      t = m - a, cleared when a = 0 (the OR of the limbs, NEG sets CF
 *             when it is nonzero, SBB turns CF into a mask).
 * t is early-clobber: it is written before the last limb of b is read, so no
 * input may share its register (in dbl or in a call with a = b the compiler
 * would otherwise be free to). Fp needs 12 registers plus the address of b,
 * which leaves room under -fno-omit-frame-pointer.
 */
#define AS_ADD4(op) "add %[" op "0], %[t0]\n\t" "adc %[" op "1], %[t1]\n\t"                         \
                    "adc %[" op "2], %[t2]\n\t" "adc %[" op "3], %[t3]\n\t"
#define AS_ADD6(op) AS_ADD4(op) "adc %[" op "4], %[t4]\n\t" "adc %[" op "5], %[t5]\n\t"
#define AS_SUB4 "sub %[b0], %[t0]\n\t" "sbb %[b1], %[t1]\n\t" "sbb %[b2], %[t2]\n\t" "sbb %[b3], %[t3]\n\t"
#define AS_SUB6 AS_SUB4 "sbb %[b4], %[t4]\n\t" "sbb %[b5], %[t5]\n\t"
/* s = t - m, then t = s unless that borrowed */
#define AS_TRIAL(i, off, op) "mov %[t" #i "], %[s" #i "]\n\t" op " " off "%[mod], %[s" #i "]\n\t"
#define AS_KEEP(i) "cmovnc %[s" #i "], %[t" #i "]\n\t"
#define AS_REDUCE4 AS_TRIAL(0, "", "sub") AS_TRIAL(1, "8+", "sbb") AS_TRIAL(2, "16+", "sbb")           \
                   AS_TRIAL(3, "24+", "sbb")
#define AS_REDUCE6 AS_REDUCE4 AS_TRIAL(4, "32+", "sbb") AS_TRIAL(5, "40+", "sbb")
#define AS_SELECT4 AS_KEEP(0) AS_KEEP(1) AS_KEEP(2) AS_KEEP(3)
#define AS_SELECT6 AS_SELECT4 AS_KEEP(4) AS_KEEP(5)
/* s = m & mask, the mask being in s[last] */
#define AS_MASK(i, off, last) "mov %[s" #last "], %[s" #i "]\n\t" "and " off "%[mod], %[s" #i "]\n\t"
#define AS_MASKED4 "sbb %[s3], %[s3]\n\t" AS_MASK(0, "", 3) AS_MASK(1, "8+", 3) AS_MASK(2, "16+", 3)       \
                   "and 24+%[mod], %[s3]\n\t"
#define AS_MASKED6 "sbb %[s5], %[s5]\n\t" AS_MASK(0, "", 5) AS_MASK(1, "8+", 5) AS_MASK(2, "16+", 5)       \
                   AS_MASK(3, "24+", 5) AS_MASK(4, "32+", 5) "and 40+%[mod], %[s5]\n\t"
/* t = m - a, then t &= (a != 0 ? ~0 : 0) */
#define AS_NEGT(i, off, op) "mov " off "%[mod], %[t" #i "]\n\t" op " %[a" #i "], %[t" #i "]\n\t"
#define AS_NEG4 AS_NEGT(0, "", "sub") AS_NEGT(1, "8+", "sbb") AS_NEGT(2, "16+", "sbb")                  \
                AS_NEGT(3, "24+", "sbb")
#define AS_NEG6 AS_NEG4 AS_NEGT(4, "32+", "sbb") AS_NEGT(5, "40+", "sbb")
#define AS_NZ4 "mov %[a0], %[z]\n\t" "or %[a1], %[z]\n\t" "or %[a2], %[z]\n\t" "or %[a3], %[z]\n\t"
#define AS_NZ6 AS_NZ4 "or %[a4], %[z]\n\t" "or %[a5], %[z]\n\t"
#define AS_ZMASK "neg %[z]\n\t" "sbb %[z], %[z]\n\t"
#define AS_AND4 "and %[z], %[t0]\n\t" "and %[z], %[t1]\n\t" "and %[z], %[t2]\n\t" "and %[z], %[t3]\n\t"
#define AS_AND6 AS_AND4 "and %[z], %[t4]\n\t" "and %[z], %[t5]\n\t"

/* Operand lists: t (accumulator, loaded from a), s (scratch), and b or a as inputs. */
#define AS_T4 [t0] "+&r"(t0), [t1] "+&r"(t1), [t2] "+&r"(t2), [t3] "+&r"(t3)
#define AS_T6 AS_T4, [t4] "+&r"(t4), [t5] "+&r"(t5)
#define AS_TOUT4 [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3)
#define AS_TOUT6 AS_TOUT4, [t4] "=&r"(t4), [t5] "=&r"(t5)
#define AS_S4 [s0] "=&r"(s0), [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3)
#define AS_S6 AS_S4, [s4] "=&r"(s4), [s5] "=&r"(s5)
#define AS_IN4(x, v) [x##0] "rm"(v[0]), [x##1] "rm"(v[1]), [x##2] "rm"(v[2]), [x##3] "rm"(v[3])
#define AS_IN6(x, v) AS_IN4(x, v), [x##4] "rm"(v[4]), [x##5] "rm"(v[5])
/* Scalars, not arrays: gcc's SLP vectorizer turns array copies into SSE moves through the stack. */
#define AS_TVARS4 uint64_t t0, t1, t2, t3
#define AS_TVARS6 AS_TVARS4, t4, t5
#define AS_VARS4 AS_TVARS4, s0, s1, s2, s3
#define AS_VARS6 AS_TVARS6, s0, s1, s2, s3, s4, s5
#define AS_LOAD4(a) (t0 = a[0], t1 = a[1], t2 = a[2], t3 = a[3])
#define AS_LOAD6(a) (AS_LOAD4(a), t4 = a[4], t5 = a[5])
#define AS_STORE4(r) (r[0] = t0, r[1] = t1, r[2] = t2, r[3] = t3)
#define AS_STORE6(r) (AS_STORE4(r), r[4] = t4, r[5] = t5)

#define AS_DEFINE_ADDSUB(f, n, m)                                                                  \
static inline __attribute__((always_inline)) void f##_add_asm(uint64_t r[n], const uint64_t a[n],  \
                                                              const uint64_t b[n])                 \
{                                                                                                  \
    AS_VARS##n;                                                                                    \
    AS_LOAD##n(a);                                                                                 \
    __asm__(AS_ADD##n("b") AS_REDUCE##n AS_SELECT##n                                               \
            : AS_T##n, AS_S##n : AS_IN##n(b, b), [mod] "m"(m) : "cc");                             \
    AS_STORE##n(r);                                                                                \
}                                                                                                  \
static inline __attribute__((always_inline)) void f##_dbl_asm(uint64_t r[n], const uint64_t a[n])  \
{                                                                                                  \
    AS_VARS##n;                                                                                    \
    AS_LOAD##n(a);                                                                                 \
    __asm__(AS_ADD##n("t") AS_REDUCE##n AS_SELECT##n                                               \
            : AS_T##n, AS_S##n : [mod] "m"(m) : "cc");                                             \
    AS_STORE##n(r);                                                                                \
}                                                                                                  \
static inline __attribute__((always_inline)) void f##_sub_asm(uint64_t r[n], const uint64_t a[n],  \
                                                              const uint64_t b[n])                 \
{                                                                                                  \
    AS_VARS##n;                                                                                    \
    AS_LOAD##n(a);                                                                                 \
    __asm__(AS_SUB##n AS_MASKED##n AS_ADD##n("s")                                                  \
            : AS_T##n, AS_S##n : AS_IN##n(b, b), [mod] "m"(m) : "cc");                             \
    AS_STORE##n(r);                                                                                \
}                                                                                                  \
static inline __attribute__((always_inline)) void f##_neg_asm(uint64_t r[n], const uint64_t a[n])  \
{                                                                                                  \
    AS_TVARS##n, z;                                                                                \
    __asm__(AS_NEG##n AS_NZ##n AS_ZMASK AS_AND##n                                                  \
            : AS_TOUT##n, [z] "=&r"(z) : AS_IN##n(a, a), [mod] "m"(m) : "cc");                     \
    AS_STORE##n(r);                                                                                \
}

AS_DEFINE_ADDSUB(fp, 6, ASM_P)
AS_DEFINE_ADDSUB(fr, 4, ASM_R)

/*
 * 62 divsteps of the inversion in mont.h, with the same contract as
 * mont_divsteps62 (δ doubled). Only CMOV and plain ALU instructions, so any
 * x86-64 runs it. Each step selects instead of masking: a = g + f or g - f
 * (swap: g odd and δ > 0, read from the sign of (g << 63) & z), the swap
 * exchanges f/g and the matrix rows (negating the old f row), and an odd g
 * takes a; then g halves and the f row doubles. δ is kept as z = ~(δ - 1/2),
 * whose sign bit is "δ > 0" and whose update is z = (swap ? ~z : z) - 1.
 * The portable version compiles to masks and SSE moves and runs about 1.4x
 * slower.
 */
static inline int64_t divsteps62_asm(int64_t delta, uint64_t f, uint64_t g, int64_t t[4])
{
    uint64_t u = 1, v = 0, q = 0, r = 1, z = ~(uint64_t)((delta - 1) / 2);
    uint64_t a, b, tt, m;
    unsigned cnt = 62;
    __asm__("1:\n\t"
            "lea (%[g],%[f]), %[a]\n\t"
            "mov %[g], %[b]\n\t"
            "sub %[f], %[b]\n\t"
            "mov %[g], %[tt]\n\t"
            "shl $63, %[tt]\n\t"
            "and %[z], %[tt]\n\t" /* SF = swap */
            "cmovs %[b], %[a]\n\t"
            "cmovs %[g], %[f]\n\t"
            "mov %[u], %[tt]\n\t"
            "not %[tt]\n\t"
            "lea 1(%[tt]), %[tt]\n\t" /* -u without touching the flags */
            "cmovs %[q], %[u]\n\t"
            "cmovs %[tt], %[q]\n\t"
            "mov %[v], %[tt]\n\t"
            "not %[tt]\n\t"
            "lea 1(%[tt]), %[tt]\n\t"
            "cmovs %[r], %[v]\n\t"
            "cmovs %[tt], %[r]\n\t"
            "mov %[z], %[tt]\n\t"
            "not %[tt]\n\t"
            "cmovs %[tt], %[z]\n\t"
            "test $1, %b[g]\n\t" /* ZF = g even */
            "cmovnz %[a], %[g]\n\t"
            "lea (%[q],%[u]), %[m]\n\t"
            "cmovnz %[m], %[q]\n\t"
            "lea (%[r],%[v]), %[m]\n\t"
            "cmovnz %[m], %[r]\n\t"
            "shr %[g]\n\t"
            "add %[u], %[u]\n\t"
            "add %[v], %[v]\n\t"
            "sub $1, %[z]\n\t"
            "dec %[cnt]\n\t"
            "jnz 1b\n\t"
            : [f] "+r"(f), [g] "+r"(g), [u] "+r"(u), [v] "+r"(v), [q] "+r"(q), [r] "+r"(r), [z] "+r"(z),
              [a] "=&r"(a), [b] "=&r"(b), [tt] "=&r"(tt), [m] "=&r"(m), [cnt] "+r"(cnt)
            :
            : "cc");
    t[0] = (int64_t)u;
    t[1] = (int64_t)v;
    t[2] = (int64_t)q;
    t[3] = (int64_t)r;
    return 2 * (int64_t)~z + 1;
}
/* clang-format on */

/* The inversion kernel: the assembly one under the same run-time switch. */
static inline mont_divsteps_fn arith_divsteps62(void)
{
    return arith_use_adx() ? divsteps62_asm : mont_divsteps62;
}

#else
static inline mont_divsteps_fn arith_divsteps62(void)
{
    return mont_divsteps62;
}
#endif /* CUZK_FP_HAVE_ASM */

/*
 * The field additions as the library calls them: inline, the assembly when
 * it is compiled in, else mont.h. fp.c and fr.c wrap them into the public
 * functions; the NTT's butterflies use the Fr ones directly.
 */
static inline __attribute__((always_inline)) void arith_fp_add(uint64_t r[6], const uint64_t a[6],
                                                               const uint64_t b[6])
{
#if CUZK_FP_HAVE_ASM
    fp_add_asm(r, a, b);
#else
    mont_add(r, a, b, CUZK_P, 6);
#endif
}

static inline __attribute__((always_inline)) void arith_fp_sub(uint64_t r[6], const uint64_t a[6],
                                                               const uint64_t b[6])
{
#if CUZK_FP_HAVE_ASM
    fp_sub_asm(r, a, b);
#else
    mont_sub(r, a, b, CUZK_P, 6);
#endif
}

static inline __attribute__((always_inline)) void arith_fp_neg(uint64_t r[6], const uint64_t a[6])
{
#if CUZK_FP_HAVE_ASM
    fp_neg_asm(r, a);
#else
    mont_neg(r, a, CUZK_P, 6);
#endif
}

static inline __attribute__((always_inline)) void arith_fp_dbl(uint64_t r[6], const uint64_t a[6])
{
#if CUZK_FP_HAVE_ASM
    fp_dbl_asm(r, a);
#else
    mont_add(r, a, a, CUZK_P, 6);
#endif
}

static inline __attribute__((always_inline)) void arith_fr_add(uint64_t r[4], const uint64_t a[4],
                                                               const uint64_t b[4])
{
#if CUZK_FP_HAVE_ASM
    fr_add_asm(r, a, b);
#else
    mont_add(r, a, b, CUZK_R, 4);
#endif
}

static inline __attribute__((always_inline)) void arith_fr_sub(uint64_t r[4], const uint64_t a[4],
                                                               const uint64_t b[4])
{
#if CUZK_FP_HAVE_ASM
    fr_sub_asm(r, a, b);
#else
    mont_sub(r, a, b, CUZK_R, 4);
#endif
}

static inline __attribute__((always_inline)) void arith_fr_neg(uint64_t r[4], const uint64_t a[4])
{
#if CUZK_FP_HAVE_ASM
    fr_neg_asm(r, a);
#else
    mont_neg(r, a, CUZK_R, 4);
#endif
}

static inline __attribute__((always_inline)) void arith_fr_dbl(uint64_t r[4], const uint64_t a[4])
{
#if CUZK_FP_HAVE_ASM
    fr_dbl_asm(r, a);
#else
    mont_add(r, a, a, CUZK_R, 4);
#endif
}
#endif
