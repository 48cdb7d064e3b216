/* mc_kernels.cuh - the kernels of cubature's Monte Carlo variants, vegas and qmc, in precision
 * T: for the built-in integrands (KIND 0, vegas.cu and qmc.cu) and for the user's (KIND
 * CUB_KIND_USER, mc_user_S.lto.cu, linked at run time with the integrand). Each thread draws
 * the CPU's points (cubature_mc.h), sums its weights, and each block writes its sums (a
 * block's order is fixed, so a launch's sums are too) for the host to add in block order. */
#ifndef QX_CUBATURE_MC_KERNELS_CUH
#define QX_CUBATURE_MC_KERNELS_CUH

#include <cub/block/block_reduce.cuh>

#include "../../src/problems/cubature/cubature_mc.h"
#include "rule_kernel.cuh"

static const int MC_BLOCK = 256; /* threads per block of both kernels */

/* The integrand of KIND in precision T at x. */
template <typename T, int KIND> __device__ __forceinline__ T cub_mc_f(const cub_fn &fn, const T *x)
{
	if constexpr (KIND == CUB_KIND_USER)
		return cub_user_t<T>(x, fn.user);
	else
		return cub_f_t<T>(fn, x);
}

/* Sums of one block into out[0..3): the weights, their squares (vegas: its cubes' variance
 * parts), the samples not finite. */
static __device__ void cub_mc_block_sums(double sw, double sw2, double bad, double *out)
{
	typedef cub::BlockReduce<double, MC_BLOCK> reduce_t;
	__shared__ typename reduce_t::TempStorage tmp;
	const double a = reduce_t(tmp).Sum(sw);
	__syncthreads();
	const double b = reduce_t(tmp).Sum(sw2);
	__syncthreads();
	const double c = reduce_t(tmp).Sum(bad);
	if (threadIdx.x == 0) {
		out[0] = a;
		out[1] = b;
		out[2] = c;
	}
}

/* The strata of cube into digits[0..dim) as cub_vegas_cube_digits, in 32-bit arithmetic where
 * the cube's index fits (a 64-bit division is dearer still). */
static __device__ __forceinline__ void
cub_vegas_digits32(unsigned long long cube, const cub_vegas_strata &st, int dim, double *digits)
{
	if (cube > 0xffffffffull || st.ng > 0xffffffffll) {
		cub_vegas_cube_digits(cube, &st, dim, digits);
		return;
	}
	unsigned c = (unsigned)cube;
	const unsigned ng = (unsigned)st.ng;
	for (int i = 0; i < dim; i++) {
		const unsigned q = c / ng;
		digits[i] = (double)(c - q * ng);
		c = q;
	}
}

/* VEGAS's point of sample index of iteration it in the cube of digits, on [a, b]^dim into x
 * and each axis's bin: cub_vegas_uniforms and cub_vegas_map fused axis by axis, the same
 * operations in the same order, with no arrays of uniforms or of the unit cube's point (local
 * memory, which a runtime dim puts them in); returns the Jacobian. */
template <typename T>
static __device__ __forceinline__ double
cub_vegas_point(unsigned long long seed, unsigned it, unsigned long long index, int dim,
                const cub_vegas_strata &st, const double *digits, const double *grid, int nb,
                double a, double b, T *x, int *bin)
{
	const philox4x32_key_t key = {{(uint32_t)seed, (uint32_t)(seed >> 32)}};
	const double ng = (double)st.ng;
	double jac = 1;
	for (int j = 0; 4 * j < dim; j++) {
		const philox4x32_ctr_t ctr = {
		    {(uint32_t)index, (uint32_t)(index >> 32), (uint32_t)j, (uint32_t)it}};
		const philox4x32_ctr_t r = philox4x32_R(10, ctr, key);
		for (int c = 0; c < 4 && 4 * j + c < dim; c++) {
			const int i = 4 * j + c;
			double u = ((double)r.v[c] + 0.5) * 0x1p-32;
			if (st.ng >= 2)
				u = (digits[i] + u) / ng;
			const double *g = grid + (size_t)i * (nb + 1), t = u * nb;
			int k = (int)t;
			k = k < nb ? k : nb - 1;
			const double w = g[k + 1] - g[k];
			x[i] = (T)(a + (g[k] + (t - k) * w) * (b - a));
			bin[i] = k;
			jac *= nb * w;
		}
	}
	return jac;
}

/* The fixed point of a squared weight w2 in the bins, scale > 0: w2 scale truncated. Sets
 * *wrapped where it would pass 2^62 (or is not finite): the sums could wrap, so the bins are
 * not used; the value is then clamped to 2^62 only to keep the conversion defined. */
static __device__ __forceinline__ unsigned long long cub_vegas_fixed(double w2, double scale,
                                                                     int *wrapped)
{
	const double q = w2 * scale;
	if (!(q < 0x1p62)) {
		*wrapped = 1;
		return 1ull << 62;
	}
	return (unsigned long long)q;
}

