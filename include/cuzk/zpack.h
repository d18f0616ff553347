/*
 * cuzk/zpack.h — a witness packed for its trip to the device.
 *
 * A PoRep witness is about 99 % zeros and ones (SHA-256 bits), yet it
 * crosses PCIe as 32 bytes a value: 4.17 GB a partition, ≈ 80 ms at the
 * bus's speed. Packed, each value costs three bits (two bitmaps and a
 * running count a word) and only the others keep their 32 bytes: ≈ 90 MB
 * for the same partition. The device expands it back into the same z.
 *
 * Layout, in one caller-owned buffer so that one copy moves it (words are
 * 32 values; w = ceil(n / 32)):
 *   ones[w]   bit i % 32 of word i / 32: z[i] equals `one`
 *   other[w]  the same bit: z[i] is neither 0 nor `one`, its value is in the tail
 *   start[w]  the tail index of the word's first such value (an exclusive prefix count)
 *   tail[]    those values in order, at a 64-byte aligned offset
 * so z[i] = tail[start[g] + popcount(other[g] below bit l)] when other's bit
 * is set, else `one` or 0 by ones' bit (g = i / 32, l = i % 32). Values are
 * compared and copied as they are (the field's Montgomery form), never
 * reduced.
 */
#ifndef CUZK_ZPACK_H
#define CUZK_ZPACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/field.h"
#include "cuzk/pool.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    size_t n;       /* values packed */
    size_t n_other; /* values in the tail (valid after cuzk_zpack_make succeeded) */
    size_t cap;     /* tail capacity */
    uint32_t *ones, *other, *start;
    cuzk_fr *tail;
    cuzk_fr one; /* the value 1 as z holds it */
} cuzk_zpack;

/* The tail capacity cuzk_zpack_bytes(n, cap) is usually asked for: n / 16 + 64 values, so a witness with
 * up to 6.25 % of values other than 0 and 1 packs (a PoRep partition's: ≈ 1 %), and a small one whatever
 * its inputs. */
size_t cuzk_zpack_default_cap(size_t n);
/* Bytes of the buffer for n values with room for cap of them in the tail. */
size_t cuzk_zpack_bytes(size_t n, size_t cap);
/* Lays zp out in buf (borrowed, 64-byte aligned, at least cuzk_zpack_bytes(n, cap) bytes; zp points into
 * it). CUZK_EINVAL when the buffer is too small, misaligned, or n is 0 or 2^32 or more. */
int cuzk_zpack_init(cuzk_zpack *zp, void *buf, size_t bytes, size_t n, size_t cap, char *err, size_t errlen);
/* Packs z[0 .. zp->n) (pool may be NULL). true when it fits; false when more than zp->cap values are
 * neither 0 nor 1 (zp->n_other then says how many, and zp holds nothing usable). */
bool cuzk_zpack_make(cuzk_zpack *zp, const cuzk_fr *z, cuzk_pool *pool);
/* Bytes of zp's buffer a copy must move: the three word arrays, the padding, the tail's n_other values. */
size_t cuzk_zpack_used(const cuzk_zpack *zp);
/* The tail's offset in the buffer (the same for every packing of n values). */
size_t cuzk_zpack_tail_offset(size_t n);
/* z[0 .. zp->n) from a packing (the host reference of the device's expansion). */
void cuzk_zpack_unpack(const cuzk_zpack *zp, cuzk_fr *z);

#ifdef __cplusplus
}
#endif
#endif
