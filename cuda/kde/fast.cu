/* fast.cu - kde's fast variant (src/problems/kde/kde_gpu.h): 1-D float past the special-function
 * unit's ceiling: the outputs sorted (CUB radix sort), each block's pairs factorized about its
 * centre where its outputs lie close, a Taylor polynomial for a warp's neighbouring outputs, a
 * share of polynomial exp2s on the FMA pipes; the sums scattered back with their factor. */
#include <algorithm>
#include <vector>

#include <cub/device/device_radix_sort.cuh>

#include "kernels.cuh"
#include "run.cuh"

/* Outputs per thread of the fast kernel. */
#define KDE_FAST_PER_THREAD 8
/* The widest spread (scaled units) of a fast block's sorted outputs that takes the factorized
 * loop: every output within P = KDE_FAST_SPAN / 2 of the block's centre c. */
#define KDE_FAST_SPAN 3.0f
/* In a factorized block, samples farther than this from c count as 0: they are more than
 * KDE_FAST_NEAR - P = 8 from every output, so their terms are below 2^-64 (and the exponents
 * below stay in float's normal range: (KDE_FAST_NEAR + P)^2 + 1/2 < 126). */
#define KDE_FAST_NEAR 9.5f
/* A factorized block's warp derives its pairs from one ex2 per sample and thread
 * (kde_group_taylor) when each of its threads' outputs lies within this (in q = 2 p') of the
 * thread's base output: then |y| = ln 2 |q_r - q_b| |s'| <= 0.0182 and e^y's quadratic Taylor
 * polynomial is off by at most |y|^3 / 6 e^|y| <= 1.02e-6 relative (2e-7 where |s'| <= 5.5:
 * the samples within 4 of the outputs, whose terms make the sums). */
#define KDE_FAST_TAYLOR 2.75e-3f
/* ln 2 in float. */
#define KDE_LN2_F 0.693147180559945309f

/* q = 2 p' = 2 (p - c) of an output p of a factorized block of centre c, as the fast kernel and
 * kde_fast_finish both round it. */
__device__ __forceinline__ float kde_fast_q(float p, float c)
{
	return 2 * (p - c);
}

/* The factorized pairs of one group of KDE_GROUP samples (s0, s1: their s' = s - c; a0, a1:
 * their a = 2^(-s'^2)) with a thread's R outputs q = 2 p': part[r] += a 2^(q s') =
 * 2^(p'^2 - (p' - s')^2) by FMUL, MUFU.EX2 and an FMA, or for NPOLY of every KDE_GROUP pairs
 * (kde_poly_slot) by kde_fact_poly_f (8 FMA-pipe instructions and the accumulating FMA). */
template <int NPOLY, int R>
__device__ __forceinline__ void kde_group_fact(float4 s0, float4 s1, float4 a0, float4 a1,
                                               const float (&q)[R], float (&part)[R])
{
	const float s[KDE_GROUP] = {s0.x, s0.y, s0.z, s0.w, s1.x, s1.y, s1.z, s1.w};
	const float a[KDE_GROUP] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
#pragma unroll
	for (int k = 0; k < KDE_GROUP; k++)
#pragma unroll
		for (int r = 0; r < R; r++) {
			if (kde_poly_slot(k + r, NPOLY))
				part[r] += kde_fact_poly_f(q[r], s[k], a[k]);
			else
				part[r] += a[k] * kde_ex2(q[r] * s[k]);
		}
}

/* The pairs of one group of KDE_GROUP samples (s', a as kde_group_fact) with a thread's R
 * consecutive outputs, derived from one exponential per sample at the base output b = R / 2:
 * t = a 2^(qb s') (FMUL, MUFU.EX2, FMUL), part[b] += t, and for r != b part[r] += t (1 + y +
 * y^2 / 2) with y = c1[r] s' (c1[r] = ln 2 (q_r - qb), c2[r] = c1[r]^2 / 2): 2^(q_r s') =
 * 2^(qb s') e^y by e^y's Taylor polynomial, three FMAs a pair (KDE_FAST_TAYLOR bounds y). */
