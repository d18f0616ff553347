/*
 * fp_adx.c — the run-time half of the assembly switch described in fp_asm.h.
 *
 * The decision is made once per process, on the first field multiplication:
 * CPUID leaf 7 must report BMI2 (MULX) and ADX (ADCX/ADOX), and the
 * environment must not set CUZK_NO_ASM to anything but "" or "0" (a way to
 * A/B the two paths without rebuilding). The answer is cached in cuzk_arith_asm_state, which fp.c and
 * fr.c read with a relaxed atomic load before each multiplication; threads
 * that race on the first call all compute and store the same value.
 *
 * The explicit entry points below let tests and benchmarks call one path
 * regardless of that decision; the _adx forms still refuse to execute MULX on
 * a CPU without it and fall back to the portable code instead, and
 * cuzk_arith_divsteps62 exposes the inversion kernel so that the tests can
 * compare it with the portable one step for step.
 */
#include "fp_asm.h"

#include <stdlib.h>
#include <string.h>

#if CUZK_FP_HAVE_ASM
#include <cpuid.h>

int cuzk_arith_asm_state;

static bool cpu_has_adx(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return false;
    return (b & bit_BMI2) && (b & bit_ADX);
}

int cuzk_arith_asm_init(void)
{
    const char *env = getenv("CUZK_NO_ASM");
    bool off = env && *env && strcmp(env, "0") != 0;
    int s = (!off && cpu_has_adx()) ? 1 : -1;
    __atomic_store_n(&cuzk_arith_asm_state, s, __ATOMIC_RELAXED);
    return s;
}

bool cuzk_arith_asm_compiled(void)
{
    return true;
}

bool cuzk_arith_cpu_has_adx(void)
{
    static int cached; /* 0 unknown, 1 yes, -1 no */
    int c = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (c == 0) {
        c = cpu_has_adx() ? 1 : -1;
        __atomic_store_n(&cached, c, __ATOMIC_RELAXED);
    }
    return c > 0;
}

bool cuzk_arith_asm_active(void)
{
    return arith_use_adx();
}

int64_t cuzk_arith_divsteps62(int64_t delta, uint64_t f, uint64_t g, int64_t t[4])
{
    return divsteps62_asm(delta, f, g, t);
}

void cuzk_fp_mul_adx(uint64_t r[6], const uint64_t a[6], const uint64_t b[6])
{
    if (cuzk_arith_cpu_has_adx())
        fp_mul_asm(r, a, b);
    else
        cuzk_fp_mul_portable(r, a, b);
}

void cuzk_fp_sqr_adx(uint64_t r[6], const uint64_t a[6])
{
    if (cuzk_arith_cpu_has_adx())
        fp_sqr_asm(r, a);
    else
        cuzk_fp_sqr_portable(r, a);
}

void cuzk_fr_mul_adx(uint64_t r[4], const uint64_t a[4], const uint64_t b[4])
{
    if (cuzk_arith_cpu_has_adx())
        fr_mul_asm(r, a, b);
    else
        cuzk_fr_mul_portable(r, a, b);
}

#else

bool cuzk_arith_asm_compiled(void)
{
    return false;
}
bool cuzk_arith_cpu_has_adx(void)
{
    return false;
}
bool cuzk_arith_asm_active(void)
{
    return false;
}

int64_t cuzk_arith_divsteps62(int64_t delta, uint64_t f, uint64_t g, int64_t t[4])
{
    return mont_divsteps62(delta, f, g, t);
}

void cuzk_fp_mul_adx(uint64_t r[6], const uint64_t a[6], const uint64_t b[6])
{
    cuzk_fp_mul_portable(r, a, b);
}
void cuzk_fp_sqr_adx(uint64_t r[6], const uint64_t a[6])
{
    cuzk_fp_sqr_portable(r, a);
}
void cuzk_fr_mul_adx(uint64_t r[4], const uint64_t a[4], const uint64_t b[4])
{
    cuzk_fr_mul_portable(r, a, b);
}

#endif
