/* expint.c - problem `expint`: the exponential integral E_n(x) on the coursework's grid of
 * orders 1..n times samples x_j = a + (b-a) j/m, j = 1..m. */
#include "../../problem.h"

#include <float.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_sf_expint.h>
#include <math.h>
#include <stdio.h>

#include "expint_gpu.h" /* its GPU functions exist in GPU builds only */

#include "expint_math.h"

enum { P_N, P_M, P_A, P_B, P_ITERS, P_COUNT };

// clang-format off
static const struct param_def expint_params[P_COUNT] = {
    [P_N] = {.name = "n", .type = PARAM_INT, .min = 1, .max = 1000000, .def = 10,
             .help = "orders: E_1 .. E_n are computed"},
    [P_M] = {.name = "m", .type = PARAM_INT, .min = 1, .max = 1e9, .def = 10,
             .help = "samples per order: x_j = a + (b-a) j/m"},
    [P_A] = {.name = "a", .type = PARAM_REAL, .min = 0, .max = 1e6, .def = 0,
             .help = "start of the x interval (a >= 0)"},
    [P_B] = {.name = "b", .type = PARAM_REAL, .min = 0, .max = 1e6, .min_open = PARAM_MIN_OPEN,
             .def = 10, .help = "end of the x interval (b > a)"},
    [P_ITERS] = {.name = "iters", .type = PARAM_INT, .min = 1, .max = 2147483647, .def = 2000000000,
                 .help = "maximum iterations of the series and continued fraction"},
};
// clang-format on

/* expint's own setting: the streams of its chunked GPU variants. */
enum { ES_STREAMS, ES_COUNT };

// clang-format off
static const struct param_def expint_settings[ES_COUNT] = {
    [ES_STREAMS] = {.name = "streams", .type = PARAM_INT, .min = 1, .max = EXPINT_MAX_STREAMS,
                    .def = 2, .backends = QX_ON_GPU,
                    .help = "GPU streams of the streamed variants (expint fast and streams)"},
};
// clang-format on

enum { V_FAST, V_COURSEWORK, V_GSL, V_SHARED, V_CONSTANT, V_STREAMS };

/* Status for a GSL failure, beside the enum expint_status values. */
enum { EXPINT_GSL_FAILED = 3 };

static const struct variant_def expint_variants[] = {
    [V_FAST] = {"fast", QX_ON_CPU | QX_ON_GPU,
                "within 2 ulp: expansion for large n, backward continued fraction, series;\n"
                "      GPU: chunks on `streams` streams (default 2): copies overlap the kernels",
                0},
    [V_COURSEWORK] = {"coursework", QX_ON_CPU | QX_ON_GPU,
                      "the coursework's loops (tolerance 1e-30), one thread per point;\n"
                      "      GPU: cudaMalloc, one kernel, one copy back, cudaFree",
                      0},
    [V_GSL] = {"gsl", QX_ON_CPU, "GSL's gsl_sf_expint_En, in double, on the CPU", 0},
    [V_SHARED] = {"shared", QX_ON_GPU,
                  "coursework + x staged through shared memory (the seed's experiment): no\n"
                  "      thread reads another's x, so it only adds a barrier; kernel 3% slower",
                  0},
    [V_CONSTANT] = {"constant", QX_ON_GPU,
                    "coursework + a, step, m, iters in __constant__ memory: the same kernel\n"
                    "      time, as kernel arguments already live in a constant bank",
                    0},
    [V_STREAMS] = {"streams", QX_ON_GPU,
                   "coursework loops, chunks on `streams` streams into pinned memory: copies\n"
                   "      overlap the kernels; 1.17x faster than coursework at 20000^2 float",
                   0},
};

// clang-format off
static const struct param_def expint_eval_args[] = {
    {.name = "N", .type = PARAM_INT, .min = -1e9, .max = 1e9, .def = 0, .help = "order n >= 0"},
    {.name = "X", .type = PARAM_REAL, .min = -1e300, .max = 1e300, .def = 0,
     .help = "argument x >= 0"},
};
// clang-format on

/* Returns -1 with a clear message when a < b does not hold. */
static int expint_check(const struct param_value *p, void **state, struct qx_err *e)
{
	(void)state;
	if (!(p[P_A].num < p[P_B].num))
		return qx_fail(e, "a must be less than b (a = %g, b = %g)", p[P_A].num, p[P_B].num);
	return 0;
}

