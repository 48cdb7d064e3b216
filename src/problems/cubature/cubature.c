/* cubature.c - problem `cubature`: one integral of an integrand over the box [a, b]^dim by
 * globally adaptive cubature, after the two-phase adaptive cubature study (the study): its
 * benchmark integrands f1..f5 and Genz's six test families. Its callbacks, its variant table
 * (cub_variants with cub_variant_runs: what each variant runs and takes) and the job every
 * variant runs (cubature_job.h), filled once from the parameters here. CPU: the study's queue
 * of regions (cubature_cpu.c) and Debian's libcubature (cubature_hcubature.c); GPU: breadth on
 * the whole device and the study's two-phase algorithm (cuda/cubature/). The reference is the
 * exact value where one is known. */
#include "../../problem.h"

#include <math.h>
#include <stdint.h>

#include "cubature_batch.h"
#include "cubature_math_all.h"
#include "cubature_cpu.h"
#include "cubature_output.h"
#include "cubature_params.h"
#include "cubature_user.h"
#include "cubature_integrands.h"
#include "cubature_mc.h"
#include "cubature_rules.h"
#include "../user_integrand.h"
#include "../../expr/expr.h"

_Static_assert(USER_BATCH_PARAMS == CUB_BATCH_PARAMS && USER_BATCH_MAX == CUB_BATCH_MAX,
               "the user's batch is the one a run takes");

#ifdef QX_HAVE_CUDA
#include "cubature_gpu.h"
#define CUB_ON_GPU(f) f
#else
#define CUB_ON_GPU(f) NULL
#endif

enum { V_BREADTH, V_TWOPHASE, V_HCUBATURE, V_VEGAS, V_QMC, V_COUNT };

/* The variants as the session lists them (help, completion, `set variant`): row v of
 * cub_variant_runs has the rest of variant v's row. */
static const struct variant_def cub_variants[V_COUNT] = {
    [V_BREADTH] =
        {.name = "breadth",
         .backends = QX_ON_CPU | QX_ON_GPU,
         .help = "GPU: every iteration on the whole device, a block per region; CPU: the\n"
                 "      priority queue of the study's Algorithm 1 (threads: batches in parallel)"},
    [V_TWOPHASE] = {.name = "twophase",
                    .backends = QX_ON_GPU,
                    .help =
                        "the study's algorithm: phase 1 breadth-first to lmax regions, phase 2 a\n"
                        "      sequential adaptive loop per region, one thread each"},
    [V_HCUBATURE] = {.name = "hcubature",
                     .backends = QX_ON_CPU,
                     .help = "Debian's libcubature (S. G. Johnson's hcubature), double, rule 7"},
    [V_VEGAS] = {.name = "vegas",
                 .backends = QX_ON_CPU | QX_ON_GPU,
                 .approximate = 1,
                 .help = "Lepage's VEGAS: Monte Carlo through an adaptive grid (calls, iters,\n"
                         "      adapt), dims to 64; its error is a standard error"},
    [V_QMC] = {.name = "qmc",
               .backends = QX_ON_CPU | QX_ON_GPU,
               .approximate = 1,
               .help = "a randomized rank-1 lattice (Korobov), shifts random shifts, doubled\n"
                       "      until their standard error meets the tolerance; dims to 64"},
};

/* What a variant runs and takes, the problem's own columns of its row: the precisions it
 * computes in (bits 1 << enum qx_precision), whether it takes the user's integrand, the
 * largest dim; its CPU run and the host bytes that takes at its start for a number of
 * threads (NULL: none); its GPU run on one device and over several (NULL: none, or one GPU
 * only), and the kernels a user's integrand is linked into for it (1: the rule's, 2: phase
 * 2's too). A CPU (GPU) run is there exactly where the variant's backends say so. */
struct cub_variant {
	unsigned precisions;
	int user;
	int max_dim;
	int (*run_cpu)(const struct cub_job *job, struct cub_result *res, struct qx_err *e);
	size_t (*host_bytes)(int threads);
	int (*run_gpu)(const struct cub_job *job, struct cub_result *res, struct qx_timing *t,
	               struct qx_err *e);
	int (*run_gpu_multi)(const struct cub_job *job, int ngpus, struct cub_result *res,
	                     struct qx_timing *t, struct qx_timing *per, struct qx_err *e);
	int user_kernels;
	int mc;         /* a Monte Carlo variant's user kernel (CUB_MC_VEGAS, CUB_MC_QMC), else 0 */
	unsigned batch; /* the backends that take a batch (set param k RANGE): QX_ON_CPU... */
	cub_gpu_batch_fn run_gpu_batch; /* its GPU batch (NULL: none, or no GPU in the build) */
};

