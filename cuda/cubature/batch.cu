/* batch.cu - the batch on one GPU (cubature_batch.h), breadth's and twophase's: many integrals
 * of the user's integrand, one region list for them all. Each region carries the index of its
 * integral (its tag); the integrals' data (the job's fn.user with the batch parameters put in)
 * sit in one device array that the rule kernel reads by tag. An iteration evaluates the new
 * regions, sums estimates and errors per integral (atomics on the integral's sums), decides
 * each integral (converged, maxeval, or its split threshold: the remaining tolerance shared
 * equally over its live regions), and rebuilds the list: the children of the regions over
 * their integral's threshold first (they are the next rule launch's work), the regions kept
 * after them; the regions of an integral that has finished are dropped, so it costs nothing
 * more. twophase's phase 1 is that loop until the next list would pass lmax regions; its phase
 * 2 takes every live region of the integrals still going, one thread each, each region to its
 * volume's share of its integral's tolerance. */
#include <climits>

#include <cub/device/device_scan.cuh>

#include "../../src/problems/cubature/cubature_batch.h"
#include "../../src/problems/cubature/cubature_gpu.h"
#include "../gpu_util.cuh"
#include "common.cuh"
#include "rule_kernel.cuh"

/* What becomes of an integral: still splitting, or finished for a reason (enum cub_reason). */
static const int BATCH_ACTIVE = -1;

/* The device copies of the batch's lists, passed by value. */
struct cub_batch_lists {
	const double *p[CUB_BATCH_PARAMS];
};

/* Integral i's data: the job's fn.user with its batch parameters in. */
static __global__ void cub_batch_data_kernel(long long n, cub_fn fn, cub_batch b, cub_batch_lists l,
                                             double *data)
{
	const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	double u[CUB_USER_DATA];
	for (int k = 0; k < CUB_USER_DATA; k++)
		u[k] = fn.user[k];
	cub_batch_params(&b, l.p, i, u);
	for (int k = 0; k < CUB_USER_DATA; k++)
		data[i * CUB_USER_DATA + k] = u[k];
}

/* The first list: integral i's whole unit cube as region i; its state active, its evaluations
 * the rule's points. */
template <typename T>
static __global__ void cub_batch_init_kernel(long long n, int dim, cub_list<T> g, long long cap,
                                             int *tag, int *state, long long *evals, int npts)
{
	const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	for (int k = 0; k < dim; k++) {
		g.c[k * cap + i] = (T)0.5;
		g.h[k * cap + i] = (T)0.5;
	}
	tag[i] = (int)i;
	state[i] = BATCH_ACTIVE;
	evals[i] = npts;
}

/* Adds each of the m live regions' estimate and error to its integral's sums and counts it. */
static __global__ void cub_batch_sum_kernel(long long m, const int *tag, const double *est,
                                            const double *err, double *sum_est, double *sum_err,
                                            long long *live)
{
	const long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	if (r >= m)
		return;
	const int i = tag[r];
	atomicAdd(&sum_est[i], est[r]);
	atomicAdd(&sum_err[i], err[r]);
	atomicAdd((unsigned long long *)&live[i], 1ULL);
}

/* Decides each active integral from its sums: converged where its error meets
 * max(abs, rel |estimate|) once its estimates were checked against their parents (after the
 * first iteration); maxeval where splitting every live region would pass it; else its split
 * threshold, CUB_BREADTH_KEEP of the tolerance over its live regions (every region splits in
 * the first iteration: threshold -1). A finished integral's answer is its sums now; *done
 * counts the integrals that finish here, done[1] those of them that converged. */
static __global__ void cub_batch_decide_kernel(long long n, int first, double rel, double abs_tol,
                                               long long maxeval, int npts, const double *sum_est,
                                               const double *sum_err, const long long *live,
                                               const long long *evals, int *state, double *thr,
                                               double *value, double *error, long long *live_out,
                                               unsigned long long *done)
{
	const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	if (i >= n || state[i] != BATCH_ACTIVE)
		return;
	const double tol = fmax(abs_tol, rel * fabs(sum_est[i]));
	int why = BATCH_ACTIVE;
	if (!first && sum_err[i] <= tol)
		why = CUB_CONVERGED;
	else if (evals[i] + 2 * live[i] * npts > maxeval)
		why = CUB_MAXEVAL;
	thr[i] = first ? -1 : CUB_BREADTH_KEEP * tol / (double)live[i];
	if (why == BATCH_ACTIVE)
		return;
	state[i] = why;
	value[i] = sum_est[i];
	error[i] = sum_err[i];
	live_out[i] = live[i];
	atomicAdd(done, 1ULL);
	if (why == CUB_CONVERGED)
		atomicAdd(done + 1, 1ULL);
}

