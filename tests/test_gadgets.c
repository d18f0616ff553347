/*
 * test_gadgets.c — Boolean, UInt32/addmany/MultiEq, num/pack, pick and the
 * Merkle insertion gadgets, and the fingerprints of the gadget catalog.
 *
 * Oracles:
 * - truth tables: every combination of constant / allocated / negated
 *   operands of xor, and, sha256_ch and sha256_maj gives the Boolean
 *   function's value, a satisfied row set, and no row at all when the Rust
 *   match arms fold a constant;
 * - insert_2/4/8 put the element at position sum 2^i b_i for every index
 *   value, in 2 / 8 / 22 rows (storage-proofs-core's insertion tests);
 * - addmany on random mixes of constant and allocated words equals the sum
 *   mod 2^32, allocates bitlen(n (2^32-1)) bits holding the unreduced sum,
 *   nothing when all operands are constant; MultiEq flushes before the
 *   equality that would reach 254 bits (eight 34-bit equalities: a row after
 *   the 8th addmany's bits, one more at finish);
 * - to_bits_le / pack_bits / pack_into_inputs values against the canonical
 *   integer of the number;
 * - catalog fingerprints (inputs, aux, constraints, nnz A/B/C, densities)
 *   equal those of the independent Python counting model
 *   (reference porep-circuit-model, r1cs.py, same input layouts) — numbers
 *   obtained by running that model, listed in FP below; the structure digest
 *   does not depend on the seed or on whether values were kept; the
 *   witness-only builder yields the recorded witness.
 */
#include <stdlib.h>
#include <string.h>

#include "cuzk/catalog.h"
#include "cuzk/csb.h"
#include "cuzk/gadgets.h"
#include "testutil.h"

/* ---- Boolean truth tables ---------------------------------------------------------------------------- */

/* Operand kinds: 0 const false, 1 const true, 2 Is(0), 3 Is(1), 4 Not(alloc 1) = 0, 5 Not(alloc 0) = 1 */
static cuzk_bool make_operand(cuzk_csb *cs, int kind)
{
    cuzk_bool b;
    if (kind < 2)
        return cuzk_bool_const(kind);
    cuzk_bit_alloc(cs, kind == 3 || kind == 4, &b);
    return kind >= 4 ? cuzk_bool_not(b) : b;
}

static bool value_of(int kind)
{
    return kind == 1 || kind == 3 || kind == 5;
}
static bool is_const(int kind)
{
    return kind < 2;
}

/* Rows of and(p, q): none when either is constant. */
static uint64_t and_rows(int p, int q)
{
    return is_const(p) || is_const(q) ? 0 : 1;
}

/* Rows of sha256_ch / sha256_maj by the arms of porep-circuit.md §3.2 (constness only matters). */
static uint64_t ch_rows(int a, int b, int c)
{
    if (is_const(a) && is_const(b) && is_const(c))
        return 0;
    if (a == 0)
        return 0;
    if (b == 0)
        return and_rows(a, c);
    if (c == 0 || c == 1)
        return and_rows(a, b);
    if (b == 1)
        return and_rows(a, c);
    return 1;
}

static uint64_t maj_rows(int a, int b, int c)
{
    if (is_const(a) && is_const(b) && is_const(c))
        return 0;
    if (a == 0 || a == 1)
        return and_rows(b, c);
    if (b == 0 || b == 1)
        return and_rows(a, c);
    if (c == 0 || c == 1)
        return and_rows(a, b);
    return 2;
}

/* The Boolean in the builder agrees with its own val. */
static bool consistent(const cuzk_csb *cs, cuzk_bool b)
{
    if (b.kind == CUZK_BOOL_CONST)
        return true;
    cuzk_fr v;
    cuzk_csb_value(cs, b.var, &v);
    bool bv = cuzk_fr_is_one(&v);
    if (!bv && !cuzk_fr_is_zero(&v))
        return false;
    return (b.kind == CUZK_BOOL_IS ? bv : !bv) == (bool)b.val;
}

