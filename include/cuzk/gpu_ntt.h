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
 * place (out of place with cuzk_gpu_ntt_ex's dst, below): direction, order
 * and coset as in cuzk_ntt. lg must equal dom->lg (lg <= CUZK_NTT_MAX_LG);
 * dom is read on the host during the call only.
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

/*
 * Pointwise work folded into a transform, each piece saving a pass over the vector (the H polynomial's
 * products and combination, docs/design/020). Every field may be left NULL. With x = d_data before the
 * call and T the transform cuzk_gpu_ntt would apply:
 *
 *   out[i] = T(src ⊙ mul)[i] · scale − sub[rev(i)],   out = dst (NULL: d_data)
 *
 * src replaces x as the input (the first pass reads it; d_data's old contents are not read), mul
 * multiplies the input element by element in its own layout (natural for NN and NR, bit-reversed for
 * RN), scale is one factor on every output (folded into the last pass's factors), and sub, only for NN,
 * is subtracted given in bit-reversed order (as an NR transform of the same size leaves its result),
 * before the final permutation. dst makes the transform out of place: the last pass writes its result
 * there and d_data is left holding intermediate values; for NN the final permutation then rides in the
 * last pass's stores instead of costing a bit-reversal kernel (a read and a write of the vector). src
 * and mul may equal d_data or dst; sub may not equal d_data; dst may not overlap d_data (except by being
 * d_data: in place) or sub. All are device vectors of 2^lg elements, 32-byte aligned; scale is read on
 * the host during the call.
 */
typedef struct {
    const cuzk_fr *src;
    const cuzk_fr *mul;
    const cuzk_fr *scale;
    const cuzk_fr *sub;
    cuzk_fr *dst;
} cuzk_gpu_ntt_extra;

/* cuzk_gpu_ntt with the extras of ex (NULL: none); CUZK_EINVAL for sub with an order other than NN, sub
 * equal to d_data, dst overlapping d_data or sub, a misaligned vector, or any extra at lg = 0. */
int cuzk_gpu_ntt_ex(cuzk_fr *d_data, unsigned lg, cuzk_ntt_dir dir, cuzk_ntt_order order, bool coset,
                    const cuzk_ntt_domain *dom, const cuzk_gpu_ntt_extra *ex, void *stream, char *err,
                    size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
