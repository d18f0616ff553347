/*
 * cuzk/json.h — a small, strict, bounded JSON reader and writer, and the
 * decimal <-> field element conversions the snarkjs files need.
 *
 * Reader. cuzk_json_parse turns a whole document (RFC 8259) into a tree the
 * document object owns. It is strict: no comments, no trailing commas, no
 * leading zeros, no single quotes, no bare words other than true/false/null,
 * no control characters or invalid UTF-8 inside strings, no lone surrogates,
 * no duplicate keys in one object, nothing but whitespace after the root. It
 * is bounded: the input size, the nesting depth and the number of values are
 * capped (defaults below, or caller limits), the parser is iterative (no
 * recursion, so no stack to blow), and memory use is at most 64 bytes per
 * value plus the input size. Errors say where:
 * "json: line 3, column 7 (byte 41): expected ':' after object key".
 *
 * Numbers are kept as the text that was written (snarkjs writes its big
 * integers as decimal strings, and its small counts as plain numbers);
 * cuzk_json_u64 reads a non-negative integer out of one.
 *
 * Writer. cuzk_json_writer builds text into a growing buffer in the layout
 * snarkjs's command line produces (bfj with one space of indent): every
 * element on its own line, indented one space per level, "key": value, and
 * an empty container as "[" newline indent "]". Errors (depth, memory) are
 * sticky and reported once by cuzk_json_writer_finish.
 *
 * Decimals. cuzk_fp_from_decimal / cuzk_fr_from_decimal accept exactly the
 * canonical decimal form of an integer below the modulus: one or more ASCII
 * digits, no sign, no leading zero (except "0" itself), nothing else. The
 * *_to_decimal functions write that form.
 */
#ifndef CUZK_JSON_H
#define CUZK_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/common.h"
#include "cuzk/field.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- reader ----------------------------------------------------------------- */

#define CUZK_JSON_DEFAULT_MAX_DEPTH 64
#define CUZK_JSON_DEFAULT_MAX_BYTES ((size_t)64 << 20)
#define CUZK_JSON_DEFAULT_MAX_VALUES ((size_t)1 << 22)

typedef enum {
    CUZK_JSON_NULL,
    CUZK_JSON_FALSE,
    CUZK_JSON_TRUE,
    CUZK_JSON_NUMBER,
    CUZK_JSON_STRING,
    CUZK_JSON_ARRAY,
    CUZK_JSON_OBJECT,
} cuzk_json_type;

/* One value of a parsed document; owned by the document, valid until cuzk_json_free. */
typedef struct cuzk_json_value {
    cuzk_json_type type;
    const char *str; /* STRING: decoded UTF-8; NUMBER: the literal as written; NUL-terminated; else NULL */
    size_t len;      /* bytes in str (a decoded string may itself contain NUL bytes) */
    const char *key; /* member name when the parent is an object (NUL-terminated), else NULL */
    size_t key_len;
    size_t n;                            /* ARRAY / OBJECT: number of elements or members */
    const struct cuzk_json_value *items; /* ARRAY / OBJECT: the n elements or members, in order */
    size_t offset;                       /* byte offset of the value in the input */
} cuzk_json_value;

/* Limits for cuzk_json_parse; a zero field means the default. */
typedef struct {
    size_t max_bytes;   /* longest accepted input (CUZK_JSON_DEFAULT_MAX_BYTES) */
    unsigned max_depth; /* deepest nesting of arrays/objects (CUZK_JSON_DEFAULT_MAX_DEPTH) */
    size_t max_values;  /* most values in the document (CUZK_JSON_DEFAULT_MAX_VALUES) */
} cuzk_json_limits;

typedef struct cuzk_json_doc cuzk_json_doc;

/* Parses len bytes of text (no NUL needed) into *out; lim may be NULL. CUZK_EINVAL for malformed
 * text, CUZK_ERANGE for a limit exceeded, CUZK_ENOMEM. */
