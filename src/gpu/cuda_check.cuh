/*
 * cuda_check.cuh — turning a failed CUDA runtime call into a cuzk status and
 * message, the same way in every host driver of the CUDA backend.
 *
 * GPU_MODULE must be defined (a string such as "gpu msm") before including
 * this header; messages read "<module>: <what> failed: <error name> (<text>)".
 * CU(call, what) returns from the enclosing function, which must have
 * `char *err, size_t errlen` in scope, when call does not succeed.
 * Out-of-memory becomes CUZK_ENOMEM; an error after which the device cannot be
 * used again in this process CUZK_EDEVICE (the engine then moves the device's
 * work to the others: include/cuzk/engine.h); anything else CUZK_EIO. The
 * runtime's last-error state is cleared so that a later, unrelated check does
 * not see it (a sticky error stays, by its nature).
 */
#ifndef CUZK_GPU_CUDA_CHECK_CUH
#define CUZK_GPU_CUDA_CHECK_CUH

#include <cuda_runtime.h>

#include "cuzk/common.h"

#ifndef GPU_MODULE
#error "define GPU_MODULE before including gpu/cuda_check.cuh"
#endif

/* Errors that leave the device's context unusable until the process is relaunched (the runtime's own
 * words for each: a fault in a kernel, a device-side assert, a kernel timeout, errors contained by the
 * hardware) and uncorrectable memory errors: the device is lost to this process. */
static inline bool cuda_error_is_fatal(cudaError_t e)
{
    switch (e) {
    case cudaErrorECCUncorrectable:
    case cudaErrorNvlinkUncorrectable:
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
    case cudaErrorMpsClientTerminated:
#if CUDART_VERSION >= 12000
    case cudaErrorContained:
    case cudaErrorExternalDevice:
#endif
#if CUDART_VERSION >= 12080
    case cudaErrorTensorMemoryLeak:
#endif
        return true;
    default: return false;
    }
}

/* The cuzk status of a failed CUDA call. */
static inline int cuda_code(cudaError_t e)
{
    return e == cudaErrorMemoryAllocation ? CUZK_ENOMEM : cuda_error_is_fatal(e) ? CUZK_EDEVICE : CUZK_EIO;
}

static inline int cuda_fail(char *err, size_t errlen, const char *what, cudaError_t e)
{
    cudaGetLastError();
    return cuzk_fail(err, errlen, cuda_code(e), GPU_MODULE ": %s failed: %s (%s)", what, cudaGetErrorName(e),
                     cudaGetErrorString(e));
}

/* Priority of the streams that carry a proof's serial work (the prover's stream, the G1 MSM's sort and
 * tree-part streams): with GPU_WORK_ABOVE_SIDE (the default), one step above the least, so that new
 * blocks of B2's side stream (the least) are dispatched behind theirs; with GPU_WORK_ABOVE_SIDE=0, the
 * least, like every other stream. Measured in the engine: kernel prove p50 1166.8 -> 1160.6 ms (docs/
 * design/020, fifteenth session). The tree's chains have the greatest either way. */
#ifndef GPU_WORK_ABOVE_SIDE
#define GPU_WORK_ABOVE_SIDE 1
#endif
static inline int gpu_work_priority(void)
{
    int least = 0, greatest = 0;
    if (!GPU_WORK_ABOVE_SIDE || cudaDeviceGetStreamPriorityRange(&least, &greatest) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return greatest < least ? least - 1 : least;
}

/* `into` waits for everything issued on `from` so far (through ev, recorded on from), also on an error
 * path, so that no work of a side stream outlives its caller's; returns rc, or the join's own failure
 * when rc is CUZK_OK. */
static inline int cuda_join(cudaStream_t from, cudaEvent_t ev, cudaStream_t into, int rc, const char *what,
                            char *err, size_t errlen)
{
    cudaError_t e = cudaEventRecord(ev, from);
    if (e == cudaSuccess)
        e = cudaStreamWaitEvent(into, ev, 0);
    if (e != cudaSuccess && rc == CUZK_OK)
        rc = cuda_fail(err, errlen, what, e);
    return rc;
}

#define CU(call, what)                                                                                       \
    do {                                                                                                     \
        cudaError_t e_ = (call);                                                                             \
        if (e_ != cudaSuccess)                                                                               \
            return cuda_fail(err, errlen, what, e_);                                                         \
    } while (0)

#endif
