/*
 * test_por.c — the PoR path gadget (cuzk_por_circuit) and its native
 * counterpart (cuzk_por_path_root).
 *
 * Oracles:
 * - Constraint and input counts asserted by storage-proofs-core
 *   (tests/por_circuit.rs, a tree of 64 · base_tree_count leaves, value and
 *   root allocated by the circuit): Poseidon base2 1,887, base4 1,164, base8
 *   1,063, sub8_2 1,377, top8_4_2 1,764, sub8_8 1,593, top8_8_2 1,907, 3
 *   inputs; private root base2/4/8 1,886 / 1,163 / 1,062, 2 inputs; SHA-256
 *   base2 / base4 / base8 272,295 / 216,258 / 250,987.
 * - Closed forms from the gadget's description (porep-circuit.md §3.7), per
 *   level of arity a with lg = log2 a bits: rows lg + ins(a) + H(a), aux
 *   lg + (a - 1) + ins(a) + H(a), with ins = 2 / 8 / 22 and H the Poseidon
 *   rows (= aux) 311 / 377 / 505; plus, per path, rows 2 (+1 public root)
 *   and aux 2 (value and root). Row layout: each level's bit rows, then its
 *   insert rows, then its hash rows; then the packing row, the equal row and
 *   (public) the root's input row.
 * - A full native tree built here, level by level, from random leaves with
 *   cuzk_poseidon_hash (tested against neptune's vectors in test_poseidon)
 *   or native SHA-256 of the children's LE bytes with the top two bits
 *   cleared (cuzk_sha256, tested against FIPS vectors and hashlib): its root
 *   must equal the circuit's computed root and cuzk_por_path_root; the
 *   path's siblings are read off this tree.
 * - The public inputs: the packed index bits equal the leaf index, the root
 *   input equals the root.
 * - Satisfaction: the builder's CHECK and cuzk_cs_check on the finished
 *   system. A wrong sibling value or a wrong leaf index (with the true root)
 *   breaks exactly the equal row, which CHECK names; a flipped index bit or
 *   a changed sibling in the finished witness breaks a row among that
 *   level's insert rows, and cuzk_cs_check names the same row as a naive
 *   loop over the matrices; an index bit set to 2 breaks its own boolean row.
 * - Structure never depends on values: a blank circuit (no values, NULL
 *   siblings) has the same R1CS digest; the witness-only builder yields the
 *   recorded witness.
 * - Root::Var wiring (PoSt / PoRep: value and root are existing variables,
 *   private root): two allocations and one row fewer.
 * - A Groth16 proof (cuzk setup, prover, verifier) of the base8 path
 *   verifies with its two public inputs; a tampered index input fails.
 */
#include <stdlib.h>
#include <string.h>

#include "cuzk/cs.h"
#include "cuzk/csb.h"
#include "cuzk/gadgets.h"
#include "cuzk/poseidon.h"
#include "cuzk/prove.h"
#include "cuzk/setup.h"
#include "cuzk/sha256.h"
#include "cuzk/verify.h"
#include "testutil.h"

typedef struct {
    const char *name;
    unsigned hasher, base, sub, top;
    bool private_root;
    uint64_t published; /* constraints */
    uint64_t inputs;    /* ONE included */
} por_case;

static const por_case CASES[] = {
    {"poseidon base2", CUZK_POR_POSEIDON, 2, 0, 0, false, 1887, 3},
    {"poseidon base4", CUZK_POR_POSEIDON, 4, 0, 0, false, 1164, 3},
    {"poseidon base8", CUZK_POR_POSEIDON, 8, 0, 0, false, 1063, 3},
    {"poseidon sub8_2", CUZK_POR_POSEIDON, 8, 2, 0, false, 1377, 3},
    {"poseidon top8_4_2", CUZK_POR_POSEIDON, 8, 4, 2, false, 1764, 3},
    {"poseidon sub8_8", CUZK_POR_POSEIDON, 8, 8, 0, false, 1593, 3},
    {"poseidon top8_8_2", CUZK_POR_POSEIDON, 8, 8, 2, false, 1907, 3},
    {"poseidon base2 private", CUZK_POR_POSEIDON, 2, 0, 0, true, 1886, 2},
    {"poseidon base4 private", CUZK_POR_POSEIDON, 4, 0, 0, true, 1163, 2},
    {"poseidon base8 private", CUZK_POR_POSEIDON, 8, 0, 0, true, 1062, 2},
};
enum { NCASES = sizeof CASES / sizeof CASES[0] };

