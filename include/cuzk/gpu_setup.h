/*
 * cuzk/gpu_setup.h — the setup's fixed-base multiplications on the GPU
 * (src/gpu/setup.cu): out[i] = [k_i] G, the same affine points as
 * cuzk_g1_fixed_base_mul / cuzk_g2_fixed_base_mul compute on the CPU.
 *
 * The device holds a table of signed-window multiples of the generator
 * (about 4 MiB for G1, 2.5 MiB for G2, L2-resident) and sums one table entry
 * per window for each scalar; the host turns the projective results into
 * affine points with one inversion per block on its pool, chunk by chunk, so
 * the device memory used is bounded whatever n is. The two functions run on
 * the current device; the accelerator can cut the work across several
 * (cuzk_gpu_setup_accel_on). Buffers are allocated and freed per call (setup
 * is not a hot path).
 */
#ifndef CUZK_GPU_SETUP_H
#define CUZK_GPU_SETUP_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/curve.h"
#include "cuzk/field.h"
#include "cuzk/pool.h"
#include "cuzk/setup.h"

#ifdef __cplusplus
extern "C" {
#endif

int cuzk_gpu_g1_fixed_base_mul(cuzk_g1_affine *out, const cuzk_fr *k, size_t n, cuzk_pool *pool, char *err,
                               size_t errlen);
int cuzk_gpu_g2_fixed_base_mul(cuzk_g2_affine *out, const cuzk_fr *k, size_t n, cuzk_pool *pool, char *err,
                               size_t errlen);

/* Devices a setup's fixed-base multiplications are cut across: n ranges of about equal length, range j on
 * device dev[j] (CUDA's number), each by a thread of its own; a device may be named more than once. */
#define CUZK_GPU_SETUP_MAX_DEVICES 64
typedef struct {
    int n;
    int dev[CUZK_GPU_SETUP_MAX_DEVICES];
} cuzk_gpu_setup_devices;

/* The two above as a setup accelerator (cuzk_groth16_setup_accel), named "gpu": on the calling thread's
 * current device. */
const cuzk_setup_accel *cuzk_gpu_setup_accel(void);
/* The same on the devices of *d (borrowed while *a is used; n = 0: the current device). A device that does
 * not exist fails the setup with CUZK_EINVAL, before any work. Each range runs on a thread of its own, so
 * the calling thread's current device is left alone and no device outside *d gets a context. */
void cuzk_gpu_setup_accel_on(cuzk_setup_accel *a, const cuzk_gpu_setup_devices *d);
/* d from a device mask (bit b = device b), in increasing order. */
void cuzk_gpu_setup_devices_from_mask(cuzk_gpu_setup_devices *d, uint64_t mask);
/* Both: *a on the devices of mask (d filled, and borrowed as above). */
void cuzk_gpu_setup_accel_mask(cuzk_setup_accel *a, cuzk_gpu_setup_devices *d, uint64_t mask);

/* The G1 transform of a key's conversion to the coset form (cuzk_groth16_params_to_coset, docs/design/022)
 * on the current device: out_j = sum_{t < n-1} root^(jt) c step^t src_t for j < n, the same affine points as
 * the CPU's. Needs 248 n bytes of device memory (the points and the twiddles: 33.3 GB at 2^27) plus
 * chunk buffers; n a power of two up to 2^28. */
int cuzk_gpu_g1_transform(cuzk_g1_affine *out, const cuzk_g1_affine *src, size_t n, const cuzk_fr *c,
                          const cuzk_fr *step, const cuzk_fr *root, cuzk_pool *pool, char *err,
                          size_t errlen);
/* That transform as the conversion's accelerator, named "gpu", on the device current when this is called
 * (the conversion calls it from a thread of its own too, where it makes that device current). */
const cuzk_coset_accel *cuzk_gpu_coset_accel(void);

#ifdef __cplusplus
}
#endif
#endif