/* Per live region: split (its integral active and its error over the threshold: its pair of
 * children counted in its integral's evaluations) or kept (active, under it); a finished
 * integral's regions neither. */
static __global__ void cub_batch_flag_kernel(long long m, int npts, const int *tag,
                                             const double *err, const int *state, const double *thr,
                                             int *split, int *keep, long long *evals)
{
	const long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	if (r >= m)
		return;
	const int i = tag[r];
	const int active = state[i] == BATCH_ACTIVE, s = active && err[r] > thr[i];
	split[r] = s;
	keep[r] = active && !s;
	if (s)
		atomicAdd((unsigned long long *)&evals[i], 2ULL * npts);
}

/* The next list from the m live regions of g: region r's children (halves along its axis) at
 * 2 spos[r] and 2 spos[r] + 1 with its estimate in parent[spos[r]], or region r itself (its
 * estimate, error and axis with it) at 2 nsplit + kpos[r]. */
template <typename T>
static __global__ void
cub_batch_rebuild_kernel(long long m, int dim, cub_list<T> g, long long cap, const int *tag,
                         const double *est, const double *err, const int *axis, const int *split,
                         const int *keep, const int *spos, const int *kpos, long long nsplit,
                         cub_list<T> out, int *out_tag, double *out_est, double *out_err,
                         int *out_axis, double *parent)
{
	const long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	if (r >= m || !(split[r] || keep[r]))
		return;
	if (split[r]) {
		const long long q = 2LL * spos[r];
		const int ax = axis[r];
		for (int k = 0; k < dim; k++) {
			const T c = g.c[k * cap + r], h = g.h[k * cap + r];
			const T hh = k == ax ? h / 2 : h;
			out.c[k * cap + q] = k == ax ? c - hh : c;
			out.c[k * cap + q + 1] = k == ax ? c + hh : c;
			out.h[k * cap + q] = out.h[k * cap + q + 1] = hh;
		}
		out_tag[q] = out_tag[q + 1] = tag[r];
		parent[spos[r]] = est[r];
		return;
	}
	const long long q = 2 * nsplit + kpos[r];
	for (int k = 0; k < dim; k++) {
		out.c[k * cap + q] = g.c[k * cap + r];
		out.h[k * cap + q] = g.h[k * cap + r];
	}
	out_tag[q] = tag[r];
	out_est[q] = est[r];
	out_err[q] = err[r];
	out_axis[q] = axis[r];
}

/* Finishes every integral still active (the list outgrew the budget) for reason why, its
 * answer its sums now. */
static __global__ void cub_batch_stop_kernel(long long n, int why, const double *sum_est,
                                             const double *sum_err, const long long *live,
                                             int *state, double *value, double *error,
                                             long long *live_out)
{
	const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	if (i >= n || state[i] != BATCH_ACTIVE)
		return;
	state[i] = why;
	value[i] = sum_est[i];
	error[i] = sum_err[i];
	live_out[i] = live[i];
}

/* One of the two region lists: centres, half-widths, tags, estimates, errors, split axes. */
template <typename T> struct cub_batch_list {
	cub_owned<T> c, h;
	cub_owned<int> tag, axis;
	cub_owned<double> est, err;
};

/* Bytes a region takes: its place in both lists, its flags and positions, its parent's
 * estimate. */
template <typename T> static size_t cub_batch_region_bytes(int dim)
{
	return 2 * (2 * dim * sizeof(T) + 2 * sizeof(int) + 2 * sizeof(double)) + 4 * sizeof(int) +
	       sizeof(double);
}

/* Bytes an integral takes: its data and sums, its state, threshold and answer. */
static const size_t BATCH_INTEGRAL_BYTES =
    CUB_USER_DATA * sizeof(double) + 5 * sizeof(double) + 3 * sizeof(long long) + sizeof(int);

/* Blocks of ELEM_BLOCK threads for count elements. */
static unsigned cub_batch_blocks(long long count)
{
	return (unsigned)((count + ELEM_BLOCK - 1) / ELEM_BLOCK);
}

/* Phase 2's tolerance of each integral still going into tol: max(abs, rel |estimate|) less
 * the rounding its answer will carry (cub_output_value's: the sum of at most hsz regions for
 * each live one, and in float the value's storage), so that answers that meet it still do
 * with the rounding in. */
