/* cubature_gpu.h - the C interface of problem cubature's GPU code (cuda/cubature/). Every
 * function returns 0, or -1 with the CUDA call and its message in e; none of them exits. */
#ifndef QUADX_CUBATURE_H
#define QUADX_CUBATURE_H

#include "cubature_rules.h"
#include "../../device.h"

#ifdef __cplusplus
extern "C" {
#endif

enum cub_gpu_algo { CUB_GPU_BREADTH = 0, CUB_GPU_TWOPHASE = 1 };

/* Why a run stopped (the figure `reason`). */
enum cub_reason { CUB_CONVERGED = 0, CUB_MAXEVAL = 1, CUB_BUDGET = 2, CUB_NO_PROGRESS = 3 };

/* One adaptive integration on the GPU: the integrand over the box [a, b]^dim with the rule
 * (built on the host; its points and weights are uploaded), tolerances, limits, for breadth
 * the pieces per axis of its first partition (init; 0: its choice) and, for twophase, the
 * seed's split factor d and list length lmax. budget: bytes the region lists may take on the
 * device. */
/* The kernels linked at run time for a user's integrand (cudaKernel_t handles): the rule kernel
 * for the run's dimension (dn: 4..8, half a warp a region, else 0: a warp a region) and
 * twophase's phase 2 (NULL when the run is breadth's). */
enum { CUB_UK_RULE, CUB_UK_PHASE2, CUB_UK_COUNT };
struct cub_user_kernels {
	void *kernel[CUB_UK_COUNT];
	int dn;
};

struct cub_gpu_job {
	struct cub_fn fn;
	const struct cub_user_kernels *user; /* NULL: fn is built in, else its kernels */
	double a, b, rel, abs;
	long long maxeval;
	size_t budget;
	int algo, init, d, lmax;
	enum qx_precision prec;
	const struct cub_rule *rule;
};

/* What a run found. */
/* Iterations of a GPU run whose convergence a result keeps (the first ones; a run rarely
 * takes more than 40). */
#define CUB_HISTORY 128

struct cub_result {
	double value, err;
	int reason; /* enum cub_reason */
	long long iterations, regions, live, evals;
	double peak_bytes;
	/* GPU runs: per iteration i < nhist, the estimate and error estimate of the integral
	 * after it and the live regions (every one evaluated, in this or an earlier iteration) */
	int nhist;
	double hist_est[CUB_HISTORY], hist_err[CUB_HISTORY], hist_regions[CUB_HISTORY];
};

/* The progress of an adaptive run (src/problems/cubature/cubature.c): the count of evaluations up
 * to maxeval starts; per iteration the integral's estimate est and error estimate err against
 * max(abs_tol, rel |est|). The evaluations are added with qx_progress_add. */
void cub_progress_begin(long long maxeval);
void cub_progress_error(double est, double err, double rel, double abs_tol);

/* Bytes of one region on the device (its entries in breadth's two lists, their work arrays and
 * those of running ahead) for dim and prec. */
size_t cub_gpu_region_bytes(int dim, enum qx_precision prec);
/* The default budget: half the free device memory; 0 when it cannot be read. */
size_t cub_gpu_default_budget(void);
/* Runs the job; phases per iteration summed into *t (rules, classify, split, copies). */
int cub_gpu_run(const struct cub_gpu_job *job, struct cub_result *res, struct qx_timing *t,
                struct qx_err *e);
/* Runs the job (variant breadth) over devices 0..ngpus-1 (cuda/cubature/breadth_multi.cu):
 * the leaves divided over them, the same decisions as on one GPU from sums agreed each
 * iteration; job->budget is each device's and is refused, before anything runs, where a
 * device has less free. Each device's phases into per[0..ngpus), the slowest one's into *t
 * with the run's wall time as its total; a failure names its GPU. */
int cub_gpu_run_multi(const struct cub_gpu_job *job, int ngpus, struct cub_result *res,
                      struct qx_timing *t, struct qx_timing *per, struct qx_err *e);
/* The default budget of a run over devices 0..ngpus-1: half the smallest free memory among
 * them; 0 when one cannot be read. */
size_t cub_gpu_default_budget_multi(int ngpus);
/* The floor: the rule alone on nregions fixed regions tiling the box, median of reps timed
 * launches after a warm-up, into *ms. */
int cub_gpu_rule_floor(const struct cub_gpu_job *job, long long nregions, int reps, double *ms,
                       struct qx_err *e);

#ifdef __cplusplus
}
#endif

#endif