template <int R>
__device__ __forceinline__ void kde_group_taylor(float4 s0, float4 s1, float4 a0, float4 a1,
                                                 float qb, const float (&c1)[R],
                                                 const float (&c2)[R], float (&part)[R])
{
	const float s[KDE_GROUP] = {s0.x, s0.y, s0.z, s0.w, s1.x, s1.y, s1.z, s1.w};
	const float a[KDE_GROUP] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
#pragma unroll
	for (int k = 0; k < KDE_GROUP; k++) {
		const float t = a[k] * kde_ex2(qb * s[k]);
#pragma unroll
		for (int r = 0; r < R; r++)
			if (r == R / 2)
				part[r] += t;
			else
				part[r] =
				    fmaf(t, fmaf(fmaf(c2[r], s[k], c1[r]), s[k], 1.0f), part[r]);
	}
}

/* The sample slice [ys, ye) against a thread's R consecutive outputs base + r (those < m):
 * tiles of B samples through shared memory (the next tile's sample read from global memory
 * while this one is summed), each tile's float sums added to acc in double atomically. FACT:
 * the tile holds s' and a = 2^(-s'^2) (rounded once: kde_exp2_poly_d), samples farther than
 * KDE_FAST_NEAR from c and the last tile's padding stored as s' = 0, a = 0 (a term of 0), and
 * the pairs go through kde_group_taylor where the warp is taylor, else kde_group_fact (q =
 * 2 p'); else tiled's loop (kde_group_plain; q = p) over the tile padded by +inf. */
template <int NPOLY, bool FACT, int R>
__device__ __forceinline__ void kde_fast_tiles(const float *u, long long ys, long long ye, float c,
                                               const float (&q)[R], bool taylor, long long base,
                                               long long m, double *acc)
{
	extern __shared__ float4 kde_smem4[];
	float *tile = reinterpret_cast<float *>(kde_smem4);
	const int b = blockDim.x;
	const float inf = __int_as_float(0x7f800000);
	float c1[R], c2[R];
#pragma unroll
	for (int r = 0; r < R; r++) {
		c1[r] = KDE_LN2_F * (q[r] - q[R / 2]);
		c2[r] = 0.5f * c1[r] * c1[r];
	}
	float v = ys + threadIdx.x < ye ? u[ys + threadIdx.x] : inf;
	for (long long t0 = ys; t0 < ye; t0 += b) {
		__syncthreads();
		if (FACT) {
			const float sp = v - c;
			const bool near = fabsf(sp) <= KDE_FAST_NEAR;
			tile[threadIdx.x] = near ? sp : 0.0f;
			tile[b + threadIdx.x] =
			    near ? (float)kde_exp2_poly_d(-(double)sp * sp) : 0.0f;
		} else {
			tile[threadIdx.x] = v;
		}
		__syncthreads();
		const long long next = t0 + b + threadIdx.x;
		v = next < ye ? u[next] : inf;
		float part[R] = {};
		if (FACT && taylor) {
#pragma unroll 2
			for (int g = 0; g < b / 4; g += KDE_GROUP / 4)
				kde_group_taylor(kde_smem4[g], kde_smem4[g + 1],
				                 kde_smem4[b / 4 + g], kde_smem4[b / 4 + g + 1],
				                 q[R / 2], c1, c2, part);
		} else if (FACT) {
#pragma unroll 2
			for (int g = 0; g < b / 4; g += KDE_GROUP / 4)
				kde_group_fact<NPOLY>(kde_smem4[g], kde_smem4[g + 1],
				                      kde_smem4[b / 4 + g],
				                      kde_smem4[b / 4 + g + 1], q, part);
		} else {
#pragma unroll 2
			for (int g = 0; g < b / 4; g += KDE_GROUP / 4)
				kde_group_plain<NPOLY>(kde_smem4[g], kde_smem4[g + 1], q, part);
		}
#pragma unroll
		for (int r = 0; r < R; r++)
			if (base + r < m)
				atomicAdd(&acc[base + r], (double)part[r]);
	}
}

