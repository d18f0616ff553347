/*
 * snarkjs_files.h — internals shared by the .r1cs, .wtns and .zkey readers:
 * the file image (mmap or borrowed bytes), the section container, a bounded
 * cursor and little-endian loads. See snarkjs_files.c for the design.
 */
#ifndef CUZK_SNARKJS_FILES_H
#define CUZK_SNARKJS_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/common.h"
#include "cuzk/field.h"

/* At most this many sections per file; snarkjs writes at most 15 (ptau). */
#define SNARKJS_MAX_SECTIONS 64

/* Bytes of a file: either a private read-only mapping we own, or borrowed. */
typedef struct {
    const uint8_t *data;
    size_t len;
    void *map; /* non-NULL when data is our mapping of map_len bytes */
    size_t map_len;
} snarkjs_image;

typedef struct {
    uint32_t id;
    uint64_t off; /* file offset of the first content byte */
    uint64_t size;
} snarkjs_section;

typedef struct {
    const char *kind; /* "r1cs", "wtns" or "zkey": the message prefix */
    const uint8_t *data;
    size_t len;
    uint32_t version;
    uint32_t n;
    snarkjs_section sec[SNARKJS_MAX_SECTIONS];
} snarkjs_container;

/* A read position inside one section: every take is checked against `left`. */
typedef struct {
    const uint8_t *p;
    uint64_t left;
} snarkjs_cursor;

static inline uint32_t snarkjs_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t snarkjs_le64(const uint8_t *p)
{
    return (uint64_t)snarkjs_le32(p) | (uint64_t)snarkjs_le32(p + 4) << 32;
}

/* Returns a pointer to the next n bytes and advances, or NULL if fewer remain. */
static inline const uint8_t *snarkjs_take(snarkjs_cursor *c, uint64_t n)
{
    if (n > c->left)
        return NULL;
    const uint8_t *p = c->p;
    c->p += n;
    c->left -= n;
    return p;
}

/* Maps path read-only into im (kind names the file type in messages). */
int snarkjs_image_map(snarkjs_image *im, const char *path, const char *kind, char *err, size_t errlen);
/* Releases a mapping made by snarkjs_image_map; a borrowed image is left alone. */
void snarkjs_image_release(snarkjs_image *im);

/* Parses the container: magic, version in 1..max_version, section table. */
int snarkjs_container_parse(snarkjs_container *c, const uint8_t *data, size_t len, const char *kind,
                            uint32_t max_version, char *err, size_t errlen);
/* The section with this id, or NULL. */
const snarkjs_section *snarkjs_find(const snarkjs_container *c, uint32_t id);
/* Like snarkjs_find, but a missing section is an error naming it. */
int snarkjs_require(const snarkjs_container *c, uint32_t id, const char *name, snarkjs_cursor *cur, char *err,
                    size_t errlen);
/* Checks that a section holds exactly count * stride bytes (+ extra), with overflow guarded. */
int snarkjs_expect_size(const snarkjs_container *c, uint32_t id, const char *name, uint64_t size,
                        uint64_t extra, uint64_t count, uint64_t stride, char *err, size_t errlen);

/* Reads the u32 n8 and n8-byte prime at the cursor; requires n8 = 32 and the
 * prime = BLS12-381 r (what names the field in messages). */
int snarkjs_read_prime_r(snarkjs_cursor *cur, const char *kind, const char *what, char *err, size_t errlen);
/* Compares n8 little-endian bytes with a little-endian limb array of the same size. */
bool snarkjs_bytes_eq_limbs(const uint8_t *bytes, const uint64_t *limbs, size_t nlimbs);
/* Formats n8 little-endian bytes as 0x-prefixed big-endian hex into buf (at least 2*n8+3 bytes). */
void snarkjs_hex_le(char *buf, const uint8_t *bytes, size_t n8);

#endif
