/* common.cuh - the host wrappers, kernels and constants that cubature's GPU drivers share
 * (breadth.cu, twophase.cu, floor.cu, and breadth over several GPUs, breadth_multi.cu): the
 * rule's launch (declared here, made once in rule_launch.cu), the children's check, the first
 * partition, the device lists, sums, error histogram and split, the tally copy. Every function but
 * cub_rule_launch is static or a template, so that each .cu that includes it has its own copy. */
#ifndef QX_CUBATURE_BREADTH_CUH
#define QX_CUBATURE_BREADTH_CUH

#include <algorithm>
#include <vector>

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include "../../src/problems/cubature/cubature_multi.h"
#include "../gpu_util.cuh"
#include "rule_kernel.cuh"

/* Launches the rule on regions 0..n-1 of g (with st, on st's new leaves, n at most) with the
 * kernel fitted to n, the dimension and the integrand; returns the launch's error. Defined in
 * rule_launch.cu, the one file that instantiates the rule's kernels for the built-in integrands:
 * they are most of the build's time, so the drivers share one copy. */
template <typename T>
cudaError_t cub_rule_launch(const struct cub_job *job, const cub_rule &rule, cub_list<T> g,
                            long long cap, long long n, double *est, double *err, int *axis,
                            int sms, const cub_ahead *st = nullptr);
extern template cudaError_t cub_rule_launch<float>(const struct cub_job *, const cub_rule &,
                                                   cub_list<float>, long long, long long, double *,
                                                   double *, int *, int, const cub_ahead *);
extern template cudaError_t cub_rule_launch<double>(const struct cub_job *, const cub_rule &,
                                                    cub_list<double>, long long, long long,
                                                    double *, double *, int *, int,
                                                    const cub_ahead *);

/* DCUHRE's check of k children (est, err: theirs, contiguous) against their parent's estimate
 * parent: the children's errors grow by 1 + 0.5 E/(their sum) and by 0.25 E. */
static __device__ void cub_children_check(int k, double parent, const double *__restrict__ est,
                                          double *__restrict__ err)
{
	double s = 0, e = 0;
	for (int q = 0; q < k; q++) {
		s += est[q];
		e += err[q];
	}
	const double d = fabs(parent - s);
	for (int q = 0; q < k; q++) {
		double v = err[q];
		if (e > 0)
			v *= 1 + 0.5 * d / e;
		err[q] = v + 0.25 * d;
	}
}

/* cub_children_check for each of nparents parents, a thread each. */
static __global__ void cub_children_kernel(long long nparents, int k, const double *parent_est,
                                           const double *est, double *err)
{
	const long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	if (j < nparents)
		cub_children_check(k, parent_est[j], est + j * k, err + j * k);
}

/* Regions first..first+n-1 of the l^dim equal regions of [a, b]^dim (numbered with the first
 * axis fastest) into g's slots 0..n-1. */
template <typename T>
__global__ void cub_init_kernel(long long n, int dim, int l, double a, double b, cub_list<T> g,
                                long long cap, long long first = 0)
{
	const long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	if (r >= n)
		return;
	long long rest = first + r;
	const double h = (b - a) / (2.0 * l);
	for (int i = 0; i < dim; i++) {
		const int j = (int)(rest % l);
		rest /= l;
		g.c[i * cap + r] = (T)(a + (2 * j + 1) * h);
		g.h[i * cap + r] = (T)h;
	}
}

/* A device array of cub_realloc: a gpu_owned that, when its block came from the memory pool
 * (pooled), gives it back with cudaFreeAsync, the pool's own free (compute-sanitizer's leak
 * check counted pooled blocks that cudaFree gave back as leaked). */
template <typename U> struct cub_owned : gpu_owned<U> {
	bool pooled = false;
	~cub_owned()
	{
		if (this->ptr && pooled) {
			cudaDeviceSynchronize();
			cudaFreeAsync(this->release(), 0);
		}
	}
};