static unsigned lg_of(unsigned a)
{
    return a == 2 ? 1 : a == 4 ? 2 : 3;
}
static uint64_t insert_rows(unsigned a)
{
    return a == 2 ? 2 : a == 4 ? 8 : 22;
}
static uint64_t hash_rows(unsigned hasher, unsigned a)
{
    if (hasher == CUZK_POR_SHA256)
        return 0; /* not used in closed forms */
    return a == 2 ? 311 : a == 4 ? 377 : 505;
}

/* ---- the native tree, built here --------------------------------------------------------------------- */

static void node_hash(unsigned hasher, unsigned a, const cuzk_fr *ch, cuzk_fr *out)
{
    if (hasher == CUZK_POR_POSEIDON) {
        cuzk_poseidon_hash(cuzk_poseidon_get(a), ch, out);
        return;
    }
    uint8_t buf[8 * 32], d[32];
    for (unsigned i = 0; i < a; i++)
        cuzk_fr_to_le32(buf + 32 * i, &ch[i]);
    cuzk_sha256(d, buf, 32 * a);
    d[31] &= 0x3f;
    cuzk_fr_from_le32(out, d);
}

typedef struct {
    unsigned n_levels;
    unsigned arity[CUZK_POR_MAX_LEVELS];
    cuzk_fr *layer[CUZK_POR_MAX_LEVELS + 1]; /* layer[0] = leaves, layer[n_levels] = {root} */
    uint64_t width[CUZK_POR_MAX_LEVELS + 1];
} tree;

static void tree_build(tree *t, const cuzk_por_shape *s)
{
    memset(t, 0, sizeof *t);
    t->n_levels = s->n_levels;
    uint64_t w = 1;
    for (unsigned l = 0; l < s->n_levels; l++) {
        t->arity[l] = s->arity[l];
        w *= s->arity[l];
    }
    t->width[0] = w;
    t->layer[0] = malloc(w * sizeof(cuzk_fr));
    for (uint64_t i = 0; i < w; i++)
        test_rand_fr(&t->layer[0][i]);
    for (unsigned l = 0; l < t->n_levels; l++) {
        unsigned a = t->arity[l];
        t->width[l + 1] = t->width[l] / a;
        t->layer[l + 1] = malloc(t->width[l + 1] * sizeof(cuzk_fr));
        for (uint64_t i = 0; i < t->width[l + 1]; i++)
            node_hash(s->hasher, a, t->layer[l] + a * i, &t->layer[l + 1][i]);
    }
}

static void tree_free(tree *t)
{
    for (unsigned l = 0; l <= t->n_levels; l++)
        free(t->layer[l]);
}

/* The siblings of leaf index, level by level, the node's other children in order. */
static size_t tree_path(const tree *t, uint64_t index, cuzk_fr *sib)
{
    size_t n = 0;
    for (unsigned l = 0; l < t->n_levels; l++) {
        unsigned a = t->arity[l];
        uint64_t first = index / a * a;
        for (uint64_t i = first; i < first + a; i++)
            if (i != index)
                sib[n++] = t->layer[l][i];
        index /= a;
    }
    return n;
}

/* ---- helpers ------------------------------------------------------------------------------------------ */

typedef struct {
    cuzk_por_shape shape;
    tree t;
    uint64_t index;
    cuzk_fr sib[CUZK_POR_MAX_LEVELS * 7];
    cuzk_por_args args;
} setup_t;

