/*
 * cuzk/gpu_prove.h — whole-partition Groth16 proving on a CUDA device, in the
 * bellperson convention (.params keys) and the snarkjs one (.zkey).
 *
 * Two objects keep the device state across proofs:
 *   cuzk_gpu_pk      the proving key's query vectors (h, l, a, b_g1, b_g2)
 *                    uploaded once and kept resident; read-only, so several
 *                    provers (GPU workers) may share one.
 *   cuzk_gpu_prover  one worker's buffers: the three evaluation vectors, the
 *                    scalar vectors, the G1 and G2 MSM workspaces and a
 *                    stream, sized for one key and reused for every proof.
 *   cuzk_gpu_cs      optional: the circuit's matrices (and the A/B density
 *                    index lists) resident beside the key, so that a proof
 *                    uploads only z and evaluates a = A·z, b = B·z, c = C·z,
 *                    checks the witness and gathers the A/B scalars on the
 *                    device ("device evaluation").
 * Without a cuzk_gpu_cs a proof computes the evaluations and the witness
 * check on the host (as cuzk_groth16_prove_ex does), uploads a, b, c once; either way it runs the H pipeline
 * (iNTT, coset NTT, (a·b − c)/Z, inverse coset NTT) and the five MSMs on the
 * device, and assembles and verifies the proof on the host. The proof bytes
 * equal the CPU prover's for the same witness, r and s.
 *
 * Compiled only when the build finds nvcc (library cuzk_gpu).
 */
#ifndef CUZK_GPU_PROVE_H
#define CUZK_GPU_PROVE_H

#include <stddef.h>

#include "cuzk/common.h"
#include "cuzk/cs.h"
#include "cuzk/params.h"
#include "cuzk/pool.h"
#include "cuzk/prove.h"
#include "cuzk/zpack.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuzk_gpu_pk cuzk_gpu_pk;
typedef struct cuzk_gpu_prover cuzk_gpu_prover;
typedef struct cuzk_gpu_cs cuzk_gpu_cs;

/* Device bytes the resident key takes. */
size_t cuzk_gpu_pk_bytes(const cuzk_groth16_params *pk);

/* Uploads pk's query vectors to the current device (cudaMalloc + copies: call it off the hot path).
 * pk must outlive the returned object only for its verifying key, which provers read on the host. */
int cuzk_gpu_pk_load(cuzk_gpu_pk **out, const cuzk_groth16_params *pk, char *err, size_t errlen);
void cuzk_gpu_pk_free(cuzk_gpu_pk *gpk);

/* A key whose query vectors are NOT copied to the device: they are page-locked where they are (pk's host
 * vectors, which must outlive the returned object and stay unchanged) and every MSM streams its bases
 * through two staging buffers of the prover (cudaMalloc'ed by cuzk_gpu_prover_new, stage_bytes each;
 * 0 = the largest vector's size up to CUZK_GPU_STAGE_BYTES), the copy of one segment beside the MSM of
 * the one before. For keys that do not fit in device memory; proofs are the same as with a resident key.
 * B2 then runs after B1 whatever the prover's overlap. Device bytes: none here, 2 · stage_bytes more
 * per prover. Load time (page-locking tens of GB takes seconds). */
#define CUZK_GPU_STAGE_BYTES ((size_t)4 << 30)
int cuzk_gpu_pk_load_streamed(cuzk_gpu_pk **out, const cuzk_groth16_params *pk, size_t stage_bytes, char *err,
                              size_t errlen);

/* A key in part resident: the query vectors named in `resident` (CUZK_GPU_PK_* bits) are copied to the
 * device as cuzk_gpu_pk_load does, the others page-locked and streamed as cuzk_gpu_pk_load_streamed does
 * (stage_bytes the same; 0 = cuzk_gpu_stage_bytes(pk, resident)). For a device with room for part of the
 * key beside its provers: only the streamed vectors' MSMs copy bases. resident = CUZK_GPU_PK_ALL is
 * cuzk_gpu_pk_load, 0 is cuzk_gpu_pk_load_streamed. CUZK_EINVAL for other bits. */
