/*
 * coset_key.cu — the G1 transforms of a key's conversion to the coset form on the GPU (cuzk/gpu_setup.h,
 * docs/design/022): out_j = sum_{t < n-1} root^(jt) c step^t src_t for j < n, the contract of the CPU
 * transform in src/groth16/coset_key.c, and the same affine points.
 *
 * The n points live on the device in XYZZ form (192 bytes each: 25.8 GB at 2^27). The host computes the
 * scalars (c step^t chunk by chunk, and the twiddles root^e for e < n/2, uploaded once) on its pool, split
 * by the curve's endomorphism into two 128-bit halves in non-adjacent form (scal_t). A kernel multiplies
 * each source point by its scalar as the chunk arrives; then each of the lg stages of decimation in
 * frequency is one kernel, a thread a butterfly: (a + b, (a - b) root^e), the product by a joint
 * double-and-add over the two halves (128 doublings, about 86 additions) with the point in registers. Where a
 * stage has at least 32 blocks, a warp's 32 butterflies take the same offset in 32 blocks, so they share the
 * twiddle and the double-and-add's branches are uniform (the first five stages of 2^27 have fewer blocks, and
 * their warps diverge where the bits differ). The last kernel reads the bit-reversed result in natural
 * order chunk by chunk as Jacobian points, which the host pool turns affine (one inversion a block).
 *
 * A conversion runs once per key, so buffers are allocated and freed per call, on a stream of the call's
 * own; nothing here is on a proving path.
 */
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/gpu_setup.h"
#define GPU_MODULE "gpu coset key"
#include "gpu/cuda_check.cuh"
#include "gpu/ec.cuh"

#define CK_CHUNK ((size_t)1 << 20) /* points per host chunk (CUZK_GPU_SETUP_CHUNK: fewer, for tests) */
#define CK_BLOCK 4096              /* scalars or points per host task */
#define CK_THREADS 128

/*
 * A scalar k < r as the multiplication takes it (recoded on the host, scal_recode): split by G1's
 * endomorphism (cuzk_g1_glv_recode, src/arith/g1_glv.c), kP = k1 P + k2 psi(P) with psi(x, y) =
 * (beta x, -y) and both halves of 128 bits in non-adjacent form: 128 doublings instead of 255.
 * CUZK_GPU_COSET_GLV=0 makes the kernels run plain double-and-add over the canonical scalar v instead,
 * for comparison.
 */
typedef struct {
    uint32_t pos[2][5], neg[2][5]; /* digits 0 .. 159 of k1 (h = 0) and k2 (h = 1) */
    uint64_t v[4];                 /* canonical, little-endian */
} scal_t;

/* acc = k·p (beta: psi's cube root of unity, Montgomery form). */
template <bool GLV>
static __device__ __forceinline__ void mul_xyzz(g1_xyzz_t &acc, const g1_xyzz_t &p, const scal_t &k,
                                                fp_t beta)
{
    ec_xyzz_set_identity(acc);
    if (!GLV) {
        int top = 255;
        while (top >= 0 && !((k.v[top >> 6] >> (top & 63)) & 1))
            top--;
        for (int i = top; i >= 0; i--) {
            ec_xyzz_dbl(acc);
            if ((k.v[i >> 6] >> (i & 63)) & 1)
                ec_xyzz_add(acc, p);
        }
        return;
    }
    int top = 159;
    while (top >= 0 && !((k.pos[0][top >> 5] | k.neg[0][top >> 5] | k.pos[1][top >> 5] | k.neg[1][top >> 5]) &
                         (1u << (top & 31))))
        top--;
    for (int i = top; i >= 0; i--) {
        ec_xyzz_dbl(acc);
        uint32_t m = 1u << (i & 31);
        int w = i >> 5;
        for (int h = 0; h < 2; h++) { /* digit i of k1, then of k2: one addition in the loop's code */
            bool pos = k.pos[h][w] & m, neg = k.neg[h][w] & m;
            if (!pos && !neg)
                continue;
            /* p or -p; for k2, psi(p) = (beta X, -Y, ZZ, ZZZ) or its negation */
            g1_xyzz_t q = p;
            if (h)
                q.X = fp_mul(beta, p.X);
            if (h ? pos : neg)
                q.Y = fp_neg(p.Y);
            ec_xyzz_add(acc, q);
        }
    }
}