/* Returns n*m, the number of grid points. */
static size_t expint_count(const struct param_value *p, void **state, const struct user_defs *u)
{
	(void)u;
	(void)state;
	return (size_t)p[P_N].num * (size_t)p[P_M].num;
}

/* The spacing (b-a)/m of the grid. */
static double expint_step(const struct param_value *p)
{
	return (p[P_B].num - p[P_A].num) / p[P_M].num;
}

/* Fills the coordinates (n, x) of grid point i; returns 2 (0 when cap is under 2). */
static int expint_point(const struct param_value *p, void **state, const struct user_defs *u,
                        size_t i, const char **names, double *vals, int cap)
{
	(void)u;
	(void)state;
	const size_t m = (size_t)p[P_M].num;
	if (cap < 2)
		return 0;
	names[0] = "n";
	names[1] = "x";
	vals[0] = (double)(i / m + 1);
	vals[1] = expint_grid_x(p[P_A].num, expint_step(p), (long long)(i % m + 1));
	return 2;
}

/* Describes a failed evaluation of E_n(x) in e; returns -1. */
static int expint_status_error(int status, int n, double x, long iters, struct qx_err *e)
{
	if (status == EXPINT_GSL_FAILED)
		return qx_fail(e,
		               "gsl_sf_expint_En failed at n = %d, x = %.17g (an error status or a "
		               "value that is not finite)",
		               n, x);
	if (status == EXPINT_NOCONV)
		return qx_fail(e, "E_%d(%.17g) did not converge within iters = %ld iteration%s", n,
		               x, iters, iters == 1 ? "" : "s");
	return qx_fail(e,
	               "domain error: E_n(x) needs n >= 0 and x >= 0, and x > 0 when n <= 1 "
	               "(got n = %d, x = %.17g)",
	               n, x);
}

/* E_n(x) in double by variant v; returns an enum expint_status. */
static int expint_cpu_double(int v, int n, double x, long iters, double *out)
{
	gsl_sf_result r;
	int status;
	switch (v) {
	case V_COURSEWORK:
		return expint_coursework_d(n, x, iters, out);
	case V_GSL:
		status = expint_special_d(n, x, out);
		if (status >= 0)
			return status;
		status = gsl_sf_expint_En_e(n, x, &r);
		/* GSL reports success with inf for large n and small x: check the value too. */
		if ((status != GSL_SUCCESS && status != GSL_EUNDRFLW) || !isfinite(r.val))
			return EXPINT_GSL_FAILED;
		*out = status == GSL_EUNDRFLW ? 0.0 : r.val;
		return EXPINT_OK;
	default:
		return expint_fast_d(n, x, iters, out);
	}
}

/* E_n(x) in float by variant v (the GSL variant has none); returns an enum expint_status. */
static int expint_cpu_float(int v, int n, float x, long iters, float *out)
{
	if (v == V_COURSEWORK)
		return expint_coursework_f(n, x, iters, out);
	return expint_fast_f(n, x, iters, out);
}

/* The CPU code of the fast algorithm calls fma() in its hot paths: on x86-64 gcc builds the
 * block loop twice, with the FMA instruction and without (a libm call, several times slower),
 * and picks one at load time by the CPU (flatten: the algorithms are inlined into each clone).
 * The results are the same bits either way. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define EXPINT_FMA_CLONES __attribute__((target_clones("fma", "default"), flatten))
#else
#define EXPINT_FMA_CLONES
#endif

/* Points [first, end) of the grid into out by variant v in precision prec; returns the first
 * failing index (its status in *bad_status), or -1. */
EXPINT_FMA_CLONES
static long long expint_block(enum qx_precision prec, int variant, long long first, long long end,
                              long long m, double a, double step, long iters, void *out,
                              int *bad_status)
{
	for (long long idx = first; idx < end; idx++) {
		const int n = (int)(idx / m) + 1;
		const double x = expint_grid_x(a, step, idx % m + 1);
		const int status =
		    prec == QX_DOUBLE
		        ? expint_cpu_double(variant, n, x, iters, (double *)out + idx)
		        : expint_cpu_float(variant, n, (float)x, iters, (float *)out + idx);
		if (status != EXPINT_OK) {
			*bad_status = status;
			return idx;
		}
	}
	return -1;
}

/* Computes the grid on the CPU with `threads` OpenMP threads in blocks of points, polling the
 * cancel flag between blocks. Writes float or double values; returns 0 or -1. */
