/* rule_kernel.cuh - the kernels of problem cubature that evaluate the integrand: the rule on a
 * list of regions (a warp or a part of one a region) and twophase's phase 2 (a thread a region).
 * Included by common.cuh, whose launches run them for the built-in integrands, and by
 * user_kernels.cu, which instantiates them for an integrand typed by the user (KIND
 * CUB_KIND_USER): compiled to LTO-IR there and linked at run time with the integrand that NVRTC
 * compiled, so that the integrand is inlined into the kernels. */
#ifndef QX_CUBATURE_RULE_KERNEL_CUH
#define QX_CUBATURE_RULE_KERNEL_CUH

#include "../../src/problems/cubature/cubature_gpu.h"

#include "../../src/problems/cubature/cubature_math_all.h"

static const int RULE_BLOCK = 128; /* threads per block of the rule kernel, but on few regions */
static const int PHASE2_HEAP = 32; /* twophase: regions one thread keeps */
static const int ELEM_BLOCK = 256; /* threads per block of the per-region kernels */

/* KIND of the kernels made for the user's integrand: cub_user_t, with the point mapped from the
 * unit cube by the integrand's own code. */
#define CUB_KIND_USER (-2)

/* The user's integrand in precision T at x (the unit cube's coordinates), its parameters p:
 * declared here, defined only where the kernels are made for it (user_kernels.lto.cu). */
template <typename T> __device__ T cub_user_t(const T *x, const double *p);

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
/* The integrand in precision T where the host has found every cosine's (and f4's sine's)
 * argument within cub_cos_reduced's range: in double, evaluated once, with no branch to the C
 * library's cos or sin. */
__device__ __forceinline__ double cub_f_in_range(const cub_fn &fn, const double *x)
{
	int wide = 0;
	return cub_f_body_d(&fn, x, &wide);
}
__device__ __forceinline__ float cub_f_in_range(const cub_fn &fn, const float *x)
{
	return cub_f_f(&fn, x);
}

/* A region list on the device: centres c and half-widths h, dim arrays of cap each. */
template <typename T> struct cub_list {
	T *c, *h;
};

/* breadth's state on the device while it runs ahead of the host (see cub_breadth_ahead):
 * - the coming iteration's list: n leaves, fresh..n-1 new, the children of nparents parents
 *   (so the last iteration, unless it ended the run, split leaves 0..n-nparents-1 and put
 *   their children from fresh on);
 * - the iterations and evaluations so far, the live estimate and error, the threshold theta;
 * - stop: AHEAD_GO, AHEAD_DONE (the run ended, for reason) or AHEAD_HOST (the host goes on
 *   from the coming iteration);
 * - per iteration its estimate, error and live leaves.
 * AHEAD_CAP leaves at most, AHEAD_BATCH iterations queued between two looks at the state,
 * AHEAD_HISTORY iterations at most. */
static const int AHEAD_ITEMS = 16, AHEAD_BATCH = 4, AHEAD_HISTORY = 64;
static const long long AHEAD_CAP = 1024LL * AHEAD_ITEMS; /* a block of 1024 threads' leaves */
struct cub_ahead {
	long long n, fresh, nparents, iterations, evals;
	double est, err, theta;
	int stop, reason;
	double history[3][AHEAD_HISTORY]; /* per iteration: estimate, error, live leaves */
};
enum { AHEAD_GO, AHEAD_DONE, AHEAD_HOST };

/* cub_rule_error of the sums (every lane holds them) over a unit volume, by the region's 16
 * or 32 lanes (lane: the region's lane): lane k takes generator k of the three pairs of null
 * rules, the lanes keep each pair's largest (what cub_rule_error's loop keeps: NaN never, none
 * below 0); every lane returns it. */
static __device__ double cub_rule_error_warp(const cub_rule &rule, const double *sums, int lane)
{
	if (rule.nsums == 2)
		return cub_rule_error(&rule, sums, 1);
	double null[3];
	for (int i = 0; i < 3; i++) {
		double best = 0;
		if (lane < rule.ngen) {
			const double v = fabs(sums[i + 2] + rule.scales[i][lane] * sums[i + 1]) *
			                 rule.norms[i][lane];
			best = v > 0 ? v : 0;
		}
		for (int off = 8; off > 0; off /= 2) { /* CUB_MAX_GENS <= 16 lanes */
			const double o = __shfl_xor_sync(0xffffffffu, best, off);
			best = o > best ? o : best;
		}
		null[i] = best;
	}
	return cub_rule_error_null(&rule, null);
}