template <bool GLV>
__global__ void __launch_bounds__(CK_THREADS)
    k_scale(g1_xyzz_t *x, const g1_affine_t *__restrict__ src, const scal_t *__restrict__ k, size_t lo,
            size_t cnt, size_t n, fp_t beta)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= cnt)
        return;
    g1_xyzz_t p, r;
    ec_xyzz_set_identity(p);
    if (lo + i < n - 1)
        ec_xyzz_add_affine(p, src[i]);
    mul_xyzz<GLV>(r, p, k[i], beta);
    x[lo + i] = r;
}

/* One decimation-in-frequency stage of half-size 2^lgh over n = 2^lg points. */
template <bool GLV>
__global__ void __launch_bounds__(CK_THREADS)
    k_stage(g1_xyzz_t *x, const scal_t *__restrict__ tw, unsigned lg, unsigned lgh, fp_t beta)
{
    size_t q = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= ((size_t)1 << (lg - 1)))
        return;
    unsigned lgnb = lg - 1 - lgh; /* blocks of 2H: 2^lgnb */
    size_t u, blk;
    if (lgnb >= 5) { /* the warp shares u (and so the twiddle) across 32 blocks */
        blk = q & (((size_t)1 << lgnb) - 1);
        u = q >> lgnb;
    } else {
        u = q & (((size_t)1 << lgh) - 1);
        blk = q >> lgh;
    }
    size_t i = (blk << (lgh + 1)) + u, j = i + ((size_t)1 << lgh);
    g1_xyzz_t a = x[i], b = x[j], s = a, d = a;
    ec_xyzz_add(s, b);
    ec_xyzz_add(d, ec_xyzz_neg(b));
    x[i] = s;
    if (u) {
        g1_xyzz_t r;
        mul_xyzz<GLV>(r, d, tw[u << lgnb], beta);
        x[j] = r;
    } else {
        x[j] = d;
    }
}

/* out[i] = x[rev(lo + i)] as a Jacobian point, i < cnt. */
__global__ void __launch_bounds__(CK_THREADS)
    k_out(const g1_xyzz_t *__restrict__ x, g1_jac_t *out, size_t lo, size_t cnt, unsigned lg)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= cnt)
        return;
    unsigned p = (unsigned)(lo + i);
    unsigned r = lg ? __brev(p) >> (32 - lg) : 0;
    g1_jac_t o;
    ec_xyzz_to_jac(o, x[r]);
    out[i] = o;
}

/* ---- host ---------------------------------------------------------------------------------------- */

/* k (canonical, < r) recoded for the kernels: both forms (cuzk_g1_glv_recode's halves, and k itself). */
static void scal_recode(scal_t *out, const uint64_t k[4])
{
    cuzk_g1_glv_recode(out->pos, out->neg, k);
    memcpy(out->v, k, sizeof out->v);
}

typedef struct {
    scal_t *out;
    size_t lo, cnt;
    cuzk_fr c, base; /* out[i] = c base^(lo + i), canonical */
    const cuzk_g1 *jac;
    cuzk_g1_affine *aff;
    cuzk_fp *scratch; /* CK_BLOCK a worker */
} ck_host;

static void powers_task(void *arg, size_t task, int worker)
{
    (void)worker;
    ck_host *h = (ck_host *)arg;
    size_t a = task * CK_BLOCK, b = a + CK_BLOCK < h->cnt ? a + CK_BLOCK : h->cnt;
    uint64_t e = h->lo + a;
    cuzk_fr s;
    cuzk_fr_pow(&s, &h->base, &e, 1);
    cuzk_fr_mul(&s, &s, &h->c);
    for (size_t i = a; i < b; i++) {
        uint64_t k[4];
        cuzk_fr_to_canonical(k, &s);
        scal_recode(&h->out[i], k);
        cuzk_fr_mul(&s, &s, &h->base);
    }
}

static void affine_task(void *arg, size_t task, int worker)
{
    ck_host *h = (ck_host *)arg;
    size_t a = task * CK_BLOCK, cnt = h->cnt - a < CK_BLOCK ? h->cnt - a : CK_BLOCK;
    cuzk_g1_batch_to_affine(h->aff + a, h->jac + a, cnt, h->scratch + (size_t)worker * CK_BLOCK);
}