static int expint_grid_cpu(const struct param_value *p, enum qx_precision prec, int variant,
                           int threads, void *out, struct qx_err *e)
{
	enum { BLOCK = 4096 };
	const long long m = (long long)p[P_M].num;
	const long long total = (long long)expint_count(p, NULL, NULL);
	const long long nblocks = (total + BLOCK - 1) / BLOCK;
	const double a = p[P_A].num, step = expint_step(p);
	const long iters = (long)p[P_ITERS].num;
	long long bad = -1;
	int bad_status = EXPINT_OK;

#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
	for (long long blk = 0; blk < nblocks; blk++) {
		if (qx_cancelled())
			continue;
		const long long end = blk * BLOCK + BLOCK < total ? blk * BLOCK + BLOCK : total;
		int status = EXPINT_OK;
		const long long failed =
		    expint_block(prec, variant, blk * BLOCK, end, m, a, step, iters, out, &status);
		if (failed >= 0) {
#pragma omp critical(expint_bad)
			if (bad < 0 || failed < bad) {
				bad = failed;
				bad_status = status;
			}
		}
		qx_progress_add(end - blk * BLOCK);
	}
	if (qx_cancelled())
		return qx_fail(e, "run cancelled");
	if (bad >= 0)
		return expint_status_error(bad_status, (int)(bad / m) + 1,
		                           expint_grid_x(a, step, bad % m + 1), iters, e);
	return 0;
}

/* run_cpu: the grid in the request's precision with its variant and threads. */
static int expint_run_cpu(const struct run_request *rq, struct run_output *o, struct qx_err *e)
{
	if (rq->variant == V_GSL && rq->prec == QX_FLOAT)
		return qx_fail(e, "variant gsl computes in double only: set precision double");
	return expint_grid_cpu(rq->params, rq->prec, rq->variant, rq->threads, o->values, e);
}

/* reference: the fast algorithm in double over the whole grid, on `threads` threads. */
static int expint_reference(const struct param_value *p, void **state, const struct user_defs *u,
                            int threads, const size_t *idx, size_t n, double *ref, struct qx_err *e)
{
	(void)state;
	(void)u; /* no user integrand here */
	(void)idx;
	(void)n;
	return expint_grid_cpu(p, QX_DOUBLE, V_FAST, threads, ref, e);
}

/* The CPU double result of the fast variant is the reference itself. */
static int expint_is_reference(enum qx_backend b, enum qx_precision prec, int variant)
{
	return b == QX_CPU && prec == QX_DOUBLE && variant == V_FAST;
}

/* Host memory besides results and reference: none. */
static size_t expint_host_bytes(const struct run_request *rq)
{
	(void)rq;
	return 0;
}

/* eval N X: E_N(X) by the fast algorithm on backend b in precision prec; returns 1 when
 * this build has no GPU backend. */
static int expint_eval(const double *args, const struct param_value *p, void **state,
                       const struct user_defs *u, enum qx_backend b, enum qx_precision prec,
                       struct eval_result *out, struct qx_err *e)
{
	(void)state;
	(void)u; /* no user integrand here */
	const int n = (int)args[0];
	const double x = args[1];
	const long iters = (long)p[P_ITERS].num;
	int status;
	if (n < 0 || x < 0 || (x == 0 && n <= 1))
		return expint_status_error(EXPINT_DOMAIN, n, x, iters, e);
	if (b == QX_GPU) {
#ifdef QX_HAVE_CUDA
		if (expint_gpu_eval(n, x, iters, prec, EXPINT_ALGO_FAST, &out->value, e))
			return -1;
		status = EXPINT_OK;
#else
		return 1;
#endif
	} else if (prec == QX_DOUBLE) {
		status = expint_fast_d(n, x, iters, &out->value);
	} else {
		float v = 0;
		status = expint_fast_f(n, (float)x, iters, &v);
		out->value = v;
	}
	if (status != EXPINT_OK)
		return expint_status_error(status, n, x, iters, e);
	if (!isfinite(out->value) || out->value == 0) { /* E_n(x) > 0 for x > 0 */
		qx_fail(e, "E_%d(%.17g) %s %s (%s %g)", n, x,
		        out->value ? "overflows" : "underflows", qx_precision_name(prec),
		        out->value ? "largest" : "smallest",
		        out->value ? (prec == QX_FLOAT ? FLT_MAX : DBL_MAX)
		                   : (prec == QX_FLOAT ? FLT_TRUE_MIN : DBL_TRUE_MIN));
		return QX_EVAL_UNREPRESENTABLE;
	}
	return 0;
}

