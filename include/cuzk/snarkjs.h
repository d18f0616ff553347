/*
 * cuzk/snarkjs.h — readers for the circom / snarkjs binary files: .r1cs (the
 * constraint system circom writes), .wtns (a witness) and .zkey (a Groth16
 * proving key). Layouts: docs/design/004-snarkjs-formats.md.
 *
 * All three share one container: magic (4 bytes), u32 version, u32 number of
 * sections, then sections {u32 id, u64 size, size bytes}, little-endian. The
 * readers find sections by id in any order and reject duplicates, sizes that
 * run past the end, trailing bytes, a field other than BLS12-381 and every
 * count that disagrees with the bytes present. Nothing in a file is trusted:
 * each length is checked against the file before it is used, and nothing is
 * allocated from a count the file does not back with bytes.
 *
 * Ownership: *_open and *_from_buffer allocate the object and return it through
 * `out`; *_free releases it (NULL is fine). .r1cs and .wtns are decoded into
 * arrays the object owns, so the file is released on return. A .zkey keeps its
 * bulk sections (points, coefficients) in place: *_open maps the file read-only
 * and unmaps it in *_free; *_from_buffer BORROWS the caller's bytes, which must
 * outlive the object.
 *
 * Field elements handed out as cuzk_fr / cuzk_fp are in cuzk's usual Montgomery
 * form (cuzk/field.h), whatever the file used: r1cs and wtns store plain
 * integers, zkey points Montgomery Fq and zkey coefficients v·R^2 mod r.
 *
 * Errors: CUZK_EIO (cannot open/map), CUZK_EINVAL (malformed), CUZK_ERANGE (a
 * field other than BLS12-381, an unsupported version or protocol), the point
 * codes of cuzk/serialize.h for bad points, CUZK_ENOMEM; err, if non-NULL,
 * receives a precise message such as
 * "zkey: section 5 (A points) has 4096 bytes, expected 96*43=4128".
 */
#ifndef CUZK_SNARKJS_H
#define CUZK_SNARKJS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/common.h"
#include "cuzk/curve.h"
#include "cuzk/field.h"
#include "cuzk/serialize.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- .r1cs --------------------------------------------------------------- */

/* One constraint matrix in compressed sparse rows: the terms of constraint i
 * are k = row[i] .. row[i+1]-1, each coefficient val[k] times wire col[k], in
 * file order. Duplicate wires in one row are kept (they add up). */
typedef struct {
    uint64_t *row; /* n_constraints + 1 offsets; row[n_constraints] = nnz */
    uint32_t *col; /* wire of each term, < n_wires */
    cuzk_fr *val;  /* coefficient of each term (Montgomery) */
    uint64_t nnz;  /* number of terms */
} cuzk_snarkjs_matrix;

/* A decoded .r1cs: header counts and the matrices A, B, C (A·w ∘ B·w = C·w).
 * Wire 0 is the constant 1, then public outputs, public inputs, private
 * inputs and internal wires. */
typedef struct {
    uint32_t version;
    uint32_t n_wires;   /* total wires, including wire 0 */
    uint32_t n_pub_out; /* public outputs (wires 1 .. n_pub_out) */
    uint32_t n_pub_in;  /* public inputs (next n_pub_in wires) */
    uint32_t n_prv_in;  /* private inputs */
    uint64_t n_labels;  /* signals in the source, before optimisation */
    uint32_t n_constraints;
    cuzk_snarkjs_matrix a, b, c;
} cuzk_snarkjs_r1cs;

/* Reads and validates the .r1cs at path (field must be BLS12-381 r). */
int cuzk_snarkjs_r1cs_open(const char *path, cuzk_snarkjs_r1cs **out, char *err, size_t errlen);
/* As cuzk_snarkjs_r1cs_open, from len bytes in memory (copied; data may be freed after). */
int cuzk_snarkjs_r1cs_from_buffer(const uint8_t *data, size_t len, cuzk_snarkjs_r1cs **out, char *err,
                                  size_t errlen);
