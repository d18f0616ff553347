/*
 * curve_tests.h — the group-law tests, written once and included by
 * test_curve.c for G1 and for G2 (like src/arith/curve_impl.h).
 *
 * The includer defines T_G (g1/g2), T_F, T_FE(op), T_P, T_AFF, T_XYZZ,
 * T_GEN (the affine generator), T_VEC (vector file name), T_ENC (uncompressed
 * encoding size), T_DESER (its decoder), T_RAND_FE, T_SET_B(fe *b),
 * T_PARSE_RAW(aff *, hex) (coordinates of an uncompressed encoding without
 * any check), T_COFACTOR (hex, prover-internals.md §3.3), T_PRIMES (small
 * primes dividing the cofactor) and T_ITER. Every function gets the T_G
 * prefix, and the macros are undefined at the end so the file can be
 * included again.
 *
 * Oracles: the @noble/curves vectors, the textbook subgroup test [r]P = O,
 * naive double-and-add, and algebraic identities between the independent
 * formula families (Jacobian, mixed, XYZZ) on fresh random points.
 */

#define TC_(a, b) a##b
#define TC(a, b) TC_(a, b)
#define TN(name) TC(TC(T_G, _), name)
#define TF(name) TC(TC(TC(cuzk_, T_G), _), name)

/* ---- helpers ------------------------------------------------------------ */

/* A random subgroup point [k]G with k uniform in Fr. */
static void TN(rand_point)(T_P *r)
{
    cuzk_fr k;
    T_P g;
    test_rand_fr(&k);
    TF(from_affine)(&g, &T_GEN);
    TF(mul_fr)(r, &g, &k);
}

/* The same point with a random Z: (l^2 X, l^3 Y, l Z). */
static void TN(rescale)(T_P *r, const T_P *a)
{
    T_F l, l2;
    do
        T_RAND_FE(&l);
    while (T_FE(is_zero)(&l));
    T_FE(sqr)(&l2, &l);
    T_FE(mul)(&r->X, &a->X, &l2);
    T_FE(mul)(&l2, &l2, &l);
    T_FE(mul)(&r->Y, &a->Y, &l2);
    T_FE(mul)(&r->Z, &a->Z, &l);
}

/* A random point of the whole curve group (almost never in the subgroup). */
static void TN(rand_curve_point)(T_AFF *r)
{
    T_F b, rhs;
    T_SET_B(&b);
    for (;;) {
        T_RAND_FE(&r->x);
        T_FE(sqr)(&rhs, &r->x);
        T_FE(mul)(&rhs, &rhs, &r->x);
        T_FE(add)(&rhs, &rhs, &b);
        if (T_FE(sqrt)(&r->y, &rhs))
            break;
    }
    if (test_rand64() & 1)
        T_FE(neg)(&r->y, &r->y);
}

static bool TN(ref_in_group)(const T_AFF *a)
{
    T_P p;
    TF(from_affine)(&p, a);
    TF(mul)(&p, &p, CUZK_R, 4);
    return TF(is_identity)(&p);
}

static void TN(naive_mul)(T_P *r, const T_P *a, const uint64_t *k, size_t n)
{
    T_P acc;
    TF(set_identity)(&acc);
    for (size_t i = 64 * n; i-- > 0;) {
        TF(dbl)(&acc, &acc);
        if ((k[i / 64] >> (i % 64)) & 1)
            TF(add)(&acc, &acc, a);
    }
    *r = acc;
}

static void TN(to_xyzz)(T_XYZZ *r, const T_AFF *a)
{
    TF(xyzz_set_identity)(r);
    TF(xyzz_add_affine)(r, r, a);
}

static bool TN(xyzz_eq_jac)(const T_XYZZ *a, const T_P *b)
{
    T_P t;
    TF(xyzz_to_jacobian)(&t, a);
    return TF(eq)(&t, b);
}

static bool TN(decode_hex)(T_AFF *r, const char *hex)
{
    uint8_t buf[T_ENC];
    return hex_decode(buf, sizeof buf, hex) && T_DESER(r, buf, 0, NULL, 0) == CUZK_OK;
}

