/* gpujit_none.c - the run-time GPU compiler's interface (gpujit.h) in a build without CUDA:
 * the cache exists, so that its owner needs no build test, and every compile, load and query
 * fails with the reason. */
#include <stdlib.h>

#include "gpujit.h"

#define NO_CUDA "GPU integrands need a build with CUDA (nvcc was not found at build time)"

/* The cache of a build without CUDA: never holds an entry. */
struct gpujit_cache {
	int unused;
};

/* Always fails: no NVRTC in this build. */
int gpujit_available(struct qx_err *e)
{
	return qx_fail(e, NO_CUDA);
}

/* Always fails: no NVRTC in this build. */
int gpujit_build(const char *src, int arch, const void *kernels_fatbin, size_t fatbin_size,
                 void **cubin, size_t *size, struct gpujit_times *t, struct qx_err *e)
{
	(void)src;
	(void)arch;
	(void)kernels_fatbin;
	(void)fatbin_size;
	(void)cubin;
	(void)size;
	(void)t;
	return qx_fail(e, NO_CUDA);
}

/* Always fails: no NVRTC in this build. */
int gpujit_build_opts(const char *src, int arch, const void *kernels_fatbin, size_t fatbin_size,
                      const struct gpujit_opts *o, void **cubin, size_t *size,
                      struct gpujit_times *t, struct qx_err *e)
{
	(void)o;
	return gpujit_build(src, arch, kernels_fatbin, fatbin_size, cubin, size, t, e);
}

/* Returns an empty cache (NULL when out of memory), which gpujit_get always refuses. */
struct gpujit_cache *gpujit_cache_new(void)
{
	return calloc(1, sizeof(struct gpujit_cache));
}

/* Frees the cache; NULL is allowed. */
void gpujit_cache_free(struct gpujit_cache *c)
{
	free(c);
}

/* Always fails: no NVRTC in this build. */
int gpujit_get(struct gpujit_cache *c, const char *key, const char *src, int arch,
               const void *kernels_fatbin, size_t fatbin_size, const char *const *names, int n,
               void **kernels, struct gpujit_times *t, struct qx_err *e)
{
	(void)c;
	(void)key;
	(void)src;
	(void)arch;
	(void)kernels_fatbin;
	(void)fatbin_size;
	(void)names;
	(void)n;
	(void)kernels;
	if (t)
		t->compile_ms = t->link_ms = 0, t->cached = 0;
	return qx_fail(e, NO_CUDA);
}

/* Always fails: no NVRTC in this build. */
int gpujit_get_flags(struct gpujit_cache *c, const char *key, const char *src, int arch,
                     const void *kernels_fatbin, size_t fatbin_size, unsigned flags,
                     const char *const *names, int n, void **kernels, struct gpujit_times *t,
                     struct qx_err *e)
{
	(void)flags;
	return gpujit_get(c, key, src, arch, kernels_fatbin, fatbin_size, names, n, kernels, t, e);
}

/* The cache is always empty. */
void gpujit_cache_stats(struct gpujit_cache *c, int *count, size_t *bytes)
{
	(void)c;
	*count = 0;
	*bytes = 0;
}

/* Always fails: no GPU backend in this build. */
int gpujit_eval_point(void *kernel, const double *pt, int n, const double *p, int np, double *value,
                      struct qx_err *e)
{
	(void)kernel;
	(void)pt;
	(void)n;
	(void)p;
	(void)np;
	(void)value;
	return qx_fail(e, NO_CUDA);
}

/* Always fails: no GPU backend in this build. */
int gpujit_device_arch(int *arch, struct qx_err *e)
{
	(void)arch;
	return qx_fail(e, NO_CUDA);
}
