/*
 * test_label.c — the Filecoin labeling gadget (cuzk_create_label), its
 * helpers (cuzk_num_to_msg_bits, cuzk_label_expand_parents) and its native
 * counterpart (cuzk_create_label_native).
 *
 * Oracles:
 * - Constraint counts: 522,269 rows for create_label as the PoRep circuit
 *   lays it out (replica_id and parents through to_bits_le, the node as 64
 *   allocated bits; porep-circuit.md §6.3: 25,363 + 18 · 26,184 + 25,593 + 1),
 *   for layer 1 (6 parents) and later layers (14); 532,025 in all for the
 *   upstream test layout (storage-proofs-porep create_label.rs
 *   test_create_label: 37 · 256 + 256 allocated bits, layer 3 and node 22 as
 *   constants).
 * - The label value: native SHA-256 (cuzk_sha256, tested against FIPS
 *   vectors and python's hashlib) of the 1248 bytes assembled here from the
 *   layout of create_label/single.rs — replica_id's 32 LE bytes ‖ layer u32
 *   BE ‖ node u64 BE ‖ 20 zero bytes ‖ the 37 parents' 32 LE bytes — with
 *   byte 31 masked by 0x3f, read as a little-endian field element. The
 *   parents are repeated by the rule of stacked/circuit/proof.rs, written
 *   out here by its three cases (layer 1: P ×6 + P[0]; later: P, P, P[0..9]).
 *   cuzk_create_label_native must give the same bytes.
 * - Satisfaction: the builder's CHECK and cuzk_cs_check; a flipped message
 *   bit in the finished witness is caught, cuzk_cs_check naming the same
 *   row as a naive loop over the matrices.
 * - cuzk_num_to_msg_bits: its bits are the number's LE bytes, MSB first per
 *   byte, bit 248 the constant 0; 256 rows.
 */
#include <stdlib.h>
#include <string.h>

#include "cuzk/cs.h"
#include "cuzk/csb.h"
#include "cuzk/gadgets.h"
#include "cuzk/sha256.h"
#include "testutil.h"

enum { LABEL_ROWS = 522269, TEST_LAYOUT_ROWS = 532025 };

/* The expected label: SHA-256 over the assembled bytes, masked, as an Fr. */
static void expected_label(const uint8_t rid[32], uint32_t layer, uint64_t node, const uint8_t (*par)[32],
                           cuzk_fr *out, uint8_t bytes[32])
{
    uint8_t *msg = calloc(39, 32);
    memcpy(msg, rid, 32);
    msg[32] = (uint8_t)(layer >> 24);
    msg[33] = (uint8_t)(layer >> 16);
    msg[34] = (uint8_t)(layer >> 8);
    msg[35] = (uint8_t)layer;
    for (int i = 0; i < 8; i++)
        msg[36 + i] = (uint8_t)(node >> (8 * (7 - i)));
    for (int p = 0; p < 37; p++)
        memcpy(msg + 64 + 32 * p, par[p], 32);
    cuzk_sha256(bytes, msg, 39 * 32);
    bytes[31] &= 0x3f;
    cuzk_fr_from_le32(out, bytes);
    free(msg);
}

/* The repetition rule spelled out case by case: indices into the 6 or 14 parents. */
static void expanded_indices(size_t n, size_t idx[37])
{
    size_t k = 0;
    if (n == 6) {
        for (int r = 0; r < 6; r++)
            for (size_t i = 0; i < 6; i++)
                idx[k++] = i;
        idx[k++] = 0;
    } else {
        for (int r = 0; r < 2; r++)
            for (size_t i = 0; i < 14; i++)
                idx[k++] = i;
        for (size_t i = 0; i < 9; i++)
            idx[k++] = i;
    }
}

static void test_expand(void)
{
    cuzk_bool dummy[14][1];
    const cuzk_bool *p[14], *out[37];
    for (int i = 0; i < 14; i++)
        p[i] = dummy[i];
    for (size_t n = 6; n <= 14; n += 8) {
        size_t idx[37];
        expanded_indices(n, idx);
        CHECK(cuzk_label_expand_parents(p, n, out) == CUZK_OK, "expand %zu", n);
        bool ok = true;
        for (int i = 0; i < 37; i++)
            ok = ok && out[i] == p[idx[i]];
        CHECK(ok, "expand %zu parents to 37 by the rule", n);
    }
    CHECK(cuzk_label_expand_parents(p, 7, out) == CUZK_EINVAL, "7 parents refused");
    CHECK(cuzk_label_expand_parents(p, 0, out) == CUZK_EINVAL, "0 parents refused");
    CHECK(cuzk_label_expand_parents(NULL, 6, out) == CUZK_EINVAL, "NULL parents refused");
    p[3] = NULL;
    CHECK(cuzk_label_expand_parents(p, 6, out) == CUZK_EINVAL, "a NULL parent refused");
}