#define CUB_BOTH_PRECISIONS (1u << QX_FLOAT | 1u << QX_DOUBLE)

// clang-format off
static const struct cub_variant cub_variant_runs[V_COUNT] = {
    [V_BREADTH] = {.precisions = CUB_BOTH_PRECISIONS, .user = 1, .max_dim = CUB_MAX_DIM,
                   .run_cpu = cub_cpu_adaptive, .host_bytes = cub_cpu_adaptive_host_bytes,
                   .run_gpu = CUB_ON_GPU(cub_gpu_breadth_run),
                   .run_gpu_multi = CUB_ON_GPU(cub_gpu_breadth_run_multi), .user_kernels = 1,
                   .batch = QX_ON_CPU | QX_ON_GPU,
                   .run_gpu_batch = CUB_ON_GPU(cub_gpu_batch_run)},
    [V_TWOPHASE] = {.precisions = CUB_BOTH_PRECISIONS, .user = 1, .max_dim = CUB_MAX_DIM,
                    .run_gpu = CUB_ON_GPU(cub_gpu_twophase_run), .user_kernels = 2,
                    .batch = QX_ON_GPU,
                    .run_gpu_batch = CUB_ON_GPU(cub_gpu_batch_twophase_run)},
    [V_HCUBATURE] = {.precisions = 1u << QX_DOUBLE, .user = 1, .max_dim = CUB_MAX_DIM,
                     .run_cpu = cub_cpu_hcubature, .batch = QX_ON_CPU},
    [V_VEGAS] = {.precisions = CUB_BOTH_PRECISIONS, .user = 1, .max_dim = CUB_FN_MAX_DIM,
                 .run_cpu = cub_cpu_vegas, .host_bytes = cub_cpu_vegas_host_bytes,
                 .run_gpu = CUB_ON_GPU(cub_gpu_vegas_run), .mc = CUB_MC_VEGAS,
                 .batch = QX_ON_CPU},
    [V_QMC] = {.precisions = CUB_BOTH_PRECISIONS, .user = 1, .max_dim = CUB_FN_MAX_DIM,
               .run_cpu = cub_cpu_qmc, .host_bytes = cub_cpu_qmc_host_bytes,
               .run_gpu = CUB_ON_GPU(cub_gpu_qmc_run), .mc = CUB_MC_QMC,
               .batch = QX_ON_CPU},
};
// clang-format on

static const struct param_def cub_eval_args[CUB_MAX_DIM] = {
#define CUB_X(n)                                                                                   \
	{                                                                                          \
		.name = "X" #n, .type = PARAM_REAL, .min = -1e6, .max = 1e6,                       \
		.help = "coordinate " #n                                                           \
	}
    CUB_X(1), CUB_X(2),  CUB_X(3),  CUB_X(4),  CUB_X(5),  CUB_X(6),  CUB_X(7),  CUB_X(8),
    CUB_X(9), CUB_X(10), CUB_X(11), CUB_X(12), CUB_X(13), CUB_X(14), CUB_X(15), CUB_X(16),
#undef CUB_X
};

/* The integrand's kind: a built-in one, or CUB_USER for an expression. */
static int cub_kind(const struct param_value *p)
{
	return p[P_INTEGRAND].num < 0 ? CUB_USER : (int)p[P_INTEGRAND].num;
}

/* The integrand of parameters p (cub_fn_make): a user's still needs its code and data
 * (cubature_user.h). */
static struct cub_fn cub_make_fn(const struct param_value *p)
{
	return cub_fn_make(cub_kind(p), (int)p[P_DIM].num, (unsigned long long)p[P_SEED].num);
}

/* The rule degree of parameters p. */
static int cub_degree(const struct param_value *p)
{
	return p[P_RULE].num == RULE_7 ? 7 : 9;
}