#define CUZK_GPU_PK_H 1u
#define CUZK_GPU_PK_L 2u
#define CUZK_GPU_PK_A 4u
#define CUZK_GPU_PK_B1 8u
#define CUZK_GPU_PK_B2 16u
#define CUZK_GPU_PK_ALL 31u
/* The device bytes of each query vector, in CUZK_GPU_PK_* bit order (h, l, a, b_g1, b_g2). */
void cuzk_gpu_pk_vector_bytes(const cuzk_groth16_params *pk, size_t bytes[5]);
int cuzk_gpu_pk_load_mixed(cuzk_gpu_pk **out, const cuzk_groth16_params *pk, unsigned resident,
                           size_t stage_bytes, char *err, size_t errlen);

/* A key wholly resident with its witness vectors (l, a, b_g1, b_g2) held as their group tables of k = 2..4
 * (cuzk/msm.h) in place of the bases, h as cuzk_gpu_pk_load holds it: each of those MSMs then adds one
 * table entry for each group of k scalars that holds a one (cuzk_gpu_g1_msm_table), the same sums with
 * fewer additions; the proofs are the same. The tables take (2^k − 1) / k times the vectors' bytes
 * (cuzk_gpu_pk_table_bytes), so this is for a device with room to spare beside its provers. They are made
 * on the host with pool's threads (NULL: the caller's alone), chunk by chunk (the host never holds a whole table), at load time: a
 * full PoRep key's at k = 3 takes about ten seconds on 16 threads. CUZK_EINVAL for k outside 2..4, CUZK_ENOMEM
 * (from CUDA) when the device is too small. docs/design/020, thirty-seventh session. */
int cuzk_gpu_pk_load_tables(cuzk_gpu_pk **out, const cuzk_groth16_params *pk, unsigned k, cuzk_pool *pool,
                            char *err, size_t errlen);
/* cuzk_gpu_pk_vector_bytes for a key loaded with tables of k (k outside 2..4: without). */
void cuzk_gpu_pk_table_bytes(const cuzk_groth16_params *pk, unsigned k, size_t bytes[5]);
/* The size of one staging buffer the loaders pick for stage_bytes = 0: the largest vector not in
 * `resident` (its bytes) up to CUZK_GPU_STAGE_BYTES, and at least one G2 point. */
size_t cuzk_gpu_stage_bytes(const cuzk_groth16_params *pk, unsigned resident);

/* Device bytes the resident circuit takes (an upper bound: the index lists are counted at full length). */
size_t cuzk_gpu_cs_bytes(const cuzk_cs *cs);

/* Uploads cs's matrices (32-bit row offsets and columns, coefficients in cs's own form) and the z indices
 * of the A and B scalars (from density = cs's bitmaps as cuzk_cs_density makes them; NULL: computed here)
 * to the current device. Load time, not the hot path. CUZK_ERANGE for a matrix above 2^32 - 1 terms. */
int cuzk_gpu_cs_load(cuzk_gpu_cs **out, const cuzk_cs *cs, const uint64_t *const density[3], char *err,
                     size_t errlen);
void cuzk_gpu_cs_free(cuzk_gpu_cs *gcs);

/* The lengths a prover's buffers are made for: a key's n_h, n_l, n_a, n_b, or the largest of several, the
 * witness length n_z device evaluation needs (0: made on the first such proof), the bytes of each of
 * its two staging buffers for keys with streamed vectors (0: none), and the domain m
 * (cuzk_groth16_domain_size; 0: n_h + 1, as in bellperson's layout). */
typedef struct {
    size_t n_h, n_l, n_a, n_b, n_z;
    size_t stage_bytes;
    size_t m;
} cuzk_gpu_shape;

/* Device bytes one prover for this key takes (device evaluation adds one witness vector, allocated on the
 * prover's first proof with a cuzk_gpu_cs; a streamed key two staging buffers); all of a shape's. */
size_t cuzk_gpu_prover_bytes(const cuzk_groth16_params *pk);
size_t cuzk_gpu_prover_bytes_shape(const cuzk_gpu_shape *shape);
/* Each length the larger of x's and y's. */
cuzk_gpu_shape cuzk_gpu_shape_max(cuzk_gpu_shape x, cuzk_gpu_shape y);