/* Frees what o holds and allocates count elements on the current device. pooled: in order on
 * its default stream from its memory pool, which keeps freed blocks (gpu_open; breadth over
 * several GPUs for its other devices): a free waits for nothing, and a run that grows its lists
 * as an earlier run did gets the blocks back without going to the driver (with several GPUs,
 * whose memory is mapped into every peer, each trip to the driver took milliseconds); else
 * cudaFree and cudaMalloc. Returns 0 or -1 with e filled. */
template <typename U>
static int cub_realloc(cub_owned<U> &o, long long count, struct qx_err *e, bool pooled = true)
{
	if (o.ptr && o.pooled)
		GPU_TRY(cudaFreeAsync(o.release(), 0));
	else if (o.ptr)
		GPU_TRY(cudaFree(o.release()));
	o.pooled = pooled;
	if (pooled)
		GPU_TRY(cudaMallocAsync(&o.ptr, (size_t)count * sizeof(U), 0));
	else
		GPU_TRY(cudaMalloc(&o.ptr, (size_t)count * sizeof(U)));
	return 0;
}

/* Copies rule r to the device into mem and fills dr: r with device pointers, the points
 * axis-major there (coordinate i of point p at pts[i * npts + p], so that a warp's threads,
 * at consecutive points, read consecutive words), the weights as on the host (mem from the
 * pool with pooled, cub_realloc); returns 0 or -1 with e. */
static inline int cub_rule_upload(const struct cub_rule *r, cub_owned<double> &mem, cub_rule &dr,
                                  struct qx_err *e, bool pooled = true)
{
	const size_t np = (size_t)r->npts, npd = np * r->dim, npw = np * r->nsums;
	std::vector<double> host(npd + npw);
	for (size_t p = 0; p < np; p++)
		for (int i = 0; i < r->dim; i++)
			host[(size_t)i * np + p] = r->pts[p * r->dim + i];
	std::copy(r->w, r->w + npw, host.begin() + npd);
	if (cub_realloc(mem, (long long)(npd + npw), e, pooled))
		return -1;
	GPU_TRY(
	    cudaMemcpy(mem.ptr, host.data(), (npd + npw) * sizeof(double), cudaMemcpyHostToDevice));
	dr = *r;
	dr.pts = mem.ptr;
	dr.w = mem.ptr + npd;
	return 0;
}

/* Records an iteration in res's history (while it has room): the integral's estimate and error
 * estimate after it and the live regions; publishes the error against job's tolerance as the
 * run's progress. */
static inline void cub_history_add(const struct cub_job *job, struct cub_result *res, double est,
                                   double err, long long live)
{
	cub_progress_error(est, err, job->rel, job->abs);
	if (res->nhist < CUB_HISTORY) {
		res->hist_est[res->nhist] = est;
		res->hist_err[res->nhist] = err;
		res->hist_regions[res->nhist++] = (double)live;
	}
}

static const int HIST_BUCKETS = CUB_HIST_BUCKETS;
static const double BREADTH_KEEP = CUB_BREADTH_KEEP;
static const long long BREADTH_FIRST_CAP = 16384; /* leaves a list holds at first; it grows 8x */

/* A breadth list in one allocation: estimates, errors, centres, half-widths and split axes
 * of cap leaves. */
template <typename T> struct cub_buf {
	cub_owned<unsigned char> mem;
	double *est = nullptr, *err = nullptr;
	T *c = nullptr, *h = nullptr;
	int *axis = nullptr;
	long long cap = 0;
};

/* The sums breadth reduces per iteration: estimates, errors and the largest error. */
struct cub_tot {
	double est, err, max;
};

/* Leaf r's share of the sums. */
struct cub_tot_of {
	const double *est, *err;
	__host__ __device__ cub_tot operator()(long long r) const
	{
		return {est[r], err[r], err[r]};
	}
};

