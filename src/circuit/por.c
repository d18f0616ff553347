/*
 * por.c — the PoR (proof of retrievability) path gadget of storage-proofs-core
 * (gadgets/por.rs, PoRCircuit::synthesize) and its native counterpart;
 * porep-circuit.md §3.7.
 *
 * A Filecoin tree has base levels of one arity, then at most one sub level
 * and one top level (arities 2, 4 or 8). The path climbs from the leaf: per
 * level, the position of the current node among its siblings is allocated as
 * log2(arity) AllocatedBits (LSB first), the arity - 1 sibling values are
 * allocated, insert_2/4/8 places the current node among them, and the node
 * hash (Poseidon of the arity, or the SHA-256 node) yields the next node.
 * After the last level: pack_into_inputs of all index bits (one input per
 * 254 bits), the root (allocated unless the caller passes a variable),
 * equal(computed, root) and, for a public root, inputize(root).
 *
 * The index bits are the digits of the leaf index in the mixed radix of the
 * levels, so the packed input equals the leaf index: that is why the PoRep
 * public inputs are plain node indices. The order of allocations (bits, then
 * siblings, per level; the root after the packing row) is the variable
 * order of the Rust circuit and is kept exactly.
 */
#include <stdlib.h>
#include <string.h>

#include "circuit/csb_internal.h"
#include "cuzk/gadgets.h"
#include "cuzk/poseidon.h"
#include "cuzk/sha256.h"

static unsigned log2_arity(unsigned a)
{
    return a == 2 ? 1 : a == 4 ? 2 : a == 8 ? 3 : 0;
}

static bool shape_ok(const cuzk_por_shape *s)
{
    if (!s || (s->hasher != CUZK_POR_POSEIDON && s->hasher != CUZK_POR_SHA256) || s->n_levels == 0 ||
        s->n_levels > CUZK_POR_MAX_LEVELS)
        return false;
    unsigned bits = 0;
    for (unsigned i = 0; i < s->n_levels; i++) {
        if (!log2_arity(s->arity[i]))
            return false;
        bits += log2_arity(s->arity[i]);
    }
    return bits <= 64;
}

int cuzk_por_shape_init(cuzk_por_shape *s, unsigned hasher, uint64_t leaves, unsigned base, unsigned sub,
                        unsigned top)
{
    if (!s || (hasher != CUZK_POR_POSEIDON && hasher != CUZK_POR_SHA256) || !log2_arity(base) ||
        (sub && !log2_arity(sub)) || (top && !log2_arity(top)) || leaves == 0 || (leaves & (leaves - 1)))
        return CUZK_EINVAL;
    unsigned total = 0;
    while ((1ull << total) < leaves)
        total++;
    unsigned extra = (sub ? log2_arity(sub) : 0) + (top ? log2_arity(top) : 0), lb = log2_arity(base);
    if (total <= extra || (total - extra) % lb)
        return CUZK_EINVAL;
    unsigned nb = (total - extra) / lb, n = nb + (sub != 0) + (top != 0);
    if (n > CUZK_POR_MAX_LEVELS)
        return CUZK_EINVAL;
    memset(s, 0, sizeof *s);
    s->hasher = hasher;
    for (unsigned i = 0; i < nb; i++)
        s->arity[s->n_levels++] = (uint8_t)base;
    if (sub)
        s->arity[s->n_levels++] = (uint8_t)sub;
    if (top)
        s->arity[s->n_levels++] = (uint8_t)top;
    return CUZK_OK;
}

uint64_t cuzk_por_shape_leaves(const cuzk_por_shape *s)
{
    if (!shape_ok(s))
        return 0;
    unsigned bits = 0;
    for (unsigned i = 0; i < s->n_levels; i++)
        bits += log2_arity(s->arity[i]);
    return bits == 64 ? 0 : 1ull << bits; /* 2^64 leaves do not fit: 0 */
}

size_t cuzk_por_shape_siblings(const cuzk_por_shape *s)
{
    if (!shape_ok(s))
        return 0;
    size_t n = 0;
    for (unsigned i = 0; i < s->n_levels; i++)
        n += s->arity[i] - 1u;
    return n;
}

/* True when index addresses a leaf of s (a 64-bit-index tree takes every index). */
static bool index_ok(const cuzk_por_shape *s, uint64_t index)
{
    uint64_t leaves = cuzk_por_shape_leaves(s);
    return leaves == 0 || index < leaves;
}

