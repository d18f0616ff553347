/*
 * fp52_rate.cu — step 2 of the FP64 route (docs/design/009, tenth session): the rates of the FMA-based
 * Montgomery products of src/arith/fp52.h (52-bit limbs, partial products on the FP64 pipe) against
 * fp.cuh's and fr.cuh's products (32-bit limbs, IMAD carry chains: what the MSM and the NTT use), for
 * Fp and Fr, each with 1, 2 and 4 independent chains per thread (the rate at the shape a kernel uses is what
 * decides; slot counts do not predict it: note 009, fifth session). Every fp52 result of the first threads is
 * compared with the same chain run on the host (rounding toward zero set there, __fma_rz on the device), and
 * the host product is checked against GMP by tests/test_fp52_gmp.c.
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
#define CHECKED 64 /* threads whose 52-bit-limb chains the host repeats */

/* The products under test, one chain step each; the 52-bit ones also run on the host. */
struct fp52_mul {
    typedef fp52_t T;
    static __host__ __device__ void step(fp52_t &x, const fp52_t &y) { fp52_mont_mul(&x, &x, &y); }
};
struct fr52_mul {
    typedef fr52_t T;
    static __host__ __device__ void step(fr52_t &x, const fr52_t &y) { fr52_mont_mul(&x, &x, &y); }
};
struct fp32_mul {
    typedef fp_t T;
    static __device__ void step(fp_t &x, const fp_t &y) { x = fp_mul(x, y); }
};
struct fr32_mul {
    typedef fr_t T;
    static __device__ void step(fr_t &x, const fr_t &y) { x = fr_mul(x, y); }
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

/* CA chains of A and CB chains of B per thread, their steps interleaved in one loop body: both products'
 * pipes at once (A: the FP64 pipe and the integer adders; B: the IMAD pipe). Chain c of A starts as
 * k_chain's, chain c of B likewise, so their results equal k_chain's. */
template <class A, class B, int CA, int CB>
__global__ void __launch_bounds__(THREADS)
    k_mix(const typename A::T *ina, typename A::T *outa, const typename B::T *inb, typename B::T *outb, int iters)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x, n = (size_t)gridDim.x * blockDim.x;
    typename A::T xa[CA], ya = ina[t];
    typename B::T xb[CB], yb = inb[t];
    for (int c = 0; c < CA; c++)
        xa[c] = ina[(t + 1 + c) % n];
    for (int c = 0; c < CB; c++)
        xb[c] = inb[(t + 1 + c) % n];
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int c = 0; c < (CA > CB ? CA : CB); c++) {
            if (c < CA)
                A::step(xa[c], ya);
            if (c < CB)
                B::step(xb[c], yb);
        }
    }
    for (int c = 0; c < CA; c++)
        outa[t * CA + c] = xa[c];
    for (int c = 0; c < CB; c++)
        outb[t * CB + c] = xb[c];
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

/* Inputs below the modulus: random limbs, the top one masked below the modulus' top limb. */
template <class T> static void fill(T *x, size_t n, int words, int bits, uint64_t top_mask)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t *w64 = (uint64_t *)x[i].v;
        uint32_t *w32 = (uint32_t *)x[i].v;
        for (int k = 0; k < words; k++) {
            uint64_t v = next64() & (k == words - 1 ? top_mask : (bits == 64 ? FP52_MASK : 0xffffffffu));
            if (bits == 64)
                w64[k] = v;
            else
                w32[k] = (uint32_t)v;
        }
    }
}

/* One field: A (52-bit limbs) against B (32-bit limbs) at CH chains; the first threads' A chains are
 * repeated on the host. Returns the number of chains that differ. */