static void setup_case(setup_t *st, unsigned hasher, unsigned base, unsigned sub, unsigned top, bool priv)
{
    uint64_t count = (uint64_t)(sub ? sub : 1) * (top ? top : 1);
    int rc = cuzk_por_shape_init(&st->shape, hasher, 64 * count, base, sub, top);
    CHECK(rc == CUZK_OK, "shape %u/%u/%u of %llu leaves", base, sub, top, (unsigned long long)(64 * count));
    tree_build(&st->t, &st->shape);
    st->index = test_rand64() % st->t.width[0];
    size_t ns = tree_path(&st->t, st->index, st->sib);
    CHECK(ns == cuzk_por_shape_siblings(&st->shape), "siblings count %zu", ns);
    memset(&st->args, 0, sizeof st->args);
    st->args.value.val = st->t.layer[0][st->index];
    st->args.root.val = st->t.layer[st->t.n_levels][0];
    st->args.index = st->index;
    st->args.siblings = st->sib;
    st->args.private_root = priv;
}

/* ---- tests -------------------------------------------------------------------------------------------- */

static void test_shapes(void)
{
    cuzk_por_shape s;
    CHECK(cuzk_por_shape_init(&s, CUZK_POR_POSEIDON, 1u << 30, 8, 8, 0) == CUZK_OK && s.n_levels == 10 &&
              s.arity[8] == 8 && s.arity[9] == 8 && cuzk_por_shape_leaves(&s) == (1u << 30) &&
              cuzk_por_shape_siblings(&s) == 70,
          "32 GiB tree: 9 oct base levels + an oct sub level, 70 siblings");
    CHECK(cuzk_por_shape_init(&s, CUZK_POR_POSEIDON, 1ull << 31, 8, 8, 2) == CUZK_OK && s.n_levels == 11 &&
              s.arity[10] == 2 && cuzk_por_shape_siblings(&s) == 71,
          "64 GiB tree: + a binary top level");
    CHECK(cuzk_por_shape_init(&s, CUZK_POR_POSEIDON, 512, 8, 4, 2) == CUZK_OK && s.n_levels == 4 &&
              s.arity[0] == 8 && s.arity[1] == 8 && s.arity[2] == 4 && s.arity[3] == 2,
          "top8_4_2 of 512 leaves: 8, 8, 4, 2");
    CHECK(cuzk_por_shape_init(&s, CUZK_POR_POSEIDON, 64, 3, 0, 0) == CUZK_EINVAL, "arity 3 refused");
    CHECK(cuzk_por_shape_init(&s, CUZK_POR_POSEIDON, 96, 2, 0, 0) == CUZK_EINVAL, "96 leaves refused");
    CHECK(cuzk_por_shape_init(&s, CUZK_POR_POSEIDON, 128, 8, 0, 0) == CUZK_EINVAL, "128 is no power of 8");
    CHECK(cuzk_por_shape_init(&s, CUZK_POR_POSEIDON, 16, 8, 2, 0) == CUZK_OK && s.n_levels == 2,
          "16 leaves = 8 · 2");
    CHECK(cuzk_por_shape_init(&s, CUZK_POR_POSEIDON, 8, 8, 2, 0) == CUZK_EINVAL, "8 leaves: no base level");
    CHECK(cuzk_por_shape_init(&s, CUZK_POR_POSEIDON, 8, 8, 16, 0) == CUZK_EINVAL, "sub arity 16 refused");
    CHECK(cuzk_por_shape_init(&s, 7, 64, 8, 0, 0) == CUZK_EINVAL, "unknown hasher refused");
    CHECK(cuzk_por_shape_init(NULL, CUZK_POR_POSEIDON, 64, 8, 0, 0) == CUZK_EINVAL, "NULL shape refused");
    CHECK(cuzk_por_shape_leaves(NULL) == 0 && cuzk_por_shape_siblings(NULL) == 0, "NULL shape: 0");
}

