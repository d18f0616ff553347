/*
 * cuzk/gadgets.h — circuit gadgets on the builder of cuzk/csb.h: Boolean
 * bits, 32-bit words with addmany and MultiEq packing, the SHA-256 gadget,
 * field-element numbers with bit decomposition, packing, picks and the
 * Merkle insertion gadgets, the PoR (Merkle inclusion) path and the
 * Filecoin label (create_label) with their native counterparts.
 *
 * Each gadget reproduces bellperson 0.27 / bellpepper-core 0.2 /
 * storage-proofs-core exactly: the same variables allocated in the same
 * order, the same rows in the same order with the same coefficients
 * (porep-circuit.md §3.2–3.5, §3.7). The match arms of the Rust code (which
 * constant folds first, which polarity becomes which AllocatedBit operation)
 * are part of that contract and are kept in the same order here.
 *
 * Values. A cuzk_bool and a cuzk_num carry their witness value alongside the
 * variable, so a witness-only builder (VALUES without RECORD) never looks a
 * value up; without VALUES the values are computed anyway and ignored.
 * Without RECORD or CHECK the gadgets skip building linear combinations and
 * only count their rows.
 *
 * Errors. Every function returns the builder's sticky error (CUZK_OK when
 * all went well): after a failure outputs are unspecified, but nothing
 * crashes and later calls do nothing.
 */
#ifndef CUZK_GADGETS_H
#define CUZK_GADGETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/csb.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Boolean ------------------------------------------------------------------------------------ */

enum { CUZK_BOOL_CONST = 0, CUZK_BOOL_IS = 1, CUZK_BOOL_NOT = 2 };

/* Constant(val) | Is(var) | Not(var); val is the Boolean's value (for Not: the negation of var's). */
typedef struct {
    cuzk_var var;
    uint8_t kind;
    uint8_t val;
} cuzk_bool;

static inline cuzk_bool cuzk_bool_const(bool b)
{
    cuzk_bool r = {CUZK_VAR_ONE, CUZK_BOOL_CONST, (uint8_t)b};
    return r;
}
static inline bool cuzk_bool_is_const(cuzk_bool b)
{
    return b.kind == CUZK_BOOL_CONST;
}
/* Boolean::not: no cost, flips the polarity (or the constant). */
static inline cuzk_bool cuzk_bool_not(cuzk_bool b)
{
    cuzk_bool r = b;
    r.val = (uint8_t)!b.val;
    if (b.kind == CUZK_BOOL_IS)
        r.kind = CUZK_BOOL_NOT;
    else if (b.kind == CUZK_BOOL_NOT)
        r.kind = CUZK_BOOL_IS;
    return r;
}

/* lc += coef · b, where Constant(true) is ONE, Not(v) is ONE - v (Boolean::lc). coef NULL = 1. */
int cuzk_bool_lc_add(cuzk_lc *lc, cuzk_bool b, const cuzk_fr *coef);

/* AllocatedBit::alloc: a new aux bit (value used with VALUES), row (ONE - a) · a = 0. Is(a). */
int cuzk_bit_alloc(cuzk_csb *cs, bool value, cuzk_bool *out);
/* The AllocatedBit operations on the variables of two non-constant bits (their polarity is ignored:
 * the Rust functions take AllocatedBits). Each allocates r, then enforces its row (§3.2 table). */
int cuzk_bit_xor(cuzk_csb *cs, cuzk_bool a, cuzk_bool b, cuzk_bool *out);
int cuzk_bit_and(cuzk_csb *cs, cuzk_bool a, cuzk_bool b, cuzk_bool *out);
int cuzk_bit_and_not(cuzk_csb *cs, cuzk_bool a, cuzk_bool b, cuzk_bool *out); /* a and not b */
int cuzk_bit_nor(cuzk_csb *cs, cuzk_bool a, cuzk_bool b, cuzk_bool *out);

/* Boolean::xor / Boolean::and with constant folding and polarity dispatch. */
int cuzk_bool_xor(cuzk_csb *cs, cuzk_bool a, cuzk_bool b, cuzk_bool *out);
int cuzk_bool_and(cuzk_csb *cs, cuzk_bool a, cuzk_bool b, cuzk_bool *out);
/* Boolean::sha256_ch (a ? b : c) and sha256_maj (majority), with their match arms in order. */
int cuzk_bool_sha256_ch(cuzk_csb *cs, cuzk_bool a, cuzk_bool b, cuzk_bool c, cuzk_bool *out);
int cuzk_bool_sha256_maj(cuzk_csb *cs, cuzk_bool a, cuzk_bool b, cuzk_bool c, cuzk_bool *out);

