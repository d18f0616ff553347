/*
 * test_field_asm.c — the x86-64 MULX/ADX multiplication against the portable
 * code, and the divstep inversion against Fermat's, on fresh random inputs
 * every run plus edge values.
 *
 * The two multiplication paths are called explicitly through the internal
 * entry points of arith/fp_asm.h, so both run whatever the run-time switch
 * chose. Edge values stress the carry chains and the final subtraction: 0, 1,
 * 2, m-1, m-2, (m±1)/2, R mod m, (R-1) mod m, R^2 mod m, values whose limbs
 * are all ones (or all zeros) below m, single bits, m - 2^k, and random
 * values with some limbs forced to 0 or 2^64-1. In a build without the
 * assembly (CUZK_ASM=OFF) or on a CPU without ADX the _adx entry points run
 * the portable code, and the test still checks everything else.
 *
 * The assembly addition, subtraction, negation and doubling (_asm entry
 * points) are checked the same way against mont.h (_portable), for every
 * pair of edge values and 10^5 random pairs, each also with the output
 * aliasing an input and with a = b; so are the public functions, whichever
 * path they take. Without CUZK_ASM the _asm entry points are the portable
 * code too.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arith/fp_asm.h"
#include "arith/mont.h"
#include "cuzk/field.h"
#include "testutil.h"

#define RANDOM_PAIRS 100000
#define INV_RANDOM 1500
#define MAX_EDGES 256

static const uint64_t P[6] = {0xb9feffffffffaaab, 0x1eabfffeb153ffff, 0x6730d2a0f6b0f624,
                              0x64774b84f38512bf, 0x4b1ba7b6434bacd7, 0x1a0111ea397fe69a};
static const uint64_t R[4] = {0xffffffff00000001, 0x53bda402fffe5bfe, 0x3339d80809a1d805, 0x73eda753299d7d48};

/* x mod m for any x < 2^(64n) (m > 2^(64n - 4), so a few subtractions). */
static void reduce(uint64_t *x, const uint64_t *m, int n)
{
    while (!mont_lt(x, m, n)) {
        uint64_t br = 0;
        for (int i = 0; i < n; i++)
            x[i] = mont_sbb(x[i], m[i], &br);
    }
}

/* Raw limb vectors below m that stress carries; returns how many. */
static int edge_values(uint64_t (*out)[6], const uint64_t *m, int n)
{
    int k = 0;
    uint64_t x[6];
#define PUSH()                                                                                               \
    do {                                                                                                     \
        reduce(x, m, n);                                                                                     \
        memcpy(out[k++], x, sizeof x);                                                                       \
    } while (0)
    memset(x, 0, sizeof x);
    PUSH(); /* 0 */
    x[0] = 1;
    PUSH();
    x[0] = 2;
    PUSH();
    for (int d = 1; d <= 3; d++) { /* m - d */
        limbs_sub_small(x, m, (uint64_t)d, n);
        PUSH();
    }
    limbs_shr(x, m, 1, n); /* (m-1)/2, (m+1)/2 */
    PUSH();
    limbs_add_small(x, x, 1, n);
    PUSH();
    {
        uint64_t br = 0; /* R mod m, from 2^(64n) - m */
        for (int i = 0; i < n; i++)
            x[i] = mont_sbb(0, m[i], &br);
        PUSH();
    }
    for (int i = 0; i < n; i++) /* (R - 1) mod m */
        x[i] = ~(uint64_t)0;
    PUSH();
    for (int i = 0; i < n; i++) /* all ones below the top limb, top limb just under m's */
        x[i] = ~(uint64_t)0;
    x[n - 1] = m[n - 1] - 1;
    PUSH();
    for (int i = 0; i < n; i++) /* all ones in the low limbs, top limb zero */
        x[i] = i == n - 1 ? 0 : ~(uint64_t)0;
    PUSH();
    for (int i = 0; i < n; i++) /* m's top limb, zeros below */
        x[i] = i == n - 1 ? m[n - 1] : 0;
    PUSH();
    for (int i = 0; i < n; i++) /* m with the lowest limb cleared is < m */
        x[i] = i == 0 ? 0 : m[i];
    PUSH();
    int bits = n == 6 ? 381 : 255;
    for (int b = 0; b < bits; b += 7) { /* single bits, and m - 2^b */
        memset(x, 0, sizeof x);
        x[b / 64] = (uint64_t)1 << (b % 64);
        PUSH();
        uint64_t br = 0;
        for (int i = 0; i < n; i++)
            x[i] = mont_sbb(m[i], x[i], &br);
        PUSH();
    }
    for (int b = 1; b < bits; b += 29) { /* 2^b - 1: runs of ones */
        memset(x, 0, sizeof x);
        for (int i = 0; i < b; i++)
            x[i / 64] |= (uint64_t)1 << (i % 64);
        PUSH();
    }
#undef PUSH
    return k;
}

