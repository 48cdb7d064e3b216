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
 * its volume's share `share` of the tolerance tol (so the retired errors sum to at most
 * share * tol); twophase: the seed's test err < max(abs, rel |est|). Retired regions' estimate
 * and error go to ret_est and ret_err (0 for active ones). */
template <typename T>
__global__ void cub_classify_kernel(long long n, int dim, cub_list<T> g, long long cap,
                                    const double *est, const double *err, double tol, double share,
                                    double total_vol, int seed_rule, double rel, double abs_tol,
                                    int *flag, double *ret_est, double *ret_err)
{
	const long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	if (r >= n)
		return;
	int active;
	if (seed_rule)
		active = !(err[r] < fmax(abs_tol, rel * fabs(est[r])));
	else {
		double vol = 1;
		for (int i = 0; i < dim; i++)
			vol *= 2 * (double)g.h[i * cap + r];
		active = err[r] > share * tol * vol / total_vol;
	}
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

/* Phase 2 of twophase: thread r runs the sequential adaptive loop (Algorithm 1) on region r
 * with the heap `heap` (PHASE2_HEAP regions, a linear scan for the worst) until its error
 * meets max(abs/n, rel |I_r|), the heap is full or it has used `evals` evaluations; writes
 * its estimate, error and evaluations. */
template <typename T>
__global__ void cub_phase2_kernel(long long n, cub_fn fn, cub_rule rule, cub_list<T> g,
                                  long long cap, double rel, double abs_tol, long long evals,
                                  cub_p2_region<T> *heap, double *est, double *err, long long *used)
{
	const long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	if (r >= n)
		return;
	cub_p2_region<T> *hp = heap + r * PHASE2_HEAP;
	for (int i = 0; i < rule.dim; i++) {
		hp[0].c[i] = g.c[i * cap + r];
		hp[0].h[i] = g.h[i * cap + r];
	}
	cub_rule_serial(fn, rule, hp[0]);
	int live = 1;
	long long spent = rule.npts;
	double tot_est = hp[0].est, tot_err = hp[0].err;
	while (tot_err > fmax(abs_tol / n, rel * fabs(tot_est)) && live < PHASE2_HEAP &&
	       spent + 2 * rule.npts <= evals) {
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
		tot_est += par.est + child.est - pest;
		tot_err += par.err + child.err - perr;
		live++;
		spent += 2 * rule.npts;
	}
	tot_est = tot_err = 0;
	for (int q = 0; q < live; q++) {
		tot_est += hp[q].est;
		tot_err += hp[q].err;
	}
	est[r] = tot_est;
	err[r] = tot_err;
	used[r] = spent;
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
	gpu_owned<double> est, err, parent, ret_est, ret_err, pts, w, sums;
	gpu_owned<int> axis, flag, pos;
	gpu_owned<unsigned char> tmp;
	size_t tmp_bytes = 0;
	long long cap = 0;
};

/* Allocates lists of cap regions and the rule on the device. */
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
	GPU_TRY(cudaMalloc(&d.sums.ptr, 4 * sizeof(double)));
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
	size_t scan = 0, red = 0;
	GPU_TRY(cub::DeviceScan::ExclusiveSum(nullptr, scan, d.flag.ptr, d.pos.ptr, (int)cap));
	GPU_TRY(cub::DeviceReduce::Sum(nullptr, red, d.est.ptr, d.sums.ptr, (int)cap));
	d.tmp_bytes = scan > red ? scan : red;
	GPU_TRY(cudaMalloc(&d.tmp.ptr, d.tmp_bytes));
	return 0;
}

/* Sum of n doubles of src into host *out through CUB. */
template <typename T>
static int cub_sum(cub_dev<T> &d, const double *src, long long n, int slot, struct qx_err *e)
{
	size_t bytes = d.tmp_bytes;
	GPU_TRY(cub::DeviceReduce::Sum(d.tmp.ptr, bytes, src, d.sums.ptr + slot, (int)n));
	return 0;
}

/* Milliseconds since *t0 on the host after synchronising; advances *t0. */
static double cub_lap(double *t0)
{
	cudaDeviceSynchronize();
	const double now = qx_now_ms(), ms = now - *t0;
	*t0 = now;
	return ms;
}