/* ---- vectors ------------------------------------------------------------ */

static void TN(test_vectors)(void)
{
    vec_file v;
    int counts[8] = {0};
    if (!vec_open(&v, T_VEC))
        return;
    while (vec_next(&v)) {
        const char *op = v.tok[0];
        T_AFF pa, qa, ra;
        T_P p, q, r, t;
        T_XYZZ xp, xq, xt;
        if (!strcmp(op, "enc") && v.ntok == 3) {
            counts[0]++;
            bool ok = TN(decode_hex)(&pa, v.tok[1]);
            CHECK(ok, "%s:%d enc decode", v.path, v.lineno);
            CHECK(TF(affine_on_curve)(&pa) && TF(affine_in_group)(&pa) && TN(ref_in_group)(&pa),
                  "%s:%d enc point not on curve / in group", v.path, v.lineno);
        } else if (!strcmp(op, "add") && v.ntok == 4) {
            counts[1]++;
            if (!TN(decode_hex)(&pa, v.tok[1]) || !TN(decode_hex)(&qa, v.tok[2]) ||
                !TN(decode_hex)(&ra, v.tok[3])) {
                CHECK(false, "%s:%d add decode", v.path, v.lineno);
                continue;
            }
            TF(from_affine)(&p, &pa);
            TF(from_affine)(&q, &qa);
            TF(from_affine)(&r, &ra);
            TN(rescale)(&p, &p);
            TN(rescale)(&q, &q);
            TF(add)(&t, &p, &q);
            CHECK(TF(eq)(&t, &r), "%s:%d jacobian add", v.path, v.lineno);
            TF(to_affine)(&ra, &t);
            TF(to_affine)(&pa, &r);
            CHECK(TF(affine_eq)(&ra, &pa), "%s:%d add to_affine", v.path, v.lineno);
            TF(add_affine)(&t, &p, &qa);
            CHECK(TF(eq)(&t, &r), "%s:%d mixed add", v.path, v.lineno);
            TF(to_affine)(&pa, &p);
            TN(to_xyzz)(&xp, &pa);
            TN(to_xyzz)(&xq, &qa);
            TF(xyzz_add_affine)(&xt, &xp, &qa);
            CHECK(TN(xyzz_eq_jac)(&xt, &r), "%s:%d xyzz mixed add", v.path, v.lineno);
            TF(xyzz_add)(&xt, &xp, &xq);
            CHECK(TN(xyzz_eq_jac)(&xt, &r), "%s:%d xyzz add", v.path, v.lineno);
        } else if (!strcmp(op, "dbl") && v.ntok == 3) {
            counts[2]++;
            if (!TN(decode_hex)(&pa, v.tok[1]) || !TN(decode_hex)(&ra, v.tok[2])) {
                CHECK(false, "%s:%d dbl decode", v.path, v.lineno);
                continue;
            }
            TF(from_affine)(&p, &pa);
            TF(from_affine)(&r, &ra);
            TN(rescale)(&p, &p);
            TF(dbl)(&t, &p);
            CHECK(TF(eq)(&t, &r), "%s:%d dbl", v.path, v.lineno);
            TF(add)(&t, &p, &p);
            CHECK(TF(eq)(&t, &r), "%s:%d add(P, P)", v.path, v.lineno);
            TN(to_xyzz)(&xp, &pa);
            TF(xyzz_dbl)(&xt, &xp);
            CHECK(TN(xyzz_eq_jac)(&xt, &r), "%s:%d xyzz dbl", v.path, v.lineno);
        } else if (!strcmp(op, "neg") && v.ntok == 3) {
            counts[3]++;
            if (!TN(decode_hex)(&pa, v.tok[1]) || !TN(decode_hex)(&ra, v.tok[2])) {
                CHECK(false, "%s:%d neg decode", v.path, v.lineno);
                continue;
            }
            TF(affine_neg)(&qa, &pa);
            CHECK(TF(affine_eq)(&qa, &ra), "%s:%d affine neg", v.path, v.lineno);
            TF(from_affine)(&p, &pa);
            TF(from_affine)(&r, &ra);
            TF(neg)(&t, &p);
            CHECK(TF(eq)(&t, &r), "%s:%d neg", v.path, v.lineno);
        } else if (!strcmp(op, "mul") && v.ntok == 4) {
            counts[4]++;
            uint64_t k[6] = {0};
            uint8_t kb[32], kle[32];
            if (!TN(decode_hex)(&pa, v.tok[1]) || !hex_limbs(k, 4, v.tok[2]) ||
                !hex_decode(kb, 32, v.tok[2]) || !TN(decode_hex)(&ra, v.tok[3])) {
                CHECK(false, "%s:%d mul decode", v.path, v.lineno);
                continue;
            }
            TF(from_affine)(&p, &pa);
            TF(from_affine)(&r, &ra);
            TF(mul)(&t, &p, k, 4);
            CHECK(TF(eq)(&t, &r), "%s:%d mul", v.path, v.lineno);
            TN(rescale)(&q, &p);
            TF(mul)(&t, &q, k, 6);
            CHECK(TF(eq)(&t, &r), "%s:%d mul (6 limbs, rescaled)", v.path, v.lineno);
            for (int i = 0; i < 32; i++)
                kle[i] = kb[31 - i];
            cuzk_fr kf;
            cuzk_fr_from_le32_reduce(&kf, kle);
            TF(mul_fr)(&t, &p, &kf);
            CHECK(TF(eq)(&t, &r), "%s:%d mul_fr", v.path, v.lineno);
        } else if (!strcmp(op, "notsub") && v.ntok == 2) {
            counts[5]++;
            bool ok = TN(decode_hex)(&pa, v.tok[1]);
            CHECK(ok, "%s:%d notsub decode", v.path, v.lineno);
            CHECK(TF(affine_on_curve)(&pa), "%s:%d notsub on curve", v.path, v.lineno);
            CHECK(!TF(affine_in_group)(&pa), "%s:%d notsub accepted by in_group", v.path, v.lineno);
            CHECK(!TN(ref_in_group)(&pa), "%s:%d notsub: [r]P = O", v.path, v.lineno);
        } else if (!strcmp(op, "offcurve") && v.ntok == 2) {
            counts[6]++;
            bool ok = T_PARSE_RAW(&pa, v.tok[1]);
            CHECK(ok, "%s:%d offcurve parse", v.path, v.lineno);
            CHECK(!TF(affine_on_curve)(&pa), "%s:%d offcurve accepted by affine_on_curve", v.path, v.lineno);
            TF(from_affine)(&p, &pa);
            TN(rescale)(&p, &p);
            CHECK(!TF(on_curve)(&p), "%s:%d offcurve accepted by on_curve", v.path, v.lineno);
        } else if (!strcmp(op, "msm") && v.ntok >= 2) {
            counts[7]++;
            int n = (int)strtol(v.tok[1], NULL, 16); /* hex, like every number in the vector files */
            if (n < 1 || v.ntok != 3 + 2 * n) {
                CHECK(false, "%s:%d msm token count", v.path, v.lineno);
                continue;
            }
            T_P acc;
            TF(set_identity)(&acc);
            bool ok = true;
            for (int i = 0; i < n; i++) {
                uint64_t k[4];
                ok &= TN(decode_hex)(&pa, v.tok[2 + i]) && hex_limbs(k, 4, v.tok[2 + n + i]);
                TF(from_affine)(&p, &pa);
                TF(mul)(&p, &p, k, 4);
                TF(add)(&acc, &acc, &p);
            }
            ok &= TN(decode_hex)(&ra, v.tok[2 + 2 * n]);
            TF(from_affine)(&r, &ra);
            CHECK(ok && TF(eq)(&acc, &r), "%s:%d msm (naive sum of mul)", v.path, v.lineno);
        }
    }
    vec_close(&v);
    static const char *names[8] = {"enc", "add", "dbl", "neg", "mul", "notsub", "offcurve", "msm"};
    for (int i = 0; i < 8; i++)
        CHECK(counts[i] > 0, "%s: no '%s' vectors", T_VEC, names[i]);
}

