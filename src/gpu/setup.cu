/*
 * setup.cu — fixed-base scalar multiplication on the GPU for the setup
 * (cuzk/gpu_setup.h).
 *
 * Table: for the W signed c-bit windows of a scalar (msm_windows(c)), row j
 * holds d·2^(cj)·G for d = 1 .. 2^(c-1), built on the host (one addition per
 * entry, one batch inversion) and uploaded once per call. G1 uses c = 12
 * (22 rows of 2048 points, 4.1 MiB), G2 c = 10 (26 rows of 512, 2.5 MiB):
 * both stay in L2, and a scalar costs W mixed additions.
 *
 * Kernel: one thread per scalar: out of Montgomery form, signed digit of
 * each window (the MSM's recoding, msm_impl.cuh), y or -y of the row's entry
 * selected by the sign (one addition in the code, not two: see
 * docs/design/014), XYZZ accumulator, Jacobian out.
 *
 * Host: chunks of FB_CHUNK scalars go up, Jacobian points come down into one
 * of two page-locked buffers, and the pool converts them to affine by blocks
 * (cuzk_*_batch_to_affine: one inversion per block; the identity becomes the
 * all-zero affine point, as on the CPU path) while the device multiplies and
 * copies down the next chunk. The scalars' upload from pageable memory waits
 * for the stream, so chunk i + 1 goes up once chunk i is down, and is then
 * multiplied and copied down beside the host's conversion of chunk i.
 * CUZK_GPU_SETUP_CHUNK (points) makes the chunks smaller, for tests.
 *
 * Several devices (cuzk_gpu_setup_accel_on): each segment of the key is cut
 * into one range a device, each range multiplied as above by a thread that
 * makes its device current; the host pool converts one range's chunk at a
 * time (its runs from different threads take turns).
 */
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/gpu.h"
#include "cuzk/gpu_setup.h"
#include "gpu/msm_impl.cuh"

#define FB_CHUNK ((size_t)1 << 22) /* points per chunk (CUZK_GPU_SETUP_CHUNK: fewer) */
/* A failed CUDA call: the status and message, then the common exit that frees everything. */
#define CUG(call, what)                                                                                      \
    do {                                                                                                     \
        cudaError_t e_ = (call);                                                                             \
        if (e_ != cudaSuccess) {                                                                             \
            cudaGetLastError();                                                                              \
            rc = cuzk_fail(err, errlen, cuda_code(e_), "gpu setup: %s failed: %s (%s)", what,                \
                           cudaGetErrorName(e_), cudaGetErrorString(e_));                                    \
            goto out;                                                                                        \
        }                                                                                                    \
    } while (0)
#define FB_BLOCK 4096 /* points per host affine-conversion task */

template <class F> struct fb_host;
template <> struct fb_host<fp_t> {
    typedef cuzk_g1 J;
    typedef cuzk_g1_affine A;
    typedef cuzk_fp FE;
    enum { C = 12 };
    static const A *gen() { return &CUZK_G1_GENERATOR; }
    static void from_affine(J *r, const A *a) { cuzk_g1_from_affine(r, a); }
    static void add(J *r, const J *a, const J *b) { cuzk_g1_add(r, a, b); }
    static void dbl(J *r, const J *a) { cuzk_g1_dbl(r, a); }
    static void batch(A *o, const J *i, size_t n, FE *s) { cuzk_g1_batch_to_affine(o, i, n, s); }
};
template <> struct fb_host<fp2_t> {
    typedef cuzk_g2 J;
    typedef cuzk_g2_affine A;
    typedef cuzk_fp2 FE;
    enum { C = 10 };
    static const A *gen() { return &CUZK_G2_GENERATOR; }
    static void from_affine(J *r, const A *a) { cuzk_g2_from_affine(r, a); }
    static void add(J *r, const J *a, const J *b) { cuzk_g2_add(r, a, b); }
    static void dbl(J *r, const J *a) { cuzk_g2_dbl(r, a); }
    static void batch(A *o, const J *i, size_t n, FE *s) { cuzk_g2_batch_to_affine(o, i, n, s); }
};

template <class F>
__global__ void __launch_bounds__(MSM_THREADS, items_min_blocks<F>::value)
    k_fixed_base(const ec_affine<F> *__restrict__ table, unsigned c, unsigned W, const fr_t *__restrict__ k,
                 size_t n, ec_jac<F> *out)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    fr_t raw1;