/* Adds two partial sums. */
struct cub_tot_add {
	__host__ __device__ cub_tot operator()(const cub_tot &a, const cub_tot &b) const
	{
		return {a.est + b.est, a.err + b.err, fmax(a.max, b.max)};
	}
};

/* 1 when leaf r splits (its error is over *theta, or all split), else 0. */
struct cub_split_of {
	const double *err, *theta;
	int all;
	__host__ __device__ int operator()(long long r) const
	{
		return all || err[r] > *theta;
	}
};

/* Gives list b room for at least need leaves (its contents are not kept; pooled: cub_realloc's);
 * returns 0 or -1. */
template <typename T>
static int cub_buf_reserve(cub_buf<T> &b, int dim, long long need, struct qx_err *e,
                           bool pooled = true)
{
	if (b.cap >= need)
		return 0;
	if (cub_realloc(b.mem, need * (16 + 2 * dim * (long long)sizeof(T) + 4), e, pooled))
		return -1;
	b.est = (double *)b.mem.ptr;
	b.err = b.est + need;
	b.c = (T *)(b.err + need);
	b.h = b.c + need * dim;
	b.axis = (int *)(b.h + need * dim);
	b.cap = need;
	return 0;
}

/* breadth's work arrays in one allocation, for lists of up to cap leaves: scratch (a double a
 * leaf), the split positions pos (an int a leaf) and CUB's storage, tmp_bytes at tmp. */
struct cub_work {
	cub_owned<unsigned char> mem;
	double *scratch = nullptr;
	int *pos = nullptr;
	void *tmp = nullptr;
	size_t tmp_bytes = 0;
	long long cap = 0;
};

/* Gives w room for lists of cap leaves (its contents are not kept; pooled: cub_realloc's),
 * CUB's storage sized for the scan of split_in and the reduction of tot_in into tot; returns 0
 * or -1 with e filled. */
template <typename SPLIT_IN, typename TOT_IN>
static int cub_work_reserve(cub_work &w, long long cap, SPLIT_IN split_in, TOT_IN tot_in,
                            cub_tot *tot, struct qx_err *e, bool pooled = true)
{
	size_t scan = 0, red = 0;
	if (w.cap >= cap)
		return 0;
	GPU_TRY(cub::DeviceScan::ExclusiveSum(nullptr, scan, split_in, w.pos, (int)cap));
	GPU_TRY(cub::DeviceReduce::Reduce(nullptr, red, tot_in, tot, (int)cap, cub_tot_add{},
	                                  cub_tot{0, 0, 0}));
	const long long tmp_at = (cap * 12 + 255) / 256 * 256;
	if (cub_realloc(w.mem, tmp_at + (long long)std::max(scan, red), e, pooled))
		return -1;
	w.cap = cap;
	w.tmp_bytes = std::max(scan, red);
	w.scratch = (double *)w.mem.ptr;
	w.pos = (int *)(w.scratch + cap);
	w.tmp = w.mem.ptr + tmp_at;
	return 0;
}

/* hist[k] += the errors of leaves 0..n-1 in bucket k: bucket 0 holds errors at most
 * max 2^-64 (max = tot->max, the largest), bucket k >= 1 those in
 * (max 2^-(257-k)/4, max 2^-(256-k)/4]. */
static __global__ void cub_hist_kernel(long long n, const double *err, const cub_tot *tot,
                                       double *hist)
{
	__shared__ double part[HIST_BUCKETS + 1];
	for (int k = threadIdx.x; k <= HIST_BUCKETS; k += blockDim.x)
		part[k] = 0;
	__syncthreads();
	const double m = tot->max;
	for (long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x; r < n;
	     r += (long long)gridDim.x * blockDim.x) {
		const double v = err[r];
		int k = 0;
		if (v > m * 0x1p-64)
			k = HIST_BUCKETS - min((int)floor(4 * log2(m / v)), HIST_BUCKETS - 1);
		atomicAdd(&part[k], v);
	}
	__syncthreads();
	for (int k = threadIdx.x; k <= HIST_BUCKETS; k += blockDim.x)
		if (part[k] != 0)
			atomicAdd(&hist[k], part[k]);
}