/* Releases everything the object owns; NULL is a no-op. */
void cuzk_snarkjs_r1cs_free(cuzk_snarkjs_r1cs *r1cs);

/* Returned by cuzk_snarkjs_r1cs_check when the witness has fewer than n_wires values. */
#define CUZK_SNARKJS_WITNESS_SHORT (-2)

/* Evaluates every constraint on witness w[0..n) (n >= n_wires; Montgomery
 * values): returns -1 when all hold, else the index of the first constraint
 * with (A·w)(B·w) != C·w, or CUZK_SNARKJS_WITNESS_SHORT. */
int64_t cuzk_snarkjs_r1cs_check(const cuzk_snarkjs_r1cs *r1cs, const cuzk_fr *w, size_t n);

/* Finds the wires that no constraint uses: wires 1 .. n_wires-1 named by no
 * term with a non-zero coefficient in A, B or C. Nothing constrains such a
 * wire, so a prover may give it any value (in circom, a signal left
 * unconstrained). Counts them among the public wires (outputs and inputs) and
 * the private ones; *first is the lowest such wire, 0 when there is none.
 * Returns CUZK_ENOMEM when its n_wires-bit map cannot be allocated. */
int cuzk_snarkjs_r1cs_unused(const cuzk_snarkjs_r1cs *r1cs, uint64_t *n_public, uint64_t *n_private,
                             uint32_t *first);

/* ---- .wtns --------------------------------------------------------------- */

/* A decoded witness: values[0] is the constant 1, values[1 .. nPublic] the
 * public signals (public.json), then the rest in r1cs wire order. */
typedef struct {
    uint32_t version;
    uint32_t n;      /* number of values */
    cuzk_fr *values; /* n values (Montgomery) */
} cuzk_snarkjs_wtns;

/* Reads and validates the .wtns at path (field must be BLS12-381 r). */
int cuzk_snarkjs_wtns_open(const char *path, cuzk_snarkjs_wtns **out, char *err, size_t errlen);
/* As cuzk_snarkjs_wtns_open, from len bytes in memory (copied). */
int cuzk_snarkjs_wtns_from_buffer(const uint8_t *data, size_t len, cuzk_snarkjs_wtns **out, char *err,
                                  size_t errlen);
/* Releases the witness; NULL is a no-op. */
void cuzk_snarkjs_wtns_free(cuzk_snarkjs_wtns *wtns);

/* ---- .zkey (Groth16) ----------------------------------------------------- */

/* Section ids of a Groth16 zkey (snarkjs zkey_utils.js). */
enum {
    CUZK_ZKEY_SEC_PROTOCOL = 1, /* u32 protocol id, 1 = Groth16 */
    CUZK_ZKEY_SEC_HEADER = 2,   /* sizes, primes, alpha/beta/gamma/delta */
    CUZK_ZKEY_SEC_IC = 3,       /* nPublic + 1 G1 */
    CUZK_ZKEY_SEC_COEFS = 4,    /* A and B matrix entries */
    CUZK_ZKEY_SEC_A = 5,        /* nVars G1 */
    CUZK_ZKEY_SEC_B1 = 6,       /* nVars G1 */
    CUZK_ZKEY_SEC_B2 = 7,       /* nVars G2 */
    CUZK_ZKEY_SEC_C = 8,        /* nVars - nPublic - 1 G1, for signals nPublic+1 .. nVars-1 */
    CUZK_ZKEY_SEC_H = 9,        /* domainSize G1 */
    CUZK_ZKEY_SEC_CONTRIB = 10, /* MPC transcript; not needed to prove, not parsed */
};

/* A run of points inside the zkey image, exactly as stored: affine x ‖ y,
 * each coordinate 48 bytes little-endian Montgomery (G2: x.c0 ‖ x.c1 ‖ y.c0 ‖
 * y.c1); the point at infinity is all zero bytes. Point i starts at
 * data + i * stride, which is file byte offset + i * stride. */
