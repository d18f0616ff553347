/* msm_g2.cu — the G2 instance of the GPU MSM (msm_impl.cuh). */
#include "gpu/msm_impl.cuh"

extern "C" int cuzk_gpu_g2_msm(cuzk_g2 *out, const cuzk_g2_affine *d_bases, const cuzk_fr *d_scalars, size_t n,
                               cuzk_gpu_msm *ws, unsigned window, void *stream, cuzk_gpu_msm_stats *stats,
                               char *err, size_t errlen)
{
    if (!ws || ws->group != CUZK_GPU_G2)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "gpu msm: G2 MSM needs a G2 workspace");
    return msm_run<fp2_t>(out, (const g2_affine_t *)d_bases, (const fr_t *)d_scalars, n, ws, window,
                          (cudaStream_t)stream, stats, err, errlen);
}

extern "C" int cuzk_gpu_g2_msm_table(cuzk_g2 *out, const cuzk_g2_affine *d_table, unsigned k,
                                     const cuzk_fr *d_scalars, size_t n, cuzk_gpu_msm *ws, unsigned window,
                                     void *stream, cuzk_gpu_msm_stats *stats, char *err, size_t errlen)
{
    if (!ws || ws->group != CUZK_GPU_G2)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "gpu msm: G2 MSM needs a G2 workspace");
    if (k < 2)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "gpu msm: group table k = %u outside 2..%d", k,
                         CUZK_GROUP_TABLE_MAX_K);
    return msm_run<fp2_t>(out, (const g2_affine_t *)d_table, (const fr_t *)d_scalars, n, ws, window,
                         (cudaStream_t)stream, stats, err, errlen, k);
}