/* out[r] = v[r] for leaves that do not split, 0 for those that do. */
static __global__ void cub_unsplit_kernel(long long n, const double *v, cub_split_of split,
                                          double *out)
{
	const long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	if (r < n)
		out[r] = split(r) ? 0 : v[r];
}

/* The next list from leaves 0..n-1 of in: with keep, an unsplit leaf r goes with its results
 * to r - pos[r] and the children of split leaves follow from base on, else only children are
 * written from base on; the two children of leaf r (halves along its axis) go to
 * base + 2 pos[r] and +1, its estimate to parent[pos[r]]. DN: the dimension, or 0 for dim
 * (known, the leaf stays in registers and every load is issued before the first store). With
 * st (breadth running ahead), the split is the one iteration `it` decided, if it was the last
 * and did not end the run. */
template <typename T, int DN = 0>
__global__ void
cub_next_kernel(long long n, int dim, cub_list<T> g, long long cap, const double *est,
                const double *err, const int *axis, cub_split_of split, const int *pos, int keep,
                long long base, cub_list<T> out, long long out_cap, double *out_est,
                double *out_err, int *out_axis, double *parent, const cub_ahead *st, long long it)
{
	if (st) {
		if (st->iterations != it + 1 || st->stop == AHEAD_DONE)
			return;
		n = st->n - st->nparents;
		base = st->fresh;
	}
	const long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	if (r >= n)
		return;
	const int d = DN ? DN : dim;
	T c[DN ? DN : CUB_MAX_DIM], h[DN ? DN : CUB_MAX_DIM];
	for (int i = 0; i < d; i++) {
		c[i] = g.c[i * cap + r];
		h[i] = g.h[i * cap + r];
	}
	const double e = est[r];
	const int ax = axis[r];
	if (!split(r)) {
		if (!keep)
			return;
		const long long q = r - pos[r];
		for (int i = 0; i < d; i++) {
			out.c[i * out_cap + q] = c[i];
			out.h[i * out_cap + q] = h[i];
		}
		out_est[q] = e;
		out_err[q] = err[r];
		out_axis[q] = ax;
		return;
	}
	const long long q = base + 2LL * pos[r];
	parent[pos[r]] = e;
	for (int i = 0; i < d; i++) {
		const T hh = i == ax ? h[i] / 2 : h[i];
		out.c[i * out_cap + q] = i == ax ? c[i] - hh : c[i];
		out.c[i * out_cap + q + 1] = i == ax ? c[i] + hh : c[i];
		out.h[i * out_cap + q] = hh;
		out.h[i * out_cap + q + 1] = hh;
	}
}

/* Launches cub_next_kernel (the host loop's split, one leaf a thread) with the kernel made for
 * dims 4..8, else the general one; returns the launch's error. */
template <typename T, int DN = 4>
static cudaError_t cub_next_launch(long long n, int dim, cub_list<T> g, long long cap,
                                   const double *est, const double *err, const int *axis,
                                   cub_split_of split, const int *pos, int keep, long long base,
                                   cub_list<T> out, long long out_cap, double *out_est,
                                   double *out_err, int *out_axis, double *parent)
{
	const unsigned eb = (unsigned)((n + ELEM_BLOCK - 1) / ELEM_BLOCK);
	if constexpr (DN <= 8) {
		if (dim != DN)
			return cub_next_launch<T, DN + 1>(n, dim, g, cap, est, err, axis, split,
			                                  pos, keep, base, out, out_cap, out_est,
			                                  out_err, out_axis, parent);
	}
	cub_next_kernel<T, DN <= 8 ? DN : 0>
	    <<<eb, ELEM_BLOCK>>>(n, dim, g, cap, est, err, axis, split, pos, keep, base, out,
	                         out_cap, out_est, out_err, out_axis, parent, nullptr, 0);
	return cudaGetLastError();
}