#pragma unroll
    for (int w = 0; w < 8; w++)
        raw1.v[w] = w == 0;
    fr_t a = fr_mul(fr_load(k + i), raw1); /* canonical */
    size_t nent = (size_t)1 << (c - 1);
    ec_xyzz<F> acc;
    ec_xyzz_set_identity(acc);
    for (unsigned w = 0; w < W; w++) {
        int32_t d = signed_digit(a.v, w, c);
        if (d == 0)
            continue;
        ec_affine<F> p = table[w * nent + (size_t)(d < 0 ? -d : d) - 1];
        F y = p.y, ny = f_neg(p.y);
        if (d < 0)
            y = ny;
        ec_xyzz_madd(acc, p.x, y);
    }
    ec_jac<F> r;
    ec_xyzz_to_jac(r, acc);
    out[i] = r;
}

template <class F> struct fb_conv_ctx {
    typedef fb_host<F> H;
    typename H::A *out;
    const typename H::J *in;
    size_t n;
    typename H::FE *scratch; /* FB_BLOCK per worker */
};

template <class F> static void fb_conv_task(void *arg, size_t task, int worker)
{
    fb_conv_ctx<F> *x = (fb_conv_ctx<F> *)arg;
    size_t lo = task * FB_BLOCK, cnt = x->n - lo < FB_BLOCK ? x->n - lo : FB_BLOCK;
    fb_host<F>::batch(x->out + lo, x->in + lo, cnt, x->scratch + (size_t)worker * FB_BLOCK);
}

/* Points per chunk: FB_CHUNK, or fewer from CUZK_GPU_SETUP_CHUNK (tests). */
static size_t fb_chunk(void)
{
    const char *s = getenv("CUZK_GPU_SETUP_CHUNK");
    unsigned long long v = s && *s ? strtoull(s, NULL, 10) : 0;
    return v >= 1 && v < FB_CHUNK ? (size_t)v : FB_CHUNK;
}

/* Chunk i of the n scalars k on st: up (from pageable memory: the stream is waited for first), multiplied,
 * its Jacobian points down into host, then `down` recorded. */
template <class F>
static cudaError_t fb_issue(const ec_affine<F> *table, unsigned c, unsigned W, const cuzk_fr *k, size_t n,
                            size_t chunk, size_t i, fr_t *d_k, ec_jac<F> *d_out, typename fb_host<F>::J *host,
                            cudaEvent_t down, cudaStream_t st)
{
    size_t lo = i * chunk, cnt = n - lo < chunk ? n - lo : chunk;
    cudaError_t e = cudaMemcpyAsync(d_k, k + lo, cnt * sizeof(fr_t), cudaMemcpyHostToDevice, st);
    if (e != cudaSuccess)
        return e;
    k_fixed_base<F><<<grid_for(cnt), MSM_THREADS, 0, st>>>(table, c, W, d_k, cnt, d_out);
    if ((e = cudaGetLastError()) != cudaSuccess)
        return e;
    if ((e = cudaMemcpyAsync(host, d_out, cnt * sizeof(typename fb_host<F>::J), cudaMemcpyDeviceToHost, st)) !=
        cudaSuccess)
        return e;
    return cudaEventRecord(down, st);
}