/* The fast kernel (1-D float, outputs p sorted ascending, NPOLY polynomial slots per group of
 * KDE_GROUP): block blockIdx.x takes work item w = w0 + blockIdx.x: x-block xb of the xblocks
 * from xb0 (outputs [xb B R, +B R), outputs [R threadIdx.x, +R) of it per thread, R =
 * KDE_FAST_PER_THREAD) against the samples [S B (w / xblocks), +S B) (S = tiles), adding to
 * acc. The x-blocks of a slice go from the ends inwards (w mod xblocks = 0, 1, 2, 3, ...: xb -
 * xb0 = 0, xblocks - 1, 1, xblocks - 2, ...):
 * the data's tails, whose blocks take the slower loops, start first and the dense middle ends
 * a launch.
 *
 * A block whose outputs lie within P = 1.5 of a centre c (centre[xb], kde_fast_centres) is
 * factorized: with p' = p - c and s' = s - c, 2^(-(p - s)^2) = 2^(-p'^2) 2^(-s'^2) 2^(2 p' s'),
 * so a pair costs FMUL q s' (q = 2 p'), MUFU.EX2 and an FMA with a = 2^(-s'^2), or 9
 * instructions on the FMA pipes (kde_fact_poly_f), against tiled's 4 and 11; acc gets the sum
 * without 2^(-p'^2), which kde_fast_finish applies in double. In its warps whose threads'
 * outputs each lie within KDE_FAST_TAYLOR (in q) of the thread's base output (all but the
 * sparse stretches of the data), one exponential per sample and thread serves its R outputs
 * (kde_group_taylor): 3 FMAs a pair. Float error of a term at scaled distance d from its
 * output, besides ex2.approx's 2^-22, the polynomial's 4e-6 or the Taylor polynomial's 2e-7:
 * s' and p' are rounded once (|s'| <= P + d, |p'| <= P), q s' once and a once, so the
 * exponent p'^2 - (p' - s')^2 is off by at most 2^-24 (2 d (2 P + d) + 2 P (P + d) + 1 / ln 2)
 * and the term by ln 2 times that: 3.0e-6 relative at d = 4 (tiled's rounding of d^2: 2e-6),
 * less nearer; terms past d = 4 weigh below 2^-16 of a term at 0, and samples dropped past
 * KDE_FAST_NEAR below 2^-64. A block whose outputs spread wider (centre NaN: the tails of most
 * data) would lose accuracy with |p'| and takes tiled's loop with the same share of
 * polynomials. */
template <int NPOLY>
__global__ void __launch_bounds__(1024)
    kde_fast_kernel(const float *u, long long n, const float *p, long long m, const float *centre,
                    long long xb0, long long xblocks, long long w0, long long tiles, double *acc)
{
	const int b = blockDim.x;
	const long long w = w0 + blockIdx.x, j = w % xblocks;
	const long long xb = xb0 + (j & 1 ? xblocks - 1 - j / 2 : j / 2);
	const long long base = (xb * b + threadIdx.x) * KDE_FAST_PER_THREAD;
	const long long ys = w / xblocks * tiles * b, ye = min(n, ys + tiles * b);
	const float c = centre[xb];
	const bool fact = !isnan(c);
	float q[KDE_FAST_PER_THREAD];
#pragma unroll
	for (int r = 0; r < KDE_FAST_PER_THREAD; r++) {
		const float pr = p[min(base + r, m - 1)];
		q[r] = fact ? kde_fast_q(pr, c) : pr;
	}
	if (fact) {
		const int rb = KDE_FAST_PER_THREAD / 2;
		const bool taylor =
		    __all_sync(0xffffffffu, q[KDE_FAST_PER_THREAD - 1] - q[rb] <= KDE_FAST_TAYLOR &&
		                                q[rb] - q[0] <= KDE_FAST_TAYLOR);
		kde_fast_tiles<NPOLY, true>(u, ys, ye, c, q, taylor, base, m, acc);
	} else {
		kde_fast_tiles<NPOLY, false>(u, ys, ye, c, q, false, base, m, acc);
	}
}

