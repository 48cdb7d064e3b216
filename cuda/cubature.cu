/* cubature.cu - problem cubature on the GPU. The rule's points and weights are uploaded once
 * per run; the region lists (centre and half-widths, structure of arrays) stay on the device.
 * breadth: every iteration evaluates the rule on every live region (one block per region, the
 * block's threads sharing the points), checks children against their parent, retires regions
 * whose error fits their share of the tolerance (error budget by volume), and splits the rest
 * in two with a CUB scan for the positions. twophase: the seed's algorithm (phase 1 the same
 * loop with the seed's classification and d-way splits from l^dim regions, phase 2 one thread
 * per region with a bounded heap). Sums are CUB reductions; no scan is written by hand. */
#include <algorithm>

#include <cub/cub.cuh>

#include "cubature.h"
#include "gpu_util.cuh"

#define CUB_REAL double
#define CUB_SUFFIX d
#define CUB_SUFFIX_IS_FLOAT 0
#include "../src/problems/cubature_math.h"
#undef CUB_REAL
#undef CUB_SUFFIX
#undef CUB_SUFFIX_IS_FLOAT
#define CUB_REAL float
#define CUB_SUFFIX f
#define CUB_SUFFIX_IS_FLOAT 1
#include "../src/problems/cubature_math.h"
#undef CUB_REAL
#undef CUB_SUFFIX
#undef CUB_SUFFIX_IS_FLOAT

static const int RULE_BLOCK = 128; /* threads per region in the rule kernel */
static const int PHASE2_HEAP = 32; /* twophase: regions one thread keeps */
static const int ELEM_BLOCK = 256; /* threads per block of the per-region kernels */

/* The integrand in precision T. */
template <typename T> __device__ __forceinline__ T cub_f_t(const cub_fn &fn, const T *x);
template <> __device__ __forceinline__ double cub_f_t<double>(const cub_fn &fn, const double *x)
{
	return cub_f_d(&fn, x);
}
template <> __device__ __forceinline__ float cub_f_t<float>(const cub_fn &fn, const float *x)
{
	return cub_f_f(&fn, x);
}

/* A region list on the device: centres c and half-widths h, dim arrays of cap each. */
template <typename T> struct cub_list {
	T *c, *h;
};

/* The rule on region r of list g (one block): each thread sums its share of the points into
 * the rule sums (double), the axis points' values go to shared memory, and thread 0 writes the
 * estimate, error and split axis. */
template <typename T>
__global__ void __launch_bounds__(RULE_BLOCK)
    cub_rule_kernel(cub_fn fn, cub_rule rule, cub_list<T> g, long long cap, double *est,
                    double *err, int *axis)
{
	__shared__ double part[CUB_MAX_SUMS][RULE_BLOCK];
	__shared__ double axis_f[1 + 4 * CUB_MAX_DIM];
	const long long r = blockIdx.x;
	const int n = rule.dim;
	double sums[CUB_MAX_SUMS] = {0};
	T x[CUB_MAX_DIM], c[CUB_MAX_DIM], h[CUB_MAX_DIM];
	for (int i = 0; i < n; i++) {
		c[i] = g.c[i * cap + r];
		h[i] = g.h[i * cap + r];
	}
	for (int p = threadIdx.x; p < rule.npts; p += blockDim.x) {
		for (int i = 0; i < n; i++)
			x[i] = c[i] + h[i] * (T)rule.pts[(size_t)p * n + i];
		const double f = (double)cub_f_t<T>(fn, x);
		if (p <= 4 * n)
			axis_f[p] = f;
		for (int k = 0; k < rule.nsums; k++)
			sums[k] += rule.w[(size_t)k * rule.npts + p] * f;
	}
	for (int k = 0; k < rule.nsums; k++)
		part[k][threadIdx.x] = sums[k];
	__syncthreads();
	for (int s = blockDim.x / 2; s > 0; s /= 2) {
		if (threadIdx.x < s)
			for (int k = 0; k < rule.nsums; k++)
				part[k][threadIdx.x] += part[k][threadIdx.x + s];
		__syncthreads();
	}
	if (threadIdx.x == 0) {
		double tot[CUB_MAX_SUMS], hw[CUB_MAX_DIM], vol = 1;
		for (int k = 0; k < rule.nsums; k++)
			tot[k] = part[k][0];
		for (int i = 0; i < n; i++) {
			hw[i] = (double)h[i];
			vol *= hw[i];
		}
		est[r] = tot[0] * vol;
		err[r] = cub_rule_error(&rule, tot, vol);
		axis[r] = cub_split_axis(&rule, axis_f, hw);
	}
}

