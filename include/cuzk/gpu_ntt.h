/*
 * cuzk/gpu_ntt.h — NTT over Fr on a CUDA device.
 *
 * The same transforms as cuzk/ntt.h (directions, orders NN/NR/RN, coset
 * forward and inverse, both root conventions), computed in place on device
 * memory, with results bit-identical to cuzk_ntt for the same input. The
 * constants come from a host domain (cuzk_ntt_domain_init), so a domain whose
 * coset shift was changed with cuzk_ntt_domain_set_coset transforms with that
 * shift here too.
 *
 * Elements are cuzk_fr in Montgomery form, fully reduced, in the host layout:
 * an array copied from the host with cudaMemcpy is a valid input.
 *
 * Compiled only when the build finds nvcc (library cuzk_gpu).
 */
#ifndef CUZK_GPU_NTT_H
#define CUZK_GPU_NTT_H

#include <stdbool.h>
#include <stddef.h>

#include "cuzk/common.h"
#include "cuzk/field.h"
#include "cuzk/ntt.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Transforms the 2^lg elements at d_data (device memory, 32-byte aligned) in
 * place: direction, order and coset as in cuzk_ntt. lg must equal dom->lg
 * (lg <= CUZK_NTT_MAX_LG); dom is read on the host during the call only.
 *
 * Asynchronous: the work is queued on `stream` (a cudaStream_t; NULL is the
 * legacy default stream) on the current device, and the call returns without
 * waiting. The caller synchronises the stream before reading the result.
 * Besides the data, a transform uses up to 2 MiB of device memory for its
 * twiddle tables, taken and given back in stream order (cudaMallocAsync).
 * Returns CUZK_OK, CUZK_EINVAL / CUZK_ERANGE for bad arguments, or CUZK_EIO
 * when a CUDA call fails (the message names the call and the CUDA error).
 * Errors raised while kernels run surface at the caller's next
 * synchronisation.
 */
int cuzk_gpu_ntt(cuzk_fr *d_data, unsigned lg, cuzk_ntt_dir dir, cuzk_ntt_order order, bool coset,
                 const cuzk_ntt_domain *dom, void *stream, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
