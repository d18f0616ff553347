/*
 * cuzk/msm.h — multi-scalar multiplication on the CPU for G1 and G2.
 *
 * cuzk_g1_msm() computes out = sum_i [k_i] bases[i] with Pippenger's bucket
 * method: scalars are recoded into signed c-bit digits (carry to the next
 * window), each (window, point range) task accumulates its points into
 * 2^(c-1) buckets (a negative digit subtracts the point), the buckets are
 * reduced by the running-sum trick, and the windows are combined by c
 * doublings each. Buckets are either XYZZ (one mixed addition per point) or,
 * for the larger windows, affine points updated in batches of additions that
 * share one field inversion. The window size c and the bucket method follow
 * from n and the thread count (see cuzk_g1_msm_window(), cuzk_g1_msm_buckets()
 * and docs/design/003-cpu-msm.md, 017-cpu-msm-batch-affine.md); every choice
 * gives the same group element.
 *
 * cuzk_g1_sum() adds up a subset of the bases selected by a bitmap (the
 * "scalar = 1" half of the split MSM of a Groth16 prover) with affine
 * additions that share one inversion per round of a pairwise tree.
 *
 * Bases are affine points of the r-order subgroup; the identity is allowed
 * (all-zero bytes). Every function takes a thread pool (NULL = single thread),
 * allocates its scratch once per call (returning CUZK_ENOMEM if that fails),
 * borrows its inputs for the duration of the call only and writes *out last.
 * Outputs are Jacobian. G1 and G2 functions are identical apart from the
 * prefix.
 */
#ifndef CUZK_MSM_H
#define CUZK_MSM_H

#include "cuzk/common.h"
#include "cuzk/curve.h"
#include "cuzk/pool.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest window the MSM ever uses (bucket index |digit| - 1 fits 15 bits). */
#define CUZK_MSM_MAX_WINDOW 16

/* How the MSM accumulates points into buckets: the planner's choice, XYZZ
 * buckets with one mixed addition per point, or affine buckets updated in
 * batches of additions to distinct buckets sharing one inversion (repeated
 * buckets wait for the next batch or fall back to an XYZZ bucket). */
typedef enum {
    CUZK_MSM_BUCKETS_AUTO = 0,
    CUZK_MSM_BUCKETS_XYZZ = 1,
    CUZK_MSM_BUCKETS_AFFINE = 2
} cuzk_msm_buckets;

/* Window size the G1 / G2 MSM picks for n points on nthreads threads. */
unsigned cuzk_g1_msm_window(size_t n, int nthreads);
unsigned cuzk_g2_msm_window(size_t n, int nthreads);

/* Bucket method (XYZZ or AFFINE, never AUTO) the G1 / G2 MSM picks for n points
 * on nthreads threads. */
cuzk_msm_buckets cuzk_g1_msm_buckets(size_t n, int nthreads);
cuzk_msm_buckets cuzk_g2_msm_buckets(size_t n, int nthreads);

/* Number of signed digits of a 255-bit scalar with window c: ceil(256 / c). */
size_t cuzk_msm_ndigits(unsigned c);

/* Signed-digit recoding of the canonical scalar k < 2^255 with window c in
 * [1, CUZK_MSM_MAX_WINDOW]: writes cuzk_msm_ndigits(c) digits d_j with
 * k = sum_j d_j 2^(cj), -2^(c-1) <= d_j <= 2^(c-1), and returns their number
 * (0 if c is out of range or k >= 2^255). The MSM uses exactly this recoding. */
size_t cuzk_msm_recode(int32_t *digits, const uint64_t k[4], unsigned c);

/* out = sum [scalars[i]] bases[i]; scalars are Fr elements (Montgomery form),
 * converted to canonical form once into a scratch copy of n * 32 bytes. */
int cuzk_g1_msm(cuzk_g1 *out, const cuzk_g1_affine *bases, const cuzk_fr *scalars, size_t n, cuzk_pool *pool);
int cuzk_g2_msm(cuzk_g2 *out, const cuzk_g2_affine *bases, const cuzk_fr *scalars, size_t n, cuzk_pool *pool);

/* As cuzk_g1_msm with canonical scalars: 4 little-endian 64-bit limbs each (on a
 * little-endian host, the 32-byte little-endian encoding); no scalar copy.
 * Any 256-bit value is accepted: values >= 2^255 are reduced mod r first,
 * which leaves the result unchanged for bases in the r-order subgroup. */