/* ---- group law ---------------------------------------------------------- */

static void TN(test_group_law)(void)
{
    T_P o;
    TF(set_identity)(&o);
    for (int it = 0; it < T_ITER; it++) {
        T_P p, q, s, t, u, w, np;
        T_AFF pa, qa, npa, oa;
        T_XYZZ xp, xq, xt, xo;
        TN(rand_point)(&p);
        TN(rand_point)(&q);
        TN(rand_point)(&s);
        TN(rescale)(&p, &p);
        TN(rescale)(&q, &q);
        TF(to_affine)(&pa, &p);
        TF(to_affine)(&qa, &q);
        TF(neg)(&np, &p);
        TF(affine_neg)(&npa, &pa);
        memset(&oa, 0, sizeof oa);
        TF(xyzz_set_identity)(&xo);
        CHECK(TF(affine_on_curve)(&pa) && TF(on_curve)(&p), "random point on curve");
        CHECK(!TF(eq)(&p, &q) && !TF(eq)(&p, &np) && !TF(eq)(&p, &o), "eq distinguishes points");

        /* Jacobian */
        TF(add)(&t, &p, &q);
        TF(add)(&u, &q, &p);
        CHECK(TF(eq)(&t, &u), "commutativity");
        TF(add)(&t, &t, &s);
        TF(add)(&u, &q, &s);
        TF(add)(&u, &p, &u);
        CHECK(TF(eq)(&t, &u), "associativity");
        TF(add)(&t, &p, &np);
        CHECK(TF(is_identity)(&t), "P + (-P) = O");
        TF(add)(&t, &p, &o);
        TF(add)(&u, &o, &p);
        CHECK(TF(eq)(&t, &p) && TF(eq)(&u, &p), "P + O = O + P = P");
        TF(add)(&t, &o, &o);
        TF(dbl)(&u, &o);
        CHECK(TF(is_identity)(&t) && TF(is_identity)(&u), "O + O = 2O = O");
        TF(dbl)(&t, &p);
        TF(add)(&u, &p, &p);
        TN(rescale)(&w, &p);
        TF(add)(&w, &p, &w);
        CHECK(TF(eq)(&t, &u) && TF(eq)(&t, &w), "dbl(P) = P + P (same and different Z)");
        TF(add)(&u, &t, &np);
        CHECK(TF(eq)(&u, &p), "2P - P = P");
        u = p;
        TF(add)(&u, &u, &u);
        CHECK(TF(eq)(&u, &t), "add with r = a = b");
        u = p;
        TF(dbl)(&u, &u);
        CHECK(TF(eq)(&u, &t), "dbl in place");

        /* mixed */
        TF(add)(&t, &p, &q);
        TF(add_affine)(&u, &p, &qa);
        CHECK(TF(eq)(&t, &u), "add_affine = add");
        u = p;
        TF(add_affine)(&u, &u, &qa);
        CHECK(TF(eq)(&t, &u), "add_affine in place");
        TF(add_affine)(&u, &p, &pa);
        TF(dbl)(&w, &p);
        CHECK(TF(eq)(&u, &w), "add_affine(P, P) = 2P");
        TF(add_affine)(&u, &p, &npa);
        CHECK(TF(is_identity)(&u), "add_affine(P, -P) = O");
        TF(add_affine)(&u, &o, &qa);
        CHECK(TF(eq)(&u, &q), "add_affine(O, Q) = Q");
        TF(add_affine)(&u, &p, &oa);
        CHECK(TF(eq)(&u, &p), "add_affine(P, O) = P");

        /* XYZZ: xp gets a non-trivial ZZ by being built as (P - Q) + Q */
        TN(to_xyzz)(&xp, &pa);
        TF(xyzz_sub_affine)(&xp, &xp, &qa);
        TF(xyzz_add_affine)(&xp, &xp, &qa);
        CHECK(TN(xyzz_eq_jac)(&xp, &p), "xyzz (P - Q) + Q = P");
        TN(to_xyzz)(&xq, &qa);
        TF(xyzz_dbl)(&xq, &xq);
        TF(xyzz_sub_affine)(&xq, &xq, &qa);
        CHECK(TN(xyzz_eq_jac)(&xq, &q), "xyzz 2Q - Q = Q");
        TF(add)(&t, &p, &q);
        TF(xyzz_add)(&xt, &xp, &xq);
        CHECK(TN(xyzz_eq_jac)(&xt, &t), "xyzz_add = add");
        TF(xyzz_add_affine)(&xt, &xp, &qa);
        CHECK(TN(xyzz_eq_jac)(&xt, &t), "xyzz_add_affine = add");
        TF(neg)(&w, &q);
        TF(add)(&w, &p, &w);
        TF(xyzz_sub_affine)(&xt, &xp, &qa);
        CHECK(TN(xyzz_eq_jac)(&xt, &w), "xyzz_sub_affine = P - Q");
        TF(dbl)(&t, &p);
        TF(xyzz_dbl)(&xt, &xp);
        CHECK(TN(xyzz_eq_jac)(&xt, &t), "xyzz_dbl = dbl");
        TF(xyzz_add)(&xt, &xp, &xp);
        CHECK(TN(xyzz_eq_jac)(&xt, &t), "xyzz_add(P, P) = 2P");
        TF(xyzz_add_affine)(&xt, &xp, &pa);
        CHECK(TN(xyzz_eq_jac)(&xt, &t), "xyzz_add_affine(P, P) = 2P");
        TF(xyzz_sub_affine)(&xt, &xp, &npa);
        CHECK(TN(xyzz_eq_jac)(&xt, &t), "xyzz_sub_affine(P, -P) = 2P");
        TF(xyzz_add_affine)(&xt, &xp, &npa);
        CHECK(TF(xyzz_is_identity)(&xt), "xyzz_add_affine(P, -P) = O");
        TF(xyzz_sub_affine)(&xt, &xp, &pa);
        CHECK(TF(xyzz_is_identity)(&xt), "xyzz_sub_affine(P, P) = O");
        TN(to_xyzz)(&xq, &npa);
        TF(xyzz_add_affine)(&xq, &xq, &qa);
        TF(xyzz_sub_affine)(&xq, &xq, &qa); /* -P with ZZ != 1 */
        TF(xyzz_add)(&xt, &xp, &xq);
        CHECK(TF(xyzz_is_identity)(&xt), "xyzz_add(P, -P) = O");
        TF(xyzz_add)(&xt, &xp, &xo);
        CHECK(TN(xyzz_eq_jac)(&xt, &p), "xyzz_add(P, O) = P");
        TF(xyzz_add)(&xt, &xo, &xp);
        CHECK(TN(xyzz_eq_jac)(&xt, &p), "xyzz_add(O, P) = P");
        TF(xyzz_add_affine)(&xt, &xp, &oa);
        TF(xyzz_sub_affine)(&xt, &xt, &oa);
        CHECK(TN(xyzz_eq_jac)(&xt, &p), "xyzz +/- affine O");
        TF(xyzz_dbl)(&xt, &xo);
        TF(xyzz_add)(&xt, &xt, &xo);
        CHECK(TF(xyzz_is_identity)(&xt), "xyzz 2O + O = O");
        TF(xyzz_to_jacobian)(&t, &xo);
        CHECK(TF(is_identity)(&t), "xyzz_to_jacobian(O) = O");
        xt = xp;
        TF(xyzz_add)(&xt, &xt, &xt);
        TF(dbl)(&t, &p);
        CHECK(TN(xyzz_eq_jac)(&xt, &t), "xyzz_add in place");

        /* affine conversions */
        TF(from_affine)(&t, &pa);
        CHECK(TF(eq)(&t, &p), "from_affine(to_affine(P)) = P");
        TF(to_affine)(&pa, &o);
        CHECK(TF(affine_is_identity)(&pa), "to_affine(O) = (0, 0)");
        TF(from_affine)(&t, &oa);
        CHECK(TF(is_identity)(&t), "from_affine((0, 0)) = O");
        TF(affine_neg)(&pa, &oa);
        CHECK(TF(affine_is_identity)(&pa), "-O = O (affine)");
    }
}