static void test_case(const por_case *c)
{
    setup_t st;
    setup_case(&st, c->hasher, c->base, c->sub, c->top, c->private_root);
    const cuzk_por_shape *s = &st.shape;
    const cuzk_fr *root = &st.args.root.val;

    /* closed forms and the row layout */
    uint64_t want_rows = 2 + !c->private_root, want_aux = 2, level_row[CUZK_POR_MAX_LEVELS];
    for (unsigned l = 0; l < s->n_levels; l++) {
        unsigned a = s->arity[l];
        level_row[l] = want_rows - 2 - !c->private_root;
        want_rows += lg_of(a) + insert_rows(a) + hash_rows(c->hasher, a);
        want_aux += lg_of(a) + (a - 1) + insert_rows(a) + hash_rows(c->hasher, a);
    }
    CHECK(want_rows == c->published, "%s: closed form %llu rows = published %llu", c->name,
          (unsigned long long)want_rows, (unsigned long long)c->published);

    cuzk_fr lib_root;
    CHECK(cuzk_por_path_root(s, &st.args.value.val, st.index, st.sib, &lib_root) == CUZK_OK &&
              cuzk_fr_eq(&lib_root, root),
          "%s: cuzk_por_path_root equals the full tree's root", c->name);

    cuzk_csb *cs = cuzk_csb_new(CUZK_CSB_RECORD | CUZK_CSB_VALUES | CUZK_CSB_CHECK);
    cuzk_num computed;
    int rc = cuzk_por_circuit(cs, s, &st.args, &computed);
    CHECK(rc == CUZK_OK, "%s: builds (%d)", c->name, rc);
    CHECK(cuzk_csb_n_constraints(cs) == c->published, "%s: %llu rows, published %llu", c->name,
          (unsigned long long)cuzk_csb_n_constraints(cs), (unsigned long long)c->published);
    CHECK(cuzk_csb_n_inputs(cs) == c->inputs, "%s: %llu inputs, published %llu", c->name,
          (unsigned long long)cuzk_csb_n_inputs(cs), (unsigned long long)c->inputs);
    CHECK(cuzk_csb_n_aux(cs) == want_aux, "%s: %llu aux, closed form %llu", c->name,
          (unsigned long long)cuzk_csb_n_aux(cs), (unsigned long long)want_aux);
    CHECK(cuzk_csb_first_failure(cs) == -1, "%s: CHECK finds row %lld failing", c->name,
          (long long)cuzk_csb_first_failure(cs));
    cuzk_fr v, idx;
    cuzk_csb_value(cs, computed.var, &v);
    CHECK(cuzk_fr_eq(&v, root) && cuzk_fr_eq(&computed.val, root), "%s: computed root = native root",
          c->name);
    cuzk_fr_from_u64(&idx, st.index);
    cuzk_csb_value(cs, cuzk_var_input(1), &v);
    CHECK(cuzk_fr_eq(&v, &idx), "%s: the packed index input is the leaf index %llu", c->name,
          (unsigned long long)st.index);
    if (!c->private_root) {
        cuzk_csb_value(cs, cuzk_var_input(2), &v);
        CHECK(cuzk_fr_eq(&v, root), "%s: the root input is the root", c->name);
    }
    cuzk_cs sys;
    cuzk_fr *z = NULL;
    CHECK(cuzk_csb_finish(cs, &sys, &z) == CUZK_OK, "%s: finish", c->name);
    cuzk_csb_free(cs);
    CHECK(cuzk_cs_check(&sys, z, NULL) == -1, "%s: cuzk_cs_check satisfied", c->name);
    uint8_t d_full[32], d[32];
    cuzk_cs_digest(&sys, d_full);

    /* the blank circuit and the witness-only builder */
    cuzk_por_args blank = st.args;
    blank.siblings = NULL;
    blank.value.val = blank.root.val = CUZK_FR_ZERO;
    blank.index = 0;
    cuzk_csb *rec = cuzk_csb_new(CUZK_CSB_RECORD);
    cuzk_por_circuit(rec, s, &blank, NULL);
    cuzk_cs bsys;
    CHECK(cuzk_csb_finish(rec, &bsys, NULL) == CUZK_OK, "%s: blank finish", c->name);
    cuzk_cs_digest(&bsys, d);
    CHECK(!memcmp(d, d_full, 32), "%s: the blank circuit has the same structure", c->name);
    cuzk_cs_free(&bsys);
    cuzk_csb_free(rec);
    cuzk_csb *val = cuzk_csb_new(CUZK_CSB_VALUES);
    cuzk_por_circuit(val, s, &st.args, NULL);
    cuzk_fr *zv = NULL;
    CHECK(cuzk_csb_finish(val, NULL, &zv) == CUZK_OK && zv &&
              !memcmp(zv, z, (sys.n_inputs + sys.n_aux) * sizeof *z) &&
              cuzk_csb_n_constraints(val) == c->published,
          "%s: the witness-only witness equals the recorded one", c->name);
    free(zv);
    cuzk_csb_free(val);

    /* a wrong sibling, or a wrong index, with the true root: CHECK names the equal row */
    int64_t equal_row = (int64_t)c->published - 1 - !c->private_root;
    {
        cuzk_fr bad[CUZK_POR_MAX_LEVELS * 7];
        size_t ns = cuzk_por_shape_siblings(s), k = test_rand64() % ns;
        memcpy(bad, st.sib, ns * sizeof *bad);
        cuzk_fr_add(&bad[k], &bad[k], &CUZK_FR_ONE);
        cuzk_por_args a = st.args;
        a.siblings = bad;
        cuzk_csb *cc = cuzk_csb_new(CUZK_CSB_VALUES | CUZK_CSB_CHECK);
        cuzk_por_circuit(cc, s, &a, NULL);
        CHECK(cuzk_csb_first_failure(cc) == equal_row,
              "%s: wrong sibling %zu: CHECK names row %lld, the "
              "equal row is %lld",
              c->name, k, (long long)cuzk_csb_first_failure(cc), (long long)equal_row);
        cuzk_csb_free(cc);
        a = st.args;
        a.index = (st.index + 1 + test_rand64() % (st.t.width[0] - 1)) % st.t.width[0];
        cc = cuzk_csb_new(CUZK_CSB_VALUES | CUZK_CSB_CHECK);
        cuzk_por_circuit(cc, s, &a, NULL);
        CHECK(cuzk_csb_first_failure(cc) == equal_row,
              "%s: wrong index %llu (true %llu): CHECK names row %lld", c->name, (unsigned long long)a.index,
              (unsigned long long)st.index, (long long)cuzk_csb_first_failure(cc));
        cuzk_csb_free(cc);
    }

    /* corrupted witnesses: a flipped index bit, a changed sibling, a non-boolean bit */
    {
        unsigned l = (unsigned)(test_rand64() % s->n_levels), a = s->arity[l], lg = lg_of(a);
        uint64_t aux_at = 1; /* the value is aux 0 */
        for (unsigned j = 0; j < l; j++)
            aux_at += lg_of(s->arity[j]) + (s->arity[j] - 1) + insert_rows(s->arity[j]) +
                      hash_rows(c->hasher, s->arity[j]);
        uint64_t ins_lo = level_row[l] + lg, ins_hi = ins_lo + insert_rows(a);
        unsigned bit = (unsigned)(test_rand64() % lg);
        size_t zi = sys.n_inputs + aux_at + bit;
        cuzk_fr keep = z[zi];
        cuzk_fr_sub(&z[zi], &CUZK_FR_ONE, &z[zi]);
        int64_t got = cuzk_cs_check(&sys, z, NULL), want = test_naive_first_failure(&sys, z);
        CHECK(
            got == want && got >= (int64_t)ins_lo && got < (int64_t)ins_hi,
            "%s: flipped index bit %u of level %u: row %lld (naive %lld) among the insert rows [%llu, %llu)",
            c->name, bit, l, (long long)got, (long long)want, (unsigned long long)ins_lo,
            (unsigned long long)ins_hi);
        cuzk_fr_from_u64(&z[zi], 2);
        got = cuzk_cs_check(&sys, z, NULL);
        CHECK(got == (int64_t)(level_row[l] + bit), "%s: index bit = 2 fails its own row %llu (got %lld)",
              c->name, (unsigned long long)(level_row[l] + bit), (long long)got);
        z[zi] = keep;
        unsigned k = (unsigned)(test_rand64() % (a - 1));
        zi = sys.n_inputs + aux_at + lg + k;
        cuzk_fr_add(&z[zi], &z[zi], &CUZK_FR_ONE);
        got = cuzk_cs_check(&sys, z, NULL);
        want = test_naive_first_failure(&sys, z);
        CHECK(got == want && got >= (int64_t)ins_lo && got < (int64_t)ins_hi,
              "%s: changed sibling %u of level %u: row %lld (naive %lld) among the insert rows", c->name, k,
              l, (long long)got, (long long)want);
        cuzk_fr_sub(&z[zi], &z[zi], &CUZK_FR_ONE);
        CHECK(cuzk_cs_check(&sys, z, NULL) == -1, "%s: restored witness satisfies", c->name);
    }
    cuzk_cs_free(&sys);
    free(z);
    tree_free(&st.t);
}