int cuzk_g1_msm_u64(cuzk_g1 *out, const cuzk_g1_affine *bases, const uint64_t (*k)[4], size_t n,
                    cuzk_pool *pool);
int cuzk_g2_msm_u64(cuzk_g2 *out, const cuzk_g2_affine *bases, const uint64_t (*k)[4], size_t n,
                    cuzk_pool *pool);

/* As cuzk_g1_msm_u64 with the window c and the number of point ranges per
 * window nsplit forced (0 = the planner's choice; nsplit is capped at n); for
 * tuning and tests. CUZK_EINVAL if c > CUZK_MSM_MAX_WINDOW. */
int cuzk_g1_msm_tuned(cuzk_g1 *out, const cuzk_g1_affine *bases, const uint64_t (*k)[4], size_t n, unsigned c,
                      size_t nsplit, cuzk_pool *pool);
int cuzk_g2_msm_tuned(cuzk_g2 *out, const cuzk_g2_affine *bases, const uint64_t (*k)[4], size_t n, unsigned c,
                      size_t nsplit, cuzk_pool *pool);

/* As cuzk_g1_msm_tuned with the bucket method forced too (AUTO = the
 * planner's choice for the window); any method works with any window, the
 * affine one with at most 2^(c-2) additions per batch when c is small. For
 * tuning and tests. CUZK_EINVAL also for an unknown method. */
int cuzk_g1_msm_tuned_buckets(cuzk_g1 *out, const cuzk_g1_affine *bases, const uint64_t (*k)[4], size_t n,
                              unsigned c, size_t nsplit, cuzk_msm_buckets buckets, cuzk_pool *pool);
int cuzk_g2_msm_tuned_buckets(cuzk_g2 *out, const cuzk_g2_affine *bases, const uint64_t (*k)[4], size_t n,
                              unsigned c, size_t nsplit, cuzk_msm_buckets buckets, cuzk_pool *pool);

/* out = sum of bases[i] over the i < n whose bit i of bitmap is set (bit i%64 of
 * word i/64, ceil(n/64) words); bitmap NULL selects every point. Batch-affine
 * tree summation. */
int cuzk_g1_sum(cuzk_g1 *out, const cuzk_g1_affine *bases, const uint64_t *bitmap, size_t n, cuzk_pool *pool);
int cuzk_g2_sum(cuzk_g2 *out, const cuzk_g2_affine *bases, const uint64_t *bitmap, size_t n, cuzk_pool *pool);

/* The same sum with one XYZZ mixed addition per point: the baseline that
 * cuzk_g1_sum is measured against, and an independent oracle in tests. */
int cuzk_g1_sum_xyzz(cuzk_g1 *out, const cuzk_g1_affine *bases, const uint64_t *bitmap, size_t n,
                     cuzk_pool *pool);
int cuzk_g2_sum_xyzz(cuzk_g2 *out, const cuzk_g2_affine *bases, const uint64_t *bitmap, size_t n,
                     cuzk_pool *pool);

/* Group tables: subset sums of fixed bases, so that a sum of the bases whose scalar is one takes one
 * addition for each group of k consecutive bases that holds a one (src/cpu/group_table.c, docs/design/020).
 * Group g = i / k; its entry for the mask m (1 <= m < 2^k, bit j standing for base g·k + j) is the affine
 * sum of those bases, at index g·(2^k − 1) + m − 1; bases past n count as the identity. k is 2..4. */
#define CUZK_GROUP_TABLE_MAX_K 4

/* Entries of the table of n bases in groups of k: ceil(n / k)·(2^k − 1); 0 for k outside 2..4. */
size_t cuzk_group_table_len(size_t n, unsigned k);

/* Where base i itself (the group's singleton) stands in the table. */
size_t cuzk_group_table_entry(size_t i, unsigned k);

/* out[0 .. cuzk_group_table_len(n, k)) = the table of bases[0 .. n). CUZK_EINVAL for k outside 2..4 (or
 * NULL arrays with n > 0), CUZK_ENOMEM when the scratch (2^k − 1 points and field elements per group of a
 * task, per thread) cannot be allocated; out is then unspecified. */
int cuzk_g1_group_table(cuzk_g1_affine *out, const cuzk_g1_affine *bases, size_t n, unsigned k,
                        cuzk_pool *pool);
int cuzk_g2_group_table(cuzk_g2_affine *out, const cuzk_g2_affine *bases, size_t n, unsigned k,
                        cuzk_pool *pool);

#ifdef __cplusplus
}
#endif
#endif