/* ---- scalar multiplication ---------------------------------------------- */

static void TN(test_mul)(void)
{
    T_P g, o;
    TF(from_affine)(&g, &T_GEN);
    TF(set_identity)(&o);
    for (int it = 0; it < T_ITER; it++) {
        T_P p, t, u, w;
        cuzk_fr a, b, c;
        TN(rand_point)(&p);
        TN(rescale)(&p, &p);
        test_rand_fr(&a);
        test_rand_fr(&b);

        cuzk_fr_mul(&c, &a, &b);
        TF(mul_fr)(&t, &p, &b);
        TF(mul_fr)(&t, &t, &a);
        TF(mul_fr)(&u, &p, &c);
        CHECK(TF(eq)(&t, &u), "[a]([b]P) = [ab]P");
        cuzk_fr_add(&c, &a, &b);
        TF(mul_fr)(&t, &p, &a);
        TF(mul_fr)(&w, &p, &b);
        TF(add)(&t, &t, &w);
        TF(mul_fr)(&u, &p, &c);
        CHECK(TF(eq)(&t, &u), "[a]P + [b]P = [a + b]P");

        /* against naive double-and-add, 1 to 6 limbs, any bit pattern */
        uint64_t k[6];
        size_t n = 1 + (size_t)(test_rand64() % 6);
        for (size_t i = 0; i < n; i++)
            k[i] = test_rand64();
        if (it % 4 == 1)
            k[n - 1] >>= test_rand64() % 64;
        TF(mul)(&t, &p, k, n);
        TN(naive_mul)(&u, &p, k, n);
        CHECK(TF(eq)(&t, &u), "mul = double-and-add (%zu limbs)", n);

        /* k = q r + s with q of 1-2 limbs: [k]P = [s]P */
        uint64_t s[6] = {0}, kk[6] = {0}, q[2] = {test_rand64(), it & 1 ? test_rand64() : 0};
        cuzk_fr_to_canonical(s, &a);
        big_mul(kk, CUZK_R, 4, q, 2);
        big_add(kk, kk, s, 6);
        TF(mul)(&t, &p, kk, 6);
        TF(mul)(&u, &p, s, 4);
        CHECK(TF(eq)(&t, &u), "[q r + s]P = [s]P");

        t = p;
        TF(mul_fr)(&t, &t, &a);
        TF(mul_fr)(&u, &p, &a);
        CHECK(TF(eq)(&t, &u), "mul in place");
        TF(mul_fr)(&t, &o, &a);
        CHECK(TF(is_identity)(&t), "[a]O = O");
    }

    /* edge scalars k = 0, 1, 2, r - 1, r, r + 1, 2r, 2^256 - 1 on G and a random point */
    for (int rep = 0; rep < 2; rep++) {
        T_P p, t, u;
        if (rep == 0)
            p = g;
        else
            TN(rand_point)(&p);
        uint64_t k[5];
        memset(k, 0, sizeof k);
        TF(mul)(&t, &p, k, 4);
        CHECK(TF(is_identity)(&t), "[0]P = O");
        TF(mul)(&t, &p, k, 0);
        CHECK(TF(is_identity)(&t), "empty scalar gives O");
        k[0] = 1;
        TF(mul)(&t, &p, k, 4);
        CHECK(TF(eq)(&t, &p), "[1]P = P");
        k[0] = 2;
        TF(mul)(&t, &p, k, 1);
        TF(dbl)(&u, &p);
        CHECK(TF(eq)(&t, &u), "[2]P = 2P");
        memcpy(k, CUZK_R, 32);
        TF(mul)(&t, &p, k, 4);
        CHECK(TF(is_identity)(&t), "[r]P = O");
        k[0] -= 1;
        TF(mul)(&t, &p, k, 4);
        TF(neg)(&u, &p);
        CHECK(TF(eq)(&t, &u), "[r - 1]P = -P");
        k[0] += 2;
        TF(mul)(&t, &p, k, 4);
        CHECK(TF(eq)(&t, &p), "[r + 1]P = P");
        memset(k, 0, sizeof k);
        big_add(k, CUZK_R, CUZK_R, 4);
        k[4] = 0;
        TF(mul)(&t, &p, k, 5);
        CHECK(TF(is_identity)(&t), "[2r]P = O");
        memset(k, 0xff, 32);
        TF(mul)(&t, &p, k, 4);
        TN(naive_mul)(&u, &p, k, 4);
        CHECK(TF(eq)(&t, &u), "[2^256 - 1]P");
    }
}