static __global__ void cub_batch_p2_tol_kernel(long long n, double rel, double abs_tol, int hsz,
                                               int in_float, const double *sum_est,
                                               const long long *live, const int *state, double *tol)
{
	const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	if (i >= n || state[i] != BATCH_ACTIVE)
		return;
	const double v = fabs(sum_est[i]);
	const double rounding = (4 + log2(fmax(1.0, (double)live[i] * hsz))) * DBL_EPSILON * v +
	                        (in_float ? ldexp(v, -24) : 0);
	tol[i] = fmax(fmax(abs_tol, rel * v) - rounding, 0.0);
}

/* Each of the m live regions of g whose integral is still going (split or keep): retired when
 * its error fits its volume's share of its integral's tolerance (its estimate, error and
 * region counted into the integral's sums at once, so that the retired errors sum to at most
 * the tolerance), else on to phase 2 (act[r], its volume and count added to its integral's
 * vol_act and nact). A region flagged to split gives back the evaluations its children were
 * counted. */
template <typename T>
static __global__ void cub_batch_p2_flag_kernel(long long m, int dim, int npts, cub_list<T> g,
                                                long long cap, const int *tag, const double *est,
                                                const double *err, const int *split,
                                                const int *keep, const double *tol, int *act,
                                                long long *evals, double *sum_est, double *sum_err,
                                                long long *live, double *vol_act, long long *nact)
{
	const long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	if (r >= m)
		return;
	const int s = split[r], going = s || keep[r]; /* read before act, which may be keep */
	act[r] = 0;
	if (!going)
		return;
	const int i = tag[r];
	if (s)
		atomicAdd((unsigned long long *)&evals[i], (unsigned long long)(-2LL * npts));
	double v = 1;
	for (int k = 0; k < dim; k++)
		v *= 2 * (double)g.h[k * cap + r];
	if (err[r] <= tol[i] * v) {
		atomicAdd(&sum_est[i], est[r]);
		atomicAdd(&sum_err[i], err[r]);
		atomicAdd((unsigned long long *)&live[i], 1ULL);
		return;
	}
	act[r] = 1;
	atomicAdd(&vol_act[i], v);
	atomicAdd((unsigned long long *)&nact[i], 1ULL);
}

/* Region r of g that goes on, to position pos[r] of out with its tag, estimate, error, axis
 * and volume. */
template <typename T>
static __global__ void
cub_batch_p2_compact_kernel(long long m, int dim, cub_list<T> g, long long cap, const int *tag,
                            const double *est, const double *err, const int *axis, const int *act,
                            const int *pos, cub_list<T> out, int *out_tag, double *out_est,
                            double *out_err, int *out_axis, double *vol)
{
	const long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	if (r >= m || !act[r])
		return;
	const long long q = pos[r];
	double v = 1;
	for (int k = 0; k < dim; k++) {
		out.c[k * cap + q] = g.c[k * cap + r];
		out.h[k * cap + q] = g.h[k * cap + r];
		v *= 2 * (double)g.h[k * cap + r];
	}
	out_tag[q] = tag[r];
	out_est[q] = est[r];
	out_err[q] = err[r];
	out_axis[q] = axis[r];
	vol[q] = v;
}

/* Each integral still going with regions in phase 2: what its tolerance leaves after its
 * retired errors, per unit of its phase-2 regions' volume, into tol (a region's target is
 * that times its volume, as one integral's twophase shares the rest over the active volume),
 * and the evaluations each of those regions may spend (what maxeval leaves, shared equally)
 * into limit. */
static __global__ void cub_batch_p2_share_kernel(long long n, long long maxeval, const int *state,
                                                 const double *sum_err, const double *vol_act,
                                                 const long long *nact, const long long *evals,
                                                 double *tol, long long *limit)
{
	const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	if (i >= n || state[i] != BATCH_ACTIVE || nact[i] == 0)
		return;
	tol[i] = fmax(tol[i] - sum_err[i], 0.0) / vol_act[i];
	limit[i] = maxeval > evals[i] ? (maxeval - evals[i]) / nact[i] : 0;
}

/* Adds each of the m phase-2 regions' estimate, error, regions (1 and its splits' children:
 * one split a child, each child 2 rule calls of npts) and evaluations to its integral's, the
 * worst reason it stopped to why_i, its evaluations to *spent. */
static __global__ void
cub_batch_p2_sum_kernel(long long m, int npts, const int *tag, const double *est, const double *err,
                        const long long *used, const int *why, double *sum_est, double *sum_err,
                        long long *live, long long *evals, int *why_i, unsigned long long *spent)
{
	const long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	if (r >= m)
		return;
	const int i = tag[r];
	atomicAdd(&sum_est[i], est[r]);
	atomicAdd(&sum_err[i], err[r]);
	atomicAdd((unsigned long long *)&live[i], (unsigned long long)(1 + used[r] / (2 * npts)));
	atomicAdd((unsigned long long *)&evals[i], (unsigned long long)used[r]);
	atomicMax(&why_i[i], why[r]);
	atomicAdd(spent, (unsigned long long)used[r]);
}

