/*
 * h2d.cuh — the GPU tests' host-to-device copy (included by gputest.h and by
 * the test programs that keep their own helpers).
 */
#ifndef CUZK_TESTS_H2D_CUH
#define CUZK_TESTS_H2D_CUH

#include <cuda_runtime.h>
#include <stddef.h>

/* Host-to-device copy that work on `st` may read at once. A plain cudaMemcpy from pageable memory can
 * return before its last DMA lands, and the legacy stream it runs on does not order a non-blocking
 * stream's kernels after it: an MSM on such a stream read part of the previous call's scalars
 * (intermittent wrong sums on the first call with new inputs, the repeat right). */
static inline cudaError_t h2d(void *dst, const void *src, size_t bytes, cudaStream_t st)
{
    cudaError_t e = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, st);
    return e != cudaSuccess ? e : cudaStreamSynchronize(st);
}

#endif
