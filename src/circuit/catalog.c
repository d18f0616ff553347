/*
 * catalog.c — the named gadget circuits of cuzk/catalog.h.
 *
 * Every circuit has the same shape: allocate its inputs the way the real
 * circuits feed the gadget (AllocatedBits, AllocatedNums, to_bits_le of a
 * number for the Filecoin SHA-256 blocks, whose 256-bit chunks carry one
 * constant-zero bit at position 248), note the rows spent so far, run the
 * gadget. Witness values come from a splitmix64 stream of the seed, so a
 * seed names one witness; the structure never depends on it (the Filecoin
 * layer index is a fixed constant, 1, for that reason).
 *
 * The Filecoin SHA-256 block layouts (porep-circuit.md §2.4, §3.7, §6.3):
 * - label block 0: replica_id bits (per-byte reversed LE bits of a number)
 *   ‖ layer as 32 constant bits, big-endian ‖ the node's 64 allocated bits,
 *   big-endian ‖ 160 constant zeros, from the constant IV;
 * - two-parent block: two parent labels (same 256-bit layout) on a variable
 *   state (allocated bits, as the previous block's output would be);
 * - last label block: parent 36 then the constant padding of a 1248-byte
 *   message (bit length 9984) on a variable state;
 * - padding block: the second block of a 64-byte message (all constant) on a
 *   variable state;
 * - node: the whole SHA-256 Merkle node of two numbers.
 *
 * The PoR circuits follow storage-proofs-core's por_circuit tests (64 ·
 * base_tree_count leaves, value and root allocated by the gadget, siblings
 * random, the root computed natively); the create_label circuits are the
 * labeling of a later PoRep layer and the upstream test layout.
 */
#include "cuzk/catalog.h"

#include <stdlib.h>
#include <string.h>

#include "cuzk/gadgets.h"
#include "cuzk/poseidon.h"

typedef struct {
    uint64_t s;
} rng;

static uint64_t rng_next(rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A field element from the stream; bits = 254 keeps it below 2^254 (so it packs back exactly). */
static void rng_fr(rng *r, cuzk_fr *out, unsigned bits)
{
    uint8_t le[32];
    for (int i = 0; i < 4; i++) {
        uint64_t x = rng_next(r);
        memcpy(le + 8 * i, &x, 8);
    }
    le[31] &= bits < 255 ? 0x3f : 0x7f;
    cuzk_fr_from_le32_reduce(out, le);
}

static void alloc_bits(cuzk_csb *cs, rng *r, cuzk_bool *bits, size_t n)
{
    for (size_t i = 0; i < n; i++)
        cuzk_bit_alloc(cs, rng_next(r) & 1, &bits[i]);
}

static void alloc_nums(cuzk_csb *cs, rng *r, cuzk_num *nums, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        cuzk_fr v;
        rng_fr(r, &v, 255);
        cuzk_num_alloc(cs, &v, &nums[i]);
    }
}

/* A number's 256-bit SHA-256 chunk: to_bits_le, constant 0 appended, bits reversed within each byte. */
static void num_chunk(cuzk_csb *cs, rng *r, cuzk_bool out[256])
{
    cuzk_num n;
    cuzk_bool le[256];
    alloc_nums(cs, r, &n, 1);
    cuzk_num_to_bits_le(cs, &n, le);
    le[255] = cuzk_bool_const(false);
    for (int i = 0; i < 256; i++)
        out[i] = le[(i & ~7) + 7 - (i & 7)];
}

static void alloc_state(cuzk_csb *cs, rng *r, cuzk_u32 st[8])
{
    for (int k = 0; k < 8; k++)
        alloc_bits(cs, r, st[k].b, 32);
}

/* ---- the circuits: each builds its inputs, sets *setup, runs its gadget ------------------------------ */

typedef void (*build_fn)(cuzk_csb *cs, rng *r, uint64_t *setup);