/* Rejects a box with a >= b, f3 or f4 on a box past [-1, 1] (asin's domain: every value NaN),
 * a tolerance outside 0 < rel < 1 (and abs < 0, by its range), and a dim the rule has no points
 * for. */
static int cub_check(const struct param_value *p, void **state, struct qx_err *e)
{
	(void)state;
	const int dim = (int)p[P_DIM].num, deg = cub_degree(p);
	if (!(p[P_A].num < p[P_B].num))
		return qx_fail(e, "the box needs a < b; got a = %g, b = %g", p[P_A].num,
		               p[P_B].num);
	if ((p[P_INTEGRAND].num == CUB_F3 || p[P_INTEGRAND].num == CUB_F4) &&
	    !(p[P_A].num >= -1 && p[P_B].num <= 1))
		return qx_fail(
		    e,
		    "integrand %s takes asin of the coordinates: the box must lie within "
		    "[-1, 1]; got a = %g, b = %g",
		    cub_integrand_names[(int)p[P_INTEGRAND].num], p[P_A].num, p[P_B].num);
	if (!(p[P_REL].num > 0 && p[P_REL].num < 1))
		return qx_fail(e, "rel must be in (0, 1); got %g", p[P_REL].num);
	if (dim <= CUB_MAX_DIM && !cub_rule_points(deg, dim)) /* past it: vegas and qmc only */
		return qx_fail(e,
		               "rule %d needs dim 2..%d: its two-axis generators define the "
		               "degree (got dim %d)",
		               deg, CUB_MAX_DIM, dim);
	return 0;
}

/* The user's integrand of p checked against u: its text parsed in x1..xdim and u's
 * parameters, u's bounds against dim. Built-in integrands pass. */
static int cub_user_check(const struct param_value *p, const struct user_defs *u, struct qx_err *e)
{
	struct user_integrand ui;
	if (u->exact_expr) { /* the exact value in the parameters (and nothing else) */
		const char *names[USER_MAX_PARAMS];
		struct expr *x;
		for (int j = 0; j < u->nparams; j++)
			names[j] = u->param_name[j];
		if (cub_exact_parse(u, names, &x, e))
			return -1;
		expr_free(x);
	}
	if (cub_kind(p) != CUB_USER)
		return 0;
	if (user_integrand_parse(param_expr(p[P_INTEGRAND]), (int)p[P_DIM].num, NULL, 0, u,
	                         p[P_A].num, p[P_B].num, &ui, e)) {
		struct qx_err why = *e; /* the parser's message, with the parameter named */
		return qx_fail(e, "integrand: %s", why.msg);
	}
	for (int b = 0; b < u->nbatch; b++) {
		const int j = u->batch[b].param;
		if (!expr_uses_param(ui.tree, j)) {
			user_integrand_free(&ui);
			return qx_fail(
			    e,
			    "cubature: batch parameter %s (%lld values) is not in the "
			    "integrand: use it there, or make it one value (set param %s "
			    "VALUE)",
			    u->param_name[j], u->batch[b].spec.n, u->param_name[j]);
		}
	}
	user_integrand_free(&ui);
	return 0;
}

/* Refuses a batch (the user's batch parameters: set param k RANGE) that a run of rq on
 * backend b cannot take: a built-in integrand, a batch parameter the integrand does not use,
 * a variant that takes none there, more than one GPU. Returns 0 (also for no batch) or -1
 * with e. */
static int cub_batch_refuse(const struct run_request *rq, enum qx_backend b, struct qx_err *e)
{
	const struct user_defs *u = rq->user;
	const char *name = cub_variants[rq->variant].name;
	if (!u || u->nbatch == 0)
		return 0;
	const char *k = u->param_name[u->batch[0].param];
	if (cub_kind(rq->params) != CUB_USER)
		return qx_fail(e,
		               "cubature: a batch (%s has %lld values) needs your own integrand in "
		               "its parameters: set integrand \"EXPR\", or set param %s VALUE",
		               k, u->batch[0].spec.n, k);
	if (cub_user_check(rq->params, u, e))
		return -1;
	if (!(cub_variant_runs[rq->variant].batch & (1u << b))) {
		const char *takes = "";
		for (size_t i = V_COUNT; i-- > 0;)
			takes =
			    cub_variant_runs[i].batch & (1u << b) ? cub_variants[i].name : takes;
		return qx_fail(e,
		               "cubature: variant %s takes no batch on the %s (%s has %lld "
		               "values): set variant %s, which takes it, or set param %s VALUE",
		               name, qx_backend_name(b), k, u->batch[0].spec.n, takes, k);
	}
	if (b == QX_GPU && rq->gpus > 1)
		return qx_fail(e, "cubature: a batch runs on one GPU (gpus is %d): set gpus 1",
		               rq->gpus);
	return 0;
}