#ifdef QX_HAVE_CUDA
/* The GPU job matching a run request. */
static struct expint_gpu_job expint_job(const struct run_request *rq)
{
	const struct param_value *p = rq->params;
	struct expint_gpu_job job = {
	    .n = (int)p[P_N].num,
	    .m = (long long)p[P_M].num,
	    .a = p[P_A].num,
	    .b = p[P_B].num,
	    .iters = (long)p[P_ITERS].num,
	    .prec = rq->prec,
	    .algo = rq->variant == V_FAST ? EXPINT_ALGO_FAST : EXPINT_ALGO_COURSEWORK,
	    .block = rq->block,
	    .sequence = rq->variant == V_FAST || rq->variant == V_STREAMS ? EXPINT_SEQ_STREAMED
	                                                                  : EXPINT_SEQ_SERIAL,
	    .memory = rq->variant == V_SHARED     ? EXPINT_MEM_SHARED
	              : rq->variant == V_CONSTANT ? EXPINT_MEM_CONSTANT
	                                          : EXPINT_MEM_GLOBAL,
	    .streams = (int)rq->settings[ES_STREAMS].num,
	};
	return job;
}

/* run_gpu: the grid on the GPU (or its orders over rq->gpus GPUs, each one's phases in
 * gpu_time) into out, with phase times. */
static int expint_run_gpu(const struct run_request *rq, struct run_output *o, struct qx_err *e)
{
	const struct expint_gpu_job job = expint_job(rq);
	if (rq->gpus > 1) {
		o->ngpus = rq->gpus;
		return expint_gpu_run_multi(&job, rq->gpus, o->values, &o->time, o->gpu_time, e);
	}
	return expint_gpu_run(&job, o->values, &o->time, e);
}

/* Device bytes the GPU run allocates. */
static size_t expint_device_bytes(const struct run_request *rq)
{
	const struct expint_gpu_job job = expint_job(rq);
	return expint_gpu_device_bytes(&job);
}

/* Occupancy of the kernel the GPU run launches. */
static int expint_occupancy(const struct run_request *rq, struct gpu_occupancy *o, struct qx_err *e)
{
	const struct expint_gpu_job job = expint_job(rq);
	return expint_gpu_occupancy(&job, o, e);
}
#endif

/* The phases its GPU runs report (cuda/expint/expint.cu), in order. */
static const char *const expint_phases[] = {"alloc", "h2d", "kernel", "d2h", "free", NULL};
static const char *const expint_table_phases[] = {"kernel", "d2h", NULL};

/* Prints one value of a coursework run (-v) as the coursework printed it: the CPU's double and
 * float values on one line, the GPU's alone. */
static void expint_coursework_value(const char *tag, const double *c, double first,
                                    const double *second)
{
	printf("%s==> exponentialIntegralDouble (%d,%f)=%f ,", tag, (int)c[0], c[1], first);
	if (second)
		printf("exponentialIntegralFloat  (%d,%f)=%f\n", (int)c[0], c[1], *second);
	else
		printf("\n");
}

/* The coursework's flags -n -m -a -b -i and its lines. */
static const char *const expint_coursework_params[] = {"n", "m", "a", "b", "iters"};
static const struct problem_coursework expint_coursework = {
    .flags = "nmabi",
    .flag_params = expint_coursework_params,
    .values = "exponentials",
    .print_value = expint_coursework_value,
};

// clang-format off
const struct problem expint_problem = {
    .name = "expint", .summary = "exponential integral E_n(x) on a grid of orders x samples",
    .phases = expint_phases, .table_phases = expint_table_phases, .work_unit = "evals",
    .params = expint_params, .nparams = P_COUNT,
    .settings = expint_settings, .nsettings = ES_COUNT,
    .ref_kind = QX_REF_CPU, .ref_name = "cpu double",
    .variants = expint_variants, .nvariants = sizeof expint_variants / sizeof expint_variants[0],
    .eval_args = expint_eval_args, .neval_args = 2,
    .check = expint_check, .count = expint_count, .host_bytes = expint_host_bytes,
    .point = expint_point, .run_cpu = expint_run_cpu,
    .reference = expint_reference, .is_reference = expint_is_reference,
    .eval = expint_eval, .multi_gpu = 1, .coursework = &expint_coursework,
#ifdef QX_HAVE_CUDA
    .run_gpu = expint_run_gpu, .device_bytes = expint_device_bytes,
    .occupancy = expint_occupancy,
#endif
};
// clang-format on