/* centre[xb] of each of the xblocks x-blocks of per_block sorted outputs p[0..m): the midpoint
 * of its first and last output when they are at most KDE_FAST_SPAN apart, else NaN (the
 * unfactorized loop). */
__global__ void kde_fast_centres(const float *p, long long m, long long per_block,
                                 long long xblocks, float *centre)
{
	const long long xb = (long long)blockDim.x * blockIdx.x + threadIdx.x;
	if (xb >= xblocks)
		return;
	const float lo = p[xb * per_block], hi = p[min(m, (xb + 1) * per_block) - 1];
	centre[xb] = hi - lo <= KDE_FAST_SPAN ? 0.5f * (lo + hi) : __int_as_float(0x7fc00000);
}

/* Writes the fast kernel's sums back in the outputs' original order: y[idx[i]] = acc[i] f
 * norm rounded to float for the sorted outputs lo <= i < hi (idx NULL: y[i - lo], in sorted
 * order), f = 2^(-p'^2) (p' = q / 2 as the kernel
 * rounded it, exp2 in double) in a factorized x-block of per_block outputs, else 1. */
__global__ void kde_fast_finish(const double *acc, const float *p, const unsigned *idx,
                                const float *centre, long long per_block, long long lo,
                                long long hi, double norm, float *y)
{
	const long long i = lo + (long long)blockDim.x * blockIdx.x + threadIdx.x;
	if (i >= hi)
		return;
	const float c = centre[i / per_block];
	double f = 1;
	if (!isnan(c)) {
		const double pp = 0.5 * (double)kde_fast_q(p[i], c);
		f = exp2(-pp * pp);
	}
	const float v = (float)(acc[i] * f * norm);
	if (idx)
		y[idx[i]] = v;
	else
		y[i - lo] = v;
}

/* v[i] = i for i < count: the outputs' indices the sort carries along. */
__global__ void kde_iota_kernel(unsigned *v, long long count)
{
	const long long i = (long long)blockDim.x * blockIdx.x + threadIdx.x;
	if (i < count)
		v[i] = (unsigned)i;
}

/* The fast kernel of npoly polynomial slots per group of KDE_GROUP (the built shares: 1, 2,
 * 3), or NULL for another npoly. */
static decltype(&kde_fast_kernel<1>) kde_fast_kernel_of(int npoly)
{
	switch (npoly) {
	case 1:
		return kde_fast_kernel<1>;
	case 2:
		return kde_fast_kernel<2>;
	case 3:
		return kde_fast_kernel<3>;
	default:
		return nullptr;
	}
}

/* A share's results back to the host: count values in sorted order at dev and their outputs'
 * indices at idx copied out, then host[idx[k]] = value k. Returns 0 or -1 with e. */
static int kde_fast_scatter(const float *dev, const unsigned *idx, long long count, float *host,
                            struct qx_err *e)
{
	std::vector<float> v;
	std::vector<unsigned> at;
	try {
		v.resize((size_t)count);
		at.resize((size_t)count);
	} catch (...) {
		return qx_fail(e, "kde: cannot allocate %lld values to scatter a GPU's share",
		               count);
	}
	GPU_TRY(cudaMemcpy(v.data(), dev, count * sizeof(float), cudaMemcpyDeviceToHost));
	GPU_TRY(cudaMemcpy(at.data(), idx, count * sizeof(unsigned), cudaMemcpyDeviceToHost));
	for (long long k = 0; k < count; k++)
		host[at[k]] = v[k];
	return 0;
}