template <class A, class B, int CH>
static int run(const char *name, const typename A::T *ha, const typename A::T *da, typename A::T *oa,
               const typename B::T *db, typename B::T *ob, int iters)
{
    typedef typename A::T TA;
    size_t n = (size_t)BLOCKS * THREADS;
    float msa = time_kernel([&] { k_chain<A, CH><<<BLOCKS, THREADS>>>(da, oa, iters); });
    float msb = time_kernel([&] { k_chain<B, CH><<<BLOCKS, THREADS>>>(db, ob, iters); });
    double prods = (double)n * CH * iters;
    TA *got = (TA *)malloc(CHECKED * CH * sizeof *got);
    CUDA_OK(cudaMemcpy(got, oa, CHECKED * CH * sizeof *got, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (size_t t = 0; t < CHECKED; t++)
        for (int c = 0; c < CH; c++) {
            TA x = ha[(t + 1 + c) % n], y = ha[t];
            for (int i = 0; i < iters; i++)
                A::step(x, y);
            bad += memcmp(&x, &got[t * CH + c], sizeof x) != 0;
        }
    free(got);
    printf("| %s | %d | %.2f | %.2f | %.2f | %d / %d |\n", name, CH, prods / (msa * 1e6), prods / (msb * 1e6),
           msb / msa, CHECKED * CH - bad, CHECKED * CH);
    fflush(stdout);
    return bad;
}

/* Both products in one thread (k_mix) against the IMAD product alone at as many chains (k_chain), in
 * products of either kind a second; the mixed chains must end where the single-kind chains of the same
 * inputs end. Returns the number of chains that differ. */
template <class A, class B, int CA, int CB>
static int mix(const char *name, const typename A::T *da, typename A::T *oa, const typename B::T *db,
               typename B::T *ob, int iters)
{
    typedef typename A::T TA;
    typedef typename B::T TB;
    size_t n = (size_t)BLOCKS * THREADS;
    TA *ma;
    TB *mb;
    CUDA_OK(cudaMalloc(&ma, CA * n * sizeof *ma));
    CUDA_OK(cudaMalloc(&mb, CB * n * sizeof *mb));
    float msm = time_kernel([&] { k_mix<A, B, CA, CB><<<BLOCKS, THREADS>>>(da, ma, db, mb, iters); });
    float msb = time_kernel([&] { k_chain<B, CA + CB><<<BLOCKS, THREADS>>>(db, ob, iters); });
    float msa = time_kernel([&] { k_chain<A, CA><<<BLOCKS, THREADS>>>(da, oa, iters); });
    /* the reference chains: A's from k_chain<A, CA> (just run, into oa), B's from k_chain<B, CB> */
    TA *ga = (TA *)malloc(CHECKED * CA * sizeof *ga), *wa = (TA *)malloc(CHECKED * CA * sizeof *wa);
    TB *gb = (TB *)malloc(CHECKED * CB * sizeof *gb), *wb = (TB *)malloc(CHECKED * CB * sizeof *wb);
    CUDA_OK(cudaMemcpy(ga, ma, CHECKED * CA * sizeof *ga, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(wa, oa, CHECKED * CA * sizeof *wa, cudaMemcpyDeviceToHost));
    k_chain<B, CB><<<BLOCKS, THREADS>>>(db, ob, iters);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaMemcpy(gb, mb, CHECKED * CB * sizeof *gb, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(wb, ob, CHECKED * CB * sizeof *wb, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (size_t i = 0; i < CHECKED * CA; i++)
        bad += memcmp(&ga[i], &wa[i], sizeof *ga) != 0;
    for (size_t i = 0; i < CHECKED * CB; i++)
        bad += memcmp(&gb[i], &wb[i], sizeof *gb) != 0;
    double prods = (double)n * (CA + CB) * iters;
    printf("| %s | %d + %d | %.2f | %.2f | %.2f | %.2f | %d / %d |\n", name, CA, CB, prods / (msm * 1e6),
           prods / (msb * 1e6), msb / msm, (double)n * CA * iters / (msa * 1e6), CHECKED * (CA + CB) - bad,
           CHECKED * (CA + CB));
    fflush(stdout);
    free(ga), free(wa), free(gb), free(wb);
    cudaFree(ma);
    cudaFree(mb);
    return bad;
}

template <class A, class B>
static int field(const char *name, int words52, uint64_t top52, int words32, uint64_t top32, int iters, bool mixed)
{
    typedef typename A::T TA;
    typedef typename B::T TB;
    size_t n = (size_t)BLOCKS * THREADS;
    TA *ha = (TA *)malloc(n * sizeof *ha);
    TB *hb = (TB *)malloc(n * sizeof *hb);
    fill(ha, n, words52, 64, top52);
    fill(hb, n, words32, 32, top32);
    TA *da, *oa;
    TB *db, *ob;
    CUDA_OK(cudaMalloc(&da, n * sizeof *da));
    CUDA_OK(cudaMalloc(&oa, 4 * n * sizeof *oa));
    CUDA_OK(cudaMalloc(&db, n * sizeof *db));
    CUDA_OK(cudaMalloc(&ob, 4 * n * sizeof *ob));
    CUDA_OK(cudaMemcpy(da, ha, n * sizeof *ha, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(db, hb, n * sizeof *hb, cudaMemcpyHostToDevice));
    int bad = mixed ? mix<A, B, 1, 1>(name, da, oa, db, ob, iters) + mix<A, B, 1, 2>(name, da, oa, db, ob, iters) +
                          mix<A, B, 2, 2>(name, da, oa, db, ob, iters)
                    : run<A, B, 1>(name, ha, da, oa, db, ob, iters) + run<A, B, 2>(name, ha, da, oa, db, ob, iters) +
                          run<A, B, 4>(name, ha, da, oa, db, ob, iters);
    cudaFree(da);
    cudaFree(oa);
    cudaFree(db);
    cudaFree(ob);
    free(ha);
    free(hb);
    return bad;
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 2000;
    if (iters < 1) {
        fprintf(stderr, "usage: fp52_rate [ITERS >= 1]\n");
        return 2;
    }
    printf("Montgomery products, %d threads, %d per chain; G products/s (best of 3 after a warm-up)\n\n",
           BLOCKS * THREADS, iters);
    printf("| field | chains per thread | 52-bit limbs (FP64 pipe) | 32-bit limbs (IMAD) | speed-up | "
           "chains equal to the host's |\n|---|---|---|---|---|---|\n");
    /* top limbs below the moduli's: Fp 0x1a011 (52-bit) / 0x1a0111ea (32-bit), Fr 0x73eda753299d /
     * 0x73eda753 */
    int bad = field<fp52_mul, fp32_mul>("Fp", FP52_LIMBS, 0xffff, 12, 0x0fffffff, iters, false) +
              field<fr52_mul, fr32_mul>("Fr", FR52_LIMBS, 0x0fffffffffffULL, 8, 0x0fffffff, iters, false);
    printf("\nBoth in one thread: CA chains of the 52-bit product beside CB of the IMAD product, interleaved;"
           " G products/s of either kind,\nagainst the IMAD product alone at CA + CB chains (and the 52-bit"
           " alone at CA)\n\n| field | 52-bit + IMAD chains | mixed | IMAD alone | speed-up | 52-bit alone |"
           " chains equal to the single-kind runs |\n|---|---|---|---|---|---|---|\n");
    bad += field<fp52_mul, fp32_mul>("Fp", FP52_LIMBS, 0xffff, 12, 0x0fffffff, iters, true) +
           field<fr52_mul, fr32_mul>("Fr", FR52_LIMBS, 0x0fffffffffffULL, 8, 0x0fffffff, iters, true);
    printf("\nfp52_rate: %s\n", bad ? "FAILED (device and host products differ)" : "ok");
    return bad ? 1 : 0;
}