static size_t ck_chunk(void)
{
    const char *s = getenv("CUZK_GPU_SETUP_CHUNK");
    unsigned long long v = s && *s ? strtoull(s, NULL, 10) : 0;
    return v >= 1 && v < CK_CHUNK ? (size_t)v : CK_CHUNK;
}

static unsigned grid(size_t n)
{
    return (unsigned)((n + CK_THREADS - 1) / CK_THREADS);
}

#define CUG(call, what)                                                                                      \
    do {                                                                                                     \
        cudaError_t e_ = (call);                                                                             \
        if (e_ != cudaSuccess) {                                                                             \
            rc = cuda_fail(err, errlen, what, e_);                                                           \
            goto out;                                                                                        \
        }                                                                                                    \
    } while (0)

extern "C" int cuzk_gpu_g1_transform(cuzk_g1_affine *out, const cuzk_g1_affine *src, size_t n,
                                     const cuzk_fr *c, const cuzk_fr *step, const cuzk_fr *root,
                                     cuzk_pool *pool, char *err, size_t errlen)
{
    unsigned lg = 0;
    while (((size_t)1 << lg) < n)
        lg++;
    if (!out || !c || !step || !root || n == 0 || ((size_t)1 << lg) != n || lg > 28 || (n > 1 && !src))
        return cuzk_fail(err, errlen, CUZK_EINVAL,
                         "gpu coset key: a transform needs n a power of two up to "
                         "2^28 (got %zu) and its points, scalars and output",
                         n);
    size_t chunk = n < ck_chunk() ? n : ck_chunk(), half = n / 2;
    int nw = cuzk_pool_size(pool) > 0 ? cuzk_pool_size(pool) : 1;
    int rc = CUZK_OK;
    cudaStream_t st = NULL;
    g1_xyzz_t *d_x = NULL;
    scal_t *d_tw = NULL, *d_k = NULL;
    g1_affine_t *d_src = NULL;
    g1_jac_t *d_jac = NULL;
    scal_t *h_k = (scal_t *)malloc(chunk * sizeof *h_k);
    cuzk_g1 *h_jac = (cuzk_g1 *)malloc(chunk * sizeof *h_jac);
    cuzk_fp *scratch = (cuzk_fp *)malloc((size_t)nw * CK_BLOCK * sizeof *scratch);
    ck_host h;
    memset(&h, 0, sizeof h);
    fp_t beta;
    {
        cuzk_fp b;
        cuzk_fp_from_canonical(&b, CUZK_G1_GLV_BETA);
        memcpy(&beta, &b, sizeof beta);
    }
    const char *glv_env = getenv("CUZK_GPU_COSET_GLV");
    bool glv = !(glv_env && !strcmp(glv_env, "0"));
    if (!h_k || !h_jac || !scratch) {
        rc =
            cuzk_fail(err, errlen, CUZK_ENOMEM, "gpu coset key: out of host memory for chunks of %zu", chunk);
        goto out;
    }
    CUG(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), "cudaStreamCreate");
    CUG(cudaMalloc(&d_x, n * sizeof *d_x), "cudaMalloc (the points)");
    CUG(cudaMalloc(&d_tw, (half ? half : 1) * sizeof *d_tw), "cudaMalloc (the twiddles)");
    CUG(cudaMalloc(&d_k, chunk * sizeof *d_k), "cudaMalloc (scalars)");
    CUG(cudaMalloc(&d_src, chunk * sizeof *d_src), "cudaMalloc (source points)");
    CUG(cudaMalloc(&d_jac, chunk * sizeof *d_jac), "cudaMalloc (results)");

    h.out = h_k, h.scratch = scratch;
    h.c = CUZK_FR_ONE, h.base = *root;
    for (size_t lo = 0; lo < half; lo += chunk) { /* twiddles root^e */
        h.lo = lo, h.cnt = half - lo < chunk ? half - lo : chunk;
        cuzk_pool_run(pool, (h.cnt + CK_BLOCK - 1) / CK_BLOCK, powers_task, &h);
        CUG(cudaMemcpyAsync(d_tw + lo, h_k, h.cnt * sizeof *h_k, cudaMemcpyHostToDevice, st), "twiddles up");
        CUG(cudaStreamSynchronize(st), "twiddles up");
    }
    h.c = *c, h.base = *step;
    for (size_t lo = 0; lo < n; lo += chunk) { /* x_t = c step^t src_t */
        h.lo = lo, h.cnt = n - lo < chunk ? n - lo : chunk;
        cuzk_pool_run(pool, (h.cnt + CK_BLOCK - 1) / CK_BLOCK, powers_task, &h);
        size_t have = lo + h.cnt < n - 1 ? h.cnt : n - 1 - lo; /* source points in the chunk */
        CUG(cudaMemcpyAsync(d_k, h_k, h.cnt * sizeof *h_k, cudaMemcpyHostToDevice, st), "scalars up");
        if (have)
            CUG(cudaMemcpyAsync(d_src, src + lo, have * sizeof *src, cudaMemcpyHostToDevice, st),
                "points up");
        if (glv)
            k_scale<true><<<grid(h.cnt), CK_THREADS, 0, st>>>(d_x, d_src, d_k, lo, h.cnt, n, beta);
        else
            k_scale<false><<<grid(h.cnt), CK_THREADS, 0, st>>>(d_x, d_src, d_k, lo, h.cnt, n, beta);
        CUG(cudaGetLastError(), "k_scale launch");
        CUG(cudaStreamSynchronize(st), "k_scale");
    }
    for (unsigned lgh = lg; lgh-- > 0;) {
        if (glv)
            k_stage<true><<<grid(half), CK_THREADS, 0, st>>>(d_x, d_tw, lg, lgh, beta);
        else
            k_stage<false><<<grid(half), CK_THREADS, 0, st>>>(d_x, d_tw, lg, lgh, beta);
        CUG(cudaGetLastError(), "k_stage launch");
    }
    h.jac = h_jac;
    for (size_t lo = 0; lo < n; lo += chunk) {
        h.lo = lo, h.cnt = n - lo < chunk ? n - lo : chunk;
        k_out<<<grid(h.cnt), CK_THREADS, 0, st>>>(d_x, d_jac, lo, h.cnt, lg);
        CUG(cudaGetLastError(), "k_out launch");
        CUG(cudaMemcpyAsync(h_jac, d_jac, h.cnt * sizeof *h_jac, cudaMemcpyDeviceToHost, st), "results down");
        CUG(cudaStreamSynchronize(st), "the transform");
        h.aff = out + lo;
        cuzk_pool_run(pool, (h.cnt + CK_BLOCK - 1) / CK_BLOCK, affine_task, &h);
    }