static void test_boolean(void)
{
    for (int x = 0; x < 6; x++)
        for (int y = 0; y < 6; y++) {
            for (int op = 0; op < 2; op++) {
                cuzk_csb *cs = cuzk_csb_new(CUZK_CSB_RECORD | CUZK_CSB_VALUES | CUZK_CSB_CHECK);
                cuzk_bool a = make_operand(cs, x), b = make_operand(cs, y), r;
                uint64_t r0 = cuzk_csb_n_constraints(cs);
                if (op == 0)
                    cuzk_bool_xor(cs, a, b, &r);
                else
                    cuzk_bool_and(cs, a, b, &r);
                bool want = op == 0 ? value_of(x) ^ value_of(y) : value_of(x) && value_of(y);
                uint64_t rows = cuzk_csb_n_constraints(cs) - r0;
                CHECK(r.val == want && consistent(cs, r), "%s(%d,%d) value", op ? "and" : "xor", x, y);
                CHECK(rows == (is_const(x) || is_const(y) ? 0u : 1u), "%s(%d,%d): %llu rows",
                      op ? "and" : "xor", x, y, (unsigned long long)rows);
                CHECK(cuzk_csb_first_failure(cs) == -1, "%s(%d,%d) satisfied", op ? "and" : "xor", x, y);
                cuzk_csb_free(cs);
            }
            for (int w = 0; w < 6; w++)
                for (int op = 0; op < 2; op++) {
                    cuzk_csb *cs = cuzk_csb_new(CUZK_CSB_RECORD | CUZK_CSB_VALUES | CUZK_CSB_CHECK);
                    cuzk_bool a = make_operand(cs, x), b = make_operand(cs, y), c = make_operand(cs, w), r;
                    uint64_t r0 = cuzk_csb_n_constraints(cs), a0 = cuzk_csb_n_aux(cs);
                    if (op == 0)
                        cuzk_bool_sha256_ch(cs, a, b, c, &r);
                    else
                        cuzk_bool_sha256_maj(cs, a, b, c, &r);
                    bool va = value_of(x), vb = value_of(y), vc = value_of(w);
                    bool want = op == 0 ? (va ? vb : vc) : (va + vb + vc) >= 2;
                    uint64_t rows = cuzk_csb_n_constraints(cs) - r0, aux = cuzk_csb_n_aux(cs) - a0;
                    CHECK(r.val == want && consistent(cs, r), "%s(%d,%d,%d) value", op ? "maj" : "ch", x, y,
                          w);
                    CHECK(cuzk_csb_first_failure(cs) == -1, "%s(%d,%d,%d) satisfied", op ? "maj" : "ch", x, y,
                          w);
                    CHECK(rows == aux, "%s: one aux per row", op ? "maj" : "ch");
                    uint64_t want_rows = op == 0 ? ch_rows(x, y, w) : maj_rows(x, y, w);
                    CHECK(rows == want_rows, "%s(%d,%d,%d): %llu rows, expected %llu", op ? "maj" : "ch", x,
                          y, w, (unsigned long long)rows, (unsigned long long)want_rows);
                    cuzk_csb_free(cs);
                }
        }
}

/* ---- insertion and pick ------------------------------------------------------------------------------- */