/* A random value below m whose limbs are often 0 or 2^64-1. */
static void rand_structured(uint64_t *x, const uint64_t *m, int n)
{
    do {
        for (int i = 0; i < n; i++) {
            uint64_t r = test_rand64();
            switch (r & 7) {
            case 0: x[i] = 0; break;
            case 1: x[i] = ~(uint64_t)0; break;
            case 2: x[i] = m[i]; break;
            default: x[i] = test_rand64(); break;
            }
        }
        x[n - 1] &= (m[n - 1] << 1) | 1; /* keep the top limb near m's */
    } while (!mont_lt(x, m, n));
}

static bool same(const uint64_t *a, const uint64_t *b, int n)
{
    return memcmp(a, b, 8 * (size_t)n) == 0;
}

static void check_fp_mul(void)
{
    static uint64_t edges[MAX_EDGES][6];
    int ne = edge_values(edges, P, 6);
    uint64_t r1[6], r2[6];
    for (int i = 0; i < ne; i++) {
        cuzk_fp_sqr_adx(r1, edges[i]);
        cuzk_fp_sqr_portable(r2, edges[i]);
        CHECK(same(r1, r2, 6), "fp sqr edge %d", i);
        for (int j = 0; j < ne; j++) {
            cuzk_fp_mul_adx(r1, edges[i], edges[j]);
            cuzk_fp_mul_portable(r2, edges[i], edges[j]);
            CHECK(same(r1, r2, 6), "fp mul edges %d x %d", i, j);
        }
    }
    long bad = 0;
    for (int i = 0; i < RANDOM_PAIRS; i++) {
        cuzk_fp a, b;
        if (i & 1) {
            test_rand_fp(&a);
            test_rand_fp(&b);
        } else {
            rand_structured(a.l, P, 6);
            rand_structured(b.l, P, 6);
        }
        cuzk_fp_mul_adx(r1, a.l, b.l);
        cuzk_fp_mul_portable(r2, a.l, b.l);
        bad += !same(r1, r2, 6);
        cuzk_fp_sqr_adx(r1, a.l);
        cuzk_fp_sqr_portable(r2, a.l);
        bad += !same(r1, r2, 6);
        cuzk_fp c; /* the public entry point, whichever path it takes */
        cuzk_fp_mul(&c, &a, &b);
        cuzk_fp_mul_portable(r2, a.l, b.l);
        bad += !same(c.l, r2, 6);
        if (bad) {
            CHECK(false, "fp mul/sqr random pair %d differs", i);
            break;
        }
    }
    CHECK(bad == 0, "fp random pairs");
    /* a long dependent chain through both paths */
    cuzk_fp x, y;
    test_rand_fp(&x);
    test_rand_fp(&y);
    uint64_t u[6], v[6];
    memcpy(u, x.l, sizeof u);
    memcpy(v, x.l, sizeof v);
    for (int i = 0; i < 20000; i++) {
        cuzk_fp_mul_adx(u, u, y.l);
        cuzk_fp_sqr_adx(u, u);
        cuzk_fp_mul_portable(v, v, y.l);
        cuzk_fp_sqr_portable(v, v);
    }
    CHECK(same(u, v, 6), "fp chain");
}