/* One value, the integral, or one a point of the user's batch. */
static size_t cub_count(const struct param_value *p, void **state, const struct user_defs *u)
{
	(void)p;
	(void)state;
	return u && u->nbatch ? (size_t)user_batch_count(u) : 1;
}

/* The point of a result: of a batch's integral its batch parameters, else dim and rel. */
static int cub_point(const struct param_value *p, void **state, const struct user_defs *u, size_t i,
                     const char **names, double *vals, int cap)
{
	(void)state;
	if (u && u->nbatch)
		return cub_batch_point(u, i, names, vals, cap);
	if (cap < 2)
		return 0;
	names[0] = "dim";
	vals[0] = p[P_DIM].num;
	names[1] = "rel";
	vals[1] = p[P_REL].num;
	return 2;
}

/* The rule for (degree, dim), built once and kept while they stay the same. */
static const struct cub_rule *cub_rule_for(int degree, int dim, struct qx_err *e)
{
	static struct cub_rule rule;
	if (rule.pts && rule.degree == degree && rule.dim == dim)
		return &rule;
	cub_rule_free(&rule);
	return cub_rule_build(degree, dim, &rule, e) ? NULL : &rule;
}

/* The job of request rq on backend b, filled from its parameters: the integrand (a user's
 * still to be bound: cubature_user.h), the box [a, b] on every axis, the rule of
 * the parameters' degree and dim, the tolerances and limits, and the budget in bytes: the
 * parameter, else the backend's default, a quarter of the available host memory on the CPU
 * (1 GiB when unknown), half the free memory on the GPU (the smallest GPU's, over several).
 * Returns 0, or -1 with e when the rule cannot be built. */
static int cub_job_fill(const struct run_request *rq, enum qx_backend b, struct cub_job *job,
                        struct qx_err *e)
{
	const struct param_value *p = rq->params;
	*job = (struct cub_job){
	    .fn = cub_make_fn(p),
	    .a = p[P_A].num,
	    .b = p[P_B].num,
	    .rel = p[P_REL].num,
	    .abs = p[P_ABS].num,
	    .maxeval = (long long)p[P_MAXEVAL].num,
	    .budget_mib = p[P_BUDGET].num,
	    .init = (int)p[P_INIT].num,
	    .d = (int)p[P_D].num,
	    .lmax = (int)p[P_LMAX].num,
	    .seed = (unsigned long long)p[P_SEED].num,
	    .calls = (long long)p[P_CALLS].num,
	    .iters = (int)p[P_ITERS].num,
	    .adapt = (int)p[P_ADAPT].num,
	    .shifts = (int)p[P_SHIFTS].num,
	    .threads = rq->threads,
	    .prec = rq->prec,
	};
	for (int i = 0; i < job->fn.dim; i++) {
		job->lo[i] = job->a;
		job->hi[i] = job->b;
	}
	if (job->fn.dim <= CUB_MAX_DIM &&
	    !(job->rule = cub_rule_for(cub_degree(p), job->fn.dim, e)))
		return -1;
	if (job->budget_mib > 0)
		job->budget = (size_t)(job->budget_mib * 1048576.0);
	else if (b == QX_CPU) {
		const size_t avail = qx_host_mem_available();
		job->budget = avail ? avail / 4 : (size_t)1 << 30;
	}
#ifdef QX_HAVE_CUDA
	else /* over several GPUs a budget every one of them has room for */
		job->budget = rq->gpus > 1 ? cub_gpu_default_budget_multi(rq->gpus)
		                           : cub_gpu_default_budget();
#endif
	return 0;
}

