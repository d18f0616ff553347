/*
 * label.c — the Filecoin labeling gadget (storage-proofs-porep
 * stacked/circuit/create_label.rs) and its native counterpart
 * (create_label/single.rs); porep-circuit.md §2.2 step 5, §2.4 and §6.3.
 *
 * A label is SHA-256 over 39 chunks of 256 bits (1248 bytes):
 *   replica_id ‖ layer (u32 BE) ‖ node (u64 BE) ‖ 20 zero bytes ‖ 37 parents
 * The replica id and the parents enter as reverse_bit_numbering(to_bits_le(x)):
 * the 32 little-endian bytes of the field element as a bit stream, most
 * significant bit of each byte first, so bit 248 of every chunk (the top bit
 * of byte 31) is the constant 0 that to_bits_le's 255 bits leave out. The
 * layer is a constant word and the node the 64 allocated bits of the
 * challenge (UInt64, shared by every layer), so block 0 is partly constant;
 * the 20 zero bytes and the padding of block 19 are constants too. Blocks:
 * block 0 from the constant IV 25,363 rows; 18 blocks of two parents on a
 * variable state 26,184 each; the last parent plus constant padding 25,593;
 * pack_bits 1: 522,269 rows.
 *
 * The result: the 256 digest bits (big-endian words) reversed within each
 * byte, the first 254 packed. That is the digest read as a little-endian
 * integer with the top two bits of byte 31 cleared, which is exactly how the
 * native labeling stores a label (byte 31 &= 0x3f).
 *
 * The parents come in as 6 base parents (layer 1) or 6 base + 8 expander
 * parents (later layers) and are repeated to 37 by a fixed rule that mirrors
 * the native hasher's feeding order (cuzk_label_expand_parents).
 */
#include <stdlib.h>
#include <string.h>

#include "cuzk/gadgets.h"
#include "cuzk/sha256.h"

#define CAPACITY 254

int cuzk_num_to_msg_bits(cuzk_csb *cs, const cuzk_num *n, cuzk_bool out[256])
{
    if (cuzk_csb_error(cs))
        return cuzk_csb_error(cs);
    if (!n || !out)
        return cuzk_csb_note(cs, CUZK_EINVAL);
    cuzk_bool le[256];
    cuzk_num_to_bits_le(cs, n, le);
    le[255] = cuzk_bool_const(false);
    for (int i = 0; i < 256; i++)
        out[i] = le[(i & ~7) + 7 - (i & 7)];
    return cuzk_csb_error(cs);
}

int cuzk_label_expand_parents(const cuzk_bool *const *parents, size_t n, const cuzk_bool *out[37])
{
    if (!parents || !out || (n != 6 && n != 14))
        return CUZK_EINVAL;
    for (size_t i = 0; i < n; i++)
        if (!parents[i])
            return CUZK_EINVAL;
    /* 6: P P P P P P P[0]; 14: P P P[0..9]. Both are P repeated cyclically, cut at 37. */
    for (size_t i = 0; i < CUZK_LABEL_PARENTS; i++)
        out[i] = parents[i % n];
    return CUZK_OK;
}

int cuzk_create_label(cuzk_csb *cs, const cuzk_bool *replica_id, size_t replica_bits,
                      const cuzk_bool *const parents[37], uint32_t layer, const cuzk_bool node[64],
                      cuzk_num *out)
{
    if (cuzk_csb_error(cs))
        return cuzk_csb_error(cs);
    if (!replica_id || replica_bits < 32 || replica_bits > 256 || !parents || !node || !out)
        return cuzk_csb_note(cs, CUZK_EINVAL);
    for (int i = 0; i < CUZK_LABEL_PARENTS; i++)
        if (!parents[i])
            return cuzk_csb_note(cs, CUZK_EINVAL);
    enum { NBITS = (2 + CUZK_LABEL_PARENTS) * 256 };
    cuzk_bool *msg = malloc(NBITS * sizeof *msg), digest[256], le[256];
    if (!msg)
        return cuzk_csb_note(cs, CUZK_ENOMEM);
    memcpy(msg, replica_id, replica_bits * sizeof *msg);
    for (size_t i = replica_bits; i < 256; i++)
        msg[i] = cuzk_bool_const(false);
    cuzk_u32 lw = cuzk_u32_const(layer);
    cuzk_u32_into_bits_be(msg + 256, &lw);
    for (int i = 0; i < 64; i++) /* UInt64::to_bits_be */
        msg[288 + i] = node[63 - i];
    for (int i = 352; i < 512; i++)
        msg[i] = cuzk_bool_const(false);
    for (int p = 0; p < CUZK_LABEL_PARENTS; p++)
        memcpy(msg + 512 + 256 * p, parents[p], 256 * sizeof *msg);
    cuzk_sha256_gadget(cs, msg, NBITS, digest);
    free(msg);
    for (int i = 0; i < 256; i++)
        le[i] = digest[(i & ~7) + 7 - (i & 7)];
    return cuzk_pack_bits(cs, le, CAPACITY, out);
}

void cuzk_create_label_native(const uint8_t replica_id[32], uint32_t layer, uint64_t node,
                              const uint8_t *const parents[37], uint8_t label[32], cuzk_fr *out)
{
    uint8_t head[32] = {0}, d[32];
    for (int i = 0; i < 4; i++)
        head[i] = (uint8_t)(layer >> (24 - 8 * i));
    for (int i = 0; i < 8; i++)
        head[4 + i] = (uint8_t)(node >> (56 - 8 * i));
    cuzk_sha256_ctx h;
    cuzk_sha256_init(&h);
    cuzk_sha256_update(&h, replica_id, 32);
    cuzk_sha256_update(&h, head, 32);
    for (int p = 0; p < CUZK_LABEL_PARENTS; p++)
        cuzk_sha256_update(&h, parents[p], 32);
    cuzk_sha256_final(&h, d);
    d[31] &= 0x3f;
    if (label)
        memcpy(label, d, 32);
    if (out)
        cuzk_fr_from_le32(out, d);
}