/* ---- batch_to_affine ---------------------------------------------------- */

static void TN(test_batch_to_affine)(void)
{
    enum { N = 37 };
    T_P in[N];
    T_AFF out[N], want;
    T_F scratch[N];
    for (int i = 0; i < N; i++) {
        if (i % 7 == 3)
            TF(set_identity)(&in[i]);
        else {
            TN(rand_point)(&in[i]);
            TN(rescale)(&in[i], &in[i]);
        }
    }
    TF(set_identity)(&in[N - 1]);
    TF(batch_to_affine)(out, in, N, scratch);
    int bad = 0;
    for (int i = 0; i < N; i++) {
        TF(to_affine)(&want, &in[i]);
        bad += !TF(affine_eq)(&want, &out[i]);
    }
    CHECK(bad == 0, "batch_to_affine differs from to_affine at %d of %d points", bad, N);
    TF(batch_to_affine)(out, in, 1, scratch);
    TF(to_affine)(&want, &in[0]);
    CHECK(TF(affine_eq)(&want, &out[0]), "batch_to_affine n = 1");
    TF(batch_to_affine)(out, in, 0, scratch);
    for (int i = 0; i < N; i++)
        TF(set_identity)(&in[i]);
    TF(batch_to_affine)(out, in, N, scratch);
    bad = 0;
    for (int i = 0; i < N; i++)
        bad += !TF(affine_is_identity)(&out[i]);
    CHECK(bad == 0, "batch_to_affine of identities");
}