/* A prover's buffers for keys shaped like gpk's (same vector lengths), on the current device, bound to gpk.
 */
int cuzk_gpu_prover_new(cuzk_gpu_prover **out, const cuzk_gpu_pk *gpk, char *err, size_t errlen);
void cuzk_gpu_prover_free(cuzk_gpu_prover *p);

/* Binds *p to gpk, so that one prover serves several keys (one at a time): when its buffers hold gpk's
 * shape and *room (NULL: nothing more), and for a key with streamed vectors staging buffers of its
 * stage_bytes, nothing is allocated; else every buffer is made again on the current device for the
 * largest of its old shape, gpk's and *room, so that binding back to a key it has held does not allocate
 * (the MSM settings made on the old buffers, cuzk_gpu_prover_set_tree and _set_ones_split, are then
 * back to their defaults). *p = NULL makes a prover.
 * After a failure *p holds no buffers (and is bound to no key) until a bind succeeds. A rebind that
 * allocates frees first: call it only when no proof runs on *p. */
int cuzk_gpu_prover_bind(cuzk_gpu_prover **p, const cuzk_gpu_pk *gpk, const cuzk_gpu_shape *room, char *err,
                         size_t errlen);

/* Copies the witness z (n = n_inputs + n_aux values) into the prover's device buffer now, on its side
 * stream, and returns when the copy is done: the engine does it before taking the device lock, so the
 * copy runs beside another prover's kernels. The prover's next cuzk_gpu_groth16_prove with device
 * evaluation and the same z pointer and length does not copy z again (z must not change in between);
 * any other call copies as usual. CUZK_EINVAL for no witness. */
int cuzk_gpu_prover_put_z(cuzk_gpu_prover *p, const cuzk_fr *z, size_t n, char *err, size_t errlen);
/* The same from z's packing zp (cuzk/zpack.h, made from these n values; NULL: as put_z): only zp's used
 * bytes cross, and the device expands them into the same values; z is still what a later proof's z must
 * be to use the copy. A packing larger than the prover's a buffer is not used (z crosses whole).
 * CUZK_EINVAL for no witness or a packing of another length or an overfull tail. */
int cuzk_gpu_prover_put_zpack(cuzk_gpu_prover *p, const cuzk_fr *z, size_t n, const cuzk_zpack *zp, char *err,
                              size_t errlen);

/* cuzk_groth16_prove_ex with the H pipeline and the MSMs on the device. pk is the host key gpk was
 * loaded from. One call at a time per prover; different provers may run concurrently. The MSMs always
 * split scalars 0 and 1 off (CUZK_PROVE_NO_SPLIT has no effect: the group elements are the same).
 * gcs (loaded from cs) moves the evaluation, the witness check (unless CUZK_PROVE_NO_CHECK; CUZK_EUNSAT
 * names the first failing row, as on the host) and the scalar gathering to the device; opts->abc is then
 * not used. NULL: all three on the host. */
int cuzk_gpu_groth16_prove(cuzk_groth16_proof *out, const cuzk_groth16_params *pk, const cuzk_gpu_pk *gpk,
                           cuzk_gpu_prover *prover, const cuzk_gpu_cs *gcs, const cuzk_cs *cs,
                           const cuzk_fr *z, const cuzk_fr *r, const cuzk_fr *s, const cuzk_prove_opts *opts,
                           cuzk_pool *pool, char *err, size_t errlen);

/* The snarkjs convention (cuzk_groth16_prove_zkey_ex's arithmetic): the zkey's point sections decoded
 * (checked on the curve) and uploaded into a resident key, H in the h slot, C in l, then A, B1, B2; a
 * prover for it comes from cuzk_gpu_prover_new as for a .params key. */
int cuzk_gpu_zkey_load(cuzk_gpu_pk **out, const cuzk_snarkjs_zkey *zk, cuzk_pool *pool, char *err,
                       size_t errlen);