static void test_insert(void)
{
    for (unsigned lg = 1; lg <= 3; lg++) {
        unsigned size = 1u << lg;
        for (unsigned idx = 0; idx < size; idx++) {
            cuzk_csb *cs = cuzk_csb_new(CUZK_CSB_RECORD | CUZK_CSB_VALUES | CUZK_CSB_CHECK);
            cuzk_num el, sib[7], out[8];
            cuzk_fr v;
            test_rand_fr(&v);
            cuzk_num_alloc(cs, &v, &el);
            for (unsigned k = 0; k + 1 < size; k++) {
                test_rand_fr(&v);
                cuzk_num_alloc(cs, &v, &sib[k]);
            }
            cuzk_bool bits[3];
            for (unsigned i = 0; i < lg; i++)
                cuzk_bit_alloc(cs, (idx >> i) & 1, &bits[i]);
            uint64_t r0 = cuzk_csb_n_constraints(cs);
            int rc = lg == 1   ? cuzk_insert_2(cs, &el, sib, bits, out)
                     : lg == 2 ? cuzk_insert_4(cs, &el, sib, bits, out)
                               : cuzk_insert_8(cs, &el, sib, bits, out);
            uint64_t rows = cuzk_csb_n_constraints(cs) - r0;
            static const uint64_t WANT[4] = {0, 2, 8, 22};
            CHECK(rc == CUZK_OK && rows == WANT[lg], "insert_%u: %llu rows", size, (unsigned long long)rows);
            bool ok = true;
            for (unsigned p = 0, s = 0; p < size; p++) {
                const cuzk_num *want = p == idx ? &el : &sib[s++];
                cuzk_fr got;
                cuzk_csb_value(cs, out[p].var, &got);
                ok = ok && cuzk_fr_eq(&got, &want->val) && cuzk_fr_eq(&out[p].val, &want->val);
            }
            CHECK(ok, "insert_%u at index %u: element and siblings in place", size, idx);
            CHECK(cuzk_csb_first_failure(cs) == -1, "insert_%u at %u satisfied", size, idx);
            cuzk_csb_free(cs);
        }
    }
    /* insert_8 needs allocated, non-negated index bits */
    cuzk_csb *cs = cuzk_csb_new(CUZK_CSB_RECORD);
    cuzk_num el, sib[7], out[8];
    cuzk_num_alloc(cs, NULL, &el);
    for (int k = 0; k < 7; k++)
        cuzk_num_alloc(cs, NULL, &sib[k]);
    cuzk_bool bits[3];
    cuzk_bit_alloc(cs, 0, &bits[0]);
    bits[0] = cuzk_bool_not(bits[0]);
    cuzk_bit_alloc(cs, 0, &bits[1]);
    cuzk_bit_alloc(cs, 0, &bits[2]);
    CHECK(cuzk_insert_8(cs, &el, sib, bits, out) == CUZK_EINVAL, "insert_8 with a negated bit refused");
    cuzk_csb_free(cs);
}

/* ---- addmany / MultiEq ----------------------------------------------------------------------------------
 */

static unsigned bitlen(uint64_t x)
{
    unsigned n = 0;
    for (; x; x >>= 1)
        n++;
    return n;
}

static void test_addmany(void)
{
    for (int t = 0; t < 200; t++) {
        cuzk_csb *cs = cuzk_csb_new(CUZK_CSB_RECORD | CUZK_CSB_VALUES | CUZK_CSB_CHECK);
        size_t n = 2 + test_rand64() % 9;
        int mode = (int)(test_rand64() % 4); /* 0 all constant, else a mix */
        cuzk_u32 ops[10];
        uint64_t sum = 0;
        for (size_t k = 0; k < n; k++) {
            uint32_t x = (uint32_t)test_rand64();
            if (test_rand64() % 8 == 0)
                x = 0xffffffffu;
            sum += x;
            for (int i = 0; i < 32; i++) {
                bool b = (x >> i) & 1;
                if (mode == 0 || test_rand64() % 3 == 0)
                    ops[k].b[i] = cuzk_bool_const(b);
                else if (test_rand64() & 1)
                    cuzk_bit_alloc(cs, b, &ops[k].b[i]);
                else {
                    cuzk_bit_alloc(cs, !b, &ops[k].b[i]);
                    ops[k].b[i] = cuzk_bool_not(ops[k].b[i]);
                }
            }
        }
        bool any_var = false;
        for (size_t k = 0; k < n; k++)
            any_var = any_var || !cuzk_u32_is_const(&ops[k]);
        cuzk_multieq me;
        cuzk_multieq_init(&me, cs);
        uint64_t a0 = cuzk_csb_n_aux(cs);
        cuzk_u32 out;
        cuzk_u32_addmany(cs, &me, ops, n, &out);
        uint64_t nbits = cuzk_csb_n_aux(cs) - a0;
        cuzk_multieq_finish(&me);
        CHECK(cuzk_u32_value(&out) == (uint32_t)sum, "addmany of %zu: value", n);
        CHECK(nbits == (any_var ? bitlen(n * 0xffffffffull) : 0), "addmany of %zu: %llu result bits", n,
              (unsigned long long)nbits);
        bool unreduced = true;
        for (unsigned i = 0; i < nbits; i++) {
            cuzk_fr v;
            cuzk_csb_value(cs, cuzk_var_aux((uint32_t)(a0 + i)), &v);
            unreduced = unreduced && cuzk_fr_is_one(&v) == ((sum >> i) & 1);
        }
        CHECK(unreduced, "addmany witness holds the unreduced sum");
        CHECK(cuzk_csb_first_failure(cs) == -1, "addmany satisfied");
        cuzk_csb_free(cs);
    }
    /* eight 4-operand additions (34 bits each) in one MultiEq: 7 fit in 254 bits */
    cuzk_csb *cs = cuzk_csb_new(CUZK_CSB_RECORD | CUZK_CSB_VALUES | CUZK_CSB_CHECK);
    cuzk_u32 ops[4], out;
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < 32; i++)
            cuzk_bit_alloc(cs, test_rand64() & 1, &ops[k].b[i]);
    uint64_t base = cuzk_csb_n_constraints(cs);
    cuzk_multieq me;
    cuzk_multieq_init(&me, cs);
    for (int j = 0; j < 8; j++)
        cuzk_u32_addmany(cs, &me, ops, 4, &out);
    uint64_t before = cuzk_csb_n_constraints(cs) - base;
    cuzk_multieq_finish(&me);
    CHECK(before == 8 * 34 + 1 && cuzk_csb_n_constraints(cs) - base == 8 * 34 + 2,
          "MultiEq: one flush during the 8th addition, one at finish (%llu rows)",
          (unsigned long long)before);
    CHECK(cuzk_csb_first_failure(cs) == -1, "packed equalities satisfied");
    cuzk_cs sys;
    cuzk_csb_finish(cs, &sys, NULL);
    uint64_t flush = base + 8 * 34; /* after the 8th addition's result bits */
    CHECK(sys.b.row[flush + 1] - sys.b.row[flush] == 1 && sys.b.col[sys.b.row[flush]] == 0 &&
              sys.a.row[flush + 1] - sys.a.row[flush] == 128 &&
              sys.c.row[flush + 1] - sys.c.row[flush] == 7 * 34,
          "the flush row is lhs · ONE = rhs: the 7 additions' shared operand bits merged (128 terms), their "
          "7 x 34 result bits");
    cuzk_cs_free(&sys);
    cuzk_csb_free(cs);
}