/* Finishes each integral still going after phase 2: converged where its error meets
 * max(abs, rel |estimate|), else the budget (a region's heap filled) or maxeval; *done counts
 * them, done[1] those that converged. */
static __global__ void cub_batch_p2_finish_kernel(long long n, double rel, double abs_tol,
                                                  const double *sum_est, const double *sum_err,
                                                  const long long *live, const int *why_i,
                                                  int *state, double *value, double *error,
                                                  long long *live_out, unsigned long long *done)
{
	const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	if (i >= n || state[i] != BATCH_ACTIVE)
		return;
	const int met = sum_err[i] <= fmax(abs_tol, rel * fabs(sum_est[i]));
	state[i] = met ? CUB_CONVERGED : why_i[i] == 2 ? CUB_BUDGET : CUB_MAXEVAL;
	value[i] = sum_est[i];
	error[i] = sum_err[i];
	live_out[i] = live[i];
	atomicAdd(done, 1ULL);
	if (met)
		atomicAdd(done + 1, 1ULL);
}

/* What twophase's phase 2 takes of a batch run: the list `from` with its m live regions
 * (their split and keep flags set), the list `to` it compacts them into, and the run's
 * per-integral arrays (cub_batch_run's of the same names; tol is its thresholds' array). */
template <typename T> struct cub_batch_p2_io {
	cub_batch_list<T> *from, *to;
	long long m, cap;
	const double *data;
	int *split, *keep, *pos;
	unsigned char *tmp;
	size_t tmp_bytes;
	double *sum_est, *sum_err, *tol, *value, *error;
	long long *live, *evals, *live_out;
	int *state;
	unsigned long long *done;
};

/* twophase's phase 2 on a batch of n integrals (see the file's comment): of the live regions
 * of the integrals still going, those whose error fits their volume's share of their
 * integral's tolerance retire, and the others, compacted, run one thread each with a heap of
 * at most PHASE2_HEAP regions (what the budget's half left for heaps allows, at least 3), each
 * to its volume's share of what its integral's retired errors leave, within its share of what
 * maxeval leaves; then each such integral's sums and its answer. Adds the regions it made to
 * *regions and the heaps' bytes to *heap_bytes. Returns 0 or -1 with e. */