typedef struct {
    const uint8_t *data;
    uint64_t offset;  /* byte offset of data in the file */
    size_t count;     /* number of points */
    uint32_t stride;  /* 96 (G1) or 192 (G2) */
    uint32_t section; /* CUZK_ZKEY_SEC_* */
} cuzk_snarkjs_points;

/* One entry of section 4: the coefficient of `signal` in row `constraint` of
 * matrix A (0) or B (1). Rows nConstraints .. nConstraints+nPublic are the
 * input-consistency rows snarkjs adds (A only). C is not stored. */
typedef struct {
    uint32_t matrix;     /* 0 = A, 1 = B */
    uint32_t constraint; /* < domain_size */
    uint32_t signal;     /* < n_vars */
    cuzk_fr value;       /* the coefficient (Montgomery) */
} cuzk_snarkjs_coef;

/* Size in bytes of one stored section-4 entry: matrix, constraint, signal (u32 each), value (32 B). */
#define CUZK_ZKEY_COEF_SIZE 44

/* A Groth16 .zkey. Header values are decoded and checked at open (the six
 * key points on the curve and in the subgroup); point sections are only
 * checked for size: use cuzk_snarkjs_points_g1/g2 or
 * cuzk_snarkjs_zkey_check_points to decode and validate them. */
typedef struct {
    uint32_t version;
    uint32_t n8q;         /* 48 */
    uint64_t q[6];        /* base field prime, canonical limbs (= CUZK_P) */
    uint32_t n8r;         /* 32 */
    uint64_t r[4];        /* scalar field prime (= CUZK_R) */
    uint32_t n_vars;      /* wires of the circuit, including wire 0 */
    uint32_t n_public;    /* public signals, wire 0 excluded */
    uint32_t domain_size; /* power of two >= nConstraints + nPublic + 1 */
    cuzk_g1_affine alpha1, beta1, delta1;
    cuzk_g2_affine beta2, gamma2, delta2;
    cuzk_snarkjs_points ic, a, b1, b2, c, h;
    const uint8_t *coefs;  /* n_coefs raw entries of CUZK_ZKEY_COEF_SIZE bytes (values v·R^2 mod r, LE) */
    uint64_t coefs_offset; /* file offset of coefs */
    uint32_t n_coefs;
    const uint8_t *image; /* the whole file */
    size_t image_len;
} cuzk_snarkjs_zkey;

/* Maps the .zkey at path read-only and validates its structure and header. */
int cuzk_snarkjs_zkey_open(const char *path, cuzk_snarkjs_zkey **out, char *err, size_t errlen);
/* As cuzk_snarkjs_zkey_open over len bytes in memory; BORROWS data (must outlive the object). */
int cuzk_snarkjs_zkey_from_buffer(const uint8_t *data, size_t len, cuzk_snarkjs_zkey **out, char *err,
                                  size_t errlen);
/* Unmaps (if mapped) and frees; NULL is a no-op. */
void cuzk_snarkjs_zkey_free(cuzk_snarkjs_zkey *zkey);

/* Decodes G1 point i of pts (stride 96): coordinates < p, on the curve, and
 * in the subgroup with CUZK_DECODE_CHECK_GROUP (flags as cuzk/serialize.h). */
int cuzk_snarkjs_points_g1(const cuzk_snarkjs_points *pts, size_t i, unsigned flags, cuzk_g1_affine *out,
                           char *err, size_t errlen);
/* Decodes G2 point i of pts (stride 192), as cuzk_snarkjs_points_g1. */
int cuzk_snarkjs_points_g2(const cuzk_snarkjs_points *pts, size_t i, unsigned flags, cuzk_g2_affine *out,
                           char *err, size_t errlen);
/* Decodes coefficient entry k (entries were range-checked at open); CUZK_ERANGE if k >= n_coefs. */
int cuzk_snarkjs_zkey_coef(const cuzk_snarkjs_zkey *zkey, size_t k, cuzk_snarkjs_coef *out);
/* Decodes every point of sections 3 and 5-9 with flags; reports the first bad one. */
int cuzk_snarkjs_zkey_check_points(const cuzk_snarkjs_zkey *zkey, unsigned flags, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