static void test_msg_bits(void)
{
    for (int t = 0; t < 5; t++) {
        cuzk_csb *cs = cuzk_csb_new(CUZK_CSB_VALUES | CUZK_CSB_CHECK);
        cuzk_fr v;
        test_rand_fr(&v);
        if (t == 0)
            cuzk_fr_neg(&v, &CUZK_FR_ONE);
        uint8_t le[32];
        cuzk_fr_to_le32(le, &v);
        cuzk_num n;
        cuzk_bool bits[256];
        cuzk_num_alloc(cs, &v, &n);
        CHECK(cuzk_num_to_msg_bits(cs, &n, bits) == CUZK_OK && cuzk_csb_n_constraints(cs) == 256,
              "to_msg_bits: 256 rows");
        bool ok = bits[248].kind == CUZK_BOOL_CONST && bits[248].val == 0;
        for (int i = 0; i < 256; i++)
            ok = ok && bits[i].val == ((le[i / 8] >> (7 - i % 8)) & 1) &&
                 (i == 248 || bits[i].kind == CUZK_BOOL_IS);
        CHECK(ok, "to_msg_bits: the LE bytes MSB first, bit 248 constant 0");
        CHECK(cuzk_csb_first_failure(cs) == -1, "to_msg_bits satisfied");
        cuzk_csb_free(cs);
    }
}

typedef struct {
    uint8_t rid[32];
    uint32_t layer;
    uint64_t node;
    size_t np;
    uint8_t par[14][32];
} label_in;

static void random_input(label_in *in, uint32_t layer)
{
    cuzk_fr v;
    test_rand_fr(&v);
    cuzk_fr_to_le32(in->rid, &v);
    in->layer = layer;
    in->node = test_rand64();
    in->np = layer == 1 ? 6 : 14;
    for (size_t p = 0; p < in->np; p++) {
        test_rand_fr(&v);
        cuzk_fr_to_le32(in->par[p], &v);
        in->par[p][31] &= 0x3f; /* labels are below 2^254 */
    }
}

/* Builds the PoRep layout in cs; returns the gadget's rows; *out the label. */
static uint64_t build_porep_layout(cuzk_csb *cs, const label_in *in, cuzk_num *out)
{
    cuzk_fr v;
    cuzk_num rid, pn;
    cuzk_bool rid_bits[256], node[64], pbits[14][256];
    const cuzk_bool *pp[14], *ex[37];
    cuzk_fr_from_le32(&v, in->rid);
    cuzk_num_alloc(cs, &v, &rid);
    cuzk_num_to_msg_bits(cs, &rid, rid_bits);
    for (int i = 0; i < 64; i++)
        cuzk_bit_alloc(cs, (in->node >> i) & 1, &node[i]);
    for (size_t p = 0; p < in->np; p++) {
        cuzk_fr_from_le32(&v, in->par[p]);
        cuzk_num_alloc(cs, &v, &pn);
        cuzk_num_to_msg_bits(cs, &pn, pbits[p]);
        pp[p] = pbits[p];
    }
    cuzk_label_expand_parents(pp, in->np, ex);
    uint64_t r0 = cuzk_csb_n_constraints(cs);
    int rc = cuzk_create_label(cs, rid_bits, 256, ex, in->layer, node, out);
    CHECK(rc == CUZK_OK, "create_label builds (%d)", rc);
    return cuzk_csb_n_constraints(cs) - r0;
}

static void expected_of(const label_in *in, cuzk_fr *want, uint8_t bytes[32])
{
    size_t idx[37];
    uint8_t ex[37][32];
    expanded_indices(in->np, idx);
    for (int i = 0; i < 37; i++)
        memcpy(ex[i], in->par[idx[i]], 32);
    expected_label(in->rid, in->layer, in->node, (const uint8_t(*)[32])ex, want, bytes);
    /* the library's native label agrees */
    const uint8_t *pp[37];
    for (int i = 0; i < 37; i++)
        pp[i] = ex[i];
    uint8_t lib[32];
    cuzk_fr lv;
    cuzk_create_label_native(in->rid, in->layer, in->node, pp, lib, &lv);
    CHECK(!memcmp(lib, bytes, 32) && cuzk_fr_eq(&lv, want), "cuzk_create_label_native = the assembled hash");
}