/* ---- UInt32, MultiEq, addmany -------------------------------------------------------------------- */

/* 32 Booleans, least significant first. */
typedef struct {
    cuzk_bool b[32];
} cuzk_u32;

cuzk_u32 cuzk_u32_const(uint32_t x);
/* The word's value from its bits' values. */
uint32_t cuzk_u32_value(const cuzk_u32 *w);
/* True when all 32 bits are constants. */
bool cuzk_u32_is_const(const cuzk_u32 *w);
/* from_bits_be: bits[0] is the most significant. */
void cuzk_u32_from_bits_be(cuzk_u32 *w, const cuzk_bool bits[32]);
/* into_bits_be: bits[0] = the most significant. */
void cuzk_u32_into_bits_be(cuzk_bool bits[32], const cuzk_u32 *w);
/* Rotations and shifts re-index bits (no cost); shr fills with constant 0. r may not alias w. */
void cuzk_u32_rotr(cuzk_u32 *r, const cuzk_u32 *w, unsigned n);
void cuzk_u32_shr(cuzk_u32 *r, const cuzk_u32 *w, unsigned n);
/* Bitwise Boolean::xor, bit 0 first. r may alias a or b. */
int cuzk_u32_xor(cuzk_csb *cs, cuzk_u32 *r, const cuzk_u32 *a, const cuzk_u32 *b);
/* Bitwise sha256_ch / sha256_maj, bit 0 first. */
int cuzk_u32_sha256_ch(cuzk_csb *cs, cuzk_u32 *r, const cuzk_u32 *a, const cuzk_u32 *b, const cuzk_u32 *c);
int cuzk_u32_sha256_maj(cuzk_csb *cs, cuzk_u32 *r, const cuzk_u32 *a, const cuzk_u32 *b, const cuzk_u32 *c);

/* MultiEq (bellperson multieq.rs): packs several "lhs = rhs" equalities of at most nbits each into one
 * row lhs · ONE = rhs, flushing before an equality that would reach Fr::CAPACITY (254) bits. */
typedef struct {
    cuzk_csb *cs;
    cuzk_lc lhs, rhs;
    unsigned bits;
} cuzk_multieq;

void cuzk_multieq_init(cuzk_multieq *me, cuzk_csb *cs);
/* Adds 2^bits · lhs = 2^bits · rhs (flushing first if needed); lhs, rhs borrowed (NULL = empty). */
int cuzk_multieq_enforce_equal(cuzk_multieq *me, unsigned nbits, const cuzk_lc *lhs, const cuzk_lc *rhs);
/* The final flush (the Rust Drop): emits the pending row if any bits are used, then frees. */
int cuzk_multieq_finish(cuzk_multieq *me);
/* Frees without emitting (after an error). */
void cuzk_multieq_free(cuzk_multieq *me);

/* UInt32::addmany of n (2..10) operands: constant result when every bit is constant, else
 * bitlen(n·(2^32-1)) result bits holding the unreduced sum, one MultiEq equality, the low 32 kept. */
int cuzk_u32_addmany(cuzk_csb *cs, cuzk_multieq *me, const cuzk_u32 *ops, size_t n, cuzk_u32 *out);

/* ---- SHA-256 ------------------------------------------------------------------------------------- */

/* The eight IV words as constants. */
void cuzk_sha256_gadget_iv(cuzk_u32 iv[8]);
/* sha256_compression_function: one 512-bit block (input[0] = the first message bit, MSB of byte 0) on
 * state cur; its own MultiEq, flushed at the end. out may alias cur. */
int cuzk_sha256_compression_gadget(cuzk_csb *cs, const cuzk_bool input[512], const cuzk_u32 cur[8],
                                   cuzk_u32 out[8]);
/* sha256: nbits (a multiple of 8; CUZK_EINVAL otherwise) message bits, constant padding, constant IV;
 * out = the 256 digest bits, MSB of byte 0 first. */
int cuzk_sha256_gadget(cuzk_csb *cs, const cuzk_bool *bits, size_t nbits, cuzk_bool out[256]);

/* ---- numbers (AllocatedNum) ---------------------------------------------------------------------- */

typedef struct {
    cuzk_var var;
    cuzk_fr val; /* the witness value (meaningful with VALUES) */
} cuzk_num;