/* ---- numbers ----------------------------------------------------------------------------------------------
 */

static void test_num(void)
{
    for (int t = 0; t < 20; t++) {
        cuzk_csb *cs = cuzk_csb_new(CUZK_CSB_RECORD | CUZK_CSB_VALUES | CUZK_CSB_CHECK);
        cuzk_fr v;
        test_rand_fr(&v);
        if (t == 0)
            cuzk_fr_neg(&v, &CUZK_FR_ONE); /* r - 1: bit 254 set */
        cuzk_num n, packed;
        cuzk_num_alloc(cs, &v, &n);
        cuzk_bool bits[255];
        cuzk_num_to_bits_le(cs, &n, bits);
        uint64_t x[4];
        cuzk_fr_to_canonical(x, &v);
        bool ok = true;
        for (int i = 0; i < 255; i++)
            ok = ok && bits[i].kind == CUZK_BOOL_IS && bits[i].val == ((x[i / 64] >> (i % 64)) & 1);
        CHECK(ok && cuzk_csb_n_constraints(cs) == 256, "to_bits_le: canonical bits, 256 rows");
        cuzk_pack_bits(cs, bits, 255, &packed);
        x[3] &= (1ull << 62) - 1; /* the first 254 bits */
        cuzk_fr want;
        cuzk_fr_from_canonical(&want, x);
        CHECK(cuzk_fr_eq(&packed.val, &want), "pack_bits keeps the first 254 bits");
        uint64_t in0 = cuzk_csb_n_inputs(cs);
        cuzk_pack_into_inputs(cs, bits, 255);
        cuzk_fr i1, i2, top;
        cuzk_csb_value(cs, cuzk_var_input((uint32_t)in0), &i1);
        cuzk_csb_value(cs, cuzk_var_input((uint32_t)in0 + 1), &i2);
        uint64_t y[4];
        cuzk_fr_to_canonical(y, &v);
        cuzk_fr_from_u64(&top, (y[3] >> 62) & 1);
        CHECK(cuzk_csb_n_inputs(cs) == in0 + 2 && cuzk_fr_eq(&i1, &want) && cuzk_fr_eq(&i2, &top),
              "pack_into_inputs: a 254-bit chunk and a 1-bit chunk");
        cuzk_num_inputize(cs, &n);
        CHECK(cuzk_csb_first_failure(cs) == -1, "num gadgets satisfied");
        cuzk_csb_free(cs);
    }
}