template <typename T>
static int cub_batch_phase2(const struct cub_job *job, const cub_rule &dr, long long n,
                            const cub_batch_p2_io<T> &io, long long *regions, double *heap_bytes,
                            struct qx_err *e)
{
	const int dim = job->rule->dim, npts = job->rule->npts;
	const long long m = io.m, cap = io.cap;
	const size_t per_region = sizeof(cub_p2_region<T>);
	cub_owned<double> vol, vol_act;
	cub_owned<long long> used, limit, nact;
	cub_owned<int> why, why_i;
	cub_owned<cub_p2_region<T>> heap;
	cub_owned<unsigned long long> spent;
	const cub_list<T> g = {io.from->c.ptr, io.from->h.ptr}, out = {io.to->c.ptr, io.to->h.ptr};
	/* the heap's length as it will be when every live region goes on (at most) */
	long long hsz = (long long)(job->budget / 2 / ((size_t)m * per_region));
	hsz = std::max(std::min(hsz, (long long)PHASE2_HEAP), 3LL);
	if (cub_realloc(vol_act, n, e) || cub_realloc(nact, n, e) || cub_realloc(limit, n, e) ||
	    cub_realloc(why_i, n, e) || cub_realloc(spent, 1, e))
		return -1;
	GPU_LAUNCH((cub_batch_p2_tol_kernel<<<cub_batch_blocks(n), ELEM_BLOCK>>>(
	                n, job->rel, job->abs, (int)hsz, sizeof(T) == sizeof(float), io.sum_est,
	                io.live, io.state, io.tol),
	            cudaGetLastError()));
	GPU_TRY(cudaMemsetAsync(io.sum_est, 0, n * sizeof(double)));
	GPU_TRY(cudaMemsetAsync(io.sum_err, 0, n * sizeof(double)));
	GPU_TRY(cudaMemsetAsync(io.live, 0, n * sizeof(long long)));
	GPU_TRY(cudaMemsetAsync(vol_act.ptr, 0, n * sizeof(double)));
	GPU_TRY(cudaMemsetAsync(nact.ptr, 0, n * sizeof(long long)));
	GPU_TRY(cudaMemsetAsync(why_i.ptr, 0, n * sizeof(int)));
	GPU_TRY(cudaMemsetAsync(spent.ptr, 0, sizeof(unsigned long long)));
	/* act goes in keep's place: the flag kernel reads split and keep of region r alone */
	int *act = io.keep;
	GPU_LAUNCH((cub_batch_p2_flag_kernel<T><<<cub_batch_blocks(m), ELEM_BLOCK>>>(
	                m, dim, npts, g, cap, io.from->tag.ptr, io.from->est.ptr, io.from->err.ptr,
	                io.split, io.keep, io.tol, act, io.evals, io.sum_est, io.sum_err, io.live,
	                vol_act.ptr, nact.ptr),
	            cudaGetLastError()));
	size_t bytes = io.tmp_bytes;
	GPU_TRY(cub::DeviceScan::ExclusiveSum(io.tmp, bytes, act, io.pos, (int)m));
	int last[2];
	GPU_TRY(cudaMemcpy(&last[0], io.pos + m - 1, sizeof(int), cudaMemcpyDeviceToHost));
	GPU_TRY(cudaMemcpy(&last[1], act + m - 1, sizeof(int), cudaMemcpyDeviceToHost));
	const long long active = (long long)last[0] + last[1];
	if (active > 0) {
		if (cub_realloc(vol, active, e) || cub_realloc(used, active, e) ||
		    cub_realloc(why, active, e) || cub_realloc(heap, active * hsz, e))
			return -1;
		GPU_LAUNCH(
		    (cub_batch_p2_compact_kernel<T><<<cub_batch_blocks(m), ELEM_BLOCK>>>(
		         m, dim, g, cap, io.from->tag.ptr, io.from->est.ptr, io.from->err.ptr,
		         io.from->axis.ptr, act, io.pos, out, io.to->tag.ptr, io.to->est.ptr,
		         io.to->err.ptr, io.to->axis.ptr, vol.ptr),
		     cudaGetLastError()));
		GPU_LAUNCH((cub_batch_p2_share_kernel<<<cub_batch_blocks(n), ELEM_BLOCK>>>(
		                n, job->maxeval, io.state, io.sum_err, vol_act.ptr, nact.ptr,
		                io.evals, io.tol, limit.ptr),
		            cudaGetLastError()));
		cub_fn fn = job->fn;
		cub_rule r = dr;
		cub_list<T> list = out;
		long long count = active, c = cap, per = 0;
		double rem = 0, vol_total = 1;
		int hs = (int)hsz;
		cub_p2_region<T> *hp = heap.ptr;
		double *est = io.to->est.ptr, *err = io.to->err.ptr, *vp = vol.ptr;
		const int *ap = io.to->axis.ptr;
		long long *up = used.ptr;
		int *wp = why.ptr;
		cub_p2_batch bt = {io.to->tag.ptr, io.data, io.tol, limit.ptr};
		void *args[] = {&count, &fn,  &r,   &list, &c,  &rem, &vol_total, &per, &hs,
		                &hp,    &est, &err, &ap,   &vp, &up,  &wp,        &bt};
		GPU_LAUNCH(cudaLaunchKernel((const void *)job->user->kernel[CUB_UK_PHASE2],
		                            dim3((unsigned)((active + 127) / 128)), dim3(128), args,
		                            0, 0));
		GPU_LAUNCH(
		    (cub_batch_p2_sum_kernel<<<cub_batch_blocks(active), ELEM_BLOCK>>>(
		         active, npts, io.to->tag.ptr, io.to->est.ptr, io.to->err.ptr, used.ptr,
		         why.ptr, io.sum_est, io.sum_err, io.live, io.evals, why_i.ptr, spent.ptr),
		     cudaGetLastError()));
	}
	GPU_LAUNCH((cub_batch_p2_finish_kernel<<<cub_batch_blocks(n), ELEM_BLOCK>>>(
	                n, job->rel, job->abs, io.sum_est, io.sum_err, io.live, why_i.ptr, io.state,
	                io.value, io.error, io.live_out, io.done),
	            cudaGetLastError()));
	unsigned long long evals = 0;
	GPU_TRY(cudaMemcpy(&evals, spent.ptr, sizeof evals, cudaMemcpyDeviceToHost));
	*regions += (long long)(evals / (unsigned long long)npts);
	*heap_bytes = (double)active * (double)hsz * (double)per_region;
	return 0;
}