/* Adds the fixed point q to the 64-bit sum in words lo[j] (low) and hi[j] (high) of shared
 * memory with 32-bit atomics, which are native there (a 64-bit add is a compare-and-swap
 * loop): the thread whose low add wraps adds the carry. Returns 1 where the sum passed 2^64
 * (it wrapped), else 0. */
static __device__ __forceinline__ int cub_vegas_bin_add(unsigned *lo, unsigned *hi, int j,
                                                        unsigned long long q)
{
	const unsigned l = (unsigned)q, old = atomicAdd(&lo[j], l);
	const unsigned h = (unsigned)(q >> 32) + (old + l < old ? 1u : 0u);
	if (h == 0)
		return 0;
	const unsigned old_h = atomicAdd(&hi[j], h);
	return old_h + h < old_h;
}

/* What vegas's iterations on the GPU keep on the device between them, so that they queue
 * without the host (vegas_step.cu): the bins' fixed-point scale and the count of threads whose
 * sums wrapped, of the iterations of even and of odd index (each iteration's step writes the
 * next's while the current's are still read), the combination of the iterations so far, and
 * stop, set once the run has converged: every kernel queued after it returns at once. */
struct cub_vegas_state {
	double scale[2];
	unsigned long long wraps[2];
	struct cub_vegas_acc acc;
	int stop;
};

/* One iteration's figures, from its step into a ring of CUB_VEGAS_RING (slot it modulo that),
 * for the host to read back: the estimate and its variance, the point of the history
 * (cub_vegas_step's value and err), chi^2/dof, the samples not finite; it + 1 (so that a slot
 * not written in this run reads 0) and whether the run converged there. */
struct cub_vegas_record {
	double est, var, value, err, chi2_dof, nonfinite;
	unsigned it1;
	int converged;
};
#define CUB_VEGAS_RING 32

/* The step between iterations it and it + 1 (vegas_step.cu), queued after iteration it's
 * kernel: reads its blocks' sums blk (blocks of them) and bins, refines grid (dim axes of nb
 * bins), zeroes the bins for the next, and records the iteration; returns the launch's
 * error. */
struct cub_vegas_step_args {
	double *grid, *bins, *blk;
	unsigned blocks;
	int dim, nb, adapt, iters;
	double rel, abs, alpha;
	cub_vegas_strata st;
	cub_vegas_state *state;
	cub_vegas_record *ring;
};
cudaError_t cub_vegas_step_launch(const cub_vegas_step_args &args, unsigned it);

/* cub_vegas_refine_grid on the device, for the tests (vegas_step.cu): grid (dim axes of nb + 1
 * edges) refined in place from d (nb sums an axis) as an iteration's step refines it; returns
 * the first error. */
cudaError_t cub_vegas_refine_device(double *grid, const double *d, int dim, int nb, double alpha);

/* VEGAS's iteration it: the cubes of st through grid (dim axes of nb + 1 edges) on [a, b]^dim
 * of volume vol, lanes (1, 2, 4 .. 32) threads of a warp a cube, each taking its samples j =
 * lane, lane + lanes, .. < npg (so that iterations of few cubes of many samples fill the GPU
 * too), the cube's sums gathered over its lanes by shuffles; block k's sums (weights, cubes'
 * cub_vegas_cube_var, samples not finite) into blk[3k..3k+3). Each sample's squared weight
 * w^2 goes to its bin on every axis (bins, dim * nb sums, a block's in shared memory first:
 * 8 bytes a bin, dynamic): as the fixed point cub_vegas_fixed(w^2, scale) when the state's
 * scale of iteration it is > 0, bins then 64-bit unsigned sums (exact in any order, and far
 * cheaper than doubles' atomics), the state's wraps[it & 1] counting the threads whose sums
 * passed 2^64 or whose samples passed 2^62; as doubles when that scale is 0. Returns at once
 * where the state says the run has stopped. */
