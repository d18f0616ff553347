/*
 * cuzk/gpu_setup.h — the setup's fixed-base multiplications on the GPU
 * (src/gpu/setup.cu): out[i] = [k_i] G, the same affine points as
 * cuzk_g1_fixed_base_mul / cuzk_g2_fixed_base_mul compute on the CPU.
 *
 * The device holds a table of signed-window multiples of the generator
 * (about 4 MiB for G1, 2.5 MiB for G2, L2-resident) and sums one table entry
 * per window for each scalar; the host turns the projective results into
 * affine points with one inversion per block on its pool, chunk by chunk, so
 * the device memory used is bounded whatever n is. Runs on the current
 * device; allocates and frees its buffers per call (setup is not a hot path).
 */
#ifndef CUZK_GPU_SETUP_H
#define CUZK_GPU_SETUP_H

#include <stddef.h>

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

/* The two above as a setup accelerator (cuzk_groth16_setup_accel), named "gpu". */
const cuzk_setup_accel *cuzk_gpu_setup_accel(void);

#ifdef __cplusplus
}
#endif
#endif