/* PoSt / PoRep wiring: value and root are variables already, the root private. */
static void test_var_wiring(void)
{
    setup_t st;
    setup_case(&st, CUZK_POR_POSEIDON, 8, 8, 0, true);
    cuzk_csb *cs = cuzk_csb_new(CUZK_CSB_RECORD | CUZK_CSB_VALUES | CUZK_CSB_CHECK);
    cuzk_por_args a = st.args;
    cuzk_num_alloc(cs, &st.args.root.val, &a.root);
    cuzk_num_alloc(cs, &st.args.value.val, &a.value);
    a.root_is_var = a.value_is_var = true;
    uint64_t aux0 = cuzk_csb_n_aux(cs);
    cuzk_num computed;
    int rc = cuzk_por_circuit(cs, &st.shape, &a, &computed);
    CHECK(rc == CUZK_OK && cuzk_csb_n_constraints(cs) == 1593 - 1 && cuzk_csb_n_aux(cs) - aux0 == 1613 - 2 &&
              cuzk_csb_n_inputs(cs) == 2,
          "Root::Var, private: %llu rows, %llu new aux", (unsigned long long)cuzk_csb_n_constraints(cs),
          (unsigned long long)(cuzk_csb_n_aux(cs) - aux0));
    CHECK(cuzk_csb_first_failure(cs) == -1 && cuzk_fr_eq(&computed.val, &st.args.root.val),
          "Root::Var: satisfied, computed root right");
    cuzk_cs sys;
    cuzk_csb_finish(cs, &sys, NULL);
    /* the last row is computed · ONE = root with root the caller's aux 0 (unified index n_inputs + 0) */
    uint64_t r = sys.n_constraints - 1;
    CHECK(sys.c.row[r + 1] - sys.c.row[r] == 1 && sys.c.col[sys.c.row[r]] == sys.n_inputs,
          "Root::Var: equal names the caller's root variable");
    cuzk_cs_free(&sys);
    cuzk_csb_free(cs);
    tree_free(&st.t);
}