template <typename T, int KIND>
__device__ void cub_vegas_body(const cub_fn &fn, double a, double b, const double *grid, int nb,
                               cub_vegas_strata st, int lanes, unsigned it, unsigned long long seed,
                               double vol, cub_vegas_state *state, double *blk, void *bins)
{
	extern __shared__ double mc_bins[];
	if (*(volatile int *)&state->stop)
		return;
	const double scale = state->scale[it & 1];
	const int dim = fn.dim, nd = dim * nb, lane = threadIdx.x & (lanes - 1);
	unsigned *const lo = (unsigned *)mc_bins, *const hi = lo + nd;
	for (int j = threadIdx.x; j < nd; j += blockDim.x)
		mc_bins[j] = 0;
	__syncthreads();
	double digits[CUB_FN_MAX_DIM], sw = 0, sv = 0, bad = 0;
	int wrapped = 0;
	T x[CUB_FN_MAX_DIM];
	int bin[CUB_FN_MAX_DIM];
	/* every lane of a warp takes the same trips (the bound a whole number of warps), so that
	 * the shuffles find all of them */
	const long long stride = (long long)gridDim.x * blockDim.x,
	                slots = (st.cubes * lanes + 31) / 32 * 32;
	for (long long g = blockIdx.x * (long long)blockDim.x + threadIdx.x; g < slots;
	     g += stride) {
		const long long cube = g / lanes;
		double s1 = 0, s2 = 0;
		if (cube < st.cubes && st.ng >= 2)
			cub_vegas_digits32((unsigned long long)cube, st, dim, digits);
		for (long long j = lane; cube < st.cubes && j < st.npg; j += lanes) {
			const long long i = cube * st.npg + j;
			const double jac = cub_vegas_point<T>(seed, it, (unsigned long long)i, dim,
			                                      st, digits, grid, nb, a, b, x, bin);
			const double w = (double)cub_mc_f<T, KIND>(fn, x) * jac * vol;
			if (!isfinite(w)) {
				bad += 1;
				continue;
			}
			s1 += w;
			s2 += w * w;
			if (scale > 0) {
				const unsigned long long q =
				    cub_vegas_fixed(w * w, scale, &wrapped);
				for (int k = 0; k < dim; k++)
					wrapped |= cub_vegas_bin_add(lo, hi, k * nb + bin[k], q);
			} else
				for (int k = 0; k < dim; k++)
					atomicAdd(&mc_bins[k * nb + bin[k]], w * w);
		}
		for (int off = lanes / 2; off > 0; off /= 2) {
			s1 += __shfl_xor_sync(0xffffffffu, s1, off);
			s2 += __shfl_xor_sync(0xffffffffu, s2, off);
		}
		if (lane == 0 && cube < st.cubes) {
			sw += s1;
			sv += cub_vegas_cube_var(s1, s2, st.npg);
		}
	}
	cub_mc_block_sums(sw, sv, bad, blk + 3 * blockIdx.x);
	__syncthreads();
	unsigned long long *const fixed = (unsigned long long *)bins;
	for (int j = threadIdx.x; j < nd; j += blockDim.x)
		if (scale > 0) {
			const unsigned long long q = (unsigned long long)hi[j] << 32 | lo[j];
			if (q != 0) {
				const unsigned long long old = atomicAdd(fixed + j, q);
				wrapped |= old + q < old;
			}
		} else if (mc_bins[j] != 0)
			atomicAdd((double *)bins + j, mc_bins[j]);
	if (wrapped)
		atomicAdd(&state->wraps[it & 1], 1ull);
}

/* The lanes of a cube (cub_vegas_body) for st on a device of sms multiprocessors: doubled
 * from 1 while a lane keeps 2 samples or more and the cubes' lanes are fewer than the
 * threads of 8 blocks a multiprocessor. */
static inline int cub_vegas_lanes(const cub_vegas_strata &st, int sms)
{
	int lanes = 1;
	while (lanes < 32 && 2LL * lanes * 2 <= st.npg && st.cubes * lanes < 8LL * sms * MC_BLOCK)
		lanes *= 2;
	return lanes;
}

/* qmc's level: for shift r = blockIdx.y (shifts[r * CUB_FN_MAX_DIM ..]) the lattice points
 * first + j * step, j in [0, count), of 2^m points with vector z, on [a, b]^dim of volume vol;
 * block (k, r)'s sums into blk[3 (r gridDim.x + k) ..]. */
template <typename T, int KIND>
__device__ void cub_qmc_body(const cub_fn &fn, double a, double b, const uint64_t *z, int m,
                             unsigned long long first, unsigned long long step,
                             unsigned long long count, const double *shifts, double vol,
                             double *blk)
{
	const int dim = fn.dim, r = blockIdx.y;
	double y[CUB_FN_MAX_DIM], s[CUB_FN_MAX_DIM], sw = 0, sw2 = 0, bad = 0;
	uint64_t zz[CUB_FN_MAX_DIM];
	T x[CUB_FN_MAX_DIM];
	for (int k = 0; k < dim; k++) {
		s[k] = shifts[(size_t)r * CUB_FN_MAX_DIM + k];
		zz[k] = z[k];
	}
	const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
	for (unsigned long long j = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
	     j < count; j += stride) {
		cub_qmc_point(zz, m, first + j * step, s, dim, y);
		for (int k = 0; k < dim; k++)
			x[k] = (T)(a + y[k] * (b - a));
		const double w = (double)cub_mc_f<T, KIND>(fn, x) * vol;
		if (!isfinite(w)) {
			bad += 1;
			continue;
		}
		sw += w;
		sw2 += w * w;
	}
	cub_mc_block_sums(sw, sw2, bad, blk + 3 * ((size_t)r * gridDim.x + blockIdx.x));
}

#endif