int cuzk_json_parse(const char *text, size_t len, const cuzk_json_limits *lim, cuzk_json_doc **out, char *err,
                    size_t errlen);
/* The root value of a parsed document. */
const cuzk_json_value *cuzk_json_root(const cuzk_json_doc *doc);
/* Releases the document and every value in it; NULL is a no-op. */
void cuzk_json_free(cuzk_json_doc *doc);
/* The member of obj named key, or NULL if obj is not an object or has no such member. */
const cuzk_json_value *cuzk_json_member(const cuzk_json_value *obj, const char *key);
/* Reads a NUMBER that is a non-negative integer without fraction or exponent and fits 64 bits. */
int cuzk_json_u64(const cuzk_json_value *v, uint64_t *out);
/* Lower-case name of a type ("string", "array", ...) for messages. */
const char *cuzk_json_type_name(cuzk_json_type t);

/* ---- writer ----------------------------------------------------------------- */

#define CUZK_JSON_WRITER_MAX_DEPTH 64

/* Text under construction; zero-initialise or use cuzk_json_writer_init. */
typedef struct {
    char *buf;
    size_t len, cap;
    unsigned depth;
    bool has_items[CUZK_JSON_WRITER_MAX_DEPTH + 1]; /* per level: something was written already */
    bool in_object[CUZK_JSON_WRITER_MAX_DEPTH + 1]; /* per level: the open container is an object */
    bool after_key;                                 /* the next value completes a "key": pair */
    int status;                                     /* first error, sticky */
} cuzk_json_writer;

/* Starts an empty writer. */
void cuzk_json_writer_init(cuzk_json_writer *w);
/* Releases the writer's buffer (unless cuzk_json_writer_finish took it). */
void cuzk_json_writer_free(cuzk_json_writer *w);
/* Opens / closes an object or array as the next value. */
void cuzk_json_write_begin_object(cuzk_json_writer *w);
void cuzk_json_write_end_object(cuzk_json_writer *w);
void cuzk_json_write_begin_array(cuzk_json_writer *w);
void cuzk_json_write_end_array(cuzk_json_writer *w);
/* Writes the name of the next member of the open object. */
void cuzk_json_write_key(cuzk_json_writer *w, const char *key);
/* Writes a string value (len bytes, escaped as JSON requires). */
void cuzk_json_write_string(cuzk_json_writer *w, const char *s, size_t len);
/* Writes an unsigned integer as a JSON number. */
void cuzk_json_write_u64(cuzk_json_writer *w, uint64_t v);
/* Checks that the document is complete and hands over the NUL-terminated text (free() it);
 * returns the first error of the writer otherwise. */
int cuzk_json_writer_finish(cuzk_json_writer *w, char **out, size_t *len, char *err, size_t errlen);

/* ---- decimal field elements --------------------------------------------------- */

/* Buffer sizes for the *_to_decimal writers, NUL included (p has 115 digits, r 77). */
#define CUZK_FP_DECIMAL_SIZE 116
#define CUZK_FR_DECIMAL_SIZE 78

/* Parses the canonical decimal s[0..len) into r: CUZK_EINVAL for an empty string, a non-digit or a
 * leading zero, CUZK_ENONCANONICAL for a value >= p. r is untouched on failure. */
int cuzk_fp_from_decimal(cuzk_fp *r, const char *s, size_t len, char *err, size_t errlen);
/* As cuzk_fp_from_decimal, modulo r (CUZK_ENONCANONICAL for a value >= r). */
int cuzk_fr_from_decimal(cuzk_fr *r, const char *s, size_t len, char *err, size_t errlen);
/* Writes the decimal form of a (NUL-terminated) and returns its length. */
size_t cuzk_fp_to_decimal(char out[CUZK_FP_DECIMAL_SIZE], const cuzk_fp *a);
size_t cuzk_fr_to_decimal(char out[CUZK_FR_DECIMAL_SIZE], const cuzk_fr *a);

#ifdef __cplusplus
}
#endif
#endif
