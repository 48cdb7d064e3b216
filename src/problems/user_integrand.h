/* user_integrand.h - what every problem that takes the user's own integrand shares: the text
 * parsed and checked against the user's names, turned into C or CUDA source with the map from
 * the unit cube onto the user's box (finite or infinite axes), and compiled: by the system C
 * compiler for the CPU, by NVRTC and nvJitLink into the problem's own kernels for the GPU. The
 * compiled code is cached in the session (run_request.jit), so a second run compiles nothing. */
#ifndef QX_USER_INTEGRAND_H
#define QX_USER_INTEGRAND_H

#include "../expr/expr.h"
#include "../param.h"
#include "../qx.h"
#include "../userdefs.h"

/* The point array's layout: the user's parameters, then each axis's lo and hi. */
#define USER_DATA_BOUNDS USER_MAX_PARAMS
#define USER_DATA_COUNT (USER_MAX_PARAMS + 2 * USER_MAX_AXES)

/* How an axis is mapped from [0, 1]: a finite [lo, hi] linearly; [lo, inf) by x = lo + t/(1-t);
 * (-inf, hi] by x = hi - (1-t)/t; (-inf, inf) by x = u/(1-u^2), u = 2t - 1. */
enum user_axis_map { USER_FINITE, USER_UPPER_INF, USER_LOWER_INF, USER_BOTH_INF };

/* One integrand ready to compile: the checked tree, its dimension, its axes' maps and
 * canonical text (the cache's key, and what is shown). bare (set by the caller after parsing):
 * qx_user_S is the body itself at the point x (the axes, then the extra names), with no map and
 * no Jacobian, for a problem that integrates the expression itself (longman's amplitude). */
struct user_integrand {
	struct expr *tree;
	int dim;
	int bare;
	enum user_axis_map map[USER_MAX_AXES];
	char canonical[PARAM_EXPR_MAX + 64];
	/* what the emitted code may assume: each axis's bounds and the parameters' values at
	 * parse time (the source is made again, and keyed, for every run) */
	double lo[USER_MAX_AXES], hi[USER_MAX_AXES], param[USER_MAX_PARAMS];
	int nparams;
};

/* Parses text in dim variables (x1..xdim; extra names after them in the point array) against
 * u's parameters; maps each axis from u's bounds or [a, b]. Returns 0, or -1 with e naming the
 * column and what was expected. */
int user_integrand_parse(const char *text, int dim, const char *const *extra, int nextra,
                         const struct user_defs *u, double a, double b, struct user_integrand *out,
                         struct qx_err *e);
void user_integrand_free(struct user_integrand *ui);

/* The box the CPU integrates qx_user_S (C) over: each finite axis's bounds, [0, 1] for an
 * infinite one; lo and hi hold ui->dim values. */
void user_integrand_cpu_box(const struct user_integrand *ui, double *lo, double *hi);

/* Fills data[USER_DATA_COUNT] with u's parameter values and each axis's bounds. */
void user_integrand_data(const struct user_integrand *ui, const struct user_defs *u, double a,
                         double b, double *data);

/* The source of qx_user_d and qx_user_f (C), or of qx_user_S for prec (CUDA): the integrand
 * at a point, times the map's Jacobian. CUDA's point is in the unit cube, every axis mapped
 * from [0, 1]; C's infinite axes are mapped so, its finite axes take the point as it is (the
 * CPU integrates over the box user_integrand_cpu_box gives, where such an axis keeps its
 * bounds: no map, no Jacobian, as for a built-in). Malloc'd; NULL when memory is out. */
char *user_integrand_source(const struct user_integrand *ui, enum expr_lang lang,
                            enum qx_precision prec);

/* What compiling took: milliseconds of the compiler (NVRTC or cc) and of the link (nvJitLink)
 * when the code was built, and whether this request found it in the session's cache (built by
 * an earlier run, or by this run's warm-up). */
struct user_compile_times {
	double compile_ms, link_ms;
	int cached;
};

/* The CPU's code of ui: both precisions. Returns 0 or -1 with e (the compiler's message). */
int user_integrand_cpu(void **jit, const struct user_integrand *ui,
                       double (**fd)(const double *, const double *),
                       float (**ff)(const float *, const double *), struct user_compile_times *t,
                       struct qx_err *e);

/* The integrand ui itself (no map) at the point x of the user's box (extras after the axes) in
 * precision prec, its parameters u's, into *value: compiled for this one call (an evaluation
 * typed at the prompt), not cached. Returns 0 or -1 with e. */
int user_integrand_eval(const struct user_integrand *ui, const struct user_defs *u, const double *x,
                        enum qx_precision prec, double *value, struct qx_err *e);

/* user_integrand_eval on the current GPU: the body compiled by NVRTC with a one-thread kernel
 * around it, for this one call. Returns 0 or -1 with e (no GPU, no NVRTC, a CUDA error). */
int user_integrand_eval_gpu(const struct user_integrand *ui, const struct user_defs *u,
                            const double *x, enum qx_precision prec, double *value,
                            struct qx_err *e);

/* One kernel of user_integrand_gpu_kernels: kind names the fatbin (size bytes, holding the
 * kernel called name) in the cache's key; kernel is filled. */
struct user_gpu_kernel {
	const char *kind;
	const void *fatbin;
	size_t size;
	const char *name;
	void *kernel;
};
#define USER_GPU_KERNELS_MAX 4

/* The GPU's kernels k[0..n) for ui in prec, as user_integrand_gpu makes one, built side by side
 * on threads of their own, so that a run of two kernels waits for the slower build, not for
 * both; *t sums the builds' times (cached when every kernel was). Returns 0 or -1 with e. */
int user_integrand_gpu_kernels(void **jit, const struct user_integrand *ui, enum qx_precision prec,
                               struct user_gpu_kernel *k, int n, struct user_compile_times *t,
                               struct qx_err *e);

/* The GPU's kernel for ui in prec: the kernel's LTO-IR fatbin (holding the kernel called name)
 * linked with the integrand for the current device into *kernel (a cudaKernel_t); kind names
 * the fatbin in the cache's key. Returns 0 or -1 with e (NVRTC's or nvJitLink's message, or
 * why they are unavailable). */
int user_integrand_gpu(void **jit, const struct user_integrand *ui, enum qx_precision prec,
                       const char *kind, const void *fatbin, size_t size, const char *name,
                       void **kernel, struct user_compile_times *t, struct qx_err *e);

#endif