/* ---- catalog fingerprints
 * ---------------------------------------------------------------------------------- */

/* From the Python counting model (r1cs.py) on the same input layouts: inputs, aux, constraints, nnz A, B, C,
 * density A-aux, B-input, B-aux. */
static const struct {
    const char *name;
    uint64_t v[9];
} FP[] = {
    {"sha256-block", {1, 26326, 26352, 60480, 26384, 56886, 26326, 1, 6822}},
    {"sha256-state-block", {1, 26934, 26960, 62384, 26960, 57686, 26934, 1, 7078}},
    {"sha256-2block", {1, 45340, 45386, 103935, 45418, 96380, 45340, 1, 11500}},
    {"sha256-blank", {1, 0, 0, 0, 0, 0, 0, 0, 0}},
    {"sha256-label-block0", {1, 25657, 25683, 58783, 25714, 55711, 25656, 1, 6629}},
    {"sha256-label-parents", {1, 26926, 26952, 62365, 26950, 58174, 26924, 1, 7076}},
    {"sha256-label-last", {1, 26079, 26105, 60183, 26104, 56145, 26078, 1, 6821}},
    {"sha256-pad-block", {1, 19270, 19290, 43967, 19290, 39494, 19270, 1, 4934}},
    {"sha256-node", {1, 45333, 45379, 104170, 45409, 96869, 45330, 1, 11498}},
    {"insert2", {1, 5, 3, 6, 3, 4, 3, 0, 1}},
    {"insert4", {1, 14, 10, 20, 10, 16, 10, 0, 2}},
    {"insert8", {1, 33, 25, 49, 26, 42, 23, 1, 5}},
    {"to-bits", {1, 256, 256, 510, 255, 256, 255, 0, 255}},
    {"pack", {4, 257, 261, 1021, 260, 261, 256, 1, 255}},
    /* Poseidon: the closed forms of docs/design/016 (rows, nnz, dense aux incl. the preimage), which the
     * model reproduces */
    {"poseidon2", {1, 313, 311, 2119, 313, 386, 234, 1, 234}},
    {"poseidon4", {1, 381, 377, 2573, 381, 467, 285, 1, 285}},
    {"poseidon8", {1, 513, 505, 3598, 513, 624, 384, 1, 384}},
    {"poseidon11", {1, 609, 598, 4462, 609, 738, 456, 1, 456}},
    /* PoR paths (storage-proofs-core tests/por_circuit.rs layout) and create_label: constraints and inputs
     * are the published numbers (1,887 / 1,164 / 1,063 / 1,377 / 1,764 / 1,593 / 1,907, private
     * 1,886 / 1,163 / 1,062; 3 inputs, 2 private; create_label 522,269 + 3,904 input rows, the upstream
     * test layout 532,025); aux, nnz and densities from one run of the model (r1cs.por_circuit,
     * circuits.create_label on the same layouts) */
    {"por-base2", {3, 1892, 1887, 12758, 1899, 2343, 1423, 1, 1410}},
    {"por-base4", {3, 1172, 1164, 7787, 1176, 1452, 886, 1, 861}},
    {"por-base8", {3, 1076, 1063, 7302, 1081, 1335, 815, 1, 778}},
    {"por-sub8-2", {3, 1391, 1377, 9428, 1397, 1725, 1052, 1, 1013}},
    {"por-top8-4-2", {3, 1781, 1764, 12023, 1788, 2208, 1347, 1, 1300}},
    {"por-sub8-8", {3, 1613, 1593, 10952, 1620, 2001, 1222, 1, 1167}},
    {"por-top8-8-2", {3, 1928, 1907, 13078, 1936, 2391, 1459, 1, 1402}},
    {"por-base2-private", {2, 1892, 1886, 12757, 1898, 2342, 1423, 1, 1410}},
    {"por-base4-private", {2, 1172, 1163, 7786, 1175, 1451, 886, 1, 861}},
    {"por-base8-private", {2, 1076, 1062, 7301, 1080, 1334, 815, 1, 778}},
    {"create-label", {1, 525653, 526173, 1220332, 526190, 1153101, 525637, 1, 130089}},
    {"create-label-test", {1, 531505, 532025, 1231915, 532057, 1149345, 531504, 1, 135928}},
};