/* AllocatedNum::alloc: one aux, no row. value NULL = 0. */
int cuzk_num_alloc(cuzk_csb *cs, const cuzk_fr *value, cuzk_num *out);
/* inputize: a new input x and the row x · ONE = n. */
int cuzk_num_inputize(cuzk_csb *cs, const cuzk_num *n);
/* to_bits_le (non-strict): 255 AllocatedBits of the canonical value, LSB first, then the row
 * 0 · 0 = sum 2^i b_i - n. bits must hold 255. */
int cuzk_num_to_bits_le(cuzk_csb *cs, const cuzk_num *n, cuzk_bool bits[255]);
/* pack_bits (storage-proofs-core multipack): the first min(n, 254) bits, LSB first, packed into a new
 * aux with the row (sum 2^i bit_i) · ONE = out. */
int cuzk_pack_bits(cuzk_csb *cs, const cuzk_bool *bits, size_t n, cuzk_num *out);
/* pack_into_inputs (bellperson multipack): chunks of 254 bits, each a new input with the row
 * (sum 2^i bit_i) · ONE = input. */
int cuzk_pack_into_inputs(cuzk_csb *cs, const cuzk_bool *bits, size_t n);
/* constraint::equal: a · ONE = b. */
int cuzk_num_equal(cuzk_csb *cs, const cuzk_num *a, const cuzk_num *b);
/* pick(cond, a, b) = cond ? a : b: a new aux c and the row (b - a) · cond = b - c. */
int cuzk_num_pick(cuzk_csb *cs, cuzk_bool cond, const cuzk_num *a, const cuzk_num *b, cuzk_num *out);
/* Merkle insertion (storage-proofs-core insertion.rs): el placed at position sum 2^i bits[i] among the
 * siblings in order. insert_2: 2 picks; insert_4: 8; insert_8: nor(b0,b1), and(b0,b1), 20 picks (its
 * first two bits must be non-negated allocated bits, else CUZK_EINVAL). out may not alias the inputs. */
int cuzk_insert_2(cuzk_csb *cs, const cuzk_num *el, const cuzk_num sib[1], const cuzk_bool bits[1],
                  cuzk_num out[2]);
int cuzk_insert_4(cuzk_csb *cs, const cuzk_num *el, const cuzk_num sib[3], const cuzk_bool bits[2],
                  cuzk_num out[4]);
int cuzk_insert_8(cuzk_csb *cs, const cuzk_num *el, const cuzk_num sib[7], const cuzk_bool bits[3],
                  cuzk_num out[8]);

/* The SHA-256 Merkle node (Sha256Function::hash_multi_leaf_circuit): each leaf to_bits_le, padded to
 * 256 bits with constant 0 and bit-reversed per byte (the leaf's 32 LE bytes as a bit stream), all leaves
 * concatenated, SHA-256, output bits reversed per byte, the first 254 packed (pack_bits). n >= 1. */
int cuzk_sha256_node_gadget(cuzk_csb *cs, const cuzk_num *leaves, size_t n, cuzk_num *out);

/* ---- PoR: Merkle inclusion paths (storage-proofs-core gadgets/por.rs) ----------------------------- */

/* Node hashers: Poseidon of the level's arity (neptune MerkleTree constants), or the SHA-256 node
 * (cuzk_sha256_node_gadget: SHA-256 of the children's 32-byte LE reprs, top two bits cleared). */
enum { CUZK_POR_POSEIDON = 0, CUZK_POR_SHA256 = 1 };
#define CUZK_POR_MAX_LEVELS 64

/* A Merkle tree as Filecoin shapes it: levels from the leaves up, the base levels (all of the base
 * arity) first, then at most one sub level, then at most one top level; every arity 2, 4 or 8. */
typedef struct {
    unsigned hasher; /* CUZK_POR_POSEIDON or CUZK_POR_SHA256 */
    unsigned n_levels;
    uint8_t arity[CUZK_POR_MAX_LEVELS];
} cuzk_por_shape;

/* The shape of a tree of `leaves` leaves with base arity base and sub / top arities (0: no such
 * level), as storage-proofs-core splits it: leaves = base^k · sub · top with k >= 1. CUZK_EINVAL
 * (shape untouched) for an unknown hasher, an arity other than 2, 4 or 8, or leaves of another form. */
int cuzk_por_shape_init(cuzk_por_shape *s, unsigned hasher, uint64_t leaves, unsigned base, unsigned sub,
                        unsigned top);
/* The number of leaves (the product of the arities) and of sibling values on one path
 * (sum of arity - 1). */
uint64_t cuzk_por_shape_leaves(const cuzk_por_shape *s);
size_t cuzk_por_shape_siblings(const cuzk_por_shape *s);

