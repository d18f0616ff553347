/* msm_g1.cu — the G1 instance of the GPU MSM (msm_impl.cuh). */
#include "gpu/msm_impl.cuh"

extern "C" int cuzk_gpu_g1_msm(cuzk_g1 *out, const cuzk_g1_affine *d_bases, const cuzk_fr *d_scalars, size_t n,
                               cuzk_gpu_msm *ws, unsigned window, void *stream, cuzk_gpu_msm_stats *stats,
                               char *err, size_t errlen)
{
    if (!ws || ws->group != CUZK_GPU_G1)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "gpu msm: G1 MSM needs a G1 workspace");
    return msm_run<fp_t>(out, (const g1_affine_t *)d_bases, (const fr_t *)d_scalars, n, ws, window,
                         (cudaStream_t)stream, stats, err, errlen);
}

extern "C" int cuzk_gpu_g1_msm_table(cuzk_g1 *out, const cuzk_g1_affine *d_table, unsigned k,
                                     const cuzk_fr *d_scalars, size_t n, cuzk_gpu_msm *ws, unsigned window,
                                     void *stream, cuzk_gpu_msm_stats *stats, char *err, size_t errlen)
{
    if (!ws || ws->group != CUZK_GPU_G1)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "gpu msm: G1 MSM needs a G1 workspace");
    if (k < 2)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "gpu msm: group table k = %u outside 2..%d", k,
                         CUZK_GROUP_TABLE_MAX_K);
    return msm_run<fp_t>(out, (const g1_affine_t *)d_table, (const fr_t *)d_scalars, n, ws, window,
                         (cudaStream_t)stream, stats, err, errlen, k);
}