/* Refuses a Monte Carlo run (mc: CUB_MC_VEGAS or CUB_MC_QMC) that cannot do one estimate
 * within maxeval: vegas's warm-up and one iteration, qmc's one point a shift. */
static int cub_mc_refuse(const struct param_value *p, int mc, struct qx_err *e)
{
	const double maxeval = p[P_MAXEVAL].num, calls = p[P_CALLS].num;
	const double adapt = p[P_ADAPT].num, shifts = p[P_SHIFTS].num;
	if (mc == CUB_MC_VEGAS && calls * (adapt + 1) > maxeval)
		return qx_fail(e,
		               "vegas needs calls * (adapt + 1) <= maxeval for one iteration after "
		               "the warm-up; got calls %.0f, adapt %.0f, maxeval %.0f",
		               calls, adapt, maxeval);
	if (mc == CUB_MC_QMC && shifts > maxeval)
		return qx_fail(e, "qmc needs shifts <= maxeval; got shifts %.0f, maxeval %.0f",
		               shifts, maxeval);
	return 0;
}

/* Refuses what the row of rq's variant does not take for a run on backend b: the precision,
 * the user's integrand, the dim and, on the GPU, more than one GPU (naming the variant that
 * divides its work); returns 0, or -1 with e. */
static int cub_variant_refuse(const struct run_request *rq, enum qx_backend b, struct qx_err *e)
{
	const struct cub_variant *v = &cub_variant_runs[rq->variant];
	const char *name = cub_variants[rq->variant].name;
	const int dim = (int)rq->params[P_DIM].num;
	if (!(v->precisions & 1u << rq->prec)) {
		const char *other = qx_precision_name(rq->prec == QX_DOUBLE ? QX_FLOAT : QX_DOUBLE);
		return qx_fail(e, "variant %s computes in %s only: set precision %s", name, other,
		               other);
	}
	if (!v->user && cub_kind(rq->params) == CUB_USER)
		return qx_fail(
		    e,
		    "variant %s takes the built-in integrands only: set integrand f1..f5 "
		    "or a Genz family",
		    name);
	if (dim > v->max_dim)
		return qx_fail(
		    e, "variant %s takes dim 1..%d; vegas and qmc take dim 1..%d (got dim %d)",
		    name, v->max_dim, CUB_FN_MAX_DIM, dim);
	if (v->mc && cub_mc_refuse(rq->params, v->mc, e))
		return -1;
	if (b == QX_GPU && rq->gpus > 1 && !v->run_gpu_multi) {
		const char *multi = "";
		for (size_t i = V_COUNT; i-- > 0;)
			multi = cub_variant_runs[i].run_gpu_multi ? cub_variants[i].name : multi;
		return qx_fail(e,
		               "cubature: variant %s runs on one GPU (gpus is %d): set gpus 1, or "
		               "variant %s, which divides its work over GPUs",
		               name, rq->gpus, multi);
	}
	return 0;
}

/* The relative tolerance of a run at a value of size |value|: rel, or abs / |value| where
 * that is larger (the run stops at max(abs, rel |I|)). */
static double cub_tolerance(const struct param_value *p, double value)
{
	const double rel = p[P_REL].num;
	return fabs(value) > 0 && p[P_ABS].num / fabs(value) > rel ? p[P_ABS].num / fabs(value)
	                                                           : rel;
}

/* run_cpu: the variant's CPU algorithm on the job, in double (a float run rounds the double
 * result and adds the rounding to the error estimate). */
static int cub_run_cpu(const struct run_request *rq, struct run_output *o, struct qx_err *e)
{
	const struct cub_variant *v = &cub_variant_runs[rq->variant];
	struct cub_result res;
	struct cub_job job;
	if (cub_check(rq->params, rq->state, e) || cub_job_fill(rq, QX_CPU, &job, e) ||
	    cub_user_bind_cpu(param_expr(rq->params[P_INTEGRAND]), rq->user, rq->jit, &job, o, e) ||
	    cub_variant_refuse(rq, QX_CPU, e))
		return -1;
	if (!v->run_cpu)
		return qx_fail(e, "variant %s has no cpu implementation",
		               cub_variants[rq->variant].name);
	if (cub_batch_refuse(rq, QX_CPU, e))
		return -1;
	if (rq->user && rq->user->nbatch)
		return cub_batch_run(&job, rq->user, QX_CPU, v->run_cpu, NULL, o, e);
	if (v->run_cpu(&job, &res, e))
		return -1;
	cub_output(&job, &res, o);
	cub_chart(&res, &o->chart); /* vegas and qmc keep a history on the CPU too */
	return 0;
}

