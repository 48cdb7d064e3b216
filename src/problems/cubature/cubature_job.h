/* cubature_job.h - one adaptive integration of problem cubature as every variant takes it, CPU
 * or GPU: the job (filled once from the parameters by cubature.c), the result it gives and
 * why it stopped, and the progress every run publishes. Plain C, no CUDA: the CPU algorithms
 * (cubature_cpu.h) and the GPU drivers (cubature_gpu.h, cuda/cubature/) read the same job. */
#ifndef QX_CUBATURE_JOB_H
#define QX_CUBATURE_JOB_H

#include "../../qx.h"
#include "cubature_math.h"

#ifdef __cplusplus
extern "C" {
#endif

struct cub_rule;         /* cubature_rules.h */
struct cub_user_kernels; /* cubature_gpu.h */

/* One adaptive integration: the integrand over the box (the CPU's lo..hi axis by axis, the
 * GPU's [a, b]^dim), with the rule (built on the host; a GPU run uploads its points and
 * weights), the tolerances and limits; budget: bytes the region lists may take (on the host
 * for a CPU run, on each device for a GPU run), budget_mib the parameter it came from (0: the
 * default); for breadth on the GPU the pieces per axis of its first partition (init; 0: its
 * choice), for twophase the split factor d and list length lmax; CPU runs: threads. A user's
 * integrand has its data in fn.user, its CPU code in fn.user_d/user_f and its GPU kernels in
 * user (NULL for a built-in integrand or a CPU run). */
struct cub_job {
	struct cub_fn fn;
	const struct cub_user_kernels *user;
	double a, b;
	double lo[CUB_FN_MAX_DIM], hi[CUB_FN_MAX_DIM];
	double rel, abs;
	long long maxeval;
	size_t budget;
	double budget_mib;
	int init, d, lmax;
	int threads;
	/* the Monte Carlo variants (cubature_mc.h): the seed of their random numbers, vegas's
	 * samples an iteration, its least iterations in the result and its warm-up iterations,
	 * qmc's random shifts */
	unsigned long long seed;
	long long calls;
	int iters, adapt, shifts;
	int in_batch; /* 1: one integral of a batch (cub_cpu_batch), which publishes the progress
	               * itself: the run leaves the progress alone */
	enum qx_precision prec;
	const struct cub_rule *rule;
};

/* Why a run stopped (the figure `reason`): converged; maxeval, the budget or no progress came
 * first; regions whose samples were NaN or inf were still live at the end (their samples left
 * out of the value, the error estimate infinite); the estimate met the tolerance but not once
 * the rounding of the run's precision was added to it. */
enum cub_reason {
	CUB_CONVERGED = 0,
	CUB_MAXEVAL = 1,
	CUB_BUDGET = 2,
	CUB_NO_PROGRESS = 3,
	CUB_NONFINITE = 4,
	CUB_PRECISION = 5,
	CUB_UNTRUSTED = 6, /* vegas: its iterations disagree (chi^2/dof over CUB_VEGAS_CHI2_MAX) */
};

/* Points of a run's convergence history a result keeps (struct cub_result's hist_...): a run
 * of more iterations keeps its first CUB_HISTORY_HEAD, then every 2nd, 4th, ... of the others
 * (cub_history_record), and its last; on a log axis of evaluations its start stays drawn. */
#define CUB_HISTORY 128
#define CUB_HISTORY_HEAD 32

/* What a run found. */
struct cub_result {
	double value, err;
	int reason; /* enum cub_reason */
	long long iterations, regions, live, evals;
	long long nonfinite; /* samples that were NaN or inf, dropped (CPU runs count them) */
	int unverified;      /* 1: err is another library's estimate, which quadx does not check */
	double peak_bytes;
	/* the Monte Carlo variants: err is a standard error (1: vegas, 2: qmc; 0: a rule's
	 * estimate), vegas's chi^2 per degree of freedom of its iterations (NaN with one) */
	int mc;
	double chi2_dof;
	/* The run's convergence history, point i < nhist after iteration hist_iter[i] (1, 2, ...):
	 *   hist_est    the estimate of the integral then;
	 *   hist_err    its error estimate (the rules': the sum of the regions' errors; vegas: the
	 *               standard error of the weighted mean of the iterations in the result so
	 *               far, or in a warm-up iteration that iteration's own; qmc: the standard
	 *               error of the shifts' mean after a doubling);
	 *   hist_regions the live regions (a Monte Carlo run: 1);
	 *   hist_evals  the evaluations spent so far, every earlier iteration's included (0: not
	 *               recorded, as the GPU's rule drivers leave it).
	 * Filled by cub_history_record (CPU runs, and vegas and qmc on the GPU) or cub_history_add
	 * (the GPU's rule drivers, cuda/cubature/common.cuh);
	 * past CUB_HISTORY iterations the first CUB_HISTORY_HEAD stay, then only every
	 * hist_stride-th, and the last one. */
	int nhist, hist_stride, hist_tail; /* hist_tail 1: the last point is off the stride */
	long long hist_iter[CUB_HISTORY];
	double hist_est[CUB_HISTORY], hist_err[CUB_HISTORY], hist_regions[CUB_HISTORY];
	double hist_evals[CUB_HISTORY];
};

/* The progress of an adaptive run (cubature_output.c): the count of evaluations up to maxeval
 * starts; per iteration the integral's estimate est and error estimate err against
 * max(abs_tol, rel |est|). The evaluations are added with qx_progress_add. */
void cub_progress_begin(long long maxeval);
void cub_progress_error(double est, double err, double rel, double abs_tol);

/* Records the state after iteration iter (1, 2, ... in order) in res's history: estimate est,
 * error estimate err, live regions and the evaluations spent so far (cubature_output.c). While
 * there is room every iteration is kept; a full history keeps its first CUB_HISTORY_HEAD
 * points and every other of the rest (those at multiples of twice the stride) and takes only
 * every hist_stride-th iteration from then on, the latest iteration always kept as its last
 * point, so that a run of any length keeps its start, its end and points evenly spread
 * between them. */
void cub_history_record(struct cub_result *res, long long iter, double est, double err,
                        double regions, double evals);

#ifdef __cplusplus
}
#endif

#endif