/* SHA-256 trees (storage-proofs-core's sha256 PoR tests): counts and the native root. */
static void test_sha(void)
{
    static const struct {
        unsigned base;
        uint64_t published;
    } S[] = {{2, 272295}, {4, 216258}, {8, 250987}};
    for (size_t i = 0; i < sizeof S / sizeof S[0]; i++) {
        setup_t st;
        setup_case(&st, CUZK_POR_SHA256, S[i].base, 0, 0, false);
        cuzk_fr lib_root;
        CHECK(cuzk_por_path_root(&st.shape, &st.args.value.val, st.index, st.sib, &lib_root) == CUZK_OK &&
                  cuzk_fr_eq(&lib_root, &st.args.root.val),
              "sha256 base%u: cuzk_por_path_root equals the full tree's root", S[i].base);
        cuzk_csb *cs = cuzk_csb_new(CUZK_CSB_VALUES | CUZK_CSB_CHECK);
        cuzk_num computed;
        int rc = cuzk_por_circuit(cs, &st.shape, &st.args, &computed);
        CHECK(rc == CUZK_OK && cuzk_csb_n_constraints(cs) == S[i].published && cuzk_csb_n_inputs(cs) == 3,
              "sha256 base%u: %llu rows, published %llu", S[i].base,
              (unsigned long long)cuzk_csb_n_constraints(cs), (unsigned long long)S[i].published);
        CHECK(cuzk_csb_first_failure(cs) == -1 && cuzk_fr_eq(&computed.val, &st.args.root.val),
              "sha256 base%u: satisfied, computed root = native root", S[i].base);
        cuzk_csb_free(cs);
        tree_free(&st.t);
    }
}

