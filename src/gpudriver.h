/* gpudriver.h - whether an NVIDIA driver is installed, told from its device files, so that a
 * machine without one hears "no NVIDIA driver found" rather than CUDA's "driver version is
 * insufficient". Plain C, callable from the .cu files; unit-tested. */
#ifndef QX_GPUDRIVER_H
#define QX_GPUDRIVER_H

#ifdef __cplusplus
extern "C" {
#endif

/* Returns 1 when the directory dev (normally "/dev") holds a device file of an NVIDIA driver
 * (nvidia0, nvidiactl...: names starting with "nvidia"; dxg: the driver of WSL 2), else 0. */
int gpu_driver_present(const char *dev);

#ifdef __cplusplus
}
#endif

#endif