/* DCUHRE's check of the k children of each parent (contiguous) against the parent's
 * estimate: the children's errors grow by 1 + 0.5 E/(their sum) and by 0.25 E. */
__global__ void cub_children_kernel(long long nparents, int k, const double *parent_est,
                                    const double *est, double *err)
{
	const long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	if (j >= nparents)
		return;
	double s = 0, e = 0;
	for (int q = 0; q < k; q++) {
		s += est[j * k + q];
		e += err[j * k + q];
	}
	const double d = fabs(parent_est[j] - s);
	for (int q = 0; q < k; q++) {
		double v = err[j * k + q];
		if (e > 0)
			v *= 1 + 0.5 * d / e;
		err[j * k + q] = v + 0.25 * d;
	}
}

/* Classifies each region: active (to split) or retired. breadth: retired when its error fits
 * its volume's share `share` of the tolerance *tol (so the retired errors sum to at most
 * share * tol); twophase: retired when it also passes the seed's test err < max(abs, rel |est|)
 * (the seed's test alone retires errors that may sum past the tolerance where the integrand
 * changes sign). Retired regions' estimate and error go to ret_est and ret_err (0 for active
 * ones). */
template <typename T>
__global__ void cub_classify_kernel(long long n, int dim, cub_list<T> g, long long cap,
                                    const double *est, const double *err, const double *tol,
                                    double share, double total_vol, int seed_rule, double rel,
                                    double abs_tol, int *flag, double *ret_est, double *ret_err)
{
	const long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	if (r >= n)
		return;
	double vol = 1;
	for (int i = 0; i < dim; i++)
		vol *= 2 * (double)g.h[i * cap + r];
	int active = err[r] > share * *tol * vol / total_vol;
	if (seed_rule && !(err[r] < fmax(abs_tol, rel * fabs(est[r]))))
		active = 1;
	flag[r] = active;
	ret_est[r] = active ? 0 : est[r];
	ret_err[r] = active ? 0 : err[r];
}

/* Splits each active region r of g into k pieces along its axis into list out at positions
 * k pos[r] .. k pos[r] + k - 1, recording the parent's estimate at pos[r]. */
template <typename T>
__global__ void cub_split_kernel(long long n, int dim, int k, cub_list<T> g, long long cap,
                                 const int *flag, const int *pos, const int *axis,
                                 const double *est, cub_list<T> out, long long out_cap,
                                 double *parent_est)
{
	const long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	if (r >= n || !flag[r])
		return;
	const long long base = (long long)pos[r] * k;
	const int ax = axis[r];
	parent_est[pos[r]] = est[r];
	for (int q = 0; q < k; q++)
		for (int i = 0; i < dim; i++) {
			T c = g.c[i * cap + r], h = g.h[i * cap + r];
			if (i == ax) {
				const T lo = c - h;
				h = h / k;
				c = lo + (2 * q + 1) * h;
			}
			out.c[i * out_cap + base + q] = c;
			out.h[i * out_cap + base + q] = h;
		}
}

/* The l^dim equal regions of [a, b]^dim into g. */
template <typename T>
__global__ void cub_init_kernel(long long n, int dim, int l, double a, double b, cub_list<T> g,
                                long long cap)
{
	const long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	if (r >= n)
		return;
	long long rest = r;
	const double h = (b - a) / (2.0 * l);
	for (int i = 0; i < dim; i++) {
		const int j = (int)(rest % l);
		rest /= l;
		g.c[i * cap + r] = (T)(a + (2 * j + 1) * h);
		g.h[i * cap + r] = (T)h;
	}
}

/* One region of a thread's heap in phase 2. */
template <typename T> struct cub_p2_region {
	double est, err;
	int axis;
	T c[CUB_MAX_DIM], h[CUB_MAX_DIM];
};