/* The rule on regions 0..n-1 of list g, BLOCK threads a block, WPR warps per region
 * (BLOCK / 32 / WPR regions per block), or with LPR 16 half a warp a region (two a warp, the
 * end of a region's work shared by its warp with the other's): each thread sums its share of the
 * points into the rule sums (double; past the axis block it sums f over each run of equal weights
 * and weighs the run's sum once), the axis points' values go to shared memory, the sums are reduced
 * by warp shuffles (and through shared memory across a region's warps), the region's first warp
 * takes the axes' edge terms and fourth differences a lane each, and its first thread writes the
 * estimate, error and split axis. DN: the dimension, or 0 for rule.dim; KIND: the integrand, or -1
 * for fn.kind (with KIND, the launch has checked its cos and sin arguments' range: cub_f_in_range).
 * With st (breadth running ahead), the regions are st->fresh..st->n-1, and none once st->stop is
 * set. With bdata (a batch of the user's integrals: KIND CUB_KIND_USER), region r's integrand
 * reads its data at bdata + CUB_USER_DATA tag[r] instead of fn.user. Blocks of 128 run 5 a
 * multiprocessor (96 registers: on an H100 f4 dim 8 at 1e-3 took 68 ms against 72 at 6 blocks, f5
 * dim 8 at 1e-9 the same or 1% less; with qx_asin_reduced f3 and f4 no longer spill, by ptxas for
 * sm_90, and 6 blocks measured the same as 5 on an H200). */
