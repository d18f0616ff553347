/*
 * cuzk/gpu.h — what the CUDA backend offers the rest of cuzk.
 *
 * The backend is compiled only when the build finds nvcc (the `cuzk_gpu`
 * library); every entry point is extern "C" and safe to call on a machine
 * without a GPU or driver, where it reports zero devices.
 */
#ifndef CUZK_GPU_H
#define CUZK_GPU_H

#ifdef __cplusplus
extern "C" {
#endif

/* Number of usable CUDA devices; 0 when there is no driver or no device. */
int cuzk_gpu_device_count(void);

/* Writes "NAME, sm_XY, N MiB" for device `dev` into buf; returns CUZK_OK or a negative status. */
int cuzk_gpu_device_describe(int dev, char *buf, unsigned long buflen);

#ifdef __cplusplus
}
#endif
#endif
