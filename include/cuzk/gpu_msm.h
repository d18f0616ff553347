/*
 * cuzk/gpu_msm.h — multi-scalar multiplication in G1 and G2 on a CUDA device.
 *
 * One mechanism for every MSM of the prover (docs/design/014-gpu-msm.md):
 * the scalars are classified on the device; zeros are dropped, the bases of
 * the scalars equal to one are summed by a parallel reduction (the split MSM
 * of the 0/1-heavy witness), and the rest, compacted, go through Pippenger's
 * method with signed windows, a radix sort of the digits by bucket, bucket
 * accumulation split into bounded work items, and a parallel running-sum
 * reduction of the buckets. The result equals cuzk_g1_msm / cuzk_g2_msm for
 * the same input, as a group element.
 *
 * Memory. Bases and scalars live on the device (bases resident across
 * proofs; scalars Montgomery cuzk_fr in the host layout). The workspace is
 * allocated once for a maximum size and reused: an MSM allocates nothing and
 * calls no device-global CUDA API. It does synchronise its stream twice
 * (to read the number of scalars not in {0, 1}, and to read the window sums
 * back), and once per round of a window summed by the batch-affine tree.
 *
 * Compiled only when the build finds nvcc (library cuzk_gpu).
 */
#ifndef CUZK_GPU_MSM_H
#define CUZK_GPU_MSM_H

#include <stddef.h>

#include "cuzk/common.h"
#include "cuzk/curve.h"
#include "cuzk/field.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuzk_gpu_msm cuzk_gpu_msm;

/* Which group a workspace serves. */
typedef enum { CUZK_GPU_G1 = 1, CUZK_GPU_G2 = 2 } cuzk_gpu_group;

/* Per-call statistics (milliseconds of device time per stage, from events; filled when non-NULL). */
typedef struct {
    size_t n, n_zero, n_one, n_tail; /* scalars: all, = 0, = 1, the rest */
    unsigned window, windows;        /* Pippenger window width c and count */
    float ms_classify, ms_ones, ms_digits_sort, ms_accumulate, ms_reduce, ms_total;
} cuzk_gpu_msm_stats;

/* A workspace on the current device for MSMs of up to n_max points in `group`. Allocates with cudaMalloc
 * (call it off the hot path). CUZK_EINVAL for n_max = 0 or above 2^31, CUZK_ENOMEM / CUZK_EIO when the
 * device cannot hold it. */
int cuzk_gpu_msm_new(cuzk_gpu_msm **out, cuzk_gpu_group group, size_t n_max, char *err, size_t errlen);
void cuzk_gpu_msm_free(cuzk_gpu_msm *ws);

/* The stream priority the library gives a proof's serial work, a workspace's own streams included (one
 * step above the least, where B2 runs beside it; docs/design/020). A caller that runs MSMs on a stream of
 * its own creates it with this priority, so that the workspace's streams and its own are dispatched as
 * equals, as in the prover. */
int cuzk_gpu_work_priority(void);

/* The same workspace, except that the part cuzk_gpu_msm_lendable_bytes names (the batch-affine tree's
 * lists, G1 only) lives in lent[0 .. lent_bytes) when that is large enough (else the workspace allocates
 * it as cuzk_gpu_msm_new does). The lender keeps the memory allocated while the workspace lives and
 * neither reads nor writes it while an MSM on this workspace runs; an MSM leaves it holding garbage. */
int cuzk_gpu_msm_new_lent(cuzk_gpu_msm **out, cuzk_gpu_group group, size_t n_max, void *lent,
                          size_t lent_bytes, char *err, size_t errlen);

/* Device bytes a workspace for n_max points in `group` takes (for memory budgets), and how many of them a
 * lender can provide (0 for G2). */
size_t cuzk_gpu_msm_workspace_bytes(cuzk_gpu_group group, size_t n_max);
size_t cuzk_gpu_msm_lendable_bytes(cuzk_gpu_group group, size_t n_max);