/* What the host needs after a breadth iteration, in one copy: the live estimate and error
 * sums, the tolerance, the leaves that split and the threshold. */
static __global__ void cub_breadth_tally_kernel(long long n, const cub_tot *tot, const double *tol,
                                                const int *pos, cub_split_of split, double *out)
{
	out[0] = tot->est;
	out[1] = tot->err;
	out[2] = *tol;
	out[3] = (double)pos[n - 1] + split(n - 1);
	out[4] = *split.theta;
}

/* The pieces per axis of breadth's first partition, l^dim regions: job->init, or -1 with e
 * naming the limit when those regions and their split (three times as many evaluations,
 * twice as many leaves) would pass maxeval or the budget's budget_cap regions; for init 0 the
 * box halved along every axis (as dim splits from one region would give, in one iteration
 * instead of dim), or the whole box when that takes over 1e7 evaluations or does not fit. */
static inline int cub_breadth_pieces(const struct cub_job *job, long long budget_cap,
                                     struct qx_err *e)
{
	const int dim = job->rule->dim;
	const double npts = (double)job->rule->npts;
	if (job->init) {
		const double n = pow(job->init, dim);
		if (!(2 * n <= (double)budget_cap))
			return qx_fail(
			    e,
			    "init %d: %.4g regions in dim %d and their split need room for "
			    "%.4g; the budget (at most 2^30 regions) holds %lld",
			    job->init, n, dim, 2 * n, budget_cap);
		if (!(3 * n * npts <= (double)job->maxeval))
			return qx_fail(
			    e,
			    "init %d: %.4g regions of %.0f points and their split take %.4g "
			    "evaluations; maxeval is %lld",
			    job->init, n, npts, 3 * n * npts, job->maxeval);
		return job->init;
	}
	const double halves = pow(2.0, dim);
	return halves * npts <= 1e7 && 3 * halves * npts <= (double)job->maxeval &&
	               2 * halves <= (double)budget_cap
	           ? 2
	           : 1;
}

/* The iterations of st that split: all but one that ended the run. */
static inline long long cub_ahead_splits(const cub_ahead *st)
{
	return st->iterations - (st->stop == AHEAD_DONE);
}

/* Everything a run holds on the device, freed by the owners' destructors on every path. */
template <typename T> struct cub_dev {
	gpu_owned<T> c[2], h[2];
	gpu_owned<double> est, err, parent, ret_est, ret_err, sums, tally;
	cub_owned<double> rule;
	gpu_owned<int> axis, flag, pos;
	gpu_owned<unsigned char> tmp;
	cub_rule dr; /* the rule with its points and weights in rule */
	size_t tmp_bytes = 0;
	long long cap = 0;
};

/* Allocates lists of cap regions and the rule on the device, and CUB's temporary storage
 * once for every scan and reduction a run makes. */