template <typename T, int BLOCK, int WPR, int DN, int KIND = -1, int LPR = 32>
__device__ __forceinline__ void
cub_rule_body(const cub_fn &fn_in, cub_rule rule, cub_list<T> g, long long cap, long long n,
              double *est, double *err, int *axis, const cub_ahead *st, const int *tag = nullptr,
              const double *bdata = nullptr)
{
	static_assert(LPR == 32 || (LPR == 16 && WPR == 1 && DN > 0 && DN <= 16), "half warps");
	constexpr int RPB = BLOCK / 32 / WPR * (32 / LPR);
	long long lo = 0;
	if (st) {
		if (st->stop)
			return;
		lo = st->fresh;
		n = st->n;
	}
	__shared__ double part[BLOCK / 32][CUB_MAX_SUMS + 2];
	__shared__ double axis_f[RPB][1 + CUB_MAX_AXIS * CUB_MAX_DIM];
	const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
	const int slot = LPR == 32 ? warp / WPR : (int)threadIdx.x / LPR;
	const int t = LPR == 32 ? (warp % WPR) * 32 + lane : lane % LPR; /* the region's thread */
	const long long r = lo + (long long)blockIdx.x * RPB + slot;
	/* DN > 0: the dimension known here, so that the point's coordinates stay in registers */
	const int dn = DN ? DN : rule.dim;
	__shared__ T c[RPB][CUB_MAX_DIM], h[RPB][CUB_MAX_DIM];
	double sums[CUB_MAX_SUMS] = {0};
	double run_sum = 0; /* f summed over this thread's points of run `run` */
	int run = 0;
	/* samples that were not finite (dropped), and in float the basic rule applied to |f| and
	 * |f| summed over the run (cub_float_rounding) */
	int nonfinite = 0;
	double abs_sum = 0, run_abs = 0;
	if (r < n && t < dn) {
		c[slot][t] = g.c[t * cap + r];
		h[slot][t] = g.h[t * cap + r];
	}
	if (WPR > 1)
		__syncthreads();
	else
		__syncwarp();
	if (r < n) {
		T x[CUB_MAX_DIM];
		/* a user's integrand reads its data where it is (its kernel's fn is a
		 * __grid_constant__: no copy), and fn, the copy whose dim and kind are set
		 * below for the built-ins, is never read there, so never made */
		cub_fn fn = fn_in;
		const double *user = fn_in.user;
		if (KIND == CUB_KIND_USER && bdata)
			user = bdata + (size_t)tag[r] * CUB_USER_DATA;
		for (int p = t; p < rule.npts; p += LPR * WPR) {
			for (int i = 0; i < dn; i++)
				x[i] = c[slot][i] +
				       h[slot][i] * (T)rule.pts[(size_t)i * rule.npts + p];
			/* set here, next to the call, the compiler knows the integrand and its
			 * loop counts, and unrolls them (set once above the loop, it did not) */
			if (DN)
				fn.dim = DN;
			double f;
			if constexpr (KIND == CUB_KIND_USER) {
				f = (double)cub_user_t<T>(x, user);
			} else if constexpr (KIND >= 0) {
				fn.kind = KIND;
				f = (double)cub_f_in_range(fn, x);
			} else {
				f = (double)cub_f_t<T>(fn, x);
			}
			f = cub_sample(f, &nonfinite);
			if (p <= rule.naxis * dn) {
				axis_f[slot][p] = f;
				if constexpr (sizeof(T) == sizeof(float))
					abs_sum += rule.w[p] * fabs(f);
#pragma unroll
				for (int k = 0; k < CUB_MAX_SUMS; k++)
					if (k < rule.nsums)
						sums[k] += rule.w[(size_t)k * rule.npts + p] * f;
				continue;
			}
			/* past the axis block the weights are the same over a run: sum f there
			 * and weigh the sum once */
			for (; p >= rule.run_end[run]; run++) {
#pragma unroll
				for (int k = 0; k < CUB_MAX_SUMS; k++)
					if (k < rule.nsums)
						sums[k] += rule.run_w[run][k] * run_sum;
				if constexpr (sizeof(T) == sizeof(float))
					abs_sum += rule.run_w[run][0] * run_abs;
				run_sum = run_abs = 0;
			}
			run_sum += f;
			if constexpr (sizeof(T) == sizeof(float))
				run_abs += fabs(f);
		}
#pragma unroll
		for (int k = 0; k < CUB_MAX_SUMS; k++)
			if (k < rule.nsums)
				sums[k] += rule.run_w[run][k] * run_sum;
		if constexpr (sizeof(T) == sizeof(float))
			abs_sum += rule.run_w[run][0] * run_abs;
	}
	/* the samples dropped, counted as a double beside the sums */
	double bad = nonfinite;
#pragma unroll
	for (int k = 0; k < CUB_MAX_SUMS; k++)
		for (int off = LPR / 2; off > 0; off /= 2)
			sums[k] += __shfl_xor_sync(0xffffffffu, sums[k], off);
	for (int off = LPR / 2; off > 0; off /= 2) {
		bad += __shfl_xor_sync(0xffffffffu, bad, off);
		if constexpr (sizeof(T) == sizeof(float))
			abs_sum += __shfl_xor_sync(0xffffffffu, abs_sum, off);
	}
	if (WPR > 1) {
		if (lane == 0) {
#pragma unroll
			for (int k = 0; k < CUB_MAX_SUMS; k++)
				part[warp][k] = sums[k];
			part[warp][CUB_MAX_SUMS] = bad;
			part[warp][CUB_MAX_SUMS + 1] = abs_sum;
		}
		__syncthreads();
		if (t < 32)
			for (int q = 1; q < WPR; q++) {
#pragma unroll
				for (int k = 0; k < CUB_MAX_SUMS; k++)
					sums[k] += part[warp + q][k];
				bad += part[warp + q][CUB_MAX_SUMS];
				abs_sum += part[warp + q][CUB_MAX_SUMS + 1];
			}
	} else {
		__syncwarp();
	}
	/* a half warp past n still takes its part in the shuffles, and writes nothing */
	if ((LPR < 32 || r < n) && t < 32) {
		double vol = 1;
		for (int i = 0; i < dn; i++)
			vol *= (double)h[slot][i];
		/* thread i takes axis i's edge term and fourth difference; the region's threads sum
		 * the edge terms and keep the first axis with the largest of each */
		double edge = 0, edge_best = 0, fourth = 0;
		int edge_axis = t, fourth_axis = t;
		if (t < dn) {
			edge = edge_best = cub_axis_edge(&rule, axis_f[slot], t);
			fourth = cub_axis_fourth(&rule, axis_f[slot], t);
		}
		const double rule_err = cub_rule_error_warp(rule, sums, t) * vol;
		/* threads 0..2 top - 1 hold every axis (within the half warp: top <= 8) */
		const int top = dn > 8 ? 8 : dn > 4 ? 4 : dn > 2 ? 2 : 1;
		for (int off = top; off > 0; off /= 2) {
			edge += __shfl_down_sync(0xffffffffu, edge, off);
			const double eb = __shfl_down_sync(0xffffffffu, edge_best, off);
			const double fb = __shfl_down_sync(0xffffffffu, fourth, off);
			const int ea = __shfl_down_sync(0xffffffffu, edge_axis, off);
			const int fa = __shfl_down_sync(0xffffffffu, fourth_axis, off);
			if (eb > edge_best || (eb == edge_best && ea < edge_axis)) {
				edge_best = eb;
				edge_axis = ea;
			}
			if (fb > fourth || (fb == fourth && fa < fourth_axis)) {
				fourth = fb;
				fourth_axis = fa;
			}
		}
		if (t == 0 && r < n) {
			double hw[CUB_MAX_DIM];
			for (int i = 0; i < dn; i++)
				hw[i] = (double)h[slot][i];
			est[r] = sums[0] * vol;
			const double e = cub_region_combine(&rule, rule_err, edge, edge_axis,
			                                    fourth, fourth_axis, hw, vol, &axis[r]);
			err[r] = bad > 0 ? CUB_ERR_NONFINITE
			         : sizeof(T) == sizeof(float)
			             ? e + cub_float_rounding(fabs(abs_sum) * vol)
			             : e;
		}
	}
}