static void c_sha_block(cuzk_csb *cs, rng *r, uint64_t *setup)
{
    cuzk_bool in[512];
    cuzk_u32 st[8];
    alloc_bits(cs, r, in, 512);
    cuzk_sha256_gadget_iv(st);
    *setup = cuzk_csb_n_constraints(cs);
    cuzk_sha256_compression_gadget(cs, in, st, st);
}

static void c_sha_state_block(cuzk_csb *cs, rng *r, uint64_t *setup)
{
    cuzk_bool in[512];
    cuzk_u32 st[8];
    alloc_bits(cs, r, in, 512);
    alloc_state(cs, r, st);
    *setup = cuzk_csb_n_constraints(cs);
    cuzk_sha256_compression_gadget(cs, in, st, st);
}

static void c_sha_2block(cuzk_csb *cs, rng *r, uint64_t *setup)
{
    cuzk_bool in[512], out[256];
    alloc_bits(cs, r, in, 512);
    *setup = cuzk_csb_n_constraints(cs);
    cuzk_sha256_gadget(cs, in, 512, out);
}

static void c_sha_blank(cuzk_csb *cs, rng *r, uint64_t *setup)
{
    cuzk_bool out[256];
    (void)r;
    *setup = cuzk_csb_n_constraints(cs);
    cuzk_sha256_gadget(cs, NULL, 0, out);
}

static void c_label_block0(cuzk_csb *cs, rng *r, uint64_t *setup)
{
    cuzk_bool in[512], node[64];
    cuzk_u32 st[8];
    num_chunk(cs, r, in);
    cuzk_u32 layer = cuzk_u32_const(1);
    cuzk_u32_into_bits_be(in + 256, &layer);
    alloc_bits(cs, r, node, 64); /* UInt64::alloc, LSB first */
    for (int i = 0; i < 64; i++)
        in[288 + i] = node[63 - i];
    for (int i = 352; i < 512; i++)
        in[i] = cuzk_bool_const(false);
    cuzk_sha256_gadget_iv(st);
    *setup = cuzk_csb_n_constraints(cs);
    cuzk_sha256_compression_gadget(cs, in, st, st);
}

static void c_label_parents(cuzk_csb *cs, rng *r, uint64_t *setup)
{
    cuzk_bool in[512];
    cuzk_u32 st[8];
    num_chunk(cs, r, in);
    num_chunk(cs, r, in + 256);
    alloc_state(cs, r, st);
    *setup = cuzk_csb_n_constraints(cs);
    cuzk_sha256_compression_gadget(cs, in, st, st);
}

/* The constant SHA-256 padding of a message of len_bits bits, for the block positions [from, 512). */
static void const_padding(cuzk_bool *block, int from, uint64_t len_bits)
{
    block[from] = cuzk_bool_const(true);
    for (int i = from + 1; i < 448; i++)
        block[i] = cuzk_bool_const(false);
    for (int i = 0; i < 64; i++)
        block[448 + i] = cuzk_bool_const((len_bits >> (63 - i)) & 1);
}

static void c_label_last(cuzk_csb *cs, rng *r, uint64_t *setup)
{
    cuzk_bool in[512];
    cuzk_u32 st[8];
    num_chunk(cs, r, in);
    const_padding(in, 256, 39 * 256);
    alloc_state(cs, r, st);
    *setup = cuzk_csb_n_constraints(cs);
    cuzk_sha256_compression_gadget(cs, in, st, st);
}

static void c_pad_block(cuzk_csb *cs, rng *r, uint64_t *setup)
{
    cuzk_bool in[512];
    cuzk_u32 st[8];
    const_padding(in, 0, 512);
    alloc_state(cs, r, st);
    *setup = cuzk_csb_n_constraints(cs);
    cuzk_sha256_compression_gadget(cs, in, st, st);
}

static void c_sha_node(cuzk_csb *cs, rng *r, uint64_t *setup)
{
    cuzk_num leaves[2], out;
    alloc_nums(cs, r, leaves, 2);
    *setup = cuzk_csb_n_constraints(cs);
    cuzk_sha256_node_gadget(cs, leaves, 2, &out);
}