/* The rule on one region by one thread (phase 2). */
template <typename T>
__device__ void cub_rule_serial(const cub_fn &fn, const cub_rule &rule, cub_p2_region<T> &g)
{
	const int n = rule.dim;
	double sums[CUB_MAX_SUMS] = {0}, axis_f[1 + 4 * CUB_MAX_DIM], hw[CUB_MAX_DIM], vol = 1;
	T x[CUB_MAX_DIM];
	for (int p = 0; p < rule.npts; p++) {
		for (int i = 0; i < n; i++)
			x[i] = g.c[i] + g.h[i] * (T)rule.pts[(size_t)p * n + i];
		const double f = (double)cub_f_t<T>(fn, x);
		if (p <= 4 * n)
			axis_f[p] = f;
		for (int k = 0; k < rule.nsums; k++)
			sums[k] += rule.w[(size_t)k * rule.npts + p] * f;
	}
	for (int i = 0; i < n; i++) {
		hw[i] = (double)g.h[i];
		vol *= hw[i];
	}
	g.est = sums[0] * vol;
	g.err = cub_rule_error(&rule, sums, vol);
	g.axis = cub_split_axis(&rule, axis_f, hw);
}

/* The phase-2 input of twophase: region r's estimate, error, axis and volume, the regions
 * still active after phase 1, compacted to their positions pos[r]. */
template <typename T>
__global__ void cub_compact_kernel(long long n, int dim, cub_list<T> g, long long cap,
                                   const int *flag, const int *pos, const double *est,
                                   const double *err, const int *axis, double *out_est,
                                   double *out_err, int *out_axis, double *out_vol)
{
	const long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	if (r >= n || !flag[r])
		return;
	double vol = 1;
	for (int i = 0; i < dim; i++)
		vol *= 2 * (double)g.h[i * cap + r];
	out_est[pos[r]] = est[r];
	out_err[pos[r]] = err[r];
	out_axis[pos[r]] = axis[r];
	out_vol[pos[r]] = vol;
}

/* Phase 2 of twophase: thread r runs the sequential adaptive loop (Algorithm 1) on region r
 * of g (its rule's estimate, error and axis from phase 1) with its own heap of hsz regions
 * (a linear scan for the worst) until its error meets its share of the remaining tolerance,
 * rem * vol[r] / vol_total (so that the regions that meet theirs meet rem together), its heap
 * is full or it has used `evals` evaluations. Writes its estimate, error, evaluations and
 * why it stopped (0 met, 1 evaluations, 2 heap full) over est, err, used and why. */
template <typename T>
__global__ void cub_phase2_kernel(long long n, cub_fn fn, cub_rule rule, cub_list<T> g,
                                  long long cap, double rem, double vol_total, long long evals,
                                  int hsz, cub_p2_region<T> *heap, double *est, double *err,
                                  const int *axis, const double *vol, long long *used, int *why)
{
	const long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	if (r >= n)
		return;
	cub_p2_region<T> *hp = heap + r * hsz;
	for (int i = 0; i < rule.dim; i++) {
		hp[0].c[i] = g.c[i * cap + r];
		hp[0].h[i] = g.h[i * cap + r];
	}
	hp[0].est = est[r];
	hp[0].err = err[r];
	hp[0].axis = axis[r];
	const double target = rem * vol[r] / vol_total;
	int live = 1, stop = 0;
	long long spent = 0;
	double tot_err = hp[0].err;
	while (tot_err > target) {
		if (live >= hsz) {
			stop = 2;
			break;
		}
		if (spent + 2 * rule.npts > evals) {
			stop = 1;
			break;
		}
		int worst = 0;
		for (int q = 1; q < live; q++)
			if (hp[q].err > hp[worst].err)
				worst = q;
		cub_p2_region<T> &par = hp[worst], &child = hp[live];
		const double pest = par.est, perr = par.err;
		child = par;
		const int ax = par.axis;
		par.h[ax] = child.h[ax] = par.h[ax] / 2;
		par.c[ax] -= par.h[ax];
		child.c[ax] += child.h[ax];
		cub_rule_serial(fn, rule, par);
		cub_rule_serial(fn, rule, child);
		const double d = fabs(pest - (par.est + child.est)), e = par.err + child.err;
		if (e > 0) {
			par.err *= 1 + 0.5 * d / e;
			child.err *= 1 + 0.5 * d / e;
		}
		par.err += 0.25 * d;
		child.err += 0.25 * d;
		tot_err += par.err + child.err - perr;
		live++;
		spent += 2 * rule.npts;
	}
	double tot_est = 0;
	tot_err = 0;
	for (int q = 0; q < live; q++) {
		tot_est += hp[q].est;
		tot_err += hp[q].err;
	}
	est[r] = tot_est;
	err[r] = tot_err;
	used[r] = spent;
	why[r] = stop;
}

