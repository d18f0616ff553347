/*
 * cuda_ok.h — CUDA_OK(call): a CUDA runtime call that must succeed in a test
 * or benchmark program; otherwise the program ends with status 2, naming the
 * call, its place and CUDA's message.
 */
#ifndef CUZK_TESTS_CUDA_OK_H
#define CUZK_TESTS_CUDA_OK_H

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CUDA_OK(call)                                                                                        \
    do {                                                                                                     \
        cudaError_t e_ = (call);                                                                             \
        if (e_ != cudaSuccess) {                                                                             \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));           \
            exit(2);                                                                                         \
        }                                                                                                    \
    } while (0)

#endif