static void c_insert(cuzk_csb *cs, rng *r, uint64_t *setup, unsigned lg)
{
    cuzk_num el, sib[7], out[8];
    cuzk_bool bits[3];
    alloc_nums(cs, r, &el, 1);
    alloc_nums(cs, r, sib, ((size_t)1 << lg) - 1);
    alloc_bits(cs, r, bits, lg);
    *setup = cuzk_csb_n_constraints(cs);
    if (lg == 1)
        cuzk_insert_2(cs, &el, sib, bits, out);
    else if (lg == 2)
        cuzk_insert_4(cs, &el, sib, bits, out);
    else
        cuzk_insert_8(cs, &el, sib, bits, out);
}

static void c_insert2(cuzk_csb *cs, rng *r, uint64_t *setup)
{
    c_insert(cs, r, setup, 1);
}
static void c_insert4(cuzk_csb *cs, rng *r, uint64_t *setup)
{
    c_insert(cs, r, setup, 2);
}
static void c_insert8(cuzk_csb *cs, rng *r, uint64_t *setup)
{
    c_insert(cs, r, setup, 3);
}

static void c_to_bits(cuzk_csb *cs, rng *r, uint64_t *setup)
{
    cuzk_num n;
    cuzk_bool bits[255];
    alloc_nums(cs, r, &n, 1);
    *setup = cuzk_csb_n_constraints(cs);
    cuzk_num_to_bits_le(cs, &n, bits);
}

static void c_pack(cuzk_csb *cs, rng *r, uint64_t *setup)
{
    cuzk_num n, packed;
    cuzk_bool bits[255];
    cuzk_fr v;
    rng_fr(r, &v, 254);
    cuzk_num_alloc(cs, &v, &n);
    *setup = cuzk_csb_n_constraints(cs);
    cuzk_num_inputize(cs, &n);
    cuzk_num_to_bits_le(cs, &n, bits);
    cuzk_pack_bits(cs, bits, 255, &packed);
    cuzk_pack_into_inputs(cs, bits, 255);
    cuzk_num_equal(cs, &packed, &n);
}

/* neptune's legacy Poseidon circuit (MerkleTree tag) over `arity` allocated numbers. */
static void c_poseidon(cuzk_csb *cs, rng *r, uint64_t *setup, unsigned arity)
{
    cuzk_num in[11];
    cuzk_var v[11], out;
    alloc_nums(cs, r, in, arity);
    for (unsigned i = 0; i < arity; i++)
        v[i] = in[i].var;
    *setup = cuzk_csb_n_constraints(cs);
    const cuzk_poseidon_consts *pc = cuzk_poseidon_get(arity);
    if (!pc) {
        cuzk_csb_note(cs, CUZK_ENOMEM); /* the constants could not be built */
        return;
    }
    cuzk_poseidon_circuit(cs, pc, v, &out);
}
static void c_poseidon2(cuzk_csb *cs, rng *r, uint64_t *setup)
{
    c_poseidon(cs, r, setup, 2);
}
static void c_poseidon4(cuzk_csb *cs, rng *r, uint64_t *setup)
{
    c_poseidon(cs, r, setup, 4);
}
static void c_poseidon8(cuzk_csb *cs, rng *r, uint64_t *setup)
{
    c_poseidon(cs, r, setup, 8);
}
static void c_poseidon11(cuzk_csb *cs, rng *r, uint64_t *setup)
{
    c_poseidon(cs, r, setup, 11);
}

/* storage-proofs-core's PoR test layout (tests/por_circuit.rs): a Poseidon tree of 64 · base_tree_count
 * leaves (base_tree_count = sub · top), value and root allocated by the circuit (Root::Val), random leaf
 * index and siblings, the root computed natively so that the witness satisfies. */