/* The tolerance of the current estimate into *tol: max(abs, rel |fin_est + live_est|), live_est
 * the device sum at *live. */
__global__ void cub_tol_kernel(const double *live, double fin_est, double rel, double abs_tol,
                               double *tol)
{
	*tol = fmax(abs_tol, rel * fabs(fin_est + *live));
}

/* What the host needs after an iteration, in one copy: out[0..3] = sums[0..3] (live estimate
 * and error, retired estimate and error), out[4] the tolerance, out[5] the active count. */
__global__ void cub_tally_kernel(long long n, const double *sums, const int *pos, const int *flag,
                                 double *out)
{
	for (int k = 0; k < 5; k++)
		out[k] = sums[k];
	out[5] = (double)pos[n - 1] + flag[n - 1];
}

/* Bytes one region needs on the device: two lists of centre and half-widths, est, err, parent
 * estimate, retired est and err, axis, flag and position. */
extern "C" size_t cub_gpu_region_bytes(int dim, enum qx_precision prec)
{
	return 4 * (size_t)dim * qx_precision_size(prec) + 5 * sizeof(double) + 3 * sizeof(int);
}

/* Half the free device memory, 0 when it cannot be read. */
extern "C" size_t cub_gpu_default_budget(void)
{
	size_t free_b = 0, total = 0;
	if (cudaMemGetInfo(&free_b, &total) != cudaSuccess)
		return 0;
	return free_b / 2;
}

/* Everything a run holds on the device, freed by the owners' destructors on every path. */
template <typename T> struct cub_dev {
	gpu_owned<T> c[2], h[2];
	gpu_owned<double> est, err, parent, ret_est, ret_err, pts, w, sums, tally;
	gpu_owned<int> axis, flag, pos;
	gpu_owned<unsigned char> tmp;
	size_t tmp_bytes = 0;
	long long cap = 0;
};

/* Allocates lists of cap regions and the rule on the device, and CUB's temporary storage
 * once for every scan and reduction a run makes. */
