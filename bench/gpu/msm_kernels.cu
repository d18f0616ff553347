/*
 * msm_kernels.cu — rates of the MSM's bucket-accumulation and bucket-reduction
 * kernels in isolation, on synthetic data shaped like one window of a uniform
 * 2^LG G1 MSM (B = 2^19 buckets of equal size, work items of T entries), so
 * that kernel variants can be compared without building the library. (The
 * library's k_items now walks fixed chunks of the sorted entries, which this
 * equal-bucket layout cannot show; its variants here are the per-bucket items
 * of the second session.)
 *
 * The points are random field elements, not curve points: the cost of a
 * mixed addition does not depend on the values (no branch is taken on data
 * except the rare identity/equal-x cases, which random data never hits).
 *
 *   nvcc -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -Iinclude -Isrc -Itests/gpu \
 *        bench/gpu/msm_kernels.cu -o msm_kernels && ./msm_kernels [LG]
 */
#include "bench_gpu.cuh"
#include "gpu/msm_impl.cuh"

/* One item's sum with one inlined mixed addition (sign applied by a select),
 * optionally loading the next entry's base before adding the current one. */
template <int NT, int MINB, bool PF>
__global__ void __launch_bounds__(NT, MINB) k_items_v(const g1_affine_t *__restrict__ bases,
                                                       const uint32_t *__restrict__ vals,
                                                       const uint32_t *__restrict__ offs,
                                                       const uint32_t *__restrict__ item_off, unsigned B,
                                                       unsigned T, g1_xyzz_t *items)
{
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= item_off[B + 1])
        return;
    unsigned b = key_of(t, item_off, B);
    uint32_t j = t - item_off[b];
    uint32_t lo = offs[b] + j * T, end = offs[b + 1];
    uint32_t hi = lo + T < end ? lo + T : end;
    g1_xyzz_t acc;
    ec_xyzz_set_identity(acc);
    if (PF) {
        uint32_t v = vals[lo];
        g1_affine_t p = bases[v & 0x7fffffffu];
        for (uint32_t e = lo; e < hi; e++) {
            uint32_t vn = e + 1 < hi ? vals[e + 1] : v;
            g1_affine_t pn = bases[vn & 0x7fffffffu];
            fp_t y = p.y, ny = f_neg(y);
            if (v >> 31)
                y = ny;
            if (!ec_affine_is_identity(p))
                ec_xyzz_madd(acc, p.x, y);
            p = pn;
            v = vn;
        }
    } else {
        for (uint32_t e = lo; e < hi; e++) {
            uint32_t v = vals[e];
            g1_affine_t p = bases[v & 0x7fffffffu];
            fp_t y = p.y, ny = f_neg(y);
            if (v >> 31)
                y = ny;
            if (!ec_affine_is_identity(p))
                ec_xyzz_madd(acc, p.x, y);
        }
    }
    items[t] = acc;
}

/* Random field elements below p (top word masked), and random signed indices below n. */
static __global__ void k_fill(g1_affine_t *bases, size_t n, uint32_t *vals, size_t m, unsigned lg_n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        uint32_t *w = (uint32_t *)&bases[i];
        for (int k = 0; k < 24; k++)
            w[k] = mix32(i * 24 + k + 1) & ((k % 12) == 11 ? 0x0fffffffu : 0xffffffffu);
    }
    if (i < m)
        vals[i] = (mix32(i ^ 0xabcdef12345ull) & ((1u << lg_n) - 1)) | (mix32(i + 77) & 0x80000000u);
}

/* offs[key] for keys 0..B+1 with B buckets of `per` entries each (key 0 empty); items of T entries. */
static __global__ void k_layout(uint32_t *offs, uint32_t *item_off, unsigned B, unsigned per, unsigned T)
{
    unsigned b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b > B + 1)
        return;
    offs[b] = b == 0 ? 0 : (b - 1) * per;
    unsigned ipb = (per + T - 1) / T;
    item_off[b] = b == 0 ? 0 : (b - 1) * ipb;
}

typedef void (*items_fn)(const g1_affine_t *, const uint32_t *, const uint32_t *, const uint32_t *, unsigned,
                         unsigned, g1_xyzz_t *);

struct variant {
    const char *name;
    items_fn fn;
    int nt;
};