/* The batch b by breadth, or with twophase by twophase (see the file's comment). */
template <typename T>
static int cub_batch_run(const struct cub_job *job, const struct cub_batch *b, int twophase,
                         struct cub_batch_result *out, struct qx_timing *t, struct qx_err *e)
{
	const double t_start = qx_now_ms();
	const struct cub_rule *rule = job->rule;
	const int dim = rule->dim, npts = rule->npts;
	const long long n = b->n;
	if (!job->user)
		return qx_fail(e, "cubature: a batch needs the user's own integrand");
	if (n > INT_MAX)
		return qx_fail(e, "cubature: a GPU batch takes at most %d integrals (%lld asked)",
		               INT_MAX, n);
	const size_t integral_bytes = (size_t)n * BATCH_INTEGRAL_BYTES;
	if (job->budget <= integral_bytes + 4 * (size_t)n * cub_batch_region_bytes<T>(dim))
		return qx_fail(
		    e,
		    "cubature: a batch of %lld integrals needs %.1f MiB of device memory "
		    "for them and their first regions; the budget is %.1f MiB",
		    n, (integral_bytes + 4.0 * n * cub_batch_region_bytes<T>(dim)) / 1048576.0,
		    job->budget / 1048576.0);
	/* twophase keeps half the budget for phase 2's heaps, as on one integral */
	const size_t list_bytes = (job->budget - integral_bytes) / (twophase ? 2 : 1);
	long long cap = std::min<long long>(
	    (long long)(list_bytes / cub_batch_region_bytes<T>(dim)), 1LL << 30);
	cub_owned<double> rule_mem, data, sum_est, sum_err, thr, value, error, parent;
	cub_owned<long long> live, evals, live_out;
	cub_owned<int> state, split, keep, spos, kpos;
	cub_owned<unsigned long long> done;
	cub_owned<double> lists[CUB_BATCH_PARAMS];
	cub_owned<unsigned char> tmp;
	cub_batch_list<T> list[2];
	cub_rule dr;
	if (cub_rule_upload(rule, rule_mem, dr, e))
		return -1;
	cub_batch_lists dl = {};
	for (int k = 0; k < b->nb; k++) {
		if (cub_realloc(lists[k], b->len[k], e))
			return -1;
		GPU_TRY(cudaMemcpy(lists[k].ptr, b->list[k], b->len[k] * sizeof(double),
		                   cudaMemcpyHostToDevice));
		dl.p[k] = lists[k].ptr;
	}
	if (cub_realloc(data, n * CUB_USER_DATA, e) || cub_realloc(sum_est, n, e) ||
	    cub_realloc(sum_err, n, e) || cub_realloc(thr, n, e) || cub_realloc(value, n, e) ||
	    cub_realloc(error, n, e) || cub_realloc(live, n, e) || cub_realloc(evals, n, e) ||
	    cub_realloc(live_out, n, e) || cub_realloc(state, n, e) || cub_realloc(done, 2, e))
		return -1;
	for (int q = 0; q < 2; q++)
		if (cub_realloc(list[q].c, cap * dim, e) || cub_realloc(list[q].h, cap * dim, e) ||
		    cub_realloc(list[q].tag, cap, e) || cub_realloc(list[q].axis, cap, e) ||
		    cub_realloc(list[q].est, cap, e) || cub_realloc(list[q].err, cap, e))
			return -1;
	if (cub_realloc(split, cap, e) || cub_realloc(keep, cap, e) || cub_realloc(spos, cap, e) ||
	    cub_realloc(kpos, cap, e) || cub_realloc(parent, cap / 2 + 1, e))
		return -1;
	size_t tmp_bytes = 0;
	GPU_TRY(cub::DeviceScan::ExclusiveSum(nullptr, tmp_bytes, split.ptr, spos.ptr, (int)cap));
	if (cub_realloc(tmp, (long long)tmp_bytes, e))
		return -1;
	GPU_LAUNCH((cub_batch_data_kernel<<<cub_batch_blocks(n), ELEM_BLOCK>>>(n, job->fn, *b, dl,
	                                                                       data.ptr),
	            cudaGetLastError()));
	int cur = 0;
	cub_list<T> g = {list[0].c.ptr, list[0].h.ptr};
	GPU_LAUNCH((cub_batch_init_kernel<T><<<cub_batch_blocks(n), ELEM_BLOCK>>>(
	                n, dim, g, cap, list[0].tag.ptr, state.ptr, evals.ptr, npts),
	            cudaGetLastError()));
	GPU_TRY(cudaMemset(done.ptr, 0, 2 * sizeof(unsigned long long)));
	GPU_TRY(cudaDeviceSynchronize());
	qx_timing_add(t, "alloc", qx_now_ms() - t_start, 0);
	long long m = n, fresh = n, regions = n, peak = n;
	double heap_bytes = 0;
	unsigned long long finished = 0, converged = 0;
	for (int it = 0;; it++) {
		if (qx_cancelled())
			return qx_fail(e, "run cancelled");
		cub_batch_list<T> &L = list[cur];
		g = {L.c.ptr, L.h.ptr};
		/* the rule on the new regions 0..fresh-1, each reading its integral's data */
		double t0 = qx_now_ms();
		{
			const long long rpb = job->user->dn ? RULE_BLOCK / 16 : RULE_BLOCK / 32;
			cub_fn f = job->fn;
			const cub_ahead *st = nullptr;
			const int *tagp = L.tag.ptr;
			const double *bdata = data.ptr;
			double *est = L.est.ptr, *err = L.err.ptr;
			int *ax = L.axis.ptr;
			void *args[] = {&f,   &dr, &g,  &cap,  &fresh, &est,
			                &err, &ax, &st, &tagp, &bdata};
			GPU_LAUNCH(cudaLaunchKernel((const void *)job->user->kernel[CUB_UK_RULE],
			                            dim3((unsigned)((fresh + rpb - 1) / rpb)),
			                            dim3(RULE_BLOCK), args, 0, 0));
		}
		if (it > 0)
			GPU_LAUNCH(
			    (cub_children_kernel<<<cub_batch_blocks(fresh / 2), ELEM_BLOCK>>>(
			         fresh / 2, 2, parent.ptr, L.est.ptr, L.err.ptr),
			     cudaGetLastError()));
		GPU_TRY(cudaDeviceSynchronize());
		qx_timing_add(t, "rules", qx_now_ms() - t0, 0);
		t0 = qx_now_ms();
		GPU_TRY(cudaMemsetAsync(sum_est.ptr, 0, n * sizeof(double)));
		GPU_TRY(cudaMemsetAsync(sum_err.ptr, 0, n * sizeof(double)));
		GPU_TRY(cudaMemsetAsync(live.ptr, 0, n * sizeof(long long)));
		GPU_LAUNCH(
		    (cub_batch_sum_kernel<<<cub_batch_blocks(m), ELEM_BLOCK>>>(
		         m, L.tag.ptr, L.est.ptr, L.err.ptr, sum_est.ptr, sum_err.ptr, live.ptr),
		     cudaGetLastError()));
		GPU_LAUNCH((cub_batch_decide_kernel<<<cub_batch_blocks(n), ELEM_BLOCK>>>(
		                n, it == 0, job->rel, job->abs, job->maxeval, npts, sum_est.ptr,
		                sum_err.ptr, live.ptr, evals.ptr, state.ptr, thr.ptr, value.ptr,
		                error.ptr, live_out.ptr, done.ptr),
		            cudaGetLastError()));
		GPU_LAUNCH((cub_batch_flag_kernel<<<cub_batch_blocks(m), ELEM_BLOCK>>>(
		                m, npts, L.tag.ptr, L.err.ptr, state.ptr, thr.ptr, split.ptr,
		                keep.ptr, evals.ptr),
		            cudaGetLastError()));
		size_t bytes = tmp_bytes;
		GPU_TRY(cub::DeviceScan::ExclusiveSum(tmp.ptr, bytes, split.ptr, spos.ptr, (int)m));
		bytes = tmp_bytes;
		GPU_TRY(cub::DeviceScan::ExclusiveSum(tmp.ptr, bytes, keep.ptr, kpos.ptr, (int)m));
		int last[4];
		unsigned long long now_done[2];
		GPU_TRY(
		    cudaMemcpy(&last[0], spos.ptr + m - 1, sizeof(int), cudaMemcpyDeviceToHost));
		GPU_TRY(
		    cudaMemcpy(&last[1], split.ptr + m - 1, sizeof(int), cudaMemcpyDeviceToHost));
		GPU_TRY(
		    cudaMemcpy(&last[2], kpos.ptr + m - 1, sizeof(int), cudaMemcpyDeviceToHost));
		GPU_TRY(
		    cudaMemcpy(&last[3], keep.ptr + m - 1, sizeof(int), cudaMemcpyDeviceToHost));
		GPU_TRY(cudaMemcpy(now_done, done.ptr, sizeof now_done, cudaMemcpyDeviceToHost));
		qx_timing_add(t, "classify", qx_now_ms() - t0, 0);
		qx_progress_converged((long long)(now_done[1] - converged));
		qx_progress_add((long long)(now_done[0] - finished));
		finished = now_done[0];
		converged = now_done[1];
		const long long nsplit = (long long)last[0] + last[1],
		                nkeep = (long long)last[2] + last[3];
		out->iterations = it + 1;
		if (nsplit == 0) /* every integral finished (a live one always has a region over
		                  * its threshold: its regions' errors sum past its tolerance) */
			break;
		if (twophase && 2 * nsplit + nkeep > std::min<long long>(job->lmax, cap)) {
			t0 = qx_now_ms();
			const cub_batch_p2_io<T> io = {
			    &L,        &list[1 - cur], m,           cap,
			    data.ptr,  split.ptr,      keep.ptr,    spos.ptr,
			    tmp.ptr,   tmp_bytes,      sum_est.ptr, sum_err.ptr,
			    thr.ptr,   value.ptr,      error.ptr,   live.ptr,
			    evals.ptr, live_out.ptr,   state.ptr,   done.ptr};
			if (cub_batch_phase2<T>(job, dr, n, io, &regions, &heap_bytes, e))
				return -1;
			GPU_TRY(cudaMemcpy(now_done, done.ptr, sizeof now_done,
			                   cudaMemcpyDeviceToHost));
			qx_progress_converged((long long)(now_done[1] - converged));
			qx_progress_add((long long)(now_done[0] - finished));
			qx_timing_add(t, "phase2", qx_now_ms() - t0, 0);
			break;
		}
		if (2 * nsplit + nkeep > cap) {
			GPU_LAUNCH((cub_batch_stop_kernel<<<cub_batch_blocks(n), ELEM_BLOCK>>>(
			                n, CUB_BUDGET, sum_est.ptr, sum_err.ptr, live.ptr,
			                state.ptr, value.ptr, error.ptr, live_out.ptr),
			            cudaGetLastError()));
			break;
		}
		t0 = qx_now_ms();
		cub_batch_list<T> &N = list[1 - cur];
		const cub_list<T> next = {N.c.ptr, N.h.ptr};
		GPU_LAUNCH((cub_batch_rebuild_kernel<T><<<cub_batch_blocks(m), ELEM_BLOCK>>>(
		                m, dim, g, cap, L.tag.ptr, L.est.ptr, L.err.ptr, L.axis.ptr,
		                split.ptr, keep.ptr, spos.ptr, kpos.ptr, nsplit, next, N.tag.ptr,
		                N.est.ptr, N.err.ptr, N.axis.ptr, parent.ptr),
		            cudaGetLastError()));
		GPU_TRY(cudaDeviceSynchronize());
		qx_timing_add(t, "split", qx_now_ms() - t0, 0);
		cur = 1 - cur;
		fresh = 2 * nsplit;
		m = fresh + nkeep;
		regions += fresh;
		peak = std::max(peak, m);
	}
	const double t0 = qx_now_ms();
	GPU_TRY(cudaMemcpy(out->value, value.ptr, n * sizeof(double), cudaMemcpyDeviceToHost));
	GPU_TRY(cudaMemcpy(out->err, error.ptr, n * sizeof(double), cudaMemcpyDeviceToHost));
	GPU_TRY(cudaMemcpy(out->reason, state.ptr, n * sizeof(int), cudaMemcpyDeviceToHost));
	GPU_TRY(cudaMemcpy(out->evals, evals.ptr, n * sizeof(long long), cudaMemcpyDeviceToHost));
	if (out->live)
		GPU_TRY(cudaMemcpy(out->live, live_out.ptr, n * sizeof(long long),
		                   cudaMemcpyDeviceToHost));
	qx_timing_add(t, "copies", qx_now_ms() - t0, 0);
	out->total_evals = 0;
	for (long long i = 0; i < n; i++)
		out->total_evals += out->evals[i];
	out->regions = regions;
	out->peak_regions = peak;
	out->peak_bytes =
	    (double)peak * cub_batch_region_bytes<T>(dim) + (double)integral_bytes + heap_bytes;
	t->total = qx_now_ms() - t_start;
	return 0;
}

/* breadth's batch in the job's precision (cubature_batch.h). */
extern "C" int cub_gpu_batch_run(const struct cub_job *job, const struct cub_batch *b,
                                 struct cub_batch_result *out, struct qx_timing *t,
                                 struct qx_err *e)
{
	return job->prec == QX_DOUBLE ? cub_batch_run<double>(job, b, 0, out, t, e)
	                              : cub_batch_run<float>(job, b, 0, out, t, e);
}

/* twophase's batch in the job's precision (cubature_batch.h). */
extern "C" int cub_gpu_batch_twophase_run(const struct cub_job *job, const struct cub_batch *b,
                                          struct cub_batch_result *out, struct qx_timing *t,
                                          struct qx_err *e)
{
	return job->prec == QX_DOUBLE ? cub_batch_run<double>(job, b, 1, out, t, e)
	                              : cub_batch_run<float>(job, b, 1, out, t, e);
}