/* The witness and the wiring of one PoRCircuit. value / root are Root::Var when *_is_var (the
 * variable is reused, no allocation) and Root::Val otherwise (a new aux holding .val). */
typedef struct {
    cuzk_num value;
    bool value_is_var;
    cuzk_num root;
    bool root_is_var;
    /* The leaf index; its digits (base level first, each arity's log2 bits, LSB first) are the index
     * bits, so the packed input equals the index. Must be below the shape's leaf count. */
    uint64_t index;
    /* cuzk_por_shape_siblings values, level by level: the other children of the path's node in
     * order. NULL means all zero (a blank circuit: the structure never depends on values). */
    const cuzk_fr *siblings;
    bool private_root; /* no root input (always so inside PoRep and PoSt) */
} cuzk_por_args;

/* PoRCircuit::synthesize: the value (alloc unless a var); per level log2(arity) AllocatedBits of the
 * position, arity - 1 sibling allocations, insert_2/4/8, the node hash; then pack_into_inputs of all
 * index bits, the root (alloc unless a var), equal(computed, root) and, unless private, inputize(root).
 * Poseidon levels cost 1+2+311 / 2+8+377 / 3+22+505 rows for arity 2 / 4 / 8, SHA-256 binary levels
 * 1+2+45,379; plus 2 (3 with a public root) per path. *computed (may be NULL) receives the computed
 * root. CUZK_EINVAL for a bad shape, an index past the leaves or NULL arguments. */
int cuzk_por_circuit(cuzk_csb *cs, const cuzk_por_shape *s, const cuzk_por_args *a, cuzk_num *computed);

/* The native node hash of the hasher over arity (2, 4 or 8) children. CUZK_EINVAL for a bad hasher
 * or arity, CUZK_ENOMEM when the Poseidon constants cannot be built. */
int cuzk_por_node_hash(unsigned hasher, unsigned arity, const cuzk_fr *children, cuzk_fr *out);
/* The native root of the path from leaf at index through siblings (laid out as in cuzk_por_args): the
 * value the circuit computes. CUZK_EINVAL / CUZK_ENOMEM as above. */
int cuzk_por_path_root(const cuzk_por_shape *s, const cuzk_fr *leaf, uint64_t index, const cuzk_fr *siblings,
                       cuzk_fr *root);

/* ---- create_label (storage-proofs-porep stacked/circuit/create_label.rs) ----------------------- */

#define CUZK_LABEL_PARENTS 37

/* reverse_bit_numbering(to_bits_le(n)): 255 AllocatedBits (256 rows), a constant 0 appended, the bits
 * reversed within each byte: the number's 32 LE bytes as a message bit stream (bit 248 constant). */
int cuzk_num_to_msg_bits(cuzk_csb *cs, const cuzk_num *n, cuzk_bool out[256]);

/* The repetition rule of the labeling (stacked/circuit/proof.rs): 6 parents (layer 1, base parents
 * only) give P x 6 + P[0]; 14 parents (later layers, base then expander) give P + P + P[0..9]. out
 * receives 37 borrowed pointers into parents. CUZK_EINVAL for any other count or NULL arguments. */
int cuzk_label_expand_parents(const cuzk_bool *const *parents, size_t n, const cuzk_bool *out[37]);

/* create_label_circuit: SHA-256 of replica_id (replica_bits in 32..256, padded with constant 0 to 256)
 * ‖ layer as 32 constant bits, big-endian ‖ node (UInt64, bits LSB first) big-endian ‖ constant zeros
 * to 512 bits ‖ the 37 parents (256 bits each); the digest bits reversed per byte, the first 254
 * packed (pack_bits) into *out. With allocated node bits and parent / replica_id bits from
 * cuzk_num_to_msg_bits this is 522,269 rows. CUZK_EINVAL for a bad length or NULL arguments. */
int cuzk_create_label(cuzk_csb *cs, const cuzk_bool *replica_id, size_t replica_bits,
                      const cuzk_bool *const parents[37], uint32_t layer, const cuzk_bool node[64],
                      cuzk_num *out);

/* The native label (create_label/single.rs): SHA-256 of replica_id(32) ‖ layer u32 BE ‖ node u64 BE ‖
 * 20 zero bytes ‖ the 37 parents (32 bytes each), byte 31 of the digest masked with 0x3f. label receives
 * the masked digest, out the digest read as a little-endian field element (either may be NULL). */
void cuzk_create_label_native(const uint8_t replica_id[32], uint32_t layer, uint64_t node,
                              const uint8_t *const parents[37], uint8_t label[32], cuzk_fr *out);

#ifdef __cplusplus
}
#endif
#endif
