/*
 * serialize_tests.h — encoding tests written once and included by
 * test_serialize.c for G1 and for G2 (like curve_tests.h).
 *
 * The includer defines T_G (g1/g2), T_F, T_FE(op), T_P, T_AFF, T_GEN, T_VEC,
 * T_UN / T_CN (uncompressed / compressed sizes), T_RAND_FE, T_SET_B(fe *b),
 * T_X_BYTES(out, fe *x) (the big-endian x field of an encoding, G2: c1 then
 * c0), T_SIGN(aff *) (the expected sign bit, computed from canonical bytes)
 * and T_ITER. Everything gets the T_G prefix; the macros are undefined at the
 * end.
 *
 * Each decoding failure mode gets its own bad input, built by editing a good
 * encoding, and must yield exactly its status code, leave the output untouched
 * and fill the message buffer.
 */

#define TC_(a, b) a##b
#define TC(a, b) TC_(a, b)
#define TN(name) TC(TC(T_G, _), name)
#define TF(name) TC(TC(TC(cuzk_, T_G), _), name)
#define TC_STR_(x) #x
#define TC_STR(x) TC_STR_(x)

static void TN(rand_point)(T_AFF *r)
{
    cuzk_fr k;
    T_P g;
    test_rand_fr(&k);
    TF(from_affine)(&g, &T_GEN);
    TF(mul_fr)(&g, &g, &k);
    TF(to_affine)(r, &g);
}

/* Decoders under test, with a uniform signature. */
typedef int (*TN(decoder))(T_AFF *, const uint8_t *, unsigned, char *, size_t);
static int TN(dec_un)(T_AFF *r, const uint8_t *in, unsigned f, char *e, size_t n)
{
    return TF(deserialize)(r, in, f, e, n);
}
static int TN(dec_cn)(T_AFF *r, const uint8_t *in, unsigned f, char *e, size_t n)
{
    return TF(uncompress)(r, in, f, e, n);
}
static int TN(dec_any_un)(T_AFF *r, const uint8_t *in, unsigned f, char *e, size_t n)
{
    return TF(decode)(r, in, T_UN, f, e, n);
}
static int TN(dec_any_cn)(T_AFF *r, const uint8_t *in, unsigned f, char *e, size_t n)
{
    return TF(decode)(r, in, T_CN, f, e, n);
}
static int TN(dec_sj_mont)(T_AFF *r, const uint8_t *in, unsigned f, char *e, size_t n)
{
    return TF(from_snarkjs)(r, in, true, f, e, n);
}
static int TN(dec_sj_canon)(T_AFF *r, const uint8_t *in, unsigned f, char *e, size_t n)
{
    return TF(from_snarkjs)(r, in, false, f, e, n);
}

/* Expects status want from dec(in, flags): output untouched on failure, message filled. */
static void TN(expect)(TN(decoder) dec, const uint8_t *in, unsigned flags, int want, const char *what)
{
    T_AFF out;
    uint8_t pattern[sizeof out];
    char err[256] = "";
    memset(pattern, 0xa5, sizeof pattern);
    memcpy(&out, pattern, sizeof out);
    int rc = dec(&out, in, flags, err, sizeof err);
    CHECK(rc == want, "%s %s: status %d (%s), expected %d (%s); message \"%s\"", TC_STR(T_G), what, rc,
          cuzk_strerror(rc), want, cuzk_strerror(want), err);
    if (want != CUZK_OK) {
        CHECK(memcmp(&out, pattern, sizeof out) == 0, "%s %s: output modified on failure", TC_STR(T_G), what);
        CHECK(err[0] != 0, "%s %s: no error message", TC_STR(T_G), what);
        CHECK(dec(&out, in, flags, NULL, 0) == want, "%s %s: status differs without err buffer", TC_STR(T_G),
              what);
    }
}

/* ---- vectors ------------------------------------------------------------ */

