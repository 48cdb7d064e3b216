/* cubature_user.c - the user's own integrand bound into a job of problem cubature
 * (cubature_user.h), for the CPU and for the GPU's kernels linked at run time. */
#include "cubature_user.h"

#include <stdio.h>

#include "cubature_mc.h"
#include "../user_integrand.h"

#ifdef QX_HAVE_CUDA
#include "cubature_gpu.h"
#include "../../gpujit/gpujit.h"
#endif

/* Records what compiling the user's integrand took as figures of o: the compiler's and the
 * linker's milliseconds when this run built it, and whether the session had it already. */
static void cub_compile_figures(const struct user_compile_times *t, struct run_output *o)
{
	run_output_figure(o, "compile_ms", t->compile_ms);
	if (t->link_ms > 0)
		run_output_figure(o, "link_ms", t->link_ms);
	run_output_figure_as(o, "compile_cached", t->cached, QX_FIG_COUNT);
}

/* The CPU's binding (cubature_user.h). */
int cub_user_bind_cpu(const char *text, const struct user_defs *u, void **jit, struct cub_job *job,
                      struct run_output *o, struct qx_err *e)
{
	struct cub_fn *fn = &job->fn;
	struct user_integrand ui;
	struct user_compile_times t;
	if (fn->kind != CUB_USER)
		return 0;
	if (user_integrand_parse(text, fn->dim, NULL, 0, u, job->a, job->b, &ui, e))
		return -1;
	user_integrand_data(&ui, u, job->a, job->b, fn->user);
	user_integrand_cpu_box(&ui, job->lo, job->hi);
	const double t0 = qx_now_ms();
	const int rc = user_integrand_cpu(jit, &ui, &fn->user_d, &fn->user_f, &t, e);
	if (o) /* the compile is a phase of its own, outside the run's time */
		o->untimed_ms += qx_now_ms() - t0;
	user_integrand_free(&ui);
	if (rc)
		return -1;
	if (o)
		cub_compile_figures(&t, o);
	return 0;
}

#ifdef QX_HAVE_CUDA
/* The LTO-IR fatbins of the user-integrand kernels (cuda/cubature/user_embed.S): per precision
 * (float, double) the rule kernel for any dimension, for dimensions 4..8, and phase 2. */
GPUJIT_FATBIN_DECLARE(cub_f_0);
GPUJIT_FATBIN_DECLARE(cub_f_4);
GPUJIT_FATBIN_DECLARE(cub_f_5);
GPUJIT_FATBIN_DECLARE(cub_f_6);
GPUJIT_FATBIN_DECLARE(cub_f_7);
GPUJIT_FATBIN_DECLARE(cub_f_8);
GPUJIT_FATBIN_DECLARE(cub_f_p2);
GPUJIT_FATBIN_DECLARE(cub_d_0);
GPUJIT_FATBIN_DECLARE(cub_d_4);
GPUJIT_FATBIN_DECLARE(cub_d_5);
GPUJIT_FATBIN_DECLARE(cub_d_6);
GPUJIT_FATBIN_DECLARE(cub_d_7);
GPUJIT_FATBIN_DECLARE(cub_d_8);
GPUJIT_FATBIN_DECLARE(cub_d_p2);
#define CUB_LTO_ROW(s)                                                                             \
	{                                                                                          \
		{qx_lto_cub_##s##_0, qx_lto_cub_##s##_0_end},                                      \
		    {qx_lto_cub_##s##_4, qx_lto_cub_##s##_4_end},                                  \
		    {qx_lto_cub_##s##_5, qx_lto_cub_##s##_5_end},                                  \
		    {qx_lto_cub_##s##_6, qx_lto_cub_##s##_6_end},                                  \
		    {qx_lto_cub_##s##_7, qx_lto_cub_##s##_7_end},                                  \
		    {qx_lto_cub_##s##_8, qx_lto_cub_##s##_8_end},                                  \
		{                                                                                  \
			qx_lto_cub_##s##_p2, qx_lto_cub_##s##_p2_end                               \
		}                                                                                  \
	}
static const unsigned char *const cub_lto[2][7][2] = {CUB_LTO_ROW(f), CUB_LTO_ROW(d)};
#undef CUB_LTO_ROW
/* The Monte Carlo variants' kernels for a user's integrand (cuda/cubature/mc_user_S.lto.cu):
 * vegas's and qmc's in one fatbin a precision (float, double). */
GPUJIT_FATBIN_DECLARE(mc_user_f);
GPUJIT_FATBIN_DECLARE(mc_user_d);
static const unsigned char *const cub_mc_lto[2][2] = {{qx_lto_mc_user_f, qx_lto_mc_user_f_end},
                                                      {qx_lto_mc_user_d, qx_lto_mc_user_d_end}};

/* The GPU's binding (cubature_user.h). */
int cub_user_bind_gpu(const char *text, const struct user_defs *u, void **jit, int nkernels,
                      struct cub_job *job, struct cub_user_kernels *uk, struct run_output *o,
                      struct qx_err *e)
{
	const int dim = job->fn.dim, dn = dim >= 4 && dim <= 8 ? dim : 0;
	const int q = job->prec == QX_DOUBLE, nk = nkernels;
	const char *suffix = q ? "d" : "f";
	struct user_integrand ui;
	struct user_compile_times t;
	char name[2][32], kind[2][16];
	if (job->fn.kind != CUB_USER)
		return 0;
	*uk = (struct cub_user_kernels){.dn = dn};
	if (user_integrand_parse(text, dim, NULL, 0, u, job->a, job->b, &ui, e))
		return -1;
	user_integrand_data(&ui, u, job->a, job->b, job->fn.user);
	snprintf(name[0], sizeof name[0], "qx_cub_rule_%s", suffix);
	snprintf(name[1], sizeof name[1], "qx_cub_phase2_%s", suffix);
	snprintf(kind[0], sizeof kind[0], "rule%d", dn);
	snprintf(kind[1], sizeof kind[1], "phase2");
	struct user_gpu_kernel k[2];
	for (int i = 0; i < nk; i++) {
		const unsigned char *const *bin = cub_lto[q][i ? 6 : dn ? dn - 3 : 0];
		k[i] = (struct user_gpu_kernel){kind[i], bin[0], (size_t)(bin[1] - bin[0]), name[i],
		                                NULL};
	}
	if (nk < 0) { /* a Monte Carlo variant's kernel */
		const int vegas = nk == -CUB_MC_VEGAS;
		snprintf(name[0], sizeof name[0], "qx_cub_%s_%s", vegas ? "vegas" : "qmc", suffix);
		snprintf(kind[0], sizeof kind[0], "%s", vegas ? "vegas" : "qmc");
		const unsigned char *const *bin = cub_mc_lto[q];
		k[0] = (struct user_gpu_kernel){kind[0], bin[0], (size_t)(bin[1] - bin[0]), name[0],
		                                NULL};
	}
	const int rc = user_integrand_gpu_kernels(jit, &ui, job->prec, k, nk < 0 ? 1 : nk, &t, e);
	user_integrand_free(&ui);
	if (rc)
		return -1;
	for (int i = 0; i < (nk < 0 ? 1 : nk); i++)
		uk->kernel[i] = k[i].kernel;
	cub_compile_figures(&t, o);
	job->user = uk;
	job->a = 0;
	job->b = 1;
	return 0;
}
#endif