/* The blocks of the rule kernel a multiprocessor runs at once (96 registers a thread at 128). */
#define CUB_RULE_MIN_BLOCKS(BLOCK) ((BLOCK) == 128 ? 5 : 6 * 128 / (BLOCK))

/* The rule kernel: cub_rule_body with its launch bounds. */
template <typename T, int BLOCK, int WPR, int DN, int KIND = -1, int LPR = 32>
__global__ void __launch_bounds__(BLOCK, CUB_RULE_MIN_BLOCKS(BLOCK))
    cub_rule_kernel(cub_fn fn, cub_rule rule, cub_list<T> g, long long cap, long long n,
                    double *est, double *err, int *axis, const cub_ahead *st)
{
	cub_rule_body<T, BLOCK, WPR, DN, KIND, LPR>(fn, rule, g, cap, n, est, err, axis, st);
}

/* One region of a thread's heap in phase 2. */
template <typename T> struct cub_p2_region {
	double est, err;
	int axis;
	T c[CUB_MAX_DIM], h[CUB_MAX_DIM];
};

/* The batch's side of phase 2 (all NULL for one integral): region r belongs to integral
 * tag[r], whose data (the user's parameters) are at data + CUB_USER_DATA tag[r], whose
 * tolerance is tol[tag[r]] over its unit cube (region r's share: tol times its volume) and
 * whose regions may each spend limit[tag[r]] evaluations. */
struct cub_p2_batch {
	const int *tag;
	const double *data, *tol;
	const long long *limit;
};

/* The rule on one region by one thread (phase 2), a user's integrand reading its parameters
 * at user. */
template <typename T, int KIND = -1>
__device__ void cub_rule_serial(const cub_fn &fn, const cub_rule &rule, cub_p2_region<T> &g,
                                const double *user)
{
	const int n = rule.dim;
	double sums[CUB_MAX_SUMS] = {0}, axis_f[1 + CUB_MAX_AXIS * CUB_MAX_DIM], hw[CUB_MAX_DIM];
	double vol = 1, abs_sum = 0;
	int nonfinite = 0;
	T x[CUB_MAX_DIM];
	for (int p = 0; p < rule.npts; p++) {
		for (int i = 0; i < n; i++)
			x[i] = g.c[i] + g.h[i] * (T)rule.pts[(size_t)i * rule.npts + p];
		double f;
		if constexpr (KIND == CUB_KIND_USER)
			f = (double)cub_user_t<T>(x, user);
		else
			f = (double)cub_f_t<T>(fn, x);
		f = cub_sample(f, &nonfinite);
		if (p <= rule.naxis * n)
			axis_f[p] = f;
		for (int k = 0; k < rule.nsums; k++)
			sums[k] += rule.w[(size_t)k * rule.npts + p] * f;
		if constexpr (sizeof(T) == sizeof(float))
			abs_sum += rule.w[p] * fabs(f);
	}
	for (int i = 0; i < n; i++) {
		hw[i] = (double)g.h[i];
		vol *= hw[i];
	}
	g.est = sums[0] * vol;
	g.err = cub_region_error(&rule, sums, axis_f, hw, vol, nonfinite, &g.axis);
	if (sizeof(T) == sizeof(float) && !nonfinite)
		g.err += cub_float_rounding(fabs(abs_sum) * vol);
}