template <typename T>
static int cub_alloc(const struct cub_gpu_job *job, long long cap, cub_dev<T> &d, struct qx_err *e)
{
	const int dim = job->rule->dim;
	const size_t nt = (size_t)cap * dim * sizeof(T), nd = (size_t)cap * sizeof(double);
	d.cap = cap;
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
	const struct cub_rule *r = job->rule;
	GPU_TRY(cudaMalloc(&d.pts.ptr, (size_t)r->npts * dim * sizeof(double)));
	GPU_TRY(cudaMalloc(&d.w.ptr, (size_t)r->npts * r->nsums * sizeof(double)));
	GPU_TRY(cudaMemcpy(d.pts.ptr, r->pts, (size_t)r->npts * dim * sizeof(double),
	                   cudaMemcpyHostToDevice));
	GPU_TRY(cudaMemcpy(d.w.ptr, r->w, (size_t)r->npts * r->nsums * sizeof(double),
	                   cudaMemcpyHostToDevice));
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

/* Sum of n doubles of src into the device's sums[slot] through CUB. */
template <typename T>
static int cub_sum(cub_dev<T> &d, const double *src, long long n, int slot, struct qx_err *e)
{
	size_t bytes = d.tmp_bytes;
	GPU_TRY(cub::DeviceReduce::Sum(d.tmp.ptr, bytes, src, d.sums.ptr + slot, (int)n));
	return 0;
}

/* The timing events of one iteration: its start, the rule done, classify done, the tally
 * copied, and the split's start and end. */
enum { EV_START, EV_RULES, EV_CLASSIFY, EV_COPIED, EV_SPLIT0, EV_SPLIT1, EV_COUNT };

/* Phase 2 of twophase on the active regions of the n in the current list (flag, pos from the
 * last classification): compacts them with their estimates, then one thread each until each
 * meets its share of the remaining tolerance rem; adds the evaluations to res and returns
 * their summed estimate and error in *p2_est, *p2_err and why the worst stopped in *why. */
template <typename T>
static int cub_phase2(const struct cub_gpu_job *job, cub_dev<T> &d, const cub_rule &dr, int cur,
                      long long n, long long active, double rem, struct cub_result *res,
                      double *p2_est, double *p2_err, int *why, struct qx_err *e)
{
	const int dim = job->rule->dim;
	const unsigned eb = (unsigned)((n + ELEM_BLOCK - 1) / ELEM_BLOCK);
	cub_list<T> g = {d.c[cur].ptr, d.h[cur].ptr}, out = {d.c[1 - cur].ptr, d.h[1 - cur].ptr};
	gpu_owned<double> vol;
	gpu_owned<int> axis, stop;
	gpu_owned<long long> used, spent_d;
	gpu_owned<cub_p2_region<T>> heap;
	/* the heap takes what the budget leaves after the lists (half of it: see cap) */
	const size_t per_region = sizeof(cub_p2_region<T>);
	long long hsz = (long long)(job->budget / 2 / ((size_t)active * per_region));
	hsz = std::min(hsz, (long long)PHASE2_HEAP);
	if (hsz < 3)
		hsz = 3;
	GPU_TRY(cudaMalloc(&vol.ptr, (size_t)active * sizeof(double)));
	GPU_TRY(cudaMalloc(&axis.ptr, (size_t)active * sizeof(int)));
	GPU_TRY(cudaMalloc(&stop.ptr, (size_t)active * sizeof(int)));
	GPU_TRY(cudaMalloc(&used.ptr, (size_t)active * sizeof(long long)));
	GPU_TRY(cudaMalloc(&spent_d.ptr, sizeof(long long)));
	GPU_TRY(cudaMalloc(&heap.ptr, (size_t)active * hsz * per_region));
	/* the active regions' centres and half-widths: a split into one piece is a copy */
	cub_split_kernel<T><<<eb, ELEM_BLOCK>>>(n, dim, 1, g, d.cap, d.flag.ptr, d.pos.ptr,
	                                        d.axis.ptr, d.est.ptr, out, d.cap, d.ret_est.ptr);
	GPU_TRY(cudaGetLastError());
	cub_compact_kernel<T><<<eb, ELEM_BLOCK>>>(n, dim, g, d.cap, d.flag.ptr, d.pos.ptr,
	                                          d.est.ptr, d.err.ptr, d.axis.ptr, d.parent.ptr,
	                                          d.ret_err.ptr, axis.ptr, vol.ptr);
	GPU_TRY(cudaGetLastError());
	if (cub_sum(d, vol.ptr, active, 0, e))
		return -1;
	double vol_total;
	GPU_TRY(cudaMemcpy(&vol_total, d.sums.ptr, sizeof vol_total, cudaMemcpyDeviceToHost));
	const long long left = job->maxeval - res->evals, per = left / active;
	cub_phase2_kernel<T><<<(unsigned)((active + 127) / 128), 128>>>(
	    active, job->fn, dr, out, d.cap, rem, vol_total, per, (int)hsz, heap.ptr, d.parent.ptr,
	    d.ret_err.ptr, axis.ptr, vol.ptr, used.ptr, stop.ptr);
	GPU_TRY(cudaGetLastError());
	if (cub_sum(d, d.parent.ptr, active, 0, e) || cub_sum(d, d.ret_err.ptr, active, 1, e))
		return -1;
	size_t bytes = d.tmp_bytes;
	GPU_TRY(cub::DeviceReduce::Sum(d.tmp.ptr, bytes, used.ptr, spent_d.ptr, (int)active));
	bytes = d.tmp_bytes;
	GPU_TRY(cub::DeviceReduce::Max(d.tmp.ptr, bytes, stop.ptr, d.pos.ptr, (int)active));
	double sums[2];
	long long spent = 0;
	GPU_TRY(cudaMemcpy(sums, d.sums.ptr, sizeof sums, cudaMemcpyDeviceToHost));
	GPU_TRY(cudaMemcpy(&spent, spent_d.ptr, sizeof spent, cudaMemcpyDeviceToHost));
	GPU_TRY(cudaMemcpy(why, d.pos.ptr, sizeof *why, cudaMemcpyDeviceToHost));
	res->evals += spent;
	qx_progress_add(spent);
	*p2_est = sums[0];
	*p2_err = sums[1];
	const double mem = (double)active * hsz * per_region;
	res->peak_bytes =
	    std::max(res->peak_bytes, mem + (double)d.cap * cub_gpu_region_bytes(dim, job->prec));
	return 0;
}

/* The breadth and twophase runs (see the file's comment). Per iteration the host waits once,
 * for one copy of the tally; the phases are timed with events. */
template <typename T>
static int cub_run(const struct cub_gpu_job *job, struct cub_result *res, struct qx_timing *t,
                   struct qx_err *e)
{
	const struct cub_rule *rule = job->rule;
	const int dim = rule->dim, twophase = job->algo == CUB_GPU_TWOPHASE;
	const int k = twophase ? job->d : 2;
	/* twophase keeps half the budget for phase 2's heaps */
	const size_t list_budget = twophase ? job->budget / 2 : job->budget;
	const long long budget_cap =
	    (long long)(list_budget / cub_gpu_region_bytes(dim, job->prec)) / 2 * 2;
	/* the lists never hold more regions than maxeval lets one iteration evaluate (nor than
	 * twophase's first partition, at most lmax): allocating the whole budget instead cost
	 * about 0.1 s of cudaMalloc and cudaFree per run */
	const long long need =
	    std::max<long long>(job->maxeval / rule->npts, twophase ? job->lmax : 0) + 2 * k;
	const long long cap = std::min(budget_cap, need / 2 * 2 + 2);
	const double total_vol = pow(job->b - job->a, dim);
	double t0 = qx_now_ms();
	const double t_start = t0;
	cub_dev<T> d;
	*res = (struct cub_result){};
	res->reason = CUB_CONVERGED;
	if (budget_cap < 2 * k || cap > 2000000000LL)
		return qx_fail(e, "budget %.3g MiB: expected room for %d..2e9 regions of %zu bytes",
		               job->budget / 1048576.0, 2 * k,
		               cub_gpu_region_bytes(dim, job->prec));
	cudaEvent_t *ev = gpu_events(EV_COUNT, e);
	if (!ev || cub_alloc<T>(job, cap, d, e))
		return -1;
	cub_rule dr = *rule;
	dr.pts = d.pts.ptr;
	dr.w = d.w.ptr;
	/* the initial regions: one (breadth) or l^dim (twophase), l the largest with l^dim at
	 * most lmax / d^2, so that phase 1 refines at least twice before it reaches lmax */
	int l = 1;
	if (twophase)
		while (pow(l + 1, dim) * k * k <= job->lmax && pow(l + 1, dim) <= cap)
			l++;
	long long n = (long long)pow(l, dim);
	int cur = 0, split_pending = 0;
	cub_list<T> g = {d.c[0].ptr, d.h[0].ptr};
	cub_init_kernel<T><<<(unsigned)((n + ELEM_BLOCK - 1) / ELEM_BLOCK), ELEM_BLOCK>>>(
	    n, dim, l, job->a, job->b, g, cap);
	GPU_TRY(cudaGetLastError());
	GPU_TRY(cudaDeviceSynchronize());
	qx_timing_add(t, "alloc", qx_now_ms() - t0, 0);
	double fin_est = 0, fin_err = 0, live_est = 0, live_err = 0, tol = 0;
	double tally[6] = {0};
	long long nparents = 0, active = 0;
	for (;;) {
		if (qx_cancelled())
			return qx_fail(e, "run cancelled");
		const unsigned eb = (unsigned)((n + ELEM_BLOCK - 1) / ELEM_BLOCK);
		g = {d.c[cur].ptr, d.h[cur].ptr};
		GPU_TRY(cudaEventRecord(ev[EV_START]));
		cub_rule_kernel<T><<<(unsigned)n, RULE_BLOCK>>>(job->fn, dr, g, cap, d.est.ptr,
		                                                d.err.ptr, d.axis.ptr);
		GPU_TRY(cudaGetLastError());
		if (nparents)
			cub_children_kernel<<<(unsigned)((nparents + ELEM_BLOCK - 1) / ELEM_BLOCK),
			                      ELEM_BLOCK>>>(nparents, k, d.parent.ptr, d.est.ptr,
			                                    d.err.ptr);
		GPU_TRY(cudaGetLastError());
		GPU_TRY(cudaEventRecord(ev[EV_RULES]));
		res->evals += n * rule->npts;
		res->regions += n;
		res->iterations++;
		qx_progress_add(n * rule->npts);
		if (cub_sum(d, d.est.ptr, n, 0, e) || cub_sum(d, d.err.ptr, n, 1, e))
			return -1;
		cub_tol_kernel<<<1, 1>>>(d.sums.ptr, fin_est, job->rel, job->abs, d.sums.ptr + 4);
		GPU_TRY(cudaGetLastError());
		cub_classify_kernel<T><<<eb, ELEM_BLOCK>>>(
		    n, dim, g, cap, d.est.ptr, d.err.ptr, d.sums.ptr + 4, 0.5, total_vol, twophase,
		    job->rel, job->abs, d.flag.ptr, d.ret_est.ptr, d.ret_err.ptr);
		GPU_TRY(cudaGetLastError());
		size_t bytes = d.tmp_bytes;
		GPU_TRY(
		    cub::DeviceScan::ExclusiveSum(d.tmp.ptr, bytes, d.flag.ptr, d.pos.ptr, (int)n));
		if (cub_sum(d, d.ret_est.ptr, n, 2, e) || cub_sum(d, d.ret_err.ptr, n, 3, e))
			return -1;
		cub_tally_kernel<<<1, 1>>>(n, d.sums.ptr, d.pos.ptr, d.flag.ptr, d.tally.ptr);
		GPU_TRY(cudaGetLastError());
		GPU_TRY(cudaEventRecord(ev[EV_CLASSIFY]));
		GPU_TRY(cudaMemcpy(tally, d.tally.ptr, sizeof tally, cudaMemcpyDeviceToHost));
		GPU_TRY(cudaEventRecord(ev[EV_COPIED]));
		GPU_TRY(cudaEventSynchronize(ev[EV_COPIED]));
		qx_timing_add(t, "rules", gpu_elapsed(ev[EV_START], ev[EV_RULES]), 0);
		qx_timing_add(t, "classify", gpu_elapsed(ev[EV_RULES], ev[EV_CLASSIFY]), 0);
		qx_timing_add(t, "copies", gpu_elapsed(ev[EV_CLASSIFY], ev[EV_COPIED]), 0);
		if (split_pending)
			qx_timing_add(t, "split", gpu_elapsed(ev[EV_SPLIT0], ev[EV_SPLIT1]), 0);
		split_pending = 0;
		live_est = tally[0];
		live_err = tally[1];
		tol = tally[4];
		active = (long long)tally[5];
		if (res->nhist < CUB_HISTORY) {
			res->hist_est[res->nhist] = fin_est + live_est;
			res->hist_err[res->nhist] = fin_err + live_err;
			res->hist_regions[res->nhist++] = (double)n;
		}
		if (fin_err + live_err <= tol || active == 0)
			break; /* converged, or every region retired: the sums are final */
		if (twophase && active * k > std::min((long long)job->lmax, cap))
			break; /* phase 2 takes the active regions */
		if (res->evals + active * k * rule->npts > job->maxeval) {
			res->reason = CUB_MAXEVAL;
			break;
		}
		if (active * k > cap) {
			res->reason = CUB_BUDGET;
			break;
		}
		fin_est += tally[2];
		fin_err += tally[3];
		cub_list<T> out = {d.c[1 - cur].ptr, d.h[1 - cur].ptr};
		GPU_TRY(cudaEventRecord(ev[EV_SPLIT0]));
		cub_split_kernel<T><<<eb, ELEM_BLOCK>>>(n, dim, k, g, cap, d.flag.ptr, d.pos.ptr,
		                                        d.axis.ptr, d.est.ptr, out, cap,
		                                        d.parent.ptr);
		GPU_TRY(cudaGetLastError());
		GPU_TRY(cudaEventRecord(ev[EV_SPLIT1]));
		split_pending = 1;
		nparents = active;
		n = active * k;
		cur = 1 - cur;
		const double mem = (double)n * cub_gpu_region_bytes(dim, job->prec);
		res->peak_bytes = mem > res->peak_bytes ? mem : res->peak_bytes;
	}
	res->live = n;
	if (twophase && res->reason == CUB_CONVERGED && active > 0 && fin_err + live_err > tol) {
		/* phase 2: the retired regions' sums are final; the active ones go on */
		double p2_est = 0, p2_err = 0;
		int why = 0;
		t0 = qx_now_ms();
		fin_est += tally[2];
		fin_err += tally[3];
		if (cub_phase2(job, d, dr, cur, n, active, std::max(tol - fin_err, 0.0), res,
		               &p2_est, &p2_err, &why, e))
			return -1;
		live_est = p2_est;
		live_err = p2_err;
		res->live = active;
		if (fin_err + live_err > tol)
			res->reason = why == 2 ? CUB_BUDGET : CUB_MAXEVAL;
		qx_timing_add(t, "phase2", qx_now_ms() - t0, 0);
	}
	res->value = fin_est + live_est;
	res->err = fin_err + live_err;
	if (res->reason == CUB_CONVERGED &&
	    !(res->err <= fmax(job->abs, job->rel * fabs(res->value))))
		res->reason = twophase ? CUB_MAXEVAL : CUB_NO_PROGRESS;
	t->total = qx_now_ms() - t_start;
	return 0;
}

/* Runs the job in its precision. */
extern "C" int cub_gpu_run(const struct cub_gpu_job *job, struct cub_result *res,
                           struct qx_timing *t, struct qx_err *e)
{
	if (job->prec == QX_DOUBLE)
		return cub_run<double>(job, res, t, e);
	return cub_run<float>(job, res, t, e);
}

/* The rule alone on nregions regions (the first nregions of a uniform grid), the median of
 * reps launches after a warm-up, timed with events. */
template <typename T>
static int cub_floor(const struct cub_gpu_job *job, long long nregions, int reps, double *ms,
                     struct qx_err *e)
{
	const int dim = job->rule->dim;
	cub_dev<T> d;
	if (cub_alloc<T>(job, nregions, d, e))
		return -1;
	cub_rule dr = *job->rule;
	dr.pts = d.pts.ptr;
	dr.w = d.w.ptr;
	int l = 1;
	while (pow(l + 1, dim) <= nregions)
		l++;
	cub_list<T> g = {d.c[0].ptr, d.h[0].ptr};
	cub_init_kernel<T><<<(unsigned)((nregions + ELEM_BLOCK - 1) / ELEM_BLOCK), ELEM_BLOCK>>>(
	    nregions, dim, l, job->a, job->b, g, nregions);
	GPU_TRY(cudaGetLastError());
	cudaEvent_t *ev = gpu_events(2, e);
	if (!ev)
		return -1;
	double times[64];
	reps = reps < 64 ? reps : 64;
	for (int i = -1; i < reps; i++) {
		GPU_TRY(cudaEventRecord(ev[0]));
		cub_rule_kernel<T><<<(unsigned)nregions, RULE_BLOCK>>>(
		    job->fn, dr, g, nregions, d.est.ptr, d.err.ptr, d.axis.ptr);
		GPU_TRY(cudaGetLastError());
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
extern "C" int cub_gpu_rule_floor(const struct cub_gpu_job *job, long long nregions, int reps,
                                  double *ms, struct qx_err *e)
{
	if (nregions < 1 || reps < 1)
		return qx_fail(e, "rule floor: expected nregions >= 1 and reps >= 1");
	if (job->prec == QX_DOUBLE)
		return cub_floor<double>(job, nregions, reps, ms, e);
	return cub_floor<float>(job, nregions, reps, ms, e);
}