template <class F>
static int gpu_fixed_base(typename fb_host<F>::A *out, const cuzk_fr *k, size_t n, cuzk_pool *pool, char *err,
                          size_t errlen)
{
    typedef fb_host<F> H;
    typedef typename H::J J;
    typedef typename H::A A;
    if (n == 0)
        return CUZK_OK;
    if (!out || !k)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "gpu setup: missing scalars or output");
    const unsigned c = H::C, W = msm_windows(c);
    const size_t nent = (size_t)1 << (c - 1), chunk = n < fb_chunk() ? n : fb_chunk();
    int nthreads = cuzk_pool_size(pool);
    if (nthreads < 1)
        nthreads = 1;

    /* host table: row j = d·B_j for d = 1..nent, B_j = 2^(cj) G */
    J *tj = (J *)malloc((size_t)W * nent * sizeof(J));
    A *ta = (A *)malloc((size_t)W * nent * sizeof(A));
    J *hj[2] = {NULL, NULL};
    bool pinned[2] = {false, false};
    cudaStream_t st = NULL;
    cudaEvent_t down[2] = {NULL, NULL};
    typename H::FE *scr = (typename H::FE *)malloc((size_t)W * nent * sizeof(typename H::FE));
    ec_affine<F> *d_table = NULL;
    fr_t *d_k = NULL;
    ec_jac<F> *d_out = NULL;
    int rc = CUZK_OK;
    if (!tj || !ta || !scr) {
        rc = cuzk_fail(err, errlen, CUZK_ENOMEM, "gpu setup: out of memory for the table");
        goto out;
    }
    {
        J base;
        H::from_affine(&base, H::gen());
        for (unsigned j = 0; j < W; j++) {
            J *row = tj + (size_t)j * nent;
            row[0] = base;
            for (size_t d = 1; d < nent; d++)
                H::add(&row[d], &row[d - 1], &base);
            for (unsigned t = 0; t < c; t++)
                H::dbl(&base, &base);
        }
        H::batch(ta, tj, (size_t)W * nent, scr);
    }
    free(tj);
    tj = NULL;
    free(scr);
    scr = (typename H::FE *)malloc((size_t)nthreads * FB_BLOCK * sizeof(typename H::FE));
    if (!scr) {
        rc = cuzk_fail(err, errlen, CUZK_ENOMEM, "gpu setup: out of memory for a %zu-point chunk", chunk);
        goto out;
    }
    for (int b = 0; b < 2; b++) { /* page-locked when possible (the copy down is then asynchronous) */
        if (cudaMallocHost((void **)&hj[b], chunk * sizeof(J)) == cudaSuccess) {
            pinned[b] = true;
            continue;
        }
        cudaGetLastError();
        if (!(hj[b] = (J *)malloc(chunk * sizeof(J)))) {
            rc = cuzk_fail(err, errlen, CUZK_ENOMEM, "gpu setup: out of memory for a %zu-point chunk", chunk);
            goto out;
        }
    }
    CUG(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), "cudaStreamCreate");
    for (int b = 0; b < 2; b++)
        CUG(cudaEventCreateWithFlags(&down[b], cudaEventDisableTiming), "cudaEventCreate");
    CUG(cudaMalloc(&d_table, (size_t)W * nent * sizeof(A)), "cudaMalloc (table)");
    CUG(cudaMalloc(&d_k, chunk * sizeof(fr_t)), "cudaMalloc (scalars)");
    CUG(cudaMalloc(&d_out, chunk * sizeof(J)), "cudaMalloc (points)");
    /* on the kernels' stream: a non-blocking stream is not ordered after the legacy one */
    CUG(cudaMemcpyAsync(d_table, ta, (size_t)W * nent * sizeof(A), cudaMemcpyHostToDevice, st),
        "cudaMemcpyAsync (table)");
    CUG(fb_issue<F>(d_table, c, W, k, n, chunk, 0, d_k, d_out, hj[0], down[0], st), "chunk 0 (up, multiply, down)");
    for (size_t i = 0, nchunks = (n + chunk - 1) / chunk; i < nchunks; i++) {
        /* chunk i + 1 into the other buffer, whose points were converted in the previous round */
        if (i + 1 < nchunks)
            CUG(fb_issue<F>(d_table, c, W, k, n, chunk, i + 1, d_k, d_out, hj[(i + 1) & 1], down[(i + 1) & 1], st),
                "a chunk (up, multiply, down)");
        CUG(cudaEventSynchronize(down[i & 1]), "chunk down");
        size_t lo = i * chunk, cnt = n - lo < chunk ? n - lo : chunk;
        fb_conv_ctx<F> cx = {out + lo, hj[i & 1], cnt, scr};
        cuzk_pool_run(pool, (cnt + FB_BLOCK - 1) / FB_BLOCK, fb_conv_task<F>, &cx);
    }
out:
    if (st)
        cudaStreamSynchronize(st); /* nothing in flight reads or writes what is freed below */
    for (int b = 0; b < 2; b++) {
        if (down[b])
            cudaEventDestroy(down[b]);
        if (pinned[b])
            cudaFreeHost(hj[b]);
        else
            free(hj[b]);
    }
    if (st)
        cudaStreamDestroy(st);
    if (d_table)
        cudaFree(d_table);
    if (d_k)
        cudaFree(d_k);
    if (d_out)
        cudaFree(d_out);
    free(tj);
    free(ta);
    free(scr);
    return rc;
}

extern "C" int cuzk_gpu_g1_fixed_base_mul(cuzk_g1_affine *out, const cuzk_fr *k, size_t n, cuzk_pool *pool,
                                          char *err, size_t errlen)
{
    return gpu_fixed_base<fp_t>(out, k, n, pool, err, errlen);
}

extern "C" int cuzk_gpu_g2_fixed_base_mul(cuzk_g2_affine *out, const cuzk_fr *k, size_t n, cuzk_pool *pool,
                                          char *err, size_t errlen)
{
    return gpu_fixed_base<fp2_t>(out, k, n, pool, err, errlen);
}

/* ---- on several devices ------------------------------------------------------------------------------ */

/* One device's range of a split: its thread makes dev current (a thread's own setting) and multiplies. */
template <class F> struct fb_part {
    typename fb_host<F>::A *out;
    const cuzk_fr *k;
    size_t n;
    cuzk_pool *pool; /* shared: the pool runs one caller's conversion at a time */
    int dev;
    int rc;
    char err[256];
};