/* reference: the exact value (NaN where none is known), of every integral of a batch. */
static int cub_reference(const struct param_value *p, void **state, const struct user_defs *u,
                         int threads, const size_t *idx, size_t n, double *ref, struct qx_err *e)
{
	(void)threads;
	(void)idx;
	const struct cub_fn fn = cub_make_fn(p);
	const size_t count = cub_count(p, state, u);
	if (fn.kind == CUB_USER && u && u->exact_expr)
		return cub_exact_expression(u, count, ref, e);
	const double exact =
	    fn.kind == CUB_USER ? (u ? u->exact : NAN) : cub_exact(&fn, p[P_A].num, p[P_B].num);
	for (size_t i = 0; i < count && i < (n ? n : 1); i++)
		ref[i] = exact;
	return 0;
}

/* No run is the reference: the exact values are. */
static int cub_is_reference(enum qx_backend b, enum qx_precision prec, int variant)
{
	(void)b;
	(void)prec;
	(void)variant;
	return 0;
}

/* Host memory a run takes at its start besides the result: its variant's (the CPU queue's
 * first block of regions and work array; a GPU run's budget is device memory, device_bytes'). */
static size_t cub_host_bytes(const struct run_request *rq)
{
	const struct cub_variant *v = &cub_variant_runs[rq->variant];
	size_t bytes = v->host_bytes ? v->host_bytes(rq->threads) : 0;
	if (rq->user && rq->user->nbatch) { /* a batch's results, estimates and lists */
		const double n = (double)user_batch_count(rq->user);
		double lists = 0;
		for (int b = 0; b < rq->user->nbatch; b++)
			lists += (double)rq->user->batch[b].spec.n * sizeof(double);
		const double all = n * (3 * sizeof(double) + 2 * sizeof(long long) + sizeof(int)) +
		                   lists + (double)bytes * rq->threads;
		return all < (double)SIZE_MAX ? (size_t)all : SIZE_MAX;
	}
	return bytes;
}

#ifdef QX_HAVE_CUDA
/* run_gpu: the variant's GPU run on one device or over rq->gpus, its phases in o->time, its
 * convergence in o->chart. */
static int cub_run_gpu(const struct run_request *rq, struct run_output *o, struct qx_err *e)
{
	const struct cub_variant *v = &cub_variant_runs[rq->variant];
	struct cub_result res;
	struct cub_job job;
	struct cub_user_kernels uk;
	if (cub_check(rq->params, rq->state, e) || cub_job_fill(rq, QX_GPU, &job, e) ||
	    cub_variant_refuse(rq, QX_GPU, e) || cub_batch_refuse(rq, QX_GPU, e) ||
	    cub_user_bind_gpu(param_expr(rq->params[P_INTEGRAND]), rq->user, rq->jit,
	                      v->mc ? -v->mc : v->user_kernels, &job, &uk, o, e))
		return -1;
	if (!v->run_gpu)
		return qx_fail(e, "variant %s has no gpu implementation",
		               cub_variants[rq->variant].name);
	if (rq->user && rq->user->nbatch) /* one region list for all the batch's integrals */
		return cub_batch_run(&job, rq->user, QX_GPU, NULL, v->run_gpu_batch, o, e);
	cub_progress_begin(job.maxeval);
	if (rq->gpus > 1) { /* over several GPUs, each one's phases in gpu_time */
		o->ngpus = rq->gpus;
		if (v->run_gpu_multi(&job, rq->gpus, &res, &o->time, o->gpu_time, e))
			return -1;
	} else if (v->run_gpu(&job, &res, &o->time, e))
		return -1;
	cub_output(&job, &res, o);
	cub_chart(&res, &o->chart);
	return 0;
}