/* ---- curve membership and subgroup -------------------------------------- */

static void TN(test_on_curve)(void)
{
    T_AFF oa;
    T_P o;
    memset(&oa, 0, sizeof oa);
    TF(set_identity)(&o);
    CHECK(TF(affine_on_curve)(&oa) && TF(on_curve)(&o), "identity counts as on the curve");
    CHECK(TF(affine_on_curve)(&T_GEN), "generator on the curve");
    for (int it = 0; it < T_ITER; it++) {
        T_P p, t;
        T_AFF pa, ba;
        T_F one;
        T_FE(sqr)(&one, &T_GEN.x); /* any non-zero delta */
        TN(rand_point)(&p);
        TN(rescale)(&p, &p);
        TF(to_affine)(&pa, &p);
        ba = pa;
        T_FE(add)(&ba.y, &ba.y, &one);
        CHECK(!TF(affine_on_curve)(&ba), "y corrupted still on curve");
        ba = pa;
        T_FE(add)(&ba.x, &ba.x, &one);
        CHECK(!TF(affine_on_curve)(&ba), "x corrupted still on curve");
        t = p;
        T_FE(add)(&t.X, &t.X, &one);
        CHECK(!TF(on_curve)(&t), "X corrupted still on curve");
        t = p;
        T_FE(add)(&t.Z, &t.Z, &one);
        CHECK(!TF(on_curve)(&t) || T_FE(is_zero)(&t.Z), "Z corrupted still on curve");
        TN(rand_curve_point)(&ba);
        CHECK(TF(affine_on_curve)(&ba), "random curve point on curve");
    }
}