out:
    if (st)
        cudaStreamSynchronize(st);
    cudaFree(d_x);
    cudaFree(d_tw);
    cudaFree(d_k);
    cudaFree(d_src);
    cudaFree(d_jac);
    if (st)
        cudaStreamDestroy(st);
    free(h_k);
    free(h_jac);
    free(scratch);
    return rc;
}

/* The accelerator of one device: ctx points at its number, made current on whichever thread the conversion
 * calls from (it runs h''s transform on a thread of its own). */
static int gpu_transform(const void *ctx, cuzk_g1_affine *out, const cuzk_g1_affine *src, size_t n,
                         const cuzk_fr *c, const cuzk_fr *step, const cuzk_fr *root, cuzk_pool *pool,
                         char *err, size_t errlen)
{
    int dev = *(const int *)ctx;
    cudaError_t e = cudaSetDevice(dev);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return cuzk_fail(err, errlen, CUZK_EIO, "gpu coset key: device %d: cudaSetDevice failed: %s", dev,
                         cudaGetErrorString(e));
    }
    return cuzk_gpu_g1_transform(out, src, n, c, step, root, pool, err, errlen);
}

#define CK_MAX_DEVICES 64

extern "C" const cuzk_coset_accel *cuzk_gpu_coset_accel(void)
{
    static const struct accels { /* one a device, made once (thread-safe) */
        int dev[CK_MAX_DEVICES];
        cuzk_coset_accel a[CK_MAX_DEVICES];
        accels()
        {
            for (int d = 0; d < CK_MAX_DEVICES; d++) {
                dev[d] = d;
                a[d] = cuzk_coset_accel{"gpu", &dev[d], gpu_transform};
            }
        }
    } all;
    int d = 0;
    if (cudaGetDevice(&d) != cudaSuccess || d < 0 || d >= CK_MAX_DEVICES) {
        cudaGetLastError();
        d = 0;
    }
    return &all.a[d];
}