static void test_porep_layout(void)
{
    static const uint32_t LAYERS[] = {1, 2, 11, 7};
    for (size_t t = 0; t < sizeof LAYERS / sizeof LAYERS[0]; t++) {
        label_in in;
        random_input(&in, LAYERS[t]);
        if (t == 3)
            in.node = 1; /* the smallest challenged node */
        cuzk_csb *cs = cuzk_csb_new(CUZK_CSB_VALUES | CUZK_CSB_CHECK);
        cuzk_num out;
        uint64_t rows = build_porep_layout(cs, &in, &out);
        CHECK(rows == LABEL_ROWS, "layer %u (%zu parents): %llu rows, expected 522,269", in.layer, in.np,
              (unsigned long long)rows);
        CHECK(cuzk_csb_first_failure(cs) == -1, "layer %u: CHECK finds row %lld failing", in.layer,
              (long long)cuzk_csb_first_failure(cs));
        cuzk_fr want, got;
        uint8_t bytes[32];
        expected_of(&in, &want, bytes);
        cuzk_csb_value(cs, out.var, &got);
        CHECK(cuzk_fr_eq(&got, &want) && cuzk_fr_eq(&out.val, &want),
              "layer %u node %llu: the label equals native SHA-256 of the 1248 bytes, masked", in.layer,
              (unsigned long long)in.node);
        cuzk_csb_free(cs);
    }
}

/* One recorded build: the finished system accepts the witness; a flipped message bit is caught. */
static void test_recorded(void)
{
    label_in in;
    random_input(&in, 4);
    cuzk_csb *cs = cuzk_csb_new(CUZK_CSB_RECORD | CUZK_CSB_VALUES);
    cuzk_num out;
    uint64_t rows = build_porep_layout(cs, &in, &out);
    uint64_t setup = cuzk_csb_n_constraints(cs) - rows;
    cuzk_cs sys;
    cuzk_fr *z = NULL;
    CHECK(cuzk_csb_finish(cs, &sys, &z) == CUZK_OK, "finish");
    cuzk_csb_free(cs);
    CHECK(sys.n_constraints == setup + LABEL_ROWS && setup == 256 + 64 + 14 * 256,
          "recorded: %llu rows = 522,269 + %llu input rows", (unsigned long long)sys.n_constraints,
          (unsigned long long)setup);
    CHECK(cuzk_cs_check(&sys, z, NULL) == -1, "recorded: cuzk_cs_check satisfied");
    /* flip a parent bit (an aux of a to_bits_le after the replica id and node) */
    size_t k = sys.n_inputs + 1 + 255 + 64 + 1 + test_rand64() % 255;
    cuzk_fr_sub(&z[k], &CUZK_FR_ONE, &z[k]);
    int64_t want = test_naive_first_failure(&sys, z);
    int64_t got = cuzk_cs_check(&sys, z, NULL);
    CHECK(want >= 0 && got == want, "a flipped parent bit is caught: row %lld, naive loop %lld",
          (long long)got, (long long)want);
    cuzk_cs_free(&sys);
    free(z);
}

/* storage-proofs-porep's test layout: 37 parents of 256 allocated bits (from bytes, MSB first), then the
 * replica id's 256 bits, layer 3 and node 22 constant: 532,025 rows in all. */
static void test_upstream_layout(void)
{
    cuzk_csb *cs = cuzk_csb_new(CUZK_CSB_VALUES | CUZK_CSB_CHECK);
    uint8_t raw[14][32], par[37][32], rid[32];
    size_t idx[37];
    cuzk_fr v;
    for (int p = 0; p < 14; p++) {
        test_rand_fr(&v);
        cuzk_fr_to_le32(raw[p], &v);
    }
    expanded_indices(14, idx);
    for (int p = 0; p < 37; p++)
        memcpy(par[p], raw[idx[p]], 32);
    test_rand_fr(&v);
    cuzk_fr_to_le32(rid, &v);
    static cuzk_bool bits[38][256];
    const cuzk_bool *ps[37];
    for (int p = 0; p < 37; p++) {
        for (int i = 0; i < 256; i++)
            cuzk_bit_alloc(cs, (par[p][i / 8] >> (7 - i % 8)) & 1, &bits[p][i]);
        ps[p] = bits[p];
    }
    for (int i = 0; i < 256; i++)
        cuzk_bit_alloc(cs, (rid[i / 8] >> (7 - i % 8)) & 1, &bits[37][i]);
    cuzk_bool node[64];
    for (int i = 0; i < 64; i++)
        node[i] = cuzk_bool_const((22ull >> i) & 1);
    cuzk_num out;
    int rc = cuzk_create_label(cs, bits[37], 256, ps, 3, node, &out);
    CHECK(rc == CUZK_OK && cuzk_csb_n_constraints(cs) == TEST_LAYOUT_ROWS,
          "upstream test layout: %llu rows, expected 532,025",
          (unsigned long long)cuzk_csb_n_constraints(cs));
    CHECK(cuzk_csb_first_failure(cs) == -1, "upstream test layout satisfied");
    cuzk_fr want;
    uint8_t bytes[32];
    expected_label(rid, 3, 22, (const uint8_t(*)[32])par, &want, bytes);
    CHECK(cuzk_fr_eq(&out.val, &want), "upstream test layout: label = native");
    cuzk_csb_free(cs);
}