/* The l-primary part of Q: [r h / l^v]Q with l^v the largest power of l dividing h. Its order is
 * a power of l, and it is not the identity for most Q. */
static void TN(torsion_point)(T_P *r, const T_AFF *q, uint64_t l)
{
    uint64_t h[8] = {0}, d[8], m[12] = {0};
    int v = 0;
    hex_limbs(h, 8, T_COFACTOR);
    while (big_div_small(d, h, 8, l) == 0) {
        memcpy(h, d, sizeof h);
        v++;
    }
    CHECK(v > 0, "%llu does not divide the cofactor", (unsigned long long)l);
    big_mul(m, h, 8, CUZK_R, 4);
    T_P p;
    TF(from_affine)(&p, q);
    TF(mul)(r, &p, m, 12);
}

static void TN(test_in_group)(void)
{
    CHECK(TF(affine_in_group)(&T_GEN), "generator in group");
    T_AFF oa;
    memset(&oa, 0, sizeof oa);
    CHECK(TF(affine_in_group)(&oa), "identity in group");
    int outside = 0, torsion = 0;
    for (int it = 0; it < T_ITER; it++) {
        T_P p, t;
        T_AFF pa, qa, ta;
        TN(rand_point)(&p);
        TF(to_affine)(&pa, &p);
        CHECK(TF(affine_in_group)(&pa), "random subgroup point rejected");

        TN(rand_curve_point)(&qa);
        bool fast = TF(affine_in_group)(&qa), ref = TN(ref_in_group)(&qa);
        CHECK(fast == ref, "in_group %d but [r]P = O is %d (random curve point)", fast, ref);
        outside += !ref;

        /* T = [r]Q lies in the cofactor torsion; T and T + P are outside G1/G2 unless T = O */
        TF(from_affine)(&t, &qa);
        TF(mul)(&t, &t, CUZK_R, 4);
        TF(to_affine)(&ta, &t);
        fast = TF(affine_in_group)(&ta);
        CHECK(fast == TF(is_identity)(&t), "in_group([r]Q) = %d", fast);
        TF(add)(&t, &t, &p);
        TF(to_affine)(&ta, &t);
        fast = TF(affine_in_group)(&ta);
        ref = TN(ref_in_group)(&ta);
        CHECK(fast == ref, "in_group([r]Q + P) = %d, [r]P = O is %d", fast, ref);

        /* points whose order is a power of one small prime factor of the cofactor */
        uint64_t l = T_PRIMES[it % (sizeof T_PRIMES / sizeof T_PRIMES[0])];
        TN(torsion_point)(&t, &qa, l);
        if (TF(is_identity)(&t))
            continue;
        torsion++;
        CHECK(TF(on_curve)(&t), "torsion point on curve");
        TF(to_affine)(&ta, &t);
        CHECK(!TF(affine_in_group)(&ta), "%llu-torsion point accepted", (unsigned long long)l);
        TF(add)(&t, &t, &p);
        TF(to_affine)(&ta, &t);
        CHECK(!TF(affine_in_group)(&ta), "%llu-torsion point + P accepted", (unsigned long long)l);
    }
    CHECK(outside > T_ITER / 2, "too few random curve points outside the subgroup (%d)", outside);
    CHECK(torsion > T_ITER / 2, "too few non-trivial torsion points (%d)", torsion);
}

static void TN(run_all)(void)
{
    TN(test_vectors)();
    TN(test_group_law)();
    TN(test_mul)();
    TN(test_batch_to_affine)();
    TN(test_on_curve)();
    TN(test_in_group)();
}

#undef TC_
#undef TC
#undef TN
#undef TF
#undef T_G
#undef T_F
#undef T_FE
#undef T_P
#undef T_AFF
#undef T_XYZZ
#undef T_GEN
#undef T_VEC
#undef T_ENC
#undef T_DESER
#undef T_RAND_FE
#undef T_SET_B
#undef T_PARSE_RAW
#undef T_COFACTOR
#undef T_PRIMES
#undef T_ITER
