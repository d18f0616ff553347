/*
 * gputest.h — what the GPU test programs of tests/gpu share: the check on
 * CUDA runtime calls (CUDA_OK, from cuda_ok.h), a monotonic clock, a float
 * comparison for medians, a host-to-device copy ordered on a stream, and the
 * start every program makes (seed, pool, device check).
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
#include "cuda_ok.h"
#include "h2d.cuh"
extern "C" {
#include "testutil.h"
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
