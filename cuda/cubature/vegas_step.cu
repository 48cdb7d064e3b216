// nvccflags: -fmad=false
/* vegas_step.cu - vegas's step between two iterations on the GPU (mc_kernels.cuh), so that
 * iterations queue without a round trip to the host: the iteration's sums, its bins back as
 * doubles, the grid refined axis by axis, the iterations combined and the run's stop decided
 * (cub_vegas_step, the CPU's), a record for the host. Compiled without FMA contraction so that
 * the combination computes, from the same estimates, the CPU's bits, and so its decisions. */

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include "../gpu_util.cuh"
#include "mc_kernels.cuh"

static const int STEP_BLOCK = 512; /* threads of a step's block: a bin each (nb <= 500) */

typedef cub::BlockReduce<double, STEP_BLOCK> step_reduce;
typedef cub::BlockScan<double, STEP_BLOCK> step_scan;

/* A block's shared memory for one axis: the bins' sums d, the old edges, the importance's
 * running sums, the reductions' scratch. */
struct step_shared {
	double d[STEP_BLOCK], old[STEP_BLOCK + 1], cum[STEP_BLOCK];
	union {
		step_reduce::TempStorage reduce;
		step_scan::TempStorage scan;
	} tmp;
	double total;
};

/* The larger of two edges, for the scan that keeps them increasing. */
struct step_max {
	__device__ double operator()(double a, double b) const
	{
		return a > b ? a : b;
	}
};

/* Returns the sum of v over the block, the same in every thread. */
static __device__ double step_sum(step_shared &sh, double v)
{
	const double s = step_reduce(sh.tmp.reduce).Sum(v);
	if (threadIdx.x == 0)
		sh.total = s;
	__syncthreads();
	const double all = sh.total;
	__syncthreads();
	return all;
}

/* Refines one axis's edges[0..nb] from its bins' sums sh.d[0..nb) as cub_vegas_refine (the
 * CPU's, cubature_vegas.c) with a thread a bin: the same smoothing and importance, the running
 * sums of the importance by a scan and each new edge found by bisection in them (so the sums,
 * and the edges' last bits, are not the CPU's: the sums' order is not). Leaves the edges alone
 * where the CPU's would; every thread of the block calls it. */
static __device__ void step_refine(step_shared &sh, double *edges, int nb, double alpha)
{
	const int k = threadIdx.x, on = k < nb;
	for (int j = k; j <= nb; j += STEP_BLOCK)
		sh.old[j] = edges[j];
	__syncthreads();
	double s = 0;
	if (on) {
		const double *d = sh.d, lo = d[k > 0 ? k - 1 : k], hi = d[k < nb - 1 ? k + 1 : k];
		s = k == 0 || k == nb - 1 ? (d[k] + (k == 0 ? hi : lo)) / 2 : (lo + d[k] + hi) / 3;
	}
	const double sum = step_sum(sh, s);
	if (nb < 2 || nb > STEP_BLOCK || !(sum > 0) || !isfinite(sum))
		return;
	double r = 0;
	if (on) {
		const double f = s / sum, t = (1 - f) / -log(f);
		r = f <= 0 ? 0 : f >= 1 ? 1 : alpha == 1.5 ? t * sqrt(t) : pow(t, alpha);
	}
	double cum;
	step_scan(sh.tmp.scan).InclusiveSum(r, cum);
	sh.cum[k] = cum;
	sh.d[k] = r;
	__syncthreads();
	const double rsum = sh.cum[nb - 1];
	if (!(rsum > 0))
		return;
	/* edge i: in the first old bin m whose running sum reaches i's share */
	double x = 0;
	if (k >= 1 && k < nb) {
		const double target = k * (rsum / nb);
		int lo = 0, hi = nb - 1;
		while (lo < hi) {
			const int mid = (lo + hi) / 2;
			if (sh.cum[mid] >= target)
				hi = mid;
			else
				lo = mid + 1;
		}
		const double before = lo > 0 ? sh.cum[lo - 1] : 0, rm = sh.d[lo];
		const double frac = rm > 0 ? (target - before) / rm : 0;
		x = sh.old[lo] + (frac < 1 ? frac : 1) * (sh.old[lo + 1] - sh.old[lo]);
	}
	__syncthreads();
	/* the edges never decrease (the CPU's too): each the largest of those up to it */
	double edge;
	step_scan(sh.tmp.scan).InclusiveScan(x, edge, step_max());
	if (k >= 1 && k < nb)
		edges[k] = edge;
	if (k == 0) {
		edges[0] = 0;
		edges[nb] = 1;
	}
}