static void check_fr_mul(void)
{
    static uint64_t edges[MAX_EDGES][6];
    int ne = edge_values(edges, R, 4);
    uint64_t r1[4], r2[4];
    for (int i = 0; i < ne; i++)
        for (int j = 0; j < ne; j++) {
            cuzk_fr_mul_adx(r1, edges[i], edges[j]);
            cuzk_fr_mul_portable(r2, edges[i], edges[j]);
            CHECK(same(r1, r2, 4), "fr mul edges %d x %d", i, j);
        }
    long bad = 0;
    for (int i = 0; i < RANDOM_PAIRS; i++) {
        cuzk_fr a, b, c;
        if (i & 1) {
            test_rand_fr(&a);
            test_rand_fr(&b);
        } else {
            rand_structured(a.l, R, 4);
            rand_structured(b.l, R, 4);
        }
        cuzk_fr_mul_adx(r1, a.l, b.l);
        cuzk_fr_mul_portable(r2, a.l, b.l);
        bad += !same(r1, r2, 4);
        cuzk_fr_sqr(&c, &a);
        cuzk_fr_mul_portable(r2, a.l, a.l);
        bad += !same(c.l, r2, 4);
        if (bad) {
            CHECK(false, "fr mul random pair %d differs", i);
            break;
        }
    }
    CHECK(bad == 0, "fr random pairs");
}

typedef void (*op2_fn)(uint64_t *r, const uint64_t *a, const uint64_t *b);
typedef void (*op1_fn)(uint64_t *r, const uint64_t *a);

/* One field's add/sub/neg/dbl: [0] the path under test, [1] the portable reference. */
typedef struct {
    const char *name;
    int n;
    const uint64_t *m;
    op2_fn add[2], sub[2];
    op1_fn neg[2], dbl[2];
} addsub_impl;

/* The public functions on raw limbs. */
static void pub_fp_add(uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    cuzk_fp x, y;
    memcpy(x.l, a, sizeof x.l);
    memcpy(y.l, b, sizeof y.l);
    cuzk_fp_add(&x, &x, &y);
    memcpy(r, x.l, sizeof x.l);
}
static void pub_fp_sub(uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    cuzk_fp x, y;
    memcpy(x.l, a, sizeof x.l);
    memcpy(y.l, b, sizeof y.l);
    cuzk_fp_sub(&x, &x, &y);
    memcpy(r, x.l, sizeof x.l);
}
static void pub_fp_neg(uint64_t *r, const uint64_t *a)
{
    cuzk_fp x;
    memcpy(x.l, a, sizeof x.l);
    cuzk_fp_neg(&x, &x);
    memcpy(r, x.l, sizeof x.l);
}
static void pub_fp_dbl(uint64_t *r, const uint64_t *a)
{
    cuzk_fp x;
    memcpy(x.l, a, sizeof x.l);
    cuzk_fp_dbl(&x, &x);
    memcpy(r, x.l, sizeof x.l);
}
static void pub_fr_add(uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    cuzk_fr x, y;
    memcpy(x.l, a, sizeof x.l);
    memcpy(y.l, b, sizeof y.l);
    cuzk_fr_add(&x, &x, &y);
    memcpy(r, x.l, sizeof x.l);
}
static void pub_fr_sub(uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    cuzk_fr x, y;
    memcpy(x.l, a, sizeof x.l);
    memcpy(y.l, b, sizeof y.l);
    cuzk_fr_sub(&x, &x, &y);
    memcpy(r, x.l, sizeof x.l);
}
static void pub_fr_neg(uint64_t *r, const uint64_t *a)
{
    cuzk_fr x;
    memcpy(x.l, a, sizeof x.l);
    cuzk_fr_neg(&x, &x);
    memcpy(r, x.l, sizeof x.l);
}
static void pub_fr_dbl(uint64_t *r, const uint64_t *a)
{
    cuzk_fr x;
    memcpy(x.l, a, sizeof x.l);
    cuzk_fr_dbl(&x, &x);
    memcpy(r, x.l, sizeof x.l);
}