static void TN(test_vectors)(void)
{
    vec_file v;
    int nenc = 0, nnotsub = 0, nnotsub_c = 0, noff = 0, noff_c = 0, nother = 0;
    if (!vec_open(&v, T_VEC))
        return;
    while (vec_next(&v)) {
        const char *op = v.tok[0];
        uint8_t u[T_UN], c[T_CN], re[T_UN];
        T_AFF p, q;
        if (!strcmp(op, "enc") && v.ntok == 3) {
            nenc++;
            bool ok = hex_decode(u, T_UN, v.tok[1]) && hex_decode(c, T_CN, v.tok[2]);
            CHECK(ok, "%s:%d hex", v.path, v.lineno);
            int rc1 = TF(deserialize)(&p, u, CUZK_DECODE_CHECK_GROUP, NULL, 0);
            int rc2 = TF(uncompress)(&q, c, CUZK_DECODE_CHECK_GROUP, NULL, 0);
            CHECK(rc1 == CUZK_OK && rc2 == CUZK_OK, "%s:%d decode: %d %d", v.path, v.lineno, rc1, rc2);
            CHECK(TF(affine_eq)(&p, &q), "%s:%d compressed and uncompressed decode differently", v.path,
                  v.lineno);
            TF(serialize)(re, &p);
            CHECK(!memcmp(re, u, T_UN), "%s:%d re-serialize differs", v.path, v.lineno);
            TF(compress)(re, &p);
            CHECK(!memcmp(re, c, T_CN), "%s:%d re-compress differs", v.path, v.lineno);
            CHECK(TF(decode)(&q, u, T_UN, 0, NULL, 0) == CUZK_OK && TF(affine_eq)(&p, &q), "%s:%d decode(96)",
                  v.path, v.lineno);
            CHECK(TF(decode)(&q, c, T_CN, 0, NULL, 0) == CUZK_OK && TF(affine_eq)(&p, &q), "%s:%d decode(48)",
                  v.path, v.lineno);
            if (TF(affine_is_identity)(&p)) {
                TN(expect)
                (TN(dec_un), u, CUZK_DECODE_REJECT_IDENTITY, CUZK_EINVAL, "vector identity rejected");
                TN(expect)
                (TN(dec_cn), c, CUZK_DECODE_REJECT_IDENTITY, CUZK_EINVAL,
                 "vector identity rejected (compressed)");
            } else {
                CHECK(((c[0] & 0x20) != 0) == T_SIGN(&p), "%s:%d sign bit", v.path, v.lineno);
            }
        } else if (!strcmp(op, "notsub") && v.ntok == 2) {
            nnotsub++;
            CHECK(hex_decode(u, T_UN, v.tok[1]), "%s:%d hex", v.path, v.lineno);
            TN(expect)(TN(dec_un), u, CUZK_DECODE_CHECK_GROUP, CUZK_ENOTINGROUP, "notsub vector");
            TN(expect)
            (TN(dec_any_un), u, CUZK_DECODE_CHECK_GROUP, CUZK_ENOTINGROUP, "notsub vector via decode");
            TN(expect)(TN(dec_un), u, 0, CUZK_OK, "notsub vector without group check");
            TF(deserialize)(&p, u, 0, NULL, 0);
            TF(serialize)(re, &p);
            CHECK(!memcmp(re, u, T_UN), "%s:%d notsub re-serialize", v.path, v.lineno);
        } else if (!strcmp(op, "notsub_c") && v.ntok == 2) {
            nnotsub_c++;
            CHECK(hex_decode(c, T_CN, v.tok[1]), "%s:%d hex", v.path, v.lineno);
            TN(expect)(TN(dec_cn), c, CUZK_DECODE_CHECK_GROUP, CUZK_ENOTINGROUP, "notsub_c vector");
            TN(expect)
            (TN(dec_any_cn), c, CUZK_DECODE_CHECK_GROUP | CUZK_DECODE_REJECT_IDENTITY, CUZK_ENOTINGROUP,
             "notsub_c vector via decode");
            TN(expect)(TN(dec_cn), c, 0, CUZK_OK, "notsub_c vector without group check");
            TF(uncompress)(&p, c, 0, NULL, 0);
            TF(compress)(re, &p);
            CHECK(!memcmp(re, c, T_CN), "%s:%d notsub_c re-compress", v.path, v.lineno);
        } else if (!strcmp(op, "offcurve") && v.ntok == 2) {
            noff++;
            CHECK(hex_decode(u, T_UN, v.tok[1]), "%s:%d hex", v.path, v.lineno);
            TN(expect)(TN(dec_un), u, 0, CUZK_ENOTONCURVE, "offcurve vector");
            TN(expect)
            (TN(dec_any_un), u, CUZK_DECODE_CHECK_GROUP, CUZK_ENOTONCURVE, "offcurve vector via decode");
        } else if (!strcmp(op, "offcurve_c") && v.ntok == 2) {
            noff_c++;
            CHECK(hex_decode(c, T_CN, v.tok[1]), "%s:%d hex", v.path, v.lineno);
            TN(expect)(TN(dec_cn), c, 0, CUZK_ENOSQRT, "offcurve_c vector");
            TN(expect)(TN(dec_any_cn), c, 0, CUZK_ENOSQRT, "offcurve_c vector via decode");
        } else if (!strcmp(op, "add") || !strcmp(op, "dbl") || !strcmp(op, "neg") || !strcmp(op, "mul")) {
            /* every point token (uncompressed) must decode and re-encode to the same bytes */
            for (int i = 1; i < v.ntok; i++) {
                if (strlen(v.tok[i]) != 2 * T_UN)
                    continue;
                nother++;
                bool ok = hex_decode(u, T_UN, v.tok[i]) &&
                          TF(deserialize)(&p, u, CUZK_DECODE_CHECK_GROUP, NULL, 0) == CUZK_OK;
                TF(serialize)(re, &p);
                CHECK(ok && !memcmp(re, u, T_UN), "%s:%d point %d round trip", v.path, v.lineno, i);
            }
        }
    }
    vec_close(&v);
    CHECK(nenc && nnotsub && nnotsub_c && noff && noff_c && nother, "%s: missing vector kinds", T_VEC);
}

