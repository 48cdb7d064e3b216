/* floor.cu - cubature's rule-only floor for the bench: the rule alone on a uniform grid of
 * regions, the time breadth's rule launches cannot beat. */
#include <algorithm>
#include <vector>

#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "../../src/problems/cubature/cubature_gpu.h"
#include "../gpu_util.cuh"
#include "common.cuh"
#include "rule_kernel.cuh"

/* The rule alone on nregions regions (the first nregions of a uniform grid), the median of
 * reps launches after a warm-up, timed with events. */
template <typename T>
static int cub_floor(const struct cub_job *job, long long nregions, int reps, double *ms,
                     struct qx_err *e)
{
	const int dim = job->rule->dim;
	cub_dev<T> d;
	if (cub_alloc<T>(job, nregions, d, e))
		return -1;
	const cub_rule &dr = d.dr;
	int l = 1;
	while (pow(l + 1, dim) <= nregions)
		l++;
	cub_list<T> g = {d.c[0].ptr, d.h[0].ptr};
	int sms = 0;
	cub_init_kernel<T><<<(unsigned)((nregions + ELEM_BLOCK - 1) / ELEM_BLOCK), ELEM_BLOCK>>>(
	    nregions, dim, l, job->a, job->b, g, nregions);
	GPU_TRY(cudaGetLastError());
	GPU_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	cudaEvent_t *ev = gpu_events(2, e);
	if (!ev)
		return -1;
	double times[64];
	reps = reps < 64 ? reps : 64;
	for (int i = -1; i < reps; i++) {
		GPU_TRY(cudaEventRecord(ev[0]));
		GPU_TRY(cub_rule_launch<T>(job, dr, g, nregions, nregions, d.est.ptr, d.err.ptr,
		                           d.axis.ptr, sms));
		GPU_TRY(cudaEventRecord(ev[1]));
		GPU_TRY(cudaEventSynchronize(ev[1]));
		if (i >= 0)
			times[i] = gpu_elapsed(ev[0], ev[1]);
	}
	std::sort(times, times + reps);
	*ms = times[reps / 2];
	return 0;
}

/* The rule-only floor in the job's precision. */
extern "C" int cub_gpu_rule_floor(const struct cub_job *job, long long nregions, int reps,
                                  double *ms, struct qx_err *e)
{
	if (nregions < 1 || reps < 1)
		return qx_fail(e, "rule floor: expected nregions >= 1 and reps >= 1");
	if (job->prec == QX_DOUBLE)
		return cub_floor<double>(job, nregions, reps, ms, e);
	return cub_floor<float>(job, nregions, reps, ms, e);
}
