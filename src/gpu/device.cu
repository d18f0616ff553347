/*
 * device.cu — device discovery for the CUDA backend.
 *
 * Kept apart from the kernels so that the engine can ask "is there a GPU, and
 * which?" without touching any proving state. Errors from the runtime (no
 * driver, no device) are reported as zero devices, never as a crash. Also the
 * one load-time upload helper the resident key and circuit share.
 */
#include <cuda_runtime.h>
#include <stdio.h>

#include "cuzk/common.h"
#include "cuzk/gpu.h"
#define GPU_MODULE "gpu"
#include "gpu/cuda_check.cuh"
#include "gpu/eval.cuh"

extern "C" int cuzk_gpu_device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError(); /* clear the sticky "no device" error */
        return 0;
    }
    return n;
}

extern "C" int cuzk_gpu_device_describe(int dev, char *buf, unsigned long buflen)
{
    cudaDeviceProp prop;
    if (dev < 0 || dev >= cuzk_gpu_device_count())
        return CUZK_EINVAL;
    if (cudaGetDeviceProperties(&prop, dev) != cudaSuccess)
        return CUZK_EIO;
    snprintf(buf, buflen, "%s, sm_%d%d, %zu MiB", prop.name, prop.major, prop.minor,
             (size_t)(prop.totalGlobalMem >> 20));
    return CUZK_OK;
}

int gpu_upload(void **dst, const void *src, size_t bytes, const char *what, char *err, size_t errlen)
{
    *dst = NULL;
    if (!bytes)
        return CUZK_OK;
    cudaError_t e = cudaMalloc(dst, bytes);
    if (e != cudaSuccess) {
        *dst = NULL;
        return cuda_fail(err, errlen, what, e);
    }
    CU(cudaMemcpy(*dst, src, bytes, cudaMemcpyHostToDevice), what);
    /* from pageable memory cudaMemcpy may return before its last DMA lands, and the provers' non-blocking
     * streams are not ordered after the legacy stream it ran on: wait for it here (load time) */
    CU(cudaStreamSynchronize(0), what);
    return CUZK_OK;
}