/* A 32-bit replica id is padded with constant zeros (the native message carries zero bytes there). */
static void test_short_replica(void)
{
    label_in in;
    random_input(&in, 1);
    memset(in.rid + 4, 0, 28);
    cuzk_csb *cs = cuzk_csb_new(CUZK_CSB_VALUES);
    cuzk_bool rid[32], node[64], pbits[6][256];
    const cuzk_bool *pp[6], *ex[37];
    for (int i = 0; i < 32; i++)
        cuzk_bit_alloc(cs, (in.rid[i / 8] >> (7 - i % 8)) & 1, &rid[i]);
    for (int i = 0; i < 64; i++)
        cuzk_bit_alloc(cs, (in.node >> i) & 1, &node[i]);
    for (int p = 0; p < 6; p++) {
        cuzk_fr v;
        cuzk_num n;
        cuzk_fr_from_le32(&v, in.par[p]);
        cuzk_num_alloc(cs, &v, &n);
        cuzk_num_to_msg_bits(cs, &n, pbits[p]);
        pp[p] = pbits[p];
    }
    cuzk_label_expand_parents(pp, 6, ex);
    cuzk_num out;
    CHECK(cuzk_create_label(cs, rid, 32, ex, 1, node, &out) == CUZK_OK, "32-bit replica id accepted");
    cuzk_fr want;
    uint8_t bytes[32];
    expected_of(&in, &want, bytes);
    CHECK(cuzk_fr_eq(&out.val, &want), "32-bit replica id: label = native with zero bytes");
    cuzk_csb_free(cs);
}

static void test_errors(void)
{
    cuzk_bool rid[257], node[64], par[256];
    for (int i = 0; i < 257; i++)
        rid[i] = cuzk_bool_const(i & 1);
    for (int i = 0; i < 64; i++)
        node[i] = cuzk_bool_const(0);
    for (int i = 0; i < 256; i++)
        par[i] = cuzk_bool_const(1);
    const cuzk_bool *ps[37];
    for (int i = 0; i < 37; i++)
        ps[i] = par;
    cuzk_num out;
    cuzk_csb *cs = cuzk_csb_new(CUZK_CSB_RECORD);
    CHECK(cuzk_create_label(cs, rid, 31, ps, 1, node, &out) == CUZK_EINVAL, "31-bit replica id refused");
    cuzk_csb_free(cs);
    cs = cuzk_csb_new(CUZK_CSB_RECORD);
    CHECK(cuzk_create_label(cs, rid, 257, ps, 1, node, &out) == CUZK_EINVAL, "257-bit replica id refused");
    CHECK(cuzk_create_label(cs, rid, 256, ps, 1, node, &out) == CUZK_EINVAL, "a failed builder stays failed");
    cuzk_csb_free(cs);
    cs = cuzk_csb_new(CUZK_CSB_RECORD);
    ps[36] = NULL;
    CHECK(cuzk_create_label(cs, rid, 256, ps, 1, node, &out) == CUZK_EINVAL, "a NULL parent refused");
    ps[36] = par;
    cuzk_csb_free(cs);
    cs = cuzk_csb_new(CUZK_CSB_RECORD);
    CHECK(cuzk_create_label(cs, rid, 256, ps, 1, NULL, &out) == CUZK_EINVAL, "NULL node refused");
    cuzk_csb_free(cs);
    CHECK(cuzk_create_label(NULL, rid, 256, ps, 1, node, &out) != CUZK_OK, "NULL builder refused");
    /* all constant: no rows, the right value */
    cs = cuzk_csb_new(CUZK_CSB_RECORD | CUZK_CSB_VALUES);
    CHECK(cuzk_create_label(cs, rid, 256, ps, 9, node, &out) == CUZK_OK && cuzk_csb_n_constraints(cs) == 1,
          "an all-constant preimage costs only the packing row (%llu rows)",
          (unsigned long long)cuzk_csb_n_constraints(cs));
    uint8_t rb[32], pb[37][32];
    memset(rb, 0x55, 32); /* bits 0,1,0,1... MSB first = 0x55 per byte */
    memset(pb, 0xff, sizeof pb);
    cuzk_fr want;
    uint8_t bytes[32];
    expected_label(rb, 9, 0, (const uint8_t(*)[32])pb, &want, bytes);
    CHECK(cuzk_fr_eq(&out.val, &want), "all-constant label = native");
    cuzk_csb_free(cs);
}

int main(void)
{
    test_rng_init("test_label");
    test_expand();
    test_msg_bits();
    test_porep_layout();
    test_recorded();
    test_upstream_layout();
    test_short_replica();
    test_errors();
    return test_finish("test_label");
}