/* G1 workspaces: windows with at least min_entries scalars not in {0, 1} have their buckets summed by a
 * tree of batch-affine additions (msm_tree.cuh), whose rounds end in XYZZ sums once a round would have
 * fewer than finish_slots slots (0: never); smaller windows keep the XYZZ work items. min_entries = 0
 * restores the defaults (2^25 entries, finish 2^23 slots); tests force the tree on small inputs with 1.
 * No effect on a G2 workspace. CUZK_MSM_TREE_TRACE set in the environment when a workspace is made: its
 * tree prints every round (slots, largest key) on stderr. */
void cuzk_gpu_msm_set_tree(cuzk_gpu_msm *ws, size_t min_entries, size_t finish_slots);

/* G1 workspaces: a tree round of at least split_min slots is cut into `parts` batches (1..8) pipelined
 * over two streams, so that one batch's gathers and one-thread inversion run beside another's additions
 * (docs/design/020, tenth session). parts = 0 restores the default (2 parts from 2^22 slots); tests cut
 * small rounds with split_min = 1. CUZK_MSM_TREE_PARTS (1..8) in the environment when a workspace is made
 * sets its parts. The result is the same whatever the cut. No effect on a G2 workspace. */
void cuzk_gpu_msm_set_tree_parts(cuzk_gpu_msm *ws, unsigned parts, size_t split_min);

/* The sum of the bases whose scalar is one, cut into `launches` kernel launches (1..64; 0: the default,
 * CUZK_MSM_ONES_SPLIT from the environment when the workspace was made, else the build's MSM_ONES_SPLIT).
 * The result does not depend on it; shorter launches free the SMs sooner for other streams' kernels. */
void cuzk_gpu_msm_set_ones_split(cuzk_gpu_msm *ws, unsigned launches);

/* out = sum scalars[i] * bases[i], i < n, on `stream` (a cudaStream_t; NULL = legacy default stream).
 * d_bases: n affine points (identity = all-zero bytes), d_scalars: n Montgomery scalars, both device
 * memory. Returns when the result is on the host. window = 0 picks the width from the number of scalars
 * not in {0, 1}; otherwise 2..20. Errors: CUZK_EINVAL (wrong group, n > n_max, bad window), CUZK_EIO
 * (a CUDA call failed: the message names it). */
int cuzk_gpu_g1_msm(cuzk_g1 *out, const cuzk_g1_affine *d_bases, const cuzk_fr *d_scalars, size_t n,
                    cuzk_gpu_msm *ws, unsigned window, void *stream, cuzk_gpu_msm_stats *stats, char *err,
                    size_t errlen);
int cuzk_gpu_g2_msm(cuzk_g2 *out, const cuzk_g2_affine *d_bases, const cuzk_fr *d_scalars, size_t n,
                    cuzk_gpu_msm *ws, unsigned window, void *stream, cuzk_gpu_msm_stats *stats, char *err,
                    size_t errlen);

/* The same sums with the bases given as their group table (cuzk/msm.h: cuzk_g1_group_table of the n
 * bases in groups of k = 2..4, copied to the device): the ones' sum adds one table entry for each group
 * of k scalars that holds a one, instead of one base for each one, and the other scalars read their
 * bases where the table holds them alone. The result is cuzk_gpu_g1_msm's on the bases. CUZK_EINVAL
 * also for k outside 2..4 or a table of more than 2^31 entries (docs/design/020, thirty-sixth session). */
int cuzk_gpu_g1_msm_table(cuzk_g1 *out, const cuzk_g1_affine *d_table, unsigned k, const cuzk_fr *d_scalars,
                          size_t n, cuzk_gpu_msm *ws, unsigned window, void *stream, cuzk_gpu_msm_stats *stats,
                          char *err, size_t errlen);
int cuzk_gpu_g2_msm_table(cuzk_g2 *out, const cuzk_g2_affine *d_table, unsigned k, const cuzk_fr *d_scalars,
                          size_t n, cuzk_gpu_msm *ws, unsigned window, void *stream, cuzk_gpu_msm_stats *stats,
                          char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