/* cuzk_groth16_prove_zkey_ex with the H step (C = A∘B, odd-coset transforms, A·B − C) and the five MSMs
 * on the device; A and B are evaluated from section 4 on the host. Same proof bytes as the CPU prover for
 * the same r and s; verified unless CUZK_PROVE_NO_VERIFY. gpk from cuzk_gpu_zkey_load(zk). */
int cuzk_gpu_groth16_prove_zkey(cuzk_groth16_proof *out, cuzk_fr *public_out, const cuzk_snarkjs_zkey *zk,
                                const cuzk_gpu_pk *gpk, cuzk_gpu_prover *prover, const cuzk_fr *w, size_t n_w,
                                const cuzk_fr *r, const cuzk_fr *s, const cuzk_prove_opts *opts,
                                cuzk_pool *pool, char *err, size_t errlen);

/* The proving engine's CUDA backend (src/gpu/backend_gpu.cu): every CUDA device of the machine, keys
 * resident per device, one prover per GPU worker, pinned partition buffers. NULL when there is no
 * device. Declared here as an opaque engine type so that this header needs no engine header. */
struct cuzk_engine_backend;
const struct cuzk_engine_backend *cuzk_engine_backend_gpu(void);

/* The backend's keys on device dev now: device bytes of the resident ones, and how many are streamed
 * (cuzk_engine_config.key_vram, or a key that did not fit). */
void cuzk_engine_backend_gpu_keys(int dev, uint64_t *resident_bytes, unsigned *streamed);
/* The largest k of the group tables the keys resident on device dev hold (cuzk_engine_config.key_tables);
 * 0: none. */
unsigned cuzk_engine_backend_gpu_tables(int dev);

/* Where the G2 MSM (B2) starts relative to the G1 work of the same proof: not beside it (after B1, on
 * the prover's stream), after H's MSM (on a second stream, beside L, A and B1), or as soon as the B
 * scalars are on the device (beside the transforms and every G1 MSM; the default: a full PoRep-shaped
 * partition's device time 1826 / 1777 / 1760 ms without its upload, docs/design/014). A tuning knob for
 * benchmarks; every mode gives the same proof. */
typedef enum {
    CUZK_GPU_OVERLAP_NONE = 0,
    CUZK_GPU_OVERLAP_AFTER_H = 1,
    CUZK_GPU_OVERLAP_EVAL = 2,
} cuzk_gpu_overlap;
void cuzk_gpu_prover_set_overlap(cuzk_gpu_prover *p, cuzk_gpu_overlap mode);

/* cuzk_gpu_msm_set_tree on the prover's G1 workspace, whose tree lists live in the prover's b and c
 * (idle while the MSMs run): tests force the tree on small circuits with min_entries = 1. */
void cuzk_gpu_prover_set_tree(cuzk_gpu_prover *p, size_t min_entries, size_t finish_slots);

/* cuzk_gpu_msm_set_ones_split on the prover's G1 and G2 workspaces (benchmarks: B2's ones in short
 * launches beside the serial stream; every value gives the same proof). */
void cuzk_gpu_prover_set_ones_split(cuzk_gpu_prover *p, unsigned launches);

/* Milliseconds of the last proof's device stages (CUDA events), for reports: upload (a, b, c, or z with
 * device evaluation), eval (device evaluation, check and scalar gathers; 0 without), the H pipeline
 * (with the B scalars' gather or upload), the five MSMs (with device evaluation msm_a includes its
 * gather; msm_b2 is B2's own span, concurrent with others unless the overlap is NONE, starting b2_start
 * after the proof's start), total. The stages upload .. msm_b1 follow each other from the start on the
 * prover's stream. end_us: CLOCK_MONOTONIC microseconds when the host saw the device finish. */
typedef struct {
    float upload, eval, h, msm_h, msm_l, msm_a, msm_b1, msm_b2, total;
    float b2_start;
    int64_t end_us;
} cuzk_gpu_prove_times;
void cuzk_gpu_prover_times(const cuzk_gpu_prover *p, cuzk_gpu_prove_times *t);

#ifdef __cplusplus
}
#endif
#endif