int main(int argc, char **argv)
{
    unsigned lg = argc > 1 ? (unsigned)atoi(argv[1]) : 26;
    unsigned c = 20, B = 1u << (c - 1);
    size_t n = (size_t)1 << lg; /* bases */
    size_t m = (size_t)1 << lg; /* entries in one window */
    unsigned per = (unsigned)(m / B), T = msm_item_len(m);
    size_t n_items = (size_t)B * ((per + T - 1) / T);
    g1_affine_t *bases;
    uint32_t *vals, *offs, *item_off;
    g1_xyzz_t *items, *buckets;
    CUDA_OK(cudaMalloc(&bases, n * sizeof *bases));
    CUDA_OK(cudaMalloc(&vals, m * 4));
    CUDA_OK(cudaMalloc(&offs, (B + 2) * 4));
    CUDA_OK(cudaMalloc(&item_off, (B + 2) * 4));
    CUDA_OK(cudaMalloc(&items, n_items * sizeof *items));
    CUDA_OK(cudaMalloc(&buckets, (size_t)B * sizeof *buckets));
    k_fill<<<(unsigned)((n > m ? n : m) + 255) / 256, 256>>>(bases, n, vals, m, lg);
    k_layout<<<(B + 2 + 255) / 256, 256>>>(offs, item_off, B, per, T);
    CUDA_OK(cudaDeviceSynchronize());
    printf("one window: %zu entries over %u buckets (%u each), T = %u, %zu items\n", m, B, per, T, n_items);

    variant vs[] = {
        {"merged (256,1)", k_items_v<256, 1, false>, 256},
        {"merged (256,2)", k_items_v<256, 2, false>, 256},
        {"merged+prefetch (256,1)", k_items_v<256, 1, true>, 256},
        {"merged+prefetch (256,2)", k_items_v<256, 2, true>, 256},
        {"merged (128,4)", k_items_v<128, 4, false>, 128},
        {"merged (128,3)", k_items_v<128, 3, false>, 128},
    };
    cudaEvent_t e0, e1;
    CUDA_OK(cudaEventCreate(&e0));
    CUDA_OK(cudaEventCreate(&e1));
    for (size_t v = 0; v < sizeof vs / sizeof vs[0]; v++) {
        cudaFuncAttributes fa;
        CUDA_OK(cudaFuncGetAttributes(&fa, (const void *)vs[v].fn));
        int per_sm = 0;
        CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, (const void *)vs[v].fn, vs[v].nt, 0));
        float best = 1e30f;
        for (int r = 0; r < 3; r++) {
            CUDA_OK(cudaEventRecord(e0));
            vs[v].fn<<<(unsigned)((n_items + vs[v].nt - 1) / vs[v].nt), vs[v].nt>>>(bases, vals, offs, item_off, B,
                                                                                      T, items);
            CUDA_OK(cudaEventRecord(e1));
            CUDA_OK(cudaEventSynchronize(e1));
            CUDA_OK(cudaGetLastError());
            float ms;
            CUDA_OK(cudaEventElapsedTime(&ms, e0, e1));
            if (ms < best)
                best = ms;
        }
        printf("| %-26s | %3d regs | %4zu B local | %2d warps/SM | %8.2f ms | %6.3f G madd/s |\n", vs[v].name,
               fa.numRegs, (size_t)fa.localSizeBytes, per_sm * vs[v].nt / 32, best, m / (best * 1e6));
    }
    /* bucket reduction of one window, as the library launches it (groups of 64) */
    {
        unsigned mm = MSM_GROUP_M, G = (B + mm - 1) / mm;
        g1_xyzz_t *red;
        CUDA_OK(cudaMalloc(&red, (size_t)G * sizeof *red));
        CUDA_OK(cudaMemcpy(buckets, items, (size_t)B * sizeof *buckets, cudaMemcpyDeviceToDevice));
        float best = 1e30f;
        for (int r = 0; r < 3; r++) {
            CUDA_OK(cudaEventRecord(e0));
            k_bucket_groups<fp_t><<<(G + 255) / 256, 256>>>(buckets, B, mm, 1, red);
            CUDA_OK(cudaEventRecord(e1));
            CUDA_OK(cudaEventSynchronize(e1));
            float ms;
            CUDA_OK(cudaEventElapsedTime(&ms, e0, e1));
            if (ms < best)
                best = ms;
        }
        printf("| bucket groups m=%u (%u thr) | %8.2f ms per window |\n", mm, G, best);
        for (unsigned mm2 = 16; mm2 >= 4; mm2 /= 2) {
            unsigned G2 = (B + mm2 - 1) / mm2;
            g1_xyzz_t *red2;
            CUDA_OK(cudaMalloc(&red2, (size_t)G2 * sizeof *red2));
            best = 1e30f;
            for (int r = 0; r < 3; r++) {
                CUDA_OK(cudaEventRecord(e0));
                k_bucket_groups<fp_t><<<(G2 + 255) / 256, 256>>>(buckets, B, mm2, 1, red2);
                CUDA_OK(cudaEventRecord(e1));
                CUDA_OK(cudaEventSynchronize(e1));
                float ms;
                CUDA_OK(cudaEventElapsedTime(&ms, e0, e1));
                if (ms < best)
                    best = ms;
            }
            printf("| bucket groups m=%u (%u thr) | %8.2f ms per window |\n", mm2, G2, best);
            CUDA_OK(cudaFree(red2));
        }
        CUDA_OK(cudaFree(red));
    }
    printf("msm_kernels: done\n");
    return 0;
}
