/*
 * cuzk/blake2s.h — BLAKE2s (RFC 7693), unkeyed, for the constraint-system
 * digests of cuzk/csb.h (bellpepper's TestConstraintSystem::hash uses
 * BLAKE2s-256).
 *
 * Streaming: init with the digest length (1..32 bytes), update any number of
 * times, final. Nothing allocates; the caller owns the state.
 */
#ifndef CUZK_BLAKE2S_H
#define CUZK_BLAKE2S_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    uint32_t h[8];
    uint32_t t[2]; /* bytes hashed so far (64-bit counter) */
    uint8_t buf[64];
    size_t n;      /* bytes in buf */
    size_t outlen; /* digest length in bytes */
} cuzk_blake2s;

/* Starts an unkeyed hash with an outlen-byte digest (1..32; other values are clamped into range). */
void cuzk_blake2s_init(cuzk_blake2s *s, size_t outlen);
/* Absorbs n bytes (in may be NULL when n = 0). */
void cuzk_blake2s_update(cuzk_blake2s *s, const void *in, size_t n);
/* Writes the outlen-byte digest to out; s must be re-initialised before reuse. */
void cuzk_blake2s_final(cuzk_blake2s *s, uint8_t *out);
/* One call: the 32-byte BLAKE2s-256 of n bytes. */
void cuzk_blake2s_256(uint8_t out[32], const void *in, size_t n);

#ifdef __cplusplus
}
#endif
#endif