/* Phase 2 of twophase: thread r runs the sequential adaptive loop (Algorithm 1) on region r
 * of g (its rule's estimate, error and axis from phase 1) with its own heap of hsz regions
 * (a linear scan for the worst) until its error meets its share of the remaining tolerance,
 * rem * vol[r] / vol_total (so that the regions that meet theirs meet rem together), its heap
 * is full or it has used `evals` evaluations; in a batch (bt.tag set) its integral's data,
 * tolerance share and evaluations instead (cub_p2_batch). Writes its estimate, error,
 * evaluations and why it stopped (0 met, 1 evaluations, 2 heap full) over est, err, used and
 * why. */
template <typename T, int KIND = -1>
__device__ __forceinline__ void
cub_phase2_body(long long n, const cub_fn &fn, cub_rule rule, cub_list<T> g, long long cap,
                double rem, double vol_total, long long evals, int hsz, cub_p2_region<T> *heap,
                double *est, double *err, const int *axis, const double *vol, long long *used,
                int *why, cub_p2_batch bt)
{
	const long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	if (r >= n)
		return;
	const double *user = fn.user;
	double target = rem * vol[r] / vol_total;
	if (bt.tag) {
		const int i = bt.tag[r];
		user = bt.data + (size_t)i * CUB_USER_DATA;
		target = bt.tol[i] * vol[r];
		evals = bt.limit[i];
	}
	cub_p2_region<T> *hp = heap + r * hsz;
	for (int i = 0; i < rule.dim; i++) {
		hp[0].c[i] = g.c[i * cap + r];
		hp[0].h[i] = g.h[i * cap + r];
	}
	hp[0].est = est[r];
	hp[0].err = err[r];
	hp[0].axis = axis[r];
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
		/* one call site, kept a loop: every copy of the rule (and of the integrand inlined
		 * into it) is code that nvJitLink compiles while the user waits */
		cub_p2_region<T> *const halves[2] = {&par, &child};
#pragma unroll 1
		for (int k = 0; k < 2; k++)
			cub_rule_serial<T, KIND>(fn, rule, *halves[k], user);
		const double d = fabs(pest - (par.est + child.est)), e = par.err + child.err;
		if (e > 0) {
			par.err *= 1 + 0.5 * d / e;
			child.err *= 1 + 0.5 * d / e;
		}
		par.err += 0.25 * d;
		child.err += 0.25 * d;
		live++;
		if (perr < CUB_ERR_NONFINITE) {
			tot_err += par.err + child.err - perr;
		} else { /* the sum again: CUB_ERR_NONFINITE took every finite error's digits */
			tot_err = 0;
			for (int q = 0; q < live; q++)
				tot_err += hp[q].err;
		}
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

/* Phase 2 of twophase (cub_phase2_body) for the built-in integrands. */
template <typename T>
__global__ void cub_phase2_kernel(long long n, cub_fn fn, cub_rule rule, cub_list<T> g,
                                  long long cap, double rem, double vol_total, long long evals,
                                  int hsz, cub_p2_region<T> *heap, double *est, double *err,
                                  const int *axis, const double *vol, long long *used, int *why,
                                  cub_p2_batch bt)
{
	cub_phase2_body<T>(n, fn, rule, g, cap, rem, vol_total, evals, hsz, heap, est, err, axis,
	                   vol, used, why, bt);
}

#endif
