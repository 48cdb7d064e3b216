/* gpujit.h - the run-time GPU compiler of user integrands. The integrand's CUDA C++ source (one
 * or more `extern "C" __device__` functions, no #include) is compiled by NVRTC to LTO-IR and
 * linked by nvJitLink with a fatbin of kernels embedded in quadx (built from a NAME.lto.cu),
 * so the integrand is inlined into the kernels; the result is a cubin for one architecture.
 * NVRTC and nvJitLink are loaded with dlopen at first use, so quadx starts without them. A
 * cache owned by the caller keeps each cubin and, in a process with a GPU, its loaded library
 * and kernels. Plain C; in a build without CUDA every call fails with the reason. Every
 * function returns 0, or -1 with the reason in e; none exits. */
#ifndef QX_GPUJIT_H
#define QX_GPUJIT_H

#include <stddef.h>
#include <stdint.h>

#include "../qx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Declares the fatbin that the Makefile embeds from NAME.lto.cu, and its address and size. */
#define GPUJIT_FATBIN_DECLARE(name)                                                                \
	extern const unsigned char qx_lto_##name[], qx_lto_##name##_end[]
#define GPUJIT_FATBIN(name) ((const void *)qx_lto_##name)
#define GPUJIT_FATBIN_SIZE(name)                                                                   \
	((size_t)((uintptr_t)qx_lto_##name##_end - (uintptr_t)qx_lto_##name))

/* What one build cost: NVRTC's and nvJitLink's wall times in milliseconds; cached is 1 (and
 * both times 0) when the cache had the cubin, so nothing was compiled. */
struct gpujit_times {
	double compile_ms, link_ms;
	int cached;
	double built_compile_ms, built_link_ms; /* gpujit_get: the entry's own times when it was
	                                         * built, also when this call found it cached */
};

/* Returns 0 when NVRTC and nvJitLink of this build's CUDA major version load (the first call
 * loads them and keeps them for the process), else -1 with why GPU integrands are unavailable
 * and what to install. The environment variables QUADX_NVRTC and QUADX_NVJITLINK, when set,
 * name the library files to load instead of searching the library path, $CUDA_HOME/lib64 and
 * /usr/local/cuda/lib64. */
int gpujit_available(struct qx_err *e);

/* Compiles src with NVRTC to LTO-IR for compute_<arch> and links it with kernels_fatbin
 * (fatbin_size bytes; NULL and 0: src alone) by nvJitLink with -lto -O3 into a cubin for
 * sm_<arch> (e.g. 90), returned in a malloc'd *cubin of *size bytes that the caller frees.
 * Fills t when not NULL. A compile error carries the first lines of NVRTC's log, a link error
 * (a function the kernels call that src lacks) those of nvJitLink's. */
int gpujit_build(const char *src, int arch, const void *kernels_fatbin, size_t fatbin_size,
                 void **cubin, size_t *size, struct gpujit_times *t, struct qx_err *e);

/* Flags of a build. GPUJIT_NO_FMAD: the arithmetic as written, no contraction of a * b + c
 * into a fused multiply-add (NVRTC --fmad=false, nvJitLink -fma=false), so that +, -, *, / and
 * sqrt give the host's bits. */
#define GPUJIT_NO_FMAD 1u

/* How to build: flags (GPUJIT_NO_FMAD) and the kernels to keep, kernels[0..nkernels) (nvJitLink
 * -kernels-used: the others are dropped before LTO compiles them, which saves link time when
 * the fatbin holds many); nkernels = 0 keeps them all. */
struct gpujit_opts {
	unsigned flags;
	const char *const *kernels;
	int nkernels;
};

/* gpujit_build with options o (NULL: none). */
int gpujit_build_opts(const char *src, int arch, const void *kernels_fatbin, size_t fatbin_size,
                      const struct gpujit_opts *o, void **cubin, size_t *size,
                      struct gpujit_times *t, struct qx_err *e);

/* A cache of built cubins keyed by a caller's string and the architecture; a lock inside makes
 * its calls safe from several threads (a build runs without it). */
struct gpujit_cache;

/* Returns an empty cache, or NULL when out of memory. */
struct gpujit_cache *gpujit_cache_new(void);

/* Unloads every library the cache loaded and frees it; NULL is allowed. Call it while the
 * CUDA context still exists (before gpu_release): its kernels are invalid afterwards. */
void gpujit_cache_free(struct gpujit_cache *c);

/* Returns the cubin for key, arch and the kernel names from c, building it from src and
 * kernels_fatbin (as gpujit_build_opts with the kernels names[0..n) kept) when c has none; key
 * must name everything else the cubin depends on (the expression's canonical form, dim,
 * precision, rule, which fatbin): src is not compared. A failed build leaves nothing in c.
 * With n > 0 it then loads the cubin on the current GPU (once per entry) and puts the kernels
 * into kernels[0..n) as cudaKernel_t handles, which cudaLaunchKernel((const void *)kernels[i],
 * ...) accepts; they stay valid until gpujit_cache_free. n = 0 only builds, keeping every
 * kernel (no GPU needed); kernels NULL with n > 0 only builds the entry of those kernels, for a
 * later call to load. Threads may call it at once: builds run outside the cache's lock. Fills t
 * when not NULL: cached = 1 and times 0 when the cubin was in c. */
int gpujit_get(struct gpujit_cache *c, const char *key, const char *src, int arch,
               const void *kernels_fatbin, size_t fatbin_size, const char *const *names, int n,
               void **kernels, struct gpujit_times *t, struct qx_err *e);

/* gpujit_get with build flags (GPUJIT_NO_FMAD), which are part of the entry's identity, like
 * the kernel names (in their order). gpujit_get is gpujit_get_flags with flags 0. */
int gpujit_get_flags(struct gpujit_cache *c, const char *key, const char *src, int arch,
                     const void *kernels_fatbin, size_t fatbin_size, unsigned flags,
                     const char *const *names, int n, void **kernels, struct gpujit_times *t,
                     struct qx_err *e);

/* Returns in *count how many cubins c holds, and their total bytes in *bytes. */
void gpujit_cache_stats(struct gpujit_cache *c, int *count, size_t *bytes);

/* Runs kernel (from gpujit_get), an extern "C" __global__ void (const double *pt, const double
 * *p, double *out), on one thread with copies of pt[0..n) and p[0..np) on the current GPU, and
 * puts *out into *value (cuda/gpujit/eval.cu). Returns 0, or -1 with the CUDA call in e. */
int gpujit_eval_point(void *kernel, const double *pt, int n, const double *p, int np, double *value,
                      struct qx_err *e);

/* Puts the current GPU's architecture, major * 10 + minor (90 for an H100), into *arch; fails
 * without a usable GPU. */
int gpujit_device_arch(int *arch, struct qx_err *e);

#ifdef __cplusplus
}
#endif

#endif