template <class F> static void *fb_part_main(void *arg)
{
    fb_part<F> *p = (fb_part<F> *)arg;
    cudaError_t e = cudaSetDevice(p->dev);
    if (e != cudaSuccess) {
        cudaGetLastError();
        p->rc = cuzk_fail(p->err, sizeof p->err, CUZK_EIO, "gpu setup: device %d: cudaSetDevice failed: %s",
                          p->dev, cudaGetErrorString(e));
        return NULL;
    }
    p->rc = gpu_fixed_base<F>(p->out, p->k, p->n, p->pool, p->err, sizeof p->err);
    return NULL;
}

/* out[i] = [k_i] G with n cut into d->n ranges, range j on device d->dev[j] by a thread of its own; the
 * first failing range's message is returned. */
template <class F>
static int fb_split(const cuzk_gpu_setup_devices *d, typename fb_host<F>::A *out, const cuzk_fr *k, size_t n,
                    cuzk_pool *pool, char *err, size_t errlen)
{
    if (!d || d->n <= 0)
        return gpu_fixed_base<F>(out, k, n, pool, err, errlen);
    if (d->n > CUZK_GPU_SETUP_MAX_DEVICES)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "gpu setup: %d ranges asked, at most %d", d->n,
                         CUZK_GPU_SETUP_MAX_DEVICES);
    int have = cuzk_gpu_device_count();
    for (int j = 0; j < d->n; j++)
        if (d->dev[j] < 0 || d->dev[j] >= have)
            return cuzk_fail(err, errlen, CUZK_EINVAL, "gpu setup: device %d does not exist (this machine has %d)",
                             d->dev[j], have);
    fb_part<F> part[CUZK_GPU_SETUP_MAX_DEVICES];
    pthread_t th[CUZK_GPU_SETUP_MAX_DEVICES];
    bool started[CUZK_GPU_SETUP_MAX_DEVICES] = {false};
    for (int j = 0; j < d->n; j++) {
        size_t lo = n * j / d->n, hi = n * (j + 1) / d->n;
        part[j].out = out + lo, part[j].k = k + lo, part[j].n = hi - lo, part[j].pool = pool;
        part[j].dev = d->dev[j], part[j].rc = CUZK_OK, part[j].err[0] = '\0';
    }
    /* every range on a thread of its own, so this thread never selects a device: setting one back would
     * make a context on it (CUDA 12 on), and the caller may have left a device out for that reason */
    for (int j = 0; j < d->n; j++)
        started[j] = pthread_create(&th[j], NULL, fb_part_main<F>, &part[j]) == 0;
    bool inline_run = false;
    int prev = 0;
    for (int j = 0; j < d->n; j++)
        if (!started[j]) { /* no thread to be had: this one, its device put back after */
            if (!inline_run)
                cudaGetDevice(&prev);
            inline_run = true;
            fb_part_main<F>(&part[j]);
        }
    int rc = CUZK_OK;
    for (int j = 0; j < d->n; j++) {
        if (started[j])
            pthread_join(th[j], NULL);
        if (rc == CUZK_OK && part[j].rc != CUZK_OK)
            rc = cuzk_fail(err, errlen, part[j].rc, "%s", part[j].err);
    }
    if (inline_run)
        cudaSetDevice(prev);
    return rc;
}

static int fb_g1_on(const void *ctx, cuzk_g1_affine *out, const cuzk_fr *k, size_t n, cuzk_pool *pool, char *err,
                    size_t errlen)
{
    return fb_split<fp_t>((const cuzk_gpu_setup_devices *)ctx, out, k, n, pool, err, errlen);
}

static int fb_g2_on(const void *ctx, cuzk_g2_affine *out, const cuzk_fr *k, size_t n, cuzk_pool *pool, char *err,
                    size_t errlen)
{
    return fb_split<fp2_t>((const cuzk_gpu_setup_devices *)ctx, out, k, n, pool, err, errlen);
}

extern "C" const cuzk_setup_accel *cuzk_gpu_setup_accel(void)
{
    static const cuzk_setup_accel a = {"gpu", NULL, fb_g1_on, fb_g2_on};
    return &a;
}

extern "C" void cuzk_gpu_setup_accel_on(cuzk_setup_accel *a, const cuzk_gpu_setup_devices *d)
{
    *a = (cuzk_setup_accel){"gpu", d, fb_g1_on, fb_g2_on};
}

extern "C" void cuzk_gpu_setup_devices_from_mask(cuzk_gpu_setup_devices *d, uint64_t mask)
{
    d->n = 0;
    for (int b = 0; b < 64; b++)
        if (mask >> b & 1)
            d->dev[d->n++] = b;
}

extern "C" void cuzk_gpu_setup_accel_mask(cuzk_setup_accel *a, cuzk_gpu_setup_devices *d, uint64_t mask)
{
    cuzk_gpu_setup_devices_from_mask(d, mask);
    cuzk_gpu_setup_accel_on(a, d);
}