static void test_catalog(void)
{
    CHECK(cuzk_catalog_count() == sizeof FP / sizeof FP[0], "every catalog circuit has a model fingerprint");
    for (size_t i = 0; i < sizeof FP / sizeof FP[0]; i++) {
        cuzk_catalog_fp f1, f2;
        char err[256] = "";
        uint64_t s1 = test_rand64(), s2 = s1 ^ 0x55;
        int rc = cuzk_catalog_fingerprint(FP[i].name, s1, &f1, err, sizeof err);
        CHECK(rc == CUZK_OK, "%s: %s", FP[i].name, err);
        rc = cuzk_catalog_fingerprint(FP[i].name, s2, &f2, err, sizeof err);
        uint64_t got[9] = {f1.n_inputs, f1.n_aux, f1.n_constraints, f1.nnz_a, f1.nnz_b,
                           f1.nnz_c,    f1.a_aux, f1.b_input,       f1.b_aux};
        for (int k = 0; k < 9; k++)
            CHECK(got[k] == FP[i].v[k], "%s: fingerprint field %d = %llu, the model says %llu", FP[i].name, k,
                  (unsigned long long)got[k], (unsigned long long)FP[i].v[k]);
        CHECK(f1.first_failure == -1 && f2.first_failure == -1, "%s: witnesses satisfy", FP[i].name);
        CHECK(!memcmp(f1.digest, f2.digest, 32), "%s: structure independent of the seed", FP[i].name);
        if (f1.n_aux > 0)
            CHECK(memcmp(f1.witness_digest, f2.witness_digest, 32) != 0, "%s: witness depends on the seed",
                  FP[i].name);

        /* structure without values: same digest; witness-only: same witness */
        cuzk_csb *rec = cuzk_csb_new(CUZK_CSB_RECORD), *val = cuzk_csb_new(CUZK_CSB_VALUES),
                 *both = cuzk_csb_new(CUZK_CSB_RECORD | CUZK_CSB_VALUES);
        cuzk_catalog_build(FP[i].name, s1, rec, NULL, NULL, 0);
        cuzk_catalog_build(FP[i].name, s1, val, NULL, NULL, 0);
        cuzk_catalog_build(FP[i].name, s1, both, NULL, NULL, 0);
        cuzk_cs sys;
        cuzk_fr *zv = NULL, *zb = NULL;
        uint8_t d[32];
        CHECK(cuzk_csb_finish(rec, &sys, NULL) == CUZK_OK, "%s: RECORD-only finish", FP[i].name);
        cuzk_cs_digest(&sys, d);
        CHECK(!memcmp(d, f1.digest, 32), "%s: RECORD-only builds the same structure", FP[i].name);
        cuzk_cs_free(&sys);
        CHECK(cuzk_csb_finish(val, NULL, &zv) == CUZK_OK && cuzk_csb_finish(both, NULL, &zb) == CUZK_OK,
              "%s: witnesses", FP[i].name);
        size_t nz = (size_t)(f1.n_inputs + f1.n_aux);
        CHECK(zv && zb && cuzk_csb_n_constraints(val) == f1.n_constraints && !memcmp(zv, zb, nz * sizeof *zv),
              "%s: the witness-only witness equals the recorded one", FP[i].name);
        free(zv);
        free(zb);
        cuzk_csb_free(rec);
        cuzk_csb_free(val);
        cuzk_csb_free(both);
    }
    cuzk_catalog_fp f;
    char err[256] = "";
    CHECK(cuzk_catalog_fingerprint("no-such", 1, &f, err, sizeof err) == CUZK_EINVAL &&
              strstr(err, "no-such"),
          "an unknown name is refused by name");
    CHECK(cuzk_catalog_name(cuzk_catalog_count()) == NULL, "name past the end");
}

int main(void)
{
    test_rng_init("test_gadgets");
    test_boolean();
    test_insert();
    test_addmany();
    test_num();
    test_catalog();
    return test_finish("test_gadgets");
}