static void c_por(cuzk_csb *cs, rng *r, uint64_t *setup, unsigned base, unsigned sub, unsigned top,
                  bool private_root)
{
    uint64_t count = (uint64_t)(sub ? sub : 1) * (top ? top : 1);
    cuzk_por_shape shape;
    if (cuzk_por_shape_init(&shape, CUZK_POR_POSEIDON, 64 * count, base, sub, top) != CUZK_OK) {
        cuzk_csb_note(cs, CUZK_EINVAL);
        return;
    }
    cuzk_fr sib[CUZK_POR_MAX_LEVELS * 7];
    size_t ns = cuzk_por_shape_siblings(&shape);
    cuzk_por_args a;
    memset(&a, 0, sizeof a);
    rng_fr(r, &a.value.val, 255);
    for (size_t i = 0; i < ns; i++)
        rng_fr(r, &sib[i], 255);
    a.index = rng_next(r) % cuzk_por_shape_leaves(&shape);
    a.siblings = sib;
    a.private_root = private_root;
    int rc = cuzk_por_path_root(&shape, &a.value.val, a.index, sib, &a.root.val);
    if (rc != CUZK_OK) {
        cuzk_csb_note(cs, rc);
        return;
    }
    *setup = cuzk_csb_n_constraints(cs);
    cuzk_por_circuit(cs, &shape, &a, NULL);
}
static void c_por_base2(cuzk_csb *cs, rng *r, uint64_t *setup)
{
    c_por(cs, r, setup, 2, 0, 0, false);
}
static void c_por_base4(cuzk_csb *cs, rng *r, uint64_t *setup)
{
    c_por(cs, r, setup, 4, 0, 0, false);
}
static void c_por_base8(cuzk_csb *cs, rng *r, uint64_t *setup)
{
    c_por(cs, r, setup, 8, 0, 0, false);
}
static void c_por_sub8_2(cuzk_csb *cs, rng *r, uint64_t *setup)
{
    c_por(cs, r, setup, 8, 2, 0, false);
}
static void c_por_top8_4_2(cuzk_csb *cs, rng *r, uint64_t *setup)
{
    c_por(cs, r, setup, 8, 4, 2, false);
}
static void c_por_sub8_8(cuzk_csb *cs, rng *r, uint64_t *setup)
{
    c_por(cs, r, setup, 8, 8, 0, false);
}
static void c_por_top8_8_2(cuzk_csb *cs, rng *r, uint64_t *setup)
{
    c_por(cs, r, setup, 8, 8, 2, false);
}
static void c_por_base2_private(cuzk_csb *cs, rng *r, uint64_t *setup)
{
    c_por(cs, r, setup, 2, 0, 0, true);
}
static void c_por_base4_private(cuzk_csb *cs, rng *r, uint64_t *setup)
{
    c_por(cs, r, setup, 4, 0, 0, true);
}
static void c_por_base8_private(cuzk_csb *cs, rng *r, uint64_t *setup)
{
    c_por(cs, r, setup, 8, 0, 0, true);
}

/* create_label as a later layer of the PoRep circuit lays it out: replica_id and 14 parent labels
 * (6 base, 8 expander) as numbers through to_bits_le, the node as 64 allocated bits, layer 2, the
 * parents repeated to 37 (P + P + P[0..9]). */
static void c_create_label(cuzk_csb *cs, rng *r, uint64_t *setup)
{
    cuzk_num rid, pn[14];
    cuzk_bool rid_bits[256], node[64], pbits[14][256];
    const cuzk_bool *pp[14], *ex[37];
    alloc_nums(cs, r, &rid, 1);
    cuzk_num_to_msg_bits(cs, &rid, rid_bits);
    alloc_bits(cs, r, node, 64);
    for (int i = 0; i < 14; i++) {
        alloc_nums(cs, r, &pn[i], 1);
        cuzk_num_to_msg_bits(cs, &pn[i], pbits[i]);
        pp[i] = pbits[i];
    }
    cuzk_label_expand_parents(pp, 14, ex);
    *setup = cuzk_csb_n_constraints(cs);
    cuzk_num out;
    cuzk_create_label(cs, rid_bits, 256, ex, 2, node, &out);
}

/* storage-proofs-porep's create_label test layout: 37 parents of 256 allocated bits each, then 256
 * allocated replica_id bits (bytes_into_boolean_vec_be), layer 3 and node 22 as constants. */
