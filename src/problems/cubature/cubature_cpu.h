/* cubature_cpu.h - problem cubature's CPU algorithms, one a file: the adaptive queue of regions
 * (cubature_cpu.c: serial, or batches in parallel with threads) and Debian's libcubature
 * (cubature_hcubature.c), and the Monte Carlo variants vegas (cubature_vegas.c) and qmc
 * (cubature_qmc.c). Each runs a job in double (cubature_job.h) into res and returns 0,
 * or -1 with e filled (cancelled, out of memory, a budget that does not fit); none reads the
 * problem's parameters. */
#ifndef QX_CUBATURE_CPU_H
#define QX_CUBATURE_CPU_H

#include <stddef.h>

#include "cubature_job.h"

struct cub_rule;

/* A region of the CPU queue: its estimate, error, split axis, centre and half-widths, and
 * how many of its samples were not finite (its error is then CUB_ERR_NONFINITE). */
struct cub_region {
	double est, err;
	int axis, nonfinite;
	double c[CUB_MAX_DIM], h[CUB_MAX_DIM];
};

/* Applies rule r to region g of fn (its c and h set): fills est, err, axis and nonfinite. */
void cub_region_apply(const struct cub_rule *r, const struct cub_fn *fn, struct cub_region *g);

/* DCUHRE's check of children l and r against their parent's estimate parent_est: their errors
 * grow by 1 + 0.5 E / (their error sum) and by 0.25 E, E the children's sum's distance from
 * the parent's estimate. */
void cub_region_check(double parent_est, struct cub_region *l, struct cub_region *r);

/* The sequential CUHRE: a priority queue of regions by error, the worst split first (with
 * job->threads > 1 the 4 threads worst at once, their children evaluated in parallel), from
 * the box halved along every axis, until the error meets the tolerance, maxeval or the
 * budget. */
int cub_cpu_adaptive(const struct cub_job *job, struct cub_result *res, struct qx_err *e);

/* Host bytes cub_cpu_adaptive takes at its start for threads threads: its queue's first block
 * of regions and its work array (it grows within the budget, which the run checks against
 * the available memory itself). */
size_t cub_cpu_adaptive_host_bytes(int threads);

/* libcubature's hcubature (its rule is Genz-Malik 7/5 for dim >= 2, Gauss-Kronrod for dim
 * 1), its evaluations counted; libcubature keeps its regions to itself. */
int cub_cpu_hcubature(const struct cub_job *job, struct cub_result *res, struct qx_err *e);

/* Lepage's VEGAS: job->adapt iterations of job->calls samples that only adapt the grid, then
 * iterations combined by their inverse-variance weighted mean until its standard error meets
 * the tolerance (after at least job->iters) or maxeval; res->mc 1, res->chi2_dof, res->regions
 * the iterations in the result. */
int cub_cpu_vegas(const struct cub_job *job, struct cub_result *res, struct qx_err *e);
size_t cub_cpu_vegas_host_bytes(int threads);

/* The randomized rank-1 lattice: job->shifts shifts of a Korobov lattice doubled from 2^10
 * points until the shifts' standard error meets the tolerance or maxeval; res->mc 2,
 * res->regions the points a shift. */
int cub_cpu_qmc(const struct cub_job *job, struct cub_result *res, struct qx_err *e);
size_t cub_cpu_qmc_host_bytes(int threads);

#endif
