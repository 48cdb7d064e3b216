/* cubature_gpu.h - the C interface of problem cubature's GPU code (cuda/cubature/): each
 * variant's run of a job (cubature_job.h) on one device or over several, the budgets, and the
 * bench's floors (the rule alone; Monte Carlo's draws and evaluations alone). Every function
 * returns 0, or -1 with the CUDA call and its message in e; none of them exits. */
#ifndef QUADX_CUBATURE_H
#define QUADX_CUBATURE_H

#include "cubature_job.h"
#include "cubature_rules.h"
#include "../../device.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The kernels linked at run time for a user's integrand (cudaKernel_t handles): the rule kernel
 * for the run's dimension (dn: 4..8, half a warp a region, else 0: a warp a region) and
 * twophase's phase 2 (NULL when the run is breadth's); for vegas or qmc their one kernel in
 * kernel[CUB_UK_RULE]. */
enum { CUB_UK_RULE, CUB_UK_PHASE2, CUB_UK_COUNT };
struct cub_user_kernels {
	void *kernel[CUB_UK_COUNT];
	int dn;
};

/* Bytes of one region on the device (its entries in breadth's two lists, their work arrays and
 * those of running ahead) for dim and prec. */
size_t cub_gpu_region_bytes(int dim, enum qx_precision prec);
/* The default budget: half the free device memory; 0 when it cannot be read. */
size_t cub_gpu_default_budget(void);
/* Variant breadth on device 0 (cuda/cubature/breadth.cu); phases per iteration summed into
 * *t (rules, classify, split, copies). */
int cub_gpu_breadth_run(const struct cub_job *job, struct cub_result *res, struct qx_timing *t,
                        struct qx_err *e);
/* Variant twophase on device 0 (cuda/cubature/twophase.cu), from l^dim regions to the job's
 * lmax with splits into d pieces, then phase 2; phases into *t. */
int cub_gpu_twophase_run(const struct cub_job *job, struct cub_result *res, struct qx_timing *t,
                         struct qx_err *e);
/* Variant breadth over devices 0..ngpus-1 (cuda/cubature/breadth_multi.cu): the leaves divided
 * over them, the same decisions as on one GPU from sums agreed each iteration; job->budget is
 * each device's and is refused, before anything runs, where a device has less free. Each
 * device's phases into per[0..ngpus), the slowest one's into *t with the run's wall time as its
 * total; a failure names its GPU. */
int cub_gpu_breadth_run_multi(const struct cub_job *job, int ngpus, struct cub_result *res,
                              struct qx_timing *t, struct qx_timing *per, struct qx_err *e);
/* The default budget of a run over devices 0..ngpus-1: half the smallest free memory among
 * them; 0 when one cannot be read. */
size_t cub_gpu_default_budget_multi(int ngpus);
/* Variant vegas on device 0 (cuda/cubature/vegas.cu): the CPU's iterations (cub_cpu_vegas), each
 * one kernel drawing the same Philox samples and one step on the device refining the grid and
 * combining the iterations, queued by the chunk; phases "alloc", "samples" and "free" into
 * *t. */
int cub_gpu_vegas_run(const struct cub_job *job, struct cub_result *res, struct qx_timing *t,
                      struct qx_err *e);
/* vegas's refinement of grid (dim axes of nb + 1 edges) from d (nb sums an axis) on device 0,
 * in place, as each iteration's step refines it (cuda/cubature/vegas_step.cu): for the tests,
 * against the CPU's cub_vegas_refine_grid. Returns 0, or -1 with e filled. */
int cub_gpu_vegas_refine(double *grid, const double *d, int dim, int nb, struct qx_err *e);
/* Variant qmc on device 0 (cuda/cubature/qmc.cu): the CPU's lattice, shifts and doublings
 * (cub_cpu_qmc), a kernel a level; phases into *t. */
int cub_gpu_qmc_run(const struct cub_job *job, struct cub_result *res, struct qx_timing *t,
                    struct qx_err *e);
/* The floor: the rule alone on nregions fixed regions tiling the box, median of reps timed
 * launches after a warm-up, into *ms. */
int cub_gpu_rule_floor(const struct cub_job *job, long long nregions, int reps, double *ms,
                       struct qx_err *e);
/* The Monte Carlo floor (cuda/cubature/mc_floor.cu): calls of vegas's Philox points drawn
 * uniformly and the job's built-in integrand evaluated at them, nothing else; median of reps
 * timed launches after a warm-up, into *ms. */
int cub_gpu_mc_floor(const struct cub_job *job, long long calls, int reps, double *ms,
                     struct qx_err *e);

#ifdef __cplusplus
}
#endif

#endif
