/*
 * fp52_rate.cu — step 2 of the FP64 route (docs/design/009, tenth session): the rate of the FMA-based
 * Fp Montgomery product of src/arith/fp52.h (52-bit limbs, partial products on the FP64 pipe) against
 * fp.cuh's product (32-bit limbs, IMAD carry chains, what the MSM uses), each with 1, 2 and 4
 * independent chains per thread (the rate at the shape a kernel uses is what decides; slot counts do
 * not predict it: note 009, fifth session). Every fp52 result of the first threads is compared with the
 * same chain run on the host (rounding toward zero set there, __fma_rz on the device), and the host
 * product is checked against GMP by tests/test_fp52_gmp.c.
 *
 *   nvcc -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -Xcompiler -frounding-math -Iinclude -Isrc \
 *        -Itests/gpu bench/gpu/fp52_rate.cu -o fp52_rate && ./fp52_rate [ITERS]   (default 2000 a chain)
 */
#include <fenv.h>

#include "bench_gpu.cuh"
#include "arith/fp52.h"
#include "gpu/fp.cuh"

#define THREADS 256
#define BLOCKS (132 * 8)
#define CHECKED 64 /* threads whose fp52 chains the host repeats */

/* The two products under test, one chain step each. */
struct mul52 {
    typedef fp52_t T;
    static __device__ void step(fp52_t &x, const fp52_t &y) { fp52_mont_mul(&x, &x, &y); }
};
struct mul32 {
    typedef fp_t T;
    static __device__ void step(fp_t &x, const fp_t &y) { x = fp_mul(x, y); }
};

/* CH independent chains of iters products per thread. */
template <class M, int CH>
__global__ void __launch_bounds__(THREADS) k_chain(const typename M::T *in, typename M::T *out, int iters)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x, n = (size_t)gridDim.x * blockDim.x;
    typename M::T x[CH], y = in[t];
    for (int c = 0; c < CH; c++)
        x[c] = in[(t + 1 + c) % n];
    for (int i = 0; i < iters; i++)
#pragma unroll
        for (int c = 0; c < CH; c++)
            M::step(x[c], y);
    for (int c = 0; c < CH; c++)
        out[t * CH + c] = x[c];
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next64(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}

template <class K> static float time_kernel(K launch)
{
    cudaEvent_t e0, e1;
    CUDA_OK(cudaEventCreate(&e0));
    CUDA_OK(cudaEventCreate(&e1));
    launch(); /* warm-up */
    CUDA_OK(cudaGetLastError());
    float best = 1e30f;
    for (int r = 0; r < 3; r++) {
        CUDA_OK(cudaEventRecord(e0));
        launch();
        CUDA_OK(cudaEventRecord(e1));
        CUDA_OK(cudaEventSynchronize(e1));
        float ms;
        CUDA_OK(cudaEventElapsedTime(&ms, e0, e1));
        best = ms < best ? ms : best;
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return best;
}

template <int CH>
static int run(const fp52_t *d52, fp52_t *o52, const fp_t *d32, fp_t *o32, const fp52_t *h52, int iters)
{
    size_t n = (size_t)BLOCKS * THREADS;
    float ms52 = time_kernel([&] { k_chain<mul52, CH><<<BLOCKS, THREADS>>>(d52, o52, iters); });
    float ms32 = time_kernel([&] { k_chain<mul32, CH><<<BLOCKS, THREADS>>>(d32, o32, iters); });
    double prods = (double)n * CH * iters;
    /* the first threads' chains again on the host */
    fp52_t *got = (fp52_t *)malloc(CHECKED * CH * sizeof *got);
    CUDA_OK(cudaMemcpy(got, o52, CHECKED * CH * sizeof *got, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (size_t t = 0; t < CHECKED; t++)
        for (int c = 0; c < CH; c++) {
            fp52_t x = h52[(t + 1 + c) % n], y = h52[t];
            for (int i = 0; i < iters; i++)
                fp52_mont_mul(&x, &x, &y);
            bad += memcmp(&x, &got[t * CH + c], sizeof x) != 0;
        }
    free(got);
    printf("| %d | %.2f | %.2f | %.2f | %d / %d |\n", CH, prods / (ms52 * 1e6), prods / (ms32 * 1e6),
           ms32 / ms52, bad, CHECKED * CH);
    return bad;
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 2000;
    if (iters < 1) {
        fprintf(stderr, "usage: fp52_rate [ITERS >= 1]\n");
        return 2;
    }
    size_t n = (size_t)BLOCKS * THREADS;
    fp52_t *h52 = (fp52_t *)malloc(n * sizeof *h52);
    fp_t *h32 = (fp_t *)malloc(n * sizeof *h32);
    for (size_t i = 0; i < n; i++) {
        for (int k = 0; k < FP52_LIMBS; k++) /* below p: the top limb below p's (0x1a011) */
            h52[i].v[k] = next64() & (k == FP52_LIMBS - 1 ? 0xffffULL : FP52_MASK);
        for (int k = 0; k < 12; k++) /* below p: the top word below p's (0x1a0111ea) */
            h32[i].v[k] = (uint32_t)next64() & (k == 11 ? 0x0fffffffu : 0xffffffffu);
    }
    fp52_t *d52, *o52;
    fp_t *d32, *o32;
    CUDA_OK(cudaMalloc(&d52, n * sizeof *d52));
    CUDA_OK(cudaMalloc(&o52, 4 * n * sizeof *o52));
    CUDA_OK(cudaMalloc(&d32, n * sizeof *d32));
    CUDA_OK(cudaMalloc(&o32, 4 * n * sizeof *o32));
    CUDA_OK(cudaMemcpy(d52, h52, n * sizeof *h52, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d32, h32, n * sizeof *h32, cudaMemcpyHostToDevice));
    printf("Fp products, %d threads, %d per chain; G products/s (best of 3 after a warm-up)\n\n", (int)n,
           iters);
    printf("| chains per thread | fp52 (FP64 pipe) | fp.cuh (IMAD) | fp52 speed-up | fp52 results equal to "
           "the host's |\n"
           "|---|---|---|---|---|\n");
    int bad = run<1>(d52, o52, d32, o32, h52, iters) + run<2>(d52, o52, d32, o32, h52, iters) +
              run<4>(d52, o52, d32, o32, h52, iters);
    cudaFree(d52);
    cudaFree(o52);
    cudaFree(d32);
    cudaFree(o32);
    free(h52);
    free(h32);
    printf("\nfp52_rate: %s\n", bad ? "FAILED (device and host fp52 products differ)" : "ok");
    return bad ? 1 : 0;
}