template <typename T>
static int cub_alloc(const struct cub_job *job, long long cap, cub_dev<T> &d, struct qx_err *e)
{
	const int dim = job->rule->dim;
	const size_t nt = (size_t)cap * dim * sizeof(T), nd = (size_t)cap * sizeof(double);
	d.cap = cap;
	/* cudaMalloc cannot use the blocks the pool keeps from earlier runs: give them back */
	GPU_TRY(gpu_pool_trim());
	for (int s = 0; s < 2; s++) {
		GPU_TRY(cudaMalloc(&d.c[s].ptr, nt));
		GPU_TRY(cudaMalloc(&d.h[s].ptr, nt));
	}
	GPU_TRY(cudaMalloc(&d.est.ptr, nd));
	GPU_TRY(cudaMalloc(&d.err.ptr, nd));
	GPU_TRY(cudaMalloc(&d.parent.ptr, nd));
	GPU_TRY(cudaMalloc(&d.ret_est.ptr, nd));
	GPU_TRY(cudaMalloc(&d.ret_err.ptr, nd));
	GPU_TRY(cudaMalloc(&d.sums.ptr, 8 * sizeof(double)));
	GPU_TRY(cudaMalloc(&d.tally.ptr, 8 * sizeof(double)));
	GPU_TRY(cudaMalloc(&d.axis.ptr, (size_t)cap * sizeof(int)));
	GPU_TRY(cudaMalloc(&d.flag.ptr, (size_t)cap * sizeof(int)));
	GPU_TRY(cudaMalloc(&d.pos.ptr, (size_t)cap * sizeof(int)));
	if (cub_rule_upload(job->rule, d.rule, d.dr, e))
		return -1;
	size_t scan = 0, red = 0, red_ll = 0, red_max = 0;
	GPU_TRY(cub::DeviceScan::ExclusiveSum(nullptr, scan, d.flag.ptr, d.pos.ptr, (int)cap));
	GPU_TRY(cub::DeviceReduce::Sum(nullptr, red, d.est.ptr, d.sums.ptr, (int)cap));
	GPU_TRY(cub::DeviceReduce::Sum(nullptr, red_ll, (long long *)nullptr, (long long *)nullptr,
	                               (int)cap));
	GPU_TRY(cub::DeviceReduce::Max(nullptr, red_max, d.flag.ptr, d.pos.ptr, (int)cap));
	d.tmp_bytes = std::max(std::max(scan, red), std::max(red_ll, red_max));
	GPU_TRY(cudaMalloc(&d.tmp.ptr, d.tmp_bytes));
	return 0;
}

/* Sum of n doubles of src (one per region) into the device's sums[slot]: cub::DeviceReduce::Sum
 * (NVIDIA's CUB) in the work area cub_alloc sized. */
template <typename T>
static int region_sum(cub_dev<T> &d, const double *src, long long n, int slot, struct qx_err *e)
{
	size_t bytes = d.tmp_bytes;
	GPU_TRY(cub::DeviceReduce::Sum(d.tmp.ptr, bytes, src, d.sums.ptr + slot, (int)n));
	return 0;
}

/* The timing events of one iteration: its start, the rule done, classify done, the tally
 * copied, and the split's start and end. */
enum { EV_START, EV_RULES, EV_CLASSIFY, EV_COPIED, EV_SPLIT0, EV_SPLIT1, EV_COUNT };

/* Ends an iteration's device work: copies count doubles of the tally to the host (the
 * iteration's one wait) and adds its phases to t (rules, classify, copies and, when
 * split_pending, the split before it); returns 0 or -1 with e filled. */
static inline int cub_tally_copy(const double *tally_d, double *tally_h, size_t count,
                                 cudaEvent_t *ev, int split_pending, struct qx_timing *t,
                                 struct qx_err *e)
{
	GPU_TRY(cudaEventRecord(ev[EV_CLASSIFY]));
	GPU_TRY(cudaMemcpy(tally_h, tally_d, count * sizeof *tally_h, cudaMemcpyDeviceToHost));
	GPU_TRY(cudaEventRecord(ev[EV_COPIED]));
	GPU_TRY(cudaEventSynchronize(ev[EV_COPIED]));
	qx_timing_add(t, "rules", gpu_elapsed(ev[EV_START], ev[EV_RULES]), 0);
	qx_timing_add(t, "classify", gpu_elapsed(ev[EV_RULES], ev[EV_CLASSIFY]), 0);
	qx_timing_add(t, "copies", gpu_elapsed(ev[EV_CLASSIFY], ev[EV_COPIED]), 0);
	if (split_pending)
		qx_timing_add(t, "split", gpu_elapsed(ev[EV_SPLIT0], ev[EV_SPLIT1]), 0);
	return 0;
}

#endif