/* Runs every operation of f on (a, b), plainly, in place and with a = b;
 * returns the number of results that differ from the reference. */
static int addsub_pair(const addsub_impl *f, const uint64_t *a, const uint64_t *b)
{
    int n = f->n, bad = 0;
    uint64_t want[6], got[6], x[6];
    op2_fn op2[2][2] = {{f->add[0], f->add[1]}, {f->sub[0], f->sub[1]}};
    for (int k = 0; k < 2; k++) {
        op2[k][1](want, a, b);
        op2[k][0](got, a, b);
        bad += !same(got, want, n);
        memcpy(x, a, sizeof x); /* r = a */
        op2[k][0](x, x, b);
        bad += !same(x, want, n);
        memcpy(x, b, sizeof x); /* r = b */
        op2[k][0](x, a, x);
        bad += !same(x, want, n);
        op2[k][1](want, a, a); /* a = b, and r = a = b */
        op2[k][0](got, a, a);
        bad += !same(got, want, n);
        memcpy(x, a, sizeof x);
        op2[k][0](x, x, x);
        bad += !same(x, want, n);
    }
    op1_fn op1[2][2] = {{f->neg[0], f->neg[1]}, {f->dbl[0], f->dbl[1]}};
    for (int k = 0; k < 2; k++) {
        op1[k][1](want, a);
        op1[k][0](got, a);
        bad += !same(got, want, n);
        memcpy(x, a, sizeof x);
        op1[k][0](x, x);
        bad += !same(x, want, n);
    }
    f->dbl[1](want, a); /* dbl is add(a, a) */
    f->add[1](got, a, a);
    bad += !same(got, want, n);
    return bad;
}

static void check_addsub(const addsub_impl *f)
{
    static uint64_t edges[MAX_EDGES][6];
    int ne = edge_values(edges, f->m, f->n);
    for (int i = 0; i < ne; i++)
        for (int j = 0; j < ne; j++)
            CHECK(addsub_pair(f, edges[i], edges[j]) == 0, "%s add/sub/neg/dbl edges %d, %d", f->name, i, j);
    long bad = 0;
    for (int i = 0; i < RANDOM_PAIRS && !bad; i++) {
        uint64_t a[6] = {0}, b[6] = {0};
        if (i & 1) {
            for (int k = 0; k < f->n; k++) {
                a[k] = test_rand64();
                b[k] = test_rand64();
            }
            reduce(a, f->m, f->n);
            reduce(b, f->m, f->n);
        } else {
            rand_structured(a, f->m, f->n);
            rand_structured(b, f->m, f->n);
        }
        bad += addsub_pair(f, a, b);
        if (bad)
            CHECK(false, "%s add/sub/neg/dbl random pair %d differs", f->name, i);
    }
    CHECK(bad == 0, "%s add/sub/neg/dbl random pairs", f->name);
    /* a long dependent chain through both paths */
    uint64_t u[2][6] = {{0}}, v[6] = {0};
    rand_structured(u[0], f->m, f->n);
    rand_structured(v, f->m, f->n);
    memcpy(u[1], u[0], sizeof u[0]);
    for (int i = 0; i < 20000; i++)
        for (int p = 0; p < 2; p++) {
            f->add[p](u[p], u[p], v);
            f->dbl[p](u[p], u[p]);
            f->sub[p](u[p], v, u[p]);
            f->neg[p](u[p], u[p]);
            f->sub[p](u[p], u[p], v);
        }
    CHECK(same(u[0], u[1], f->n), "%s add/sub/neg/dbl chain", f->name);
}

