/*
 * bench_gpu.cuh — what the kernel experiments of bench/gpu share: the tests'
 * CUDA_OK check on runtime calls (tests/gpu/cuda_ok.h) and a 64-to-32-bit
 * mixing function for reproducible pseudo-random data made on the device.
 */
#ifndef CUZK_BENCH_GPU_CUH
#define CUZK_BENCH_GPU_CUH

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cuda_ok.h"

static __device__ __forceinline__ uint32_t mix32(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return (uint32_t)x;
}

#endif