static void c_create_label_test(cuzk_csb *cs, rng *r, uint64_t *setup)
{
    cuzk_bool *bits = malloc(38 * 256 * sizeof *bits), node[64];
    if (!bits) {
        cuzk_csb_note(cs, CUZK_ENOMEM);
        return;
    }
    const cuzk_bool *ps[37];
    for (int p = 0; p < 37; p++) {
        alloc_bits(cs, r, bits + 256 * p, 256);
        ps[p] = bits + 256 * p;
    }
    alloc_bits(cs, r, bits + 37 * 256, 256);
    for (int i = 0; i < 64; i++)
        node[i] = cuzk_bool_const((22ull >> i) & 1);
    *setup = cuzk_csb_n_constraints(cs);
    cuzk_num out;
    cuzk_create_label(cs, bits + 37 * 256, 256, ps, 3, node, &out);
    free(bits);
}

static const struct {
    const char *name, *summary;
    build_fn build;
} CIRCUITS[] = {
    {"sha256-block", "SHA-256 compression of 512 allocated bits from the IV (25,840 rows)", c_sha_block},
    {"sha256-state-block", "SHA-256 compression of 512 allocated bits on an allocated state (26,192)",
     c_sha_state_block},
    {"sha256-2block", "SHA-256 of a 512-bit allocated message, two blocks (44,874)", c_sha_2block},
    {"sha256-blank", "SHA-256 of the empty message: all constant (0)", c_sha_blank},
    {"sha256-label-block0", "Filecoin label block 0: replica_id | layer | node | zeros, IV (25,363)",
     c_label_block0},
    {"sha256-label-parents", "Filecoin label block of two parents on a variable state (26,184)",
     c_label_parents},
    {"sha256-label-last", "Filecoin last label block: parent 36 + padding, variable state (25,593)",
     c_label_last},
    {"sha256-pad-block", "SHA-256 padding-only block on a variable state (19,034)", c_pad_block},
    {"sha256-node", "SHA-256 Merkle node of two numbers, to_bits and pack included (45,379)", c_sha_node},
    {"insert2", "Merkle insertion of one element among 1 sibling (2)", c_insert2},
    {"insert4", "Merkle insertion of one element among 3 siblings (8)", c_insert4},
    {"insert8", "Merkle insertion of one element among 7 siblings (22)", c_insert8},
    {"to-bits", "to_bits_le of one number (256)", c_to_bits},
    {"pack", "inputize, to_bits_le, pack_bits, pack_into_inputs, equal of one number (261)", c_pack},
    {"poseidon2", "Poseidon hash of 2 numbers, neptune's legacy circuit, MerkleTree tag (311)", c_poseidon2},
    {"poseidon4", "Poseidon hash of 4 numbers (377)", c_poseidon4},
    {"poseidon8", "Poseidon hash of 8 numbers (505)", c_poseidon8},
    {"poseidon11", "Poseidon hash of 11 numbers, the column hash (598)", c_poseidon11},
    {"por-base2", "PoR path, Poseidon binary tree of 64 leaves, public root (1,887)", c_por_base2},
    {"por-base4", "PoR path, Poseidon quad tree of 64 leaves, public root (1,164)", c_por_base4},
    {"por-base8", "PoR path, Poseidon oct tree of 64 leaves, public root (1,063)", c_por_base8},
    {"por-sub8-2", "PoR path, oct base + binary sub level, 128 leaves (1,377)", c_por_sub8_2},
    {"por-top8-4-2", "PoR path, oct base + quad sub + binary top, 512 leaves (1,764)", c_por_top8_4_2},
    {"por-sub8-8", "PoR path, oct base + oct sub level, 512 leaves (1,593)", c_por_sub8_8},
    {"por-top8-8-2", "PoR path, oct base + oct sub + binary top, 1024 leaves (1,907)", c_por_top8_8_2},
    {"por-base2-private", "PoR path, binary tree of 64 leaves, private root (1,886)", c_por_base2_private},
    {"por-base4-private", "PoR path, quad tree of 64 leaves, private root (1,163)", c_por_base4_private},
    {"por-base8-private", "PoR path, oct tree of 64 leaves, private root (1,062)", c_por_base8_private},
    {"create-label", "Filecoin label, later layer: to_bits inputs, 37 parents from 14 (522,269)",
     c_create_label},
    {"create-label-test",
     "create_label in its upstream test layout: 9,728 bit allocations + 522,297 (532,025)",
     c_create_label_test},
};
enum { NCIRCUITS = sizeof CIRCUITS / sizeof CIRCUITS[0] };