static void check_addsub_all(void)
{
    const addsub_impl impls[] = {
        {"fp asm",
         6,
         P,
         {cuzk_fp_add_asm, cuzk_fp_add_portable},
         {cuzk_fp_sub_asm, cuzk_fp_sub_portable},
         {cuzk_fp_neg_asm, cuzk_fp_neg_portable},
         {cuzk_fp_dbl_asm, cuzk_fp_dbl_portable}},
        {"fp public",
         6,
         P,
         {pub_fp_add, cuzk_fp_add_portable},
         {pub_fp_sub, cuzk_fp_sub_portable},
         {pub_fp_neg, cuzk_fp_neg_portable},
         {pub_fp_dbl, cuzk_fp_dbl_portable}},
        {"fr asm",
         4,
         R,
         {cuzk_fr_add_asm, cuzk_fr_add_portable},
         {cuzk_fr_sub_asm, cuzk_fr_sub_portable},
         {cuzk_fr_neg_asm, cuzk_fr_neg_portable},
         {cuzk_fr_dbl_asm, cuzk_fr_dbl_portable}},
        {"fr public",
         4,
         R,
         {pub_fr_add, cuzk_fr_add_portable},
         {pub_fr_sub, cuzk_fr_sub_portable},
         {pub_fr_neg, cuzk_fr_neg_portable},
         {pub_fr_dbl, cuzk_fr_dbl_portable}},
    };
    for (size_t i = 0; i < sizeof impls / sizeof impls[0]; i++)
        check_addsub(&impls[i]);
}

static void check_divsteps(void)
{
    long bad = 0;
    for (int i = 0; i < 200000 && !bad; i++) {
        uint64_t f = test_rand64() | 1, g = test_rand64();
        if (i % 5 == 0)
            g &= ~(uint64_t)0 << (test_rand64() % 64); /* many trailing zeros */
        if (i % 7 == 0)
            g = 0;
        int64_t delta = ((int64_t)(test_rand64() % 2001) - 1000) | 1;
        int64_t t1[4], t2[4];
        int64_t d1 = cuzk_arith_divsteps62(delta, f, g, t1);
        int64_t d2 = mont_divsteps62(delta, f, g, t2);
        bad += d1 != d2 || memcmp(t1, t2, sizeof t1) != 0;
        if (bad)
            CHECK(false, "divsteps62 case %d: delta %lld f %016llx g %016llx", i, (long long)delta,
                  (unsigned long long)f, (unsigned long long)g);
    }
    CHECK(bad == 0, "divsteps62 agrees with the portable kernel");
}

static void check_fp_inv_one(const cuzk_fp *a, const char *what, int i)
{
    cuzk_fp r1, r2, t;
    bool ok1 = cuzk_fp_inv(&r1, a), ok2 = cuzk_fp_inv_fermat(&r2, a);
    CHECK(ok1 == ok2 && ok1 == !cuzk_fp_is_zero(a), "fp inv status (%s %d)", what, i);
    CHECK(cuzk_fp_eq(&r1, &r2), "fp inv equals Fermat (%s %d)", what, i);
    if (ok1) {
        cuzk_fp_mul(&t, a, &r1);
        CHECK(cuzk_fp_is_one(&t), "fp a * a^-1 = 1 (%s %d)", what, i);
    } else {
        CHECK(cuzk_fp_is_zero(&r1), "fp inv of 0 is 0 (%s %d)", what, i);
    }
}