/* ---- round trips -------------------------------------------------------- */

static void TN(test_round_trip)(void)
{
    for (int it = 0; it < T_ITER; it++) {
        T_AFF p, q, np;
        uint8_t u[T_UN], c[T_CN], s1[T_UN], s2[T_UN];
        if (it == 0)
            memset(&p, 0, sizeof p);
        else
            TN(rand_point)(&p);
        TF(serialize)(u, &p);
        TF(compress)(c, &p);
        CHECK(TF(deserialize)(&q, u, CUZK_DECODE_CHECK_GROUP, NULL, 0) == CUZK_OK && TF(affine_eq)(&p, &q),
              "%s uncompressed round trip", TC_STR(T_G));
        CHECK(TF(uncompress)(&q, c, CUZK_DECODE_CHECK_GROUP, NULL, 0) == CUZK_OK && TF(affine_eq)(&p, &q),
              "%s compressed round trip", TC_STR(T_G));
        CHECK(!memcmp(c + 1, u + 1, T_CN - 1) && (c[0] & 0x1f) == (u[0] & 0x1f),
              "%s compressed x differs from uncompressed x", TC_STR(T_G));
        if (it > 0) {
            TF(affine_neg)(&np, &p);
            uint8_t cn[T_CN];
            TF(compress)(cn, &np);
            CHECK(cn[0] == (c[0] ^ 0x20) && !memcmp(cn + 1, c + 1, T_CN - 1),
                  "%s: P and -P must differ exactly in the sign bit", TC_STR(T_G));
            CHECK(((c[0] & 0x20) != 0) == T_SIGN(&p), "%s: sign bit", TC_STR(T_G));
        }

        /* snarkjs: canonical LE coordinates are the zcash BE coordinates reversed (G2: c0 and c1 swapped) */
        TF(to_snarkjs)(s1, &p, false);
        TF(to_snarkjs)(s2, &p, true);
        CHECK(TF(from_snarkjs)(&q, s1, false, CUZK_DECODE_CHECK_GROUP, NULL, 0) == CUZK_OK &&
                  TF(affine_eq)(&p, &q),
              "%s snarkjs canonical round trip", TC_STR(T_G));
        CHECK(TF(from_snarkjs)(&q, s2, true, CUZK_DECODE_CHECK_GROUP, NULL, 0) == CUZK_OK &&
                  TF(affine_eq)(&p, &q),
              "%s snarkjs montgomery round trip", TC_STR(T_G));
        if (it == 0) {
            uint8_t z[T_UN] = {0};
            CHECK(!memcmp(s1, z, T_UN) && !memcmp(s2, z, T_UN), "%s snarkjs identity is all zero",
                  TC_STR(T_G));
            continue;
        }
        bool layout = true;
        int nfp = T_UN / 48;
        for (int f = 0; f < nfp; f++) {
            int zf = nfp == 2 ? f : (f ^ 1); /* zcash G2 puts c1 first */
            for (int i = 0; i < 48; i++)
                layout &= s1[48 * f + i] == u[48 * zf + 47 - i];
        }
        CHECK(layout, "%s snarkjs canonical layout", TC_STR(T_G));
        /* Montgomery bytes m satisfy m = x 2^384 mod p: as a field element in memory they read back as x */
        bool mont = true;
        for (int f = 0; f < nfp; f++) {
            cuzk_fp m, x;
            uint64_t limbs[6];
            for (int i = 0; i < 6; i++) {
                limbs[i] = 0;
                for (int j = 7; j >= 0; j--)
                    limbs[i] = (limbs[i] << 8) | s2[48 * f + 8 * i + j];
            }
            memcpy(m.l, limbs, sizeof limbs);
            for (int i = 0; i < 6; i++) {
                limbs[i] = 0;
                for (int j = 7; j >= 0; j--)
                    limbs[i] = (limbs[i] << 8) | s1[48 * f + 8 * i + j];
            }
            mont &= cuzk_fp_from_canonical(&x, limbs) && cuzk_fp_eq(&x, &m);
        }
        CHECK(mont, "%s snarkjs montgomery layout", TC_STR(T_G));
    }
}