size_t cuzk_catalog_count(void)
{
    return NCIRCUITS;
}
const char *cuzk_catalog_name(size_t i)
{
    return i < NCIRCUITS ? CIRCUITS[i].name : NULL;
}
const char *cuzk_catalog_summary(size_t i)
{
    return i < NCIRCUITS ? CIRCUITS[i].summary : NULL;
}

int cuzk_catalog_build(const char *name, uint64_t seed, cuzk_csb *cs, uint64_t *setup_rows, char *err,
                       size_t errlen)
{
    uint64_t setup = 0;
    if (setup_rows)
        *setup_rows = 0;
    if (!cs)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "catalog: no builder");
    for (size_t i = 0; name && i < NCIRCUITS; i++)
        if (!strcmp(name, CIRCUITS[i].name)) {
            rng r = {seed};
            CIRCUITS[i].build(cs, &r, &setup);
            if (setup_rows)
                *setup_rows = setup;
            int rc = cuzk_csb_error(cs);
            if (rc != CUZK_OK)
                return cuzk_fail(err, errlen, rc, "catalog: building %s: %s", name, cuzk_strerror(rc));
            return CUZK_OK;
        }
    return cuzk_fail(err, errlen, CUZK_EINVAL, "catalog: no circuit named '%s' (`--circuit list` lists them)",
                     name ? name : "(null)");
}

int cuzk_catalog_fingerprint(const char *name, uint64_t seed, cuzk_catalog_fp *fp, char *err, size_t errlen)
{
    memset(fp, 0, sizeof *fp);
    cuzk_csb *cs = cuzk_csb_new(CUZK_CSB_RECORD | CUZK_CSB_VALUES);
    if (!cs)
        return cuzk_fail(err, errlen, CUZK_ENOMEM, "catalog: out of memory");
    uint64_t setup = 0;
    int rc = cuzk_catalog_build(name, seed, cs, &setup, err, errlen);
    cuzk_cs sys;
    cuzk_fr *z = NULL;
    memset(&sys, 0, sizeof sys);
    if (rc == CUZK_OK && (rc = cuzk_csb_finish(cs, &sys, &z)) != CUZK_OK)
        cuzk_fail(err, errlen, rc, "catalog: finishing %s: %s", name, cuzk_strerror(rc));
    cuzk_csb_free(cs);
    if (rc != CUZK_OK)
        return rc;
    fp->n_inputs = sys.n_inputs;
    fp->n_aux = sys.n_aux;
    fp->n_constraints = sys.n_constraints;
    fp->gadget_constraints = sys.n_constraints - setup;
    fp->nnz_a = sys.a.nnz;
    fp->nnz_b = sys.b.nnz;
    fp->nnz_c = sys.c.nnz;
    size_t pop[3];
    if ((rc = cuzk_cs_density_pops(&sys, pop, NULL)) != CUZK_OK)
        cuzk_fail(err, errlen, rc, "catalog: density: %s", cuzk_strerror(rc));
    else if ((rc = cuzk_cs_digest(&sys, fp->digest)) != CUZK_OK)
        cuzk_fail(err, errlen, rc, "catalog: digest: %s", cuzk_strerror(rc));
    if (rc == CUZK_OK) {
        fp->a_aux = pop[0];
        fp->b_input = pop[1];
        fp->b_aux = pop[2];
        cuzk_witness_digest(sys.n_inputs, sys.n_aux, z, fp->witness_digest);
        fp->first_failure = cuzk_cs_check(&sys, z, NULL);
    }
    free(z);
    cuzk_cs_free(&sys);
    return rc;
}
