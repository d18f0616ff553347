/*
 * gputest.h — what the GPU test programs (tests/gpu/*.cu) share: a check on
 * CUDA runtime calls that ends the program with status 2 and the call named,
 * a monotonic clock, a float comparison for medians, a host-to-device copy
 * ordered on a stream, and the start every program makes (seed, pool, device
 * check).
 */
#ifndef CUZK_TESTS_GPUTEST_H
#define CUZK_TESTS_GPUTEST_H

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cuzk/common.h"
#include "cuzk/gpu.h"
#include "cuzk/pool.h"
extern "C" {
#include "testutil.h"
}

#define CUDA_OK(call)                                                                                        \
    do {                                                                                                     \
        cudaError_t e_ = (call);                                                                             \
        if (e_ != cudaSuccess) {                                                                             \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));           \
            exit(2);                                                                                         \
        }                                                                                                    \
    } while (0)

/* Host-to-device copy that work on `st` may read at once. A plain cudaMemcpy from pageable memory can
 * return before its last DMA lands, and the legacy stream it runs on does not order a non-blocking
 * stream's kernels after it: an MSM on such a stream read part of the previous call's scalars
 * (intermittent wrong sums on the first call with new inputs, the repeat right). */
static inline cudaError_t h2d(void *dst, const void *src, size_t bytes, cudaStream_t st)
{
    cudaError_t e = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, st);
    return e != cudaSuccess ? e : cudaStreamSynchronize(st);
}

static inline double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* qsort comparator for float. */
static inline int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* The common start of a GPU test program: seeds the test RNG, starts *pool (one thread per CPU) and
 * prints device 0. Returns 0, or 2 after saying why (no pool, no CUDA device). */
static inline int gpu_test_start(const char *name, cuzk_pool **pool)
{
    test_rng_init(name);
    if (!(*pool = cuzk_pool_new(0))) {
        fprintf(stderr, "%s: cannot start the thread pool\n", name);
        return 2;
    }
    char desc[256];
    if (cuzk_gpu_device_count() < 1 || cuzk_gpu_device_describe(0, desc, sizeof desc) != CUZK_OK) {
        fprintf(stderr, "%s: no CUDA device\n", name);
        cuzk_pool_free(*pool);
        *pool = NULL;
        return 2;
    }
    printf("device 0: %s; host threads: %d\n", desc, cuzk_pool_size(*pool));
    return 0;
}

#endif