static void check_fr_inv_one(const cuzk_fr *a, const char *what, int i)
{
    cuzk_fr r1, r2, t;
    bool ok1 = cuzk_fr_inv(&r1, a), ok2 = cuzk_fr_inv_fermat(&r2, a);
    CHECK(ok1 == ok2 && ok1 == !cuzk_fr_is_zero(a), "fr inv status (%s %d)", what, i);
    CHECK(cuzk_fr_eq(&r1, &r2), "fr inv equals Fermat (%s %d)", what, i);
    if (ok1) {
        cuzk_fr_mul(&t, a, &r1);
        CHECK(cuzk_fr_is_one(&t), "fr a * a^-1 = 1 (%s %d)", what, i);
    } else {
        CHECK(cuzk_fr_is_zero(&r1), "fr inv of 0 is 0 (%s %d)", what, i);
    }
}

static void check_inv(void)
{
    static uint64_t edges[MAX_EDGES][6];
    int ne = edge_values(edges, P, 6);
    for (int i = 0; i < ne; i++) { /* as Montgomery representations and as canonical values */
        cuzk_fp a;
        memcpy(a.l, edges[i], sizeof a.l);
        check_fp_inv_one(&a, "fp edge raw", i);
        cuzk_fp_from_canonical(&a, edges[i]);
        check_fp_inv_one(&a, "fp edge", i);
    }
    for (int i = 0; i < INV_RANDOM; i++) {
        cuzk_fp a;
        if (i & 1)
            test_rand_fp(&a);
        else
            rand_structured(a.l, P, 6);
        check_fp_inv_one(&a, "fp random", i);
    }
    ne = edge_values(edges, R, 4);
    for (int i = 0; i < ne; i++) {
        cuzk_fr a;
        memcpy(a.l, edges[i], sizeof a.l);
        check_fr_inv_one(&a, "fr edge raw", i);
        cuzk_fr_from_canonical(&a, edges[i]);
        check_fr_inv_one(&a, "fr edge", i);
    }
    for (int i = 0; i < INV_RANDOM; i++) {
        cuzk_fr a;
        if (i & 1)
            test_rand_fr(&a);
        else
            rand_structured(a.l, R, 4);
        check_fr_inv_one(&a, "fr random", i);
    }
}

/* Runs cuzk_arith_asm_active() in a child with CUZK_NO_ASM set to env (NULL:
 * unset); returns its answer, or -1 if the child failed. Must run before this
 * process makes its own decision (its first multiplication), which the child
 * would otherwise inherit. */
static int active_in_child(const char *env)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        if (env)
            setenv("CUZK_NO_ASM", env, 1);
        else
            unsetenv("CUZK_NO_ASM");
        _exit(cuzk_arith_asm_active() ? 1 : 0);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

/* The run-time switch: CUZK_NO_ASM=1 forces the portable path, "0" or unset does not. */
static void check_switch(void)
{
    int can = cuzk_arith_asm_compiled() && cuzk_arith_cpu_has_adx();
    CHECK(active_in_child("1") == 0, "CUZK_NO_ASM=1 selects the portable path");
    CHECK(active_in_child("0") == can, "CUZK_NO_ASM=0 keeps the assembly when available");
    CHECK(active_in_child(NULL) == can, "no CUZK_NO_ASM: assembly when available");
}

int main(void)
{
    check_switch(); /* first: before this process decides its own path */
    test_rng_init("test_field_asm");
    printf("test_field_asm: assembly compiled in: %s, cpu has bmi2+adx: %s, active: %s\n",
           cuzk_arith_asm_compiled() ? "yes" : "no", cuzk_arith_cpu_has_adx() ? "yes" : "no",
           cuzk_arith_asm_active() ? "yes" : "no");
    if (!(cuzk_arith_asm_compiled() && cuzk_arith_cpu_has_adx()))
        printf("test_field_asm: the _adx entry points run the portable code here\n");
    if (!cuzk_arith_asm_compiled())
        printf("test_field_asm: so do the _asm add/sub/neg/dbl entry points\n");
    check_fp_mul();
    check_fr_mul();
    check_addsub_all();
    check_divsteps();
    check_inv();
    return test_finish("test_field_asm");
}
