/*
 * cuzk/params.h — bellperson's .params (proving key) and .vk (verifying key)
 * files (prover-internals.md §2.2, §2.3).
 *
 * .params = alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2, then six
 * vectors ic, h, l, a, b_g1, b_g2, each a u32 big-endian count followed by
 * uncompressed points (G1 96 bytes, G2 192 bytes). No magic, no version, no
 * padding. .vk = the same up to and including ic. Size of a .params file:
 * 864 + 4·6 + 96·(ic + h + l + a + b) + 192·b, with b = |b_g1| = |b_g2|.
 *
 * Readers map the file, check every length word against the bytes that remain
 * before touching any point, reject trailing bytes, reject the point at
 * infinity everywhere (an honest setup never produces it) and decode the
 * points on a thread pool. What is checked per point is chosen by flags:
 *   0                        encoding only: flag bits and coordinates < p
 *                            (bellperson's "unchecked" read; for files whose
 *                            checksum was verified elsewhere)
 *   CUZK_PARAMS_CHECK_CURVE  also the curve equation (cheap; the CLI default)
 *   CUZK_PARAMS_CHECK_GROUP  also r-order subgroup membership (implies CURVE;
 *                            several times slower; bellperson's `checked`)
 * On failure the functions return a negative CUZK_E* code, fill err with a
 * message that names the field, the point index and the byte offset, and
 * leave *out empty (zeroed, safe to free); nothing is leaked.
 *
 * Writers refuse inputs their readers would reject (identity points, counts
 * above 2^32 - 1) and replace the destination atomically: the bytes go to
 * `<path>.tmp.<pid>`, which is fsynced and renamed over path, so a crash never
 * leaves a partial file at path; on error the temporary file is removed.
 *
 * Coset key files hold a key in the coset form (cuzk/groth16.h; made by
 * cuzk_groth16_params_to_coset from a .params key, docs/design/022), which
 * bellperson's layout cannot: 16 bytes "cuzk coset key
" and a version byte
 * (1), then the .params layout with h of m = 2^k points and l of one point
 * per variable, inputs first, where the identity may appear (an input that
 * no C term uses). Only cuzk reads them. The key readers below take either
 * kind of file and set h_coset for a coset key.
 */
#ifndef CUZK_PARAMS_H
#define CUZK_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/common.h"
#include "cuzk/groth16.h"
#include "cuzk/outfile.h"
#include "cuzk/pool.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Point validation flags for the readers (bitwise or). */
enum {
    CUZK_PARAMS_CHECK_CURVE = 1u << 0, /* every point satisfies its curve equation */
    CUZK_PARAMS_CHECK_GROUP = 1u << 1, /* every point is in the r-order subgroup (implies CHECK_CURVE) */
};

/* Byte size of the fixed part: the six verifying-key points. */
#define CUZK_PARAMS_VK_POINTS_SIZE 864

/* Progress of a long read: done and total are byte offsets in the file; called on the
 * calling thread, first with done = 0 and last with done = total, at most
 * 257 times in all. */
typedef void (*cuzk_params_progress_fn)(void *ctx, uint64_t done, uint64_t total);

/* Options of cuzk_params_read_ex; a zeroed struct means flags 0, one thread,
 * no progress. */
typedef struct {
    unsigned flags;                   /* CUZK_PARAMS_CHECK_* */
    cuzk_pool *pool;                  /* borrowed; NULL = the calling thread only */
    cuzk_params_progress_fn progress; /* optional */
    void *progress_ctx;
} cuzk_params_read_opts;

/* What cuzk_params_info learns from the length words alone. */
typedef struct {
    uint64_t file_size;
    bool vk_only; /* the file ends right after ic: a .vk file (the other counts are 0) */
    bool coset;   /* a coset key file (the header above; offsets count from the file's start) */
    uint32_t n_ic, n_h, n_l, n_a, n_b_g1, n_b_g2;
    /* byte offset of each vector's first point (of where it would be, when empty) */
    uint64_t off_ic, off_h, off_l, off_a, off_b_g1, off_b_g2;
} cuzk_params_summary;

/* Reads a .params file, or a coset key file (h_coset set), into *out (owned by the caller; free with
 * cuzk_groth16_params_free). */
int cuzk_params_read(const char *path, cuzk_groth16_params *out, unsigned flags, cuzk_pool *pool, char *err,
                     size_t errlen);
/* cuzk_params_read with a progress callback; opts may be NULL. */
int cuzk_params_read_ex(const char *path, cuzk_groth16_params *out, const cuzk_params_read_opts *opts,
                        char *err, size_t errlen);
/* Reads a .vk file; flags CUZK_PARAMS_CHECK_GROUP gives bellperson's VerifyingKey::read checks. */
int cuzk_vk_read(const char *path, cuzk_groth16_vk *out, unsigned flags, char *err, size_t errlen);
/* Writes params as a .params file at path, atomically (cuzk/outfile.h). */
int cuzk_params_write(const char *path, const cuzk_groth16_params *params, char *err, size_t errlen);
/* Writes vk as a .vk file at path, atomically. */
int cuzk_vk_write(const char *path, const cuzk_groth16_vk *vk, char *err, size_t errlen);
/* The same bytes into an output file the caller opened (cuzk/outfile.h) and commits or aborts: for
 * programs that create their outputs before long work, or must replace two files together. A key that
 * fails validation writes nothing; a failed write is reported by the commit. */
int cuzk_params_write_to(cuzk_outfile *out, const cuzk_groth16_params *params, char *err, size_t errlen);
/* A key in the coset form as a coset key file at path (atomically), or into an open outfile; a key in
 * bellperson's form is refused (CUZK_EINVAL), as cuzk_params_write refuses one in the coset form. */
int cuzk_coset_key_write(const char *path, const cuzk_groth16_params *params, char *err, size_t errlen);
int cuzk_coset_key_write_to(cuzk_outfile *out, const cuzk_groth16_params *params, char *err, size_t errlen);
int cuzk_vk_write_to(cuzk_outfile *out, const cuzk_groth16_vk *vk, char *err, size_t errlen);
/* Reads only the length words of a .params (or .vk) file, seeking over the points, and checks that
 * they account for every byte of the file. */
int cuzk_params_info(const char *path, cuzk_params_summary *out, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