/* ---- failure modes ------------------------------------------------------ */

/* Writes v (6 canonical limbs, may exceed p) big-endian at out, keeping the flag bits of out[0] if keep. */
static void TN(put_be)(uint8_t *out, const uint64_t v[6], bool keep_flags)
{
    uint8_t flags = out[0] & 0xe0;
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 8; j++)
            out[(5 - i) * 8 + j] = (uint8_t)(v[i] >> (56 - 8 * j));
    if (keep_flags)
        out[0] |= flags;
}

static void TN(test_failures)(void)
{
    T_AFF p;
    uint8_t u[T_UN], c[T_CN], b[T_UN], s[T_UN];
    TN(rand_point)(&p);
    TF(serialize)(u, &p);
    TF(compress)(c, &p);
    TF(to_snarkjs)(s, &p, true);
    TN(expect)(TN(dec_un), u, CUZK_DECODE_CHECK_GROUP | CUZK_DECODE_REJECT_IDENTITY, CUZK_OK, "good point");
    TN(expect)(TN(dec_cn), c, CUZK_DECODE_CHECK_GROUP | CUZK_DECODE_REJECT_IDENTITY, CUZK_OK, "good point");

    /* flags */
    memcpy(b, u, T_UN);
    b[0] |= 0x80;
    TN(expect)(TN(dec_un), b, 0, CUZK_EFLAGS, "compression bit on uncompressed");
    TN(expect)(TN(dec_any_un), b, 0, CUZK_EFLAGS, "compression bit on uncompressed via decode");
    memcpy(b, c, T_CN);
    b[0] &= 0x7f;
    TN(expect)(TN(dec_cn), b, 0, CUZK_EFLAGS, "compression bit clear on compressed");
    TN(expect)(TN(dec_any_cn), b, 0, CUZK_EFLAGS, "compression bit clear on compressed via decode");
    memcpy(b, u, T_UN);
    b[0] |= 0x20;
    TN(expect)(TN(dec_un), b, 0, CUZK_EFLAGS, "sign bit on uncompressed");
    memcpy(b, u, T_UN);
    b[0] |= 0x40;
    TN(expect)(TN(dec_un), b, 0, CUZK_EFLAGS, "infinity bit on a point");
    memcpy(b, c, T_CN);
    b[0] = (uint8_t)((b[0] | 0x40) & ~0x20);
    TN(expect)(TN(dec_cn), b, 0, CUZK_EFLAGS, "infinity bit on a compressed point");

    /* identity encodings with stray bits */
    uint8_t iu[T_UN] = {0x40}, ic[T_CN] = {0xc0};
    TN(expect)(TN(dec_un), iu, 0, CUZK_OK, "identity");
    TN(expect)(TN(dec_cn), ic, 0, CUZK_OK, "identity (compressed)");
    for (int pos = 0; pos < 3; pos++) {
        size_t at = pos == 0 ? 0 : pos == 1 ? 47 : T_UN - 1;
        uint8_t bit = pos == 0 ? 0x01 : 0x80;
        memcpy(b, iu, T_UN);
        b[at] |= bit;
        TN(expect)(TN(dec_un), b, 0, CUZK_EFLAGS, "identity with a nonzero bit");
        if (at < T_CN) {
            memcpy(b, ic, T_CN);
            b[at] |= bit;
            TN(expect)(TN(dec_cn), b, 0, CUZK_EFLAGS, "compressed identity with a nonzero bit");
        }
    }
    memcpy(b, ic, T_CN);
    b[0] |= 0x20;
    TN(expect)(TN(dec_cn), b, 0, CUZK_EFLAGS, "compressed identity with sign bit");
    memcpy(b, iu, T_UN);
    b[0] |= 0x20;
    TN(expect)(TN(dec_un), b, 0, CUZK_EFLAGS, "uncompressed identity with sign bit");

    /* identity rejected */
    TN(expect)(TN(dec_un), iu, CUZK_DECODE_REJECT_IDENTITY, CUZK_EINVAL, "identity rejected");
    TN(expect)(TN(dec_cn), ic, CUZK_DECODE_REJECT_IDENTITY, CUZK_EINVAL, "compressed identity rejected");
    uint8_t zero[T_UN] = {0};
    TN(expect)(TN(dec_sj_mont), zero, CUZK_DECODE_REJECT_IDENTITY, CUZK_EINVAL, "snarkjs identity rejected");
    TN(expect)(TN(dec_sj_canon), zero, 0, CUZK_OK, "snarkjs identity");
    TN(expect)(TN(dec_un), zero, 0, CUZK_ENOTONCURVE, "all-zero uncompressed (no infinity flag)");

    /* non-canonical coordinates: x = p and x = p + 1 (flags kept), then every other coordinate = p */
    uint64_t pl[6], p1[6];
    memcpy(pl, CUZK_P, sizeof pl);
    memcpy(p1, CUZK_P, sizeof p1);
    p1[0] += 1;
    for (int k = 0; k < 2; k++) {
        memcpy(b, u, T_UN);
        TN(put_be)(b, k ? p1 : pl, true);
        TN(expect)(TN(dec_un), b, 0, CUZK_ENONCANONICAL, k ? "x = p + 1" : "x = p");
        memcpy(b, c, T_CN);
        TN(put_be)(b, k ? p1 : pl, true);
        TN(expect)(TN(dec_cn), b, 0, CUZK_ENONCANONICAL, k ? "compressed x = p + 1" : "compressed x = p");
    }
    for (int f = 1; f < T_UN / 48; f++) {
        memcpy(b, u, T_UN);
        TN(put_be)(b + 48 * f, pl, false);
        TN(expect)(TN(dec_un), b, 0, CUZK_ENONCANONICAL, "later coordinate = p");
        if (48 * f < T_CN) {
            memcpy(b, c, T_CN);
            TN(put_be)(b + 48 * f, pl, false);
            TN(expect)(TN(dec_cn), b, 0, CUZK_ENONCANONICAL, "compressed x.c0 = p");
        }
        memcpy(b, u, T_UN);
        b[48 * f] |= 0x80; /* a flag-like bit in a coordinate that carries none makes it >= 2^383 */
        TN(expect)(TN(dec_un), b, 0, CUZK_ENONCANONICAL, "top bit set in a later coordinate");
    }
    for (int f = 0; f < T_UN / 48; f++) {
        memcpy(b, s, T_UN);
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 8; j++)
                b[48 * f + 8 * i + j] = (uint8_t)(pl[i] >> (8 * j));
        TN(expect)(TN(dec_sj_mont), b, 0, CUZK_ENONCANONICAL, "snarkjs coordinate = p");
        TN(expect)(TN(dec_sj_canon), b, 0, CUZK_ENONCANONICAL, "snarkjs canonical coordinate = p");
    }

    /* off the curve */
    memcpy(b, u, T_UN);
    b[T_UN - 1] ^= 1;
    TN(expect)(TN(dec_un), b, 0, CUZK_ENOTONCURVE, "y changed in the last bit");
    memcpy(b, s, T_UN);
    b[T_UN - 48] ^= 1;
    TN(expect)(TN(dec_sj_mont), b, 0, CUZK_ENOTONCURVE, "snarkjs y changed");
    for (int it = 0; it < 4; it++) {
        T_AFF r;
        T_RAND_FE(&r.x);
        T_RAND_FE(&r.y);
        TF(serialize)(b, &r);
        TN(expect)(TN(dec_un), b, 0, CUZK_ENOTONCURVE, "random x, y");
        TF(to_snarkjs)(b, &r, false);
        TN(expect)(TN(dec_sj_canon), b, 0, CUZK_ENOTONCURVE, "snarkjs random x, y");
    }

    /* compressed x with no y: x^3 + b a non-square */
    for (int it = 0; it < 4; it++) {
        T_F x, rhs, bb, y;
        T_SET_B(&bb);
        do {
            T_RAND_FE(&x);
            T_FE(sqr)(&rhs, &x);
            T_FE(mul)(&rhs, &rhs, &x);
            T_FE(add)(&rhs, &rhs, &bb);
        } while (T_FE(sqrt)(&y, &rhs));
        T_X_BYTES(b, &x);
        b[0] |= 0x80 | (it & 1 ? 0x20 : 0);
        TN(expect)(TN(dec_cn), b, 0, CUZK_ENOSQRT, "x^3 + b not a square");
    }

    /* not in the subgroup: a random curve point, through every reader */
    {
        T_AFF r;
        T_F bb, rhs;
        T_SET_B(&bb);
        do {
            T_RAND_FE(&r.x);
            T_FE(sqr)(&rhs, &r.x);
            T_FE(mul)(&rhs, &rhs, &r.x);
            T_FE(add)(&rhs, &rhs, &bb);
        } while (!T_FE(sqrt)(&r.y, &rhs));
        CHECK(!TF(affine_in_group)(&r), "random curve point in the subgroup");
        TF(serialize)(b, &r);
        TN(expect)(TN(dec_un), b, CUZK_DECODE_CHECK_GROUP, CUZK_ENOTINGROUP, "random curve point");
        TN(expect)(TN(dec_un), b, 0, CUZK_OK, "random curve point, no group check");
        TF(compress)(b, &r);
        TN(expect)
        (TN(dec_cn), b, CUZK_DECODE_CHECK_GROUP, CUZK_ENOTINGROUP, "random curve point (compressed)");
        TF(to_snarkjs)(b, &r, true);
        TN(expect)
        (TN(dec_sj_mont), b, CUZK_DECODE_CHECK_GROUP, CUZK_ENOTINGROUP, "random curve point (snarkjs)");
        TN(expect)(TN(dec_sj_mont), b, 0, CUZK_OK, "random curve point (snarkjs), no group check");
    }

    /* lengths that are neither form */
    size_t bad_len[] = {0, 1, T_CN - 1, T_CN + 1, T_UN - 1, T_UN + 1, 2 * T_UN};
    uint8_t big[2 * T_UN];
    memcpy(big, u, T_UN);
    memcpy(big + T_UN, u, T_UN);
    for (size_t i = 0; i < sizeof bad_len / sizeof bad_len[0]; i++) {
        T_AFF out;
        char err[128] = "";
        int rc = TF(decode)(&out, big, bad_len[i], 0, err, sizeof err);
        CHECK(rc == CUZK_EINVAL && err[0], "%s decode length %zu: status %d", TC_STR(T_G), bad_len[i], rc);
    }
}

static void TN(run_all)(void)
{
    TN(test_vectors)();
    TN(test_round_trip)();
    TN(test_failures)();
}

#undef TC_
#undef TC
#undef TN
#undef TF
#undef TC_STR_
#undef TC_STR
#undef T_G
#undef T_F
#undef T_FE
#undef T_P
#undef T_AFF
#undef T_GEN
#undef T_VEC
#undef T_UN
#undef T_CN
#undef T_RAND_FE
#undef T_SET_B
#undef T_X_BYTES
#undef T_SIGN
#undef T_ITER
