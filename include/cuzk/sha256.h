/*
 * cuzk/sha256.h — native SHA-256 (FIPS 180-4), the counterpart of the SHA-256
 * gadget (cuzk/gadgets.h): witness generators and tests hash with it.
 *
 * Streaming (init, update, final) plus the bare compression function on
 * eight state words, which the gadget mirrors block by block. Nothing
 * allocates.
 */
#ifndef CUZK_SHA256_H
#define CUZK_SHA256_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

extern const uint32_t CUZK_SHA256_IV[8];
extern const uint32_t CUZK_SHA256_K[64];

typedef struct {
    uint32_t h[8];
    uint64_t len; /* bytes hashed so far */
    uint8_t buf[64];
    size_t n; /* bytes in buf */
} cuzk_sha256_ctx;

void cuzk_sha256_init(cuzk_sha256_ctx *s);
/* Absorbs n bytes (in may be NULL when n = 0). */
void cuzk_sha256_update(cuzk_sha256_ctx *s, const void *in, size_t n);
/* Pads and writes the 32-byte digest. */
void cuzk_sha256_final(cuzk_sha256_ctx *s, uint8_t out[32]);
/* One call: out = SHA-256(in[0 .. n)). */
void cuzk_sha256(uint8_t out[32], const void *in, size_t n);
/* The compression function: state = compress(state, block), block as 64 bytes (big-endian words). */
void cuzk_sha256_compress(uint32_t state[8], const uint8_t block[64]);

#ifdef __cplusplus
}
#endif
#endif