int cuzk_por_node_hash(unsigned hasher, unsigned arity, const cuzk_fr *children, cuzk_fr *out)
{
    if (!log2_arity(arity) || !children || !out)
        return CUZK_EINVAL;
    if (hasher == CUZK_POR_POSEIDON) {
        const cuzk_poseidon_consts *pc = cuzk_poseidon_get(arity);
        if (!pc)
            return CUZK_ENOMEM;
        cuzk_poseidon_hash(pc, children, out);
        return CUZK_OK;
    }
    if (hasher != CUZK_POR_SHA256)
        return CUZK_EINVAL;
    uint8_t le[32];
    cuzk_sha256_ctx h;
    cuzk_sha256_init(&h);
    for (unsigned i = 0; i < arity; i++) {
        cuzk_fr_to_le32(le, &children[i]);
        cuzk_sha256_update(&h, le, 32);
    }
    cuzk_sha256_final(&h, le);
    le[31] &= 0x3f; /* fr32: the top two bits cleared, so the digest is a canonical field element */
    cuzk_fr_from_le32(out, le);
    return CUZK_OK;
}

int cuzk_por_path_root(const cuzk_por_shape *s, const cuzk_fr *leaf, uint64_t index, const cuzk_fr *siblings,
                       cuzk_fr *root)
{
    if (!shape_ok(s) || !leaf || !siblings || !root || !index_ok(s, index))
        return CUZK_EINVAL;
    cuzk_fr cur = *leaf, node[8];
    for (unsigned l = 0; l < s->n_levels; l++) {
        unsigned a = s->arity[l], pos = (unsigned)(index & (a - 1u));
        index >>= log2_arity(a);
        for (unsigned i = 0, k = 0; i < a; i++)
            node[i] = i == pos ? cur : siblings[k++];
        siblings += a - 1;
        int rc = cuzk_por_node_hash(s->hasher, a, node, &cur);
        if (rc != CUZK_OK)
            return rc;
    }
    *root = cur;
    return CUZK_OK;
}

/* The node hash gadget of one level over the inserted children. */
static int hash_level(cuzk_csb *cs, unsigned hasher, unsigned arity, const cuzk_num *children, cuzk_num *out)
{
    if (hasher == CUZK_POR_SHA256)
        return cuzk_sha256_node_gadget(cs, children, arity, out);
    const cuzk_poseidon_consts *pc = cuzk_poseidon_get(arity);
    if (!pc)
        return cuzk_csb_note(cs, CUZK_ENOMEM);
    cuzk_var in[8];
    for (unsigned i = 0; i < arity; i++)
        in[i] = children[i].var;
    cuzk_var o;
    int rc = cuzk_poseidon_circuit(cs, pc, in, &o);
    if (rc != CUZK_OK)
        return cuzk_csb_note(cs, rc);
    out->var = o;
    out->val = CUZK_FR_ZERO;
    if (csb_has_values(cs))
        cuzk_csb_value(cs, o, &out->val);
    return CUZK_OK;
}

int cuzk_por_circuit(cuzk_csb *cs, const cuzk_por_shape *s, const cuzk_por_args *a, cuzk_num *computed)
{
    if (cuzk_csb_error(cs))
        return cuzk_csb_error(cs);
    if (!shape_ok(s) || !a || !index_ok(s, a->index))
        return cuzk_csb_note(cs, CUZK_EINVAL);
    cuzk_bool bits[64];
    unsigned nbits = 0;
    cuzk_num cur;
    if (a->value_is_var)
        cur = a->value;
    else
        cuzk_num_alloc(cs, &a->value.val, &cur);
    const cuzk_fr *sib = a->siblings;
    uint64_t index = a->index;
    for (unsigned l = 0; l < s->n_levels && !cuzk_csb_error(cs); l++) {
        unsigned ar = s->arity[l], lg = log2_arity(ar), pos = (unsigned)(index & (ar - 1u));
        index >>= lg;
        for (unsigned i = 0; i < lg; i++)
            cuzk_bit_alloc(cs, (pos >> i) & 1, &bits[nbits + i]);
        cuzk_num sn[7], ins[8];
        for (unsigned k = 0; k + 1 < ar; k++)
            cuzk_num_alloc(cs, sib ? &sib[k] : NULL, &sn[k]);
        if (sib)
            sib += ar - 1;
        if (lg == 1)
            cuzk_insert_2(cs, &cur, sn, bits + nbits, ins);
        else if (lg == 2)
            cuzk_insert_4(cs, &cur, sn, bits + nbits, ins);
        else
            cuzk_insert_8(cs, &cur, sn, bits + nbits, ins);
        nbits += lg;
        if (!cuzk_csb_error(cs))
            hash_level(cs, s->hasher, ar, ins, &cur);
    }
    cuzk_pack_into_inputs(cs, bits, nbits);
    cuzk_num root;
    if (a->root_is_var)
        root = a->root;
    else
        cuzk_num_alloc(cs, &a->root.val, &root);
    cuzk_num_equal(cs, &cur, &root);
    if (!a->private_root)
        cuzk_num_inputize(cs, &root);
    if (computed && !cuzk_csb_error(cs))
        *computed = cur;
    return cuzk_csb_error(cs);
}