/* fast: the inputs, scaled on the device; the outputs sorted with their indices (CUB radix
 * sort) and each x-block's centre (phase sort); work items of (x-block, slice of S tiles of
 * samples) in launches of whole waves (a multiple of the resident blocks), about
 * CHUNK_PAIRS_FLOAT pairs each, accumulated in double; the sums scattered back to the
 * outputs' order with their factor and the norm (kde_fast_finish). All of it timed. A share
 * of a run over several GPUs (c.first, c.count: whole x-blocks of the sorted outputs) sorts
 * every output as the whole run does, so that its x-blocks, centres and slices are the whole
 * run's, sums its x-blocks alone and scatters their values on the host (kde_fast_scatter). */
int kde_run_fast(const struct kde_gpu_job *job, float *host, kde_clock &c, struct qx_err *e)
{
	const long long n = job->n, m = job->m;
	const int b = job->block, npoly = kde_fast_slots(job->fast_share);
	const bool own_at = job->at[0] != nullptr;
	const long long per_block = (long long)b * KDE_FAST_PER_THREAD;
	const long long xblocks = (m + per_block - 1) / per_block, ntiles = (n + b - 1) / b;
	const size_t shared = 2 * (size_t)b * sizeof(float);
	const auto kernel = kde_fast_kernel_of(npoly);
	int sms = 0, resident = 0;
	size_t sort_bytes = 0;
	gpu_owned<float> d_u, d_p, d_ps, d_centre, d_y;
	gpu_owned<unsigned> d_idx0, d_idx;
	gpu_owned<double> d_acc;
	gpu_owned<unsigned char> d_sort;
	if (!kernel)
		return qx_fail(e, "kde: fast share %d/%d is not built (1/8, 2/8, 3/8 are)", npoly,
		               KDE_GROUP);
	GPU_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	GPU_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, b, shared));
	GPU_TRY(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, d_ps.ptr, d_ps.ptr, d_idx.ptr,
	                                        d_idx.ptr, m));
	GPU_TRY(cudaMalloc(&d_u.ptr, n * sizeof(float)));
	if (own_at)
		GPU_TRY(cudaMalloc(&d_p.ptr, m * sizeof(float)));
	GPU_TRY(cudaMalloc(&d_ps.ptr, m * sizeof(float)));
	GPU_TRY(cudaMalloc(&d_idx0.ptr, m * sizeof(unsigned)));
	GPU_TRY(cudaMalloc(&d_idx.ptr, m * sizeof(unsigned)));
	GPU_TRY(cudaMalloc(&d_sort.ptr, sort_bytes));
	GPU_TRY(cudaMalloc(&d_centre.ptr, xblocks * sizeof(float)));
	GPU_TRY(cudaMalloc(&d_acc.ptr, m * sizeof(double)));
	GPU_TRY(cudaMalloc(&d_y.ptr, m * sizeof(float)));
	if (kde_mark(c, "alloc", e) || kde_upload(d_u, job->x[0], (size_t)n, e) ||
	    (own_at && kde_upload(d_p, job->at[0], (size_t)m, e)) || kde_mark(c, "h2d", e))
		return -1;
	GPU_TRY(cudaMemset(d_acc.ptr, 0, m * sizeof(double)));
	const double s = KDE_U_SCALE / job->h[0];
	kde_scale_kernel<float>
	    <<<(unsigned)((n + HELPER_BLOCK - 1) / HELPER_BLOCK), HELPER_BLOCK>>>(
	        d_u.ptr, n, job->center[0], s);
	if (own_at)
		kde_scale_kernel<float>
		    <<<(unsigned)((m + HELPER_BLOCK - 1) / HELPER_BLOCK), HELPER_BLOCK>>>(
		        d_p.ptr, m, job->center[0], s);
	GPU_TRY(cudaGetLastError());
	if (kde_mark(c, "scale", e))
		return -1;
	kde_iota_kernel<<<(unsigned)((m + HELPER_BLOCK - 1) / HELPER_BLOCK), HELPER_BLOCK>>>(
	    d_idx0.ptr, m);
	GPU_TRY(cudaGetLastError());
	GPU_TRY(cub::DeviceRadixSort::SortPairs(d_sort.ptr, sort_bytes, own_at ? d_p.ptr : d_u.ptr,
	                                        d_ps.ptr, d_idx0.ptr, d_idx.ptr, m));
	kde_fast_centres<<<(unsigned)((xblocks + HELPER_BLOCK - 1) / HELPER_BLOCK), HELPER_BLOCK>>>(
	    d_ps.ptr, m, per_block, xblocks, d_centre.ptr);
	GPU_TRY(cudaGetLastError());
	if (kde_mark(c, "sort", e))
		return -1;
	/* S tiles per item: launches of >= 16 waves and >= 4 waves of items in all where n and
	 * m allow (sized by the whole run, so that a share's slices are the whole run's) */
	const long long slots = (long long)sms * std::max(resident, 1);
	const double tile_pairs = (double)per_block * b;
	long long tiles = (long long)(CHUNK_PAIRS_FLOAT / (16.0 * (double)slots * tile_pairs));
	tiles = std::max(1LL, std::min({tiles, xblocks * ntiles / (4 * slots), ntiles}));
	/* this device's x-blocks: [xb0, xb0 + mine) */
	const long long xb0 = c.first / per_block;
	const long long mine =
	    c.count > 0 ? (c.first + c.count + per_block - 1) / per_block - xb0 : 0;
	const long long items = mine * ((ntiles + tiles - 1) / tiles);
	const long long launch =
	    std::max(1LL, (long long)(CHUNK_PAIRS_FLOAT / (tile_pairs * (double)tiles)) / slots) *
	    slots;
	for (long long w0 = 0; w0 < items; w0 += launch) {
		kernel<<<(unsigned)std::min(launch, items - w0), b, shared>>>(
		    d_u.ptr, n, d_ps.ptr, m, d_centre.ptr, xb0, mine, w0, tiles, d_acc.ptr);
		if (kde_chunk_done(c, job, e))
			return -1;
	}
	const bool whole = c.count == m;
	const long long lo = c.first, hi = c.first + c.count;
	if (hi > lo)
		kde_fast_finish<<<(unsigned)((hi - lo + HELPER_BLOCK - 1) / HELPER_BLOCK),
		                  HELPER_BLOCK>>>(d_acc.ptr, d_ps.ptr, whole ? d_idx.ptr : nullptr,
		                                  d_centre.ptr, per_block, lo, hi,
		                                  kde_norm((double)n, 1, job->h), d_y.ptr);
	GPU_TRY(cudaGetLastError());
	if (kde_mark(c, "kernel", e))
		return -1;
	if (whole)
		GPU_TRY(cudaMemcpy(host, d_y.ptr, m * sizeof(float), cudaMemcpyDeviceToHost));
	else if (kde_fast_scatter(d_y.ptr, d_idx.ptr + lo, hi - lo, host, e))
		return -1;
	if (kde_mark(c, "d2h", e))
		return -1;
	GPU_TRY(cudaFree(d_u.release()));
	if (own_at)
		GPU_TRY(cudaFree(d_p.release()));
	GPU_TRY(cudaFree(d_ps.release()));
	GPU_TRY(cudaFree(d_idx0.release()));
	GPU_TRY(cudaFree(d_idx.release()));
	GPU_TRY(cudaFree(d_sort.release()));
	GPU_TRY(cudaFree(d_centre.release()));
	GPU_TRY(cudaFree(d_acc.release()));
	GPU_TRY(cudaFree(d_y.release()));
	return kde_mark(c, "free", e);
}