/* Device bytes: the budget (the region lists never outgrow it) and the rule. */
static size_t cub_device_bytes(const struct run_request *rq)
{
	const struct param_value *p = rq->params;
	if (cub_variant_runs[rq->variant].mc) /* the grid or shifts, and each block's sums */
		return (size_t)1 << 24;
	const long npts = cub_rule_points(cub_degree(p), (int)p[P_DIM].num);
	const size_t budget =
	    p[P_BUDGET].num > 0 ? (size_t)(p[P_BUDGET].num * 1048576.0) : cub_gpu_default_budget();
	return budget + (size_t)npts * ((size_t)p[P_DIM].num + CUB_MAX_SUMS) * sizeof(double);
}
#endif

/* eval X1..Xdim: the integrand at the point of exactly dim coordinates (the arguments not
 * given are NaN) in precision prec, with the exact integral over the box as a figure. */
static int cub_eval(const double *args, const struct param_value *p, void **state,
                    const struct user_defs *u, enum qx_backend b, enum qx_precision prec,
                    struct eval_result *out, struct qx_err *e)
{
	(void)state;
	struct cub_fn fn = cub_make_fn(p);
	int given = 0;
	while (given < CUB_MAX_DIM && !isnan(args[given]))
		given++;
	if (fn.dim > CUB_MAX_DIM)
		return qx_fail(e, "eval takes at most %d coordinates; dim is %d", CUB_MAX_DIM,
		               fn.dim);
	if (given != fn.dim)
		return qx_fail(e, "eval takes dim = %d coordinates X1..X%d; got %d", fn.dim, fn.dim,
		               given);
	if (b == QX_GPU && fn.kind != CUB_USER)
		return 1;
	if (fn.kind == CUB_USER) {
		struct user_integrand ui;
		if (user_integrand_parse(param_expr(p[P_INTEGRAND]), fn.dim, NULL, 0, u, p[P_A].num,
		                         p[P_B].num, &ui, e))
			return -1;
		const int rc = b == QX_GPU
		                   ? user_integrand_eval_gpu(&ui, u, args, prec, &out->value, e)
		                   : user_integrand_eval(&ui, u, args, prec, &out->value, e);
		user_integrand_free(&ui);
		if (rc)
			return -1;
		out->nfigures = 1;
		out->figure[0] = (struct qx_figure){"integral", u->exact, QX_FIG_NUMBER};
		return 0;
	}
	out->value = cub_fn_at(&fn, args, prec != QX_DOUBLE);
	out->nfigures = 1;
	out->figure[0] =
	    (struct qx_figure){.name = "integral", .value = cub_exact(&fn, p[P_A].num, p[P_B].num)};
	return 0;
}

/* as_expression: Genz's families with their drawn c and w (cub_fn_expression). */
static int cub_as_expression(const struct param_value *p, char *buf, size_t cap)
{
	const struct cub_fn fn = cub_make_fn(p);
	return cub_fn_expression(&fn, buf, cap);
}

/* The phases its GPU runs report (cuda/cubature/), each summed over the iterations. */
static const char *const cub_phases[] = {"alloc",  "rules",  "classify", "split",
                                         "copies", "phase2", "free",     NULL};
static const char *const cub_table_phases[] = {"rules", "classify", "split", NULL};

const struct problem cubature_problem = {
    .name = "cubature",
    .summary = "adaptive multidimensional integration, CUHRE rules",
    .work_unit = "evaluations",
    .phases = cub_phases,
    .table_phases = cub_table_phases,
    .params = cub_params_def,
    .nparams = P_COUNT,
    .variants = cub_variants,
    .nvariants = sizeof cub_variants / sizeof cub_variants[0],
    .eval_args = cub_eval_args,
    .neval_args = CUB_MAX_DIM,
    .neval_min = 1,
    .ref_kind = QX_REF_CPU,
    .ref_name = "exact value",
    .has_estimates = 1,
    .check = cub_check,
    .user_integrand = cub_user_check,
    .count = cub_count,
    .host_bytes = cub_host_bytes,
    .point = cub_point,
    .run_cpu = cub_run_cpu,
    .reference = cub_reference,
    .is_reference = cub_is_reference,
    .tolerance = cub_tolerance,
    .eval = cub_eval,
    .as_expression = cub_as_expression,
#ifdef QX_HAVE_CUDA
    .run_gpu = cub_run_gpu,
    .multi_gpu = 1,
    .device_bytes = cub_device_bytes,
#endif
};