static void test_errors(void)
{
    setup_t st;
    setup_case(&st, CUZK_POR_POSEIDON, 4, 0, 0, false);
    cuzk_csb *cs = cuzk_csb_new(CUZK_CSB_RECORD);
    cuzk_por_args a = st.args;
    a.index = 64;
    CHECK(cuzk_por_circuit(cs, &st.shape, &a, NULL) == CUZK_EINVAL, "index past the leaves refused");
    CHECK(cuzk_csb_n_constraints(cs) == 0 && cuzk_csb_n_aux(cs) == 0, "... before anything is allocated");
    CHECK(cuzk_por_circuit(cs, &st.shape, &st.args, NULL) == CUZK_EINVAL, "a failed builder stays failed");
    cuzk_csb_free(cs);
    cs = cuzk_csb_new(CUZK_CSB_RECORD);
    cuzk_por_shape bad = st.shape;
    bad.arity[1] = 16;
    CHECK(cuzk_por_circuit(cs, &bad, &st.args, NULL) == CUZK_EINVAL, "arity 16 in a shape refused");
    cuzk_csb_free(cs);
    cs = cuzk_csb_new(CUZK_CSB_RECORD);
    CHECK(cuzk_por_circuit(cs, &st.shape, NULL, NULL) == CUZK_EINVAL, "NULL args refused");
    cuzk_csb_free(cs);
    CHECK(cuzk_por_circuit(NULL, &st.shape, &st.args, NULL) != CUZK_OK, "NULL builder refused");
    cuzk_fr r;
    CHECK(cuzk_por_path_root(&st.shape, &st.args.value.val, 64, st.sib, &r) == CUZK_EINVAL,
          "native: index past the leaves refused");
    CHECK(cuzk_por_path_root(&st.shape, &st.args.value.val, 0, NULL, &r) == CUZK_EINVAL,
          "native: NULL siblings refused");
    CHECK(cuzk_por_node_hash(CUZK_POR_POSEIDON, 3, st.sib, &r) == CUZK_EINVAL, "native: arity 3 refused");
    CHECK(cuzk_por_node_hash(9, 2, st.sib, &r) == CUZK_EINVAL, "native: unknown hasher refused");
    tree_free(&st.t);
}

/* A Groth16 proof of a two-level Poseidon path (oct tree of 64 leaves, public root). */
static void test_groth16(void)
{
    setup_t st;
    setup_case(&st, CUZK_POR_POSEIDON, 8, 0, 0, false);
    cuzk_csb *cs = cuzk_csb_new(CUZK_CSB_RECORD | CUZK_CSB_VALUES);
    cuzk_por_circuit(cs, &st.shape, &st.args, NULL);
    cuzk_cs sys;
    cuzk_fr *z = NULL;
    int rc = cuzk_csb_finish(cs, &sys, &z);
    cuzk_csb_free(cs);
    tree_free(&st.t);
    CHECK(rc == CUZK_OK && sys.n_inputs == 3, "base8 path: finish with 2 public inputs");
    if (rc != CUZK_OK)
        return;
    cuzk_groth16_params pk;
    test_groth16_roundtrip(&pk, &sys, z, 0, "base8 PoR path (another leaf index)");
    cuzk_groth16_params_free(&pk);
    cuzk_cs_free(&sys);
    free(z);
}

int main(void)
{
    test_rng_init("test_por");
    test_shapes();
    for (size_t i = 0; i < NCASES; i++)
        test_case(&CASES[i]);
    test_var_wiring();
    test_sha();
    test_errors();
    test_groth16();
    return test_finish("test_por");
}