/* The breadth and twophase runs (see the file's comment). */
template <typename T>
static int cub_run(const struct cub_gpu_job *job, struct cub_result *res, struct qx_timing *t,
                   struct qx_err *e)
{
	const struct cub_rule *rule = job->rule;
	const int dim = rule->dim, twophase = job->algo == CUB_GPU_TWOPHASE;
	const int k = twophase ? job->d : 2;
	const long long cap =
	    (long long)(job->budget / cub_gpu_region_bytes(dim, job->prec)) / 2 * 2;
	const double total_vol = pow(job->b - job->a, dim);
	double t0 = qx_now_ms(), t_start = t0;
	cub_dev<T> d;
	*res = (struct cub_result){};
	res->reason = CUB_CONVERGED;
	if (cap < 2 || cap > 2000000000LL)
		return qx_fail(e, "budget %.3g MiB: expected room for 2..2e9 regions of %zu bytes",
		               job->budget / 1048576.0, cub_gpu_region_bytes(dim, job->prec));
	if (cub_alloc<T>(job, cap, d, e))
		return -1;
	cub_rule dr = *rule;
	dr.pts = d.pts.ptr;
	dr.w = d.w.ptr;
	/* the initial regions: one (breadth) or l^dim <= lmax (twophase) */
	int l = 1;
	if (twophase)
		while (pow(l + 1, dim) <= job->lmax && pow(l + 1, dim) <= cap)
			l++;
	long long n = (long long)pow(l, dim);
	int cur = 0;
	cub_list<T> g = {d.c[0].ptr, d.h[0].ptr};
	cub_init_kernel<T><<<(unsigned)((n + ELEM_BLOCK - 1) / ELEM_BLOCK), ELEM_BLOCK>>>(
	    n, dim, l, job->a, job->b, g, cap);
	GPU_TRY(cudaGetLastError());
	qx_timing_add(t, "alloc", cub_lap(&t0), 0);
	double fin_est = 0, fin_err = 0, live_est = 0, live_err = 0;
	long long nparents = 0;
	for (;;) {
		if (qx_cancelled())
			return qx_fail(e, "run cancelled");
		const unsigned eb = (unsigned)((n + ELEM_BLOCK - 1) / ELEM_BLOCK);
		g = {d.c[cur].ptr, d.h[cur].ptr};
		cub_rule_kernel<T><<<(unsigned)n, RULE_BLOCK>>>(job->fn, dr, g, cap, d.est.ptr,
		                                                d.err.ptr, d.axis.ptr);
		GPU_TRY(cudaGetLastError());
		if (nparents)
			cub_children_kernel<<<(unsigned)((nparents + ELEM_BLOCK - 1) / ELEM_BLOCK),
			                      ELEM_BLOCK>>>(nparents, k, d.parent.ptr, d.est.ptr,
			                                    d.err.ptr);
		GPU_TRY(cudaGetLastError());
		res->evals += n * rule->npts;
		res->regions += n;
		res->iterations++;
		qx_progress_add(n * rule->npts);
		qx_timing_add(t, "rules", cub_lap(&t0), 0);
		double sums[4];
		if (cub_sum(d, d.est.ptr, n, 0, e) || cub_sum(d, d.err.ptr, n, 1, e))
			return -1;
		GPU_TRY(cudaMemcpy(sums, d.sums.ptr, 2 * sizeof(double), cudaMemcpyDeviceToHost));
		live_est = sums[0];
		live_err = sums[1];
		const double tot = fin_est + live_est, tol = fmax(job->abs, job->rel * fabs(tot));
		qx_timing_add(t, "copies", cub_lap(&t0), 0);
		if (fin_err + live_err <= tol)
			break;
		cub_classify_kernel<T><<<eb, ELEM_BLOCK>>>(
		    n, dim, g, cap, d.est.ptr, d.err.ptr, tol, 0.5, total_vol, twophase, job->rel,
		    job->abs, d.flag.ptr, d.ret_est.ptr, d.ret_err.ptr);
		GPU_TRY(cudaGetLastError());
		size_t bytes = d.tmp_bytes;
		GPU_TRY(
		    cub::DeviceScan::ExclusiveSum(d.tmp.ptr, bytes, d.flag.ptr, d.pos.ptr, (int)n));
		if (cub_sum(d, d.ret_est.ptr, n, 2, e) || cub_sum(d, d.ret_err.ptr, n, 3, e))
			return -1;
		int last[2];
		GPU_TRY(
		    cudaMemcpy(&last[0], d.pos.ptr + n - 1, sizeof(int), cudaMemcpyDeviceToHost));
		GPU_TRY(
		    cudaMemcpy(&last[1], d.flag.ptr + n - 1, sizeof(int), cudaMemcpyDeviceToHost));
		GPU_TRY(cudaMemcpy(sums + 2, d.sums.ptr + 2, 2 * sizeof(double),
		                   cudaMemcpyDeviceToHost));
		const long long active = (long long)last[0] + last[1];
		qx_timing_add(t, "classify", cub_lap(&t0), 0);
		if (active == 0)
			break; /* every region retired: the sums are final */
		if (twophase && (n >= job->lmax || active * k > cap))
			break; /* phase 2 takes the list as it is */
		if (active * k > cap) {
			res->reason = CUB_BUDGET;
			break;
		}
		if (res->evals + active * k * rule->npts > job->maxeval) {
			res->reason = CUB_MAXEVAL;
			break;
		}
		fin_est += sums[2];
		fin_err += sums[3];
		cub_list<T> out = {d.c[1 - cur].ptr, d.h[1 - cur].ptr};
		cub_split_kernel<T><<<eb, ELEM_BLOCK>>>(n, dim, k, g, cap, d.flag.ptr, d.pos.ptr,
		                                        d.axis.ptr, d.est.ptr, out, cap,
		                                        d.parent.ptr);
		GPU_TRY(cudaGetLastError());
		nparents = active;
		n = active * k;
		cur = 1 - cur;
		qx_timing_add(t, "split", cub_lap(&t0), 0);
		const double mem = (double)n * cub_gpu_region_bytes(dim, job->prec);
		res->peak_bytes = mem > res->peak_bytes ? mem : res->peak_bytes;
	}
	res->live = n;
	if (twophase && fin_err + live_err > fmax(job->abs, job->rel * fabs(fin_est + live_est)) &&
	    res->reason == CUB_CONVERGED) {
		/* phase 2 on the n live regions, the remaining evaluations shared among them */
		const long long per = (job->maxeval - res->evals) / (n > 0 ? n : 1);
		gpu_owned<cub_p2_region<T>> heap;
		gpu_owned<long long> used;
		g = {d.c[cur].ptr, d.h[cur].ptr};
		GPU_TRY(cudaMalloc(&heap.ptr, (size_t)n * PHASE2_HEAP * sizeof(cub_p2_region<T>)));
		GPU_TRY(cudaMalloc(&used.ptr, (size_t)n * sizeof(long long)));
		cub_phase2_kernel<T><<<(unsigned)((n + 127) / 128), 128>>>(
		    n, job->fn, dr, g, cap, job->rel, job->abs, per, heap.ptr, d.est.ptr, d.err.ptr,
		    used.ptr);
		GPU_TRY(cudaGetLastError());
		double sums[2];
		if (cub_sum(d, d.est.ptr, n, 0, e) || cub_sum(d, d.err.ptr, n, 1, e))
			return -1;
		GPU_TRY(cudaMemcpy(sums, d.sums.ptr, 2 * sizeof(double), cudaMemcpyDeviceToHost));
		long long spent = 0;
		{
			size_t bytes = d.tmp_bytes;
			gpu_owned<long long> total;
			GPU_TRY(cudaMalloc(&total.ptr, sizeof(long long)));
			GPU_TRY(
			    cub::DeviceReduce::Sum(d.tmp.ptr, bytes, used.ptr, total.ptr, (int)n));
			GPU_TRY(
			    cudaMemcpy(&spent, total.ptr, sizeof spent, cudaMemcpyDeviceToHost));
		}
		res->evals += spent - n * rule->npts; /* each region's first rule was phase 1's */
		live_est = sums[0];
		live_err = sums[1];
		if (per < 3LL * rule->npts)
			res->reason = CUB_MAXEVAL;
		qx_timing_add(t, "phase2", cub_lap(&t0), 0);
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