/* The step of iteration it: block a the grid's axis a (its bins read as doubles and zeroed for
 * the next iteration, refined unless a sum wrapped); block 0 also the iteration's sums and
 * record, the next scale, and the stop. */
__global__ void __launch_bounds__(STEP_BLOCK)
    cub_vegas_step_kernel(cub_vegas_step_args args, unsigned it)
{
	__shared__ step_shared sh;
	__shared__ int stopped;
	cub_vegas_state *const state = args.state;
	/* read once a block: block 0 of this launch may set stop while another block starts, and
	 * every thread of a block must take the same way past the barriers below */
	if (threadIdx.x == 0)
		stopped = *(volatile int *)&state->stop;
	__syncthreads();
	if (stopped)
		return;
	const int nb = args.nb, axis = blockIdx.x, k = threadIdx.x;
	const double scale = state->scale[it & 1];
	const int wrapped = scale > 0 && state->wraps[it & 1] != 0;
	double *const bins = args.bins + (size_t)axis * nb;
	double dk = 0;
	if (k < nb) {
		if (scale > 0)
			dk = (double)(unsigned long long)__double_as_longlong(bins[k]) / scale;
		else
			dk = bins[k];
		bins[k] = 0;
	}
	sh.d[k] = dk;
	__syncthreads();
	double total = 0;
	if (axis == 0)
		total = step_sum(sh, dk);
	if (!wrapped)
		step_refine(sh, args.grid + (size_t)axis * (nb + 1), nb, args.alpha);
	if (axis != 0)
		return;
	__syncthreads();
	/* the blocks' sums, each thread's in block order, then over the threads */
	double sw = 0, sv = 0, bad = 0;
	for (unsigned j = k; j < args.blocks; j += STEP_BLOCK) {
		sw += args.blk[3 * j];
		sv += args.blk[3 * j + 1];
		bad += args.blk[3 * j + 2];
	}
	sw = step_sum(sh, sw);
	sv = step_sum(sh, sv);
	bad = step_sum(sh, bad);
	if (k != 0)
		return;
	cub_vegas_record rec = {};
	cub_vegas_estimate(sw, sv, &args.st, &rec.est, &rec.var);
	rec.chi2_dof = NAN; /* a warm-up's: none joined yet */
	rec.converged =
	    cub_vegas_step(&state->acc, (int)it < args.adapt, args.iters, args.rel, args.abs,
	                   rec.est, rec.var, &rec.value, &rec.err, &rec.chi2_dof);
	rec.nonfinite = bad;
	rec.it1 = it + 1;
	args.ring[it % CUB_VEGAS_RING] = rec;
	state->scale[(it + 1) & 1] = cub_vegas_next_scale(total, wrapped);
	state->wraps[(it + 1) & 1] = 0;
	if (rec.converged)
		state->stop = 1;
}

/* The step of iteration it (mc_kernels.cuh): a block an axis. */
cudaError_t cub_vegas_step_launch(const cub_vegas_step_args &args, unsigned it)
{
	cub_vegas_step_kernel<<<(unsigned)args.dim, STEP_BLOCK>>>(args, it);
	return cudaGetLastError();
}

/* Refines each axis (block) of grid from d as a step does. */
__global__ void __launch_bounds__(STEP_BLOCK)
    cub_vegas_refine_kernel(double *grid, const double *d, int nb, double alpha)
{
	__shared__ step_shared sh;
	const int k = threadIdx.x;
	sh.d[k] = k < nb ? d[(size_t)blockIdx.x * nb + k] : 0;
	__syncthreads();
	step_refine(sh, grid + (size_t)blockIdx.x * (nb + 1), nb, alpha);
}

/* The device's refinement for the tests (mc_kernels.cuh). */
cudaError_t cub_vegas_refine_device(double *grid, const double *d, int dim, int nb, double alpha)
{
	cub_vegas_refine_kernel<<<(unsigned)dim, STEP_BLOCK>>>(grid, d, nb, alpha);
	return cudaGetLastError();
}
