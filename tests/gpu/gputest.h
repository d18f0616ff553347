/*
 * gputest.h — what the GPU test programs (tests/gpu/*.cu) share: a check on
 * CUDA runtime calls that ends the program with status 2 and the call named,
 * a monotonic clock, and a float comparison for medians.
 */
#ifndef CUZK_TESTS_GPUTEST_H
#define CUZK_TESTS_GPUTEST_H

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CUDA_OK(call)                                                                                        \
    do {                                                                                                     \
        cudaError_t e_ = (call);                                                                             \
        if (e_ != cudaSuccess) {                                                                             \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));           \
            exit(2);                                                                                         \
        }                                                                                                    \
    } while (0)

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

#endif
