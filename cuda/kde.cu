/* kde.cu - problem kde on the GPU (cuda/kde.h): the seed's kernel as written, the naive
 * kernel with its bugs fixed, the tiled kernel (samples through shared memory, several outputs
 * per thread, one ex2 per pair), the fast kernel (outputs sorted, pairs factorized about each
 * block's centre, a share of polynomial exp2s), the binned approximation, and the
 * special-function unit's ceiling. Kernels are pure; the host wrappers own allocation, events,
 * chunking (a cancel is polled between launches) and error checks. */
#include <algorithm>
#include <climits>
#include <cmath>
#include <vector>

#include <cub/device/device_radix_sort.cuh>
#include <cufft.h>

#include "gpu_util.cuh"
#include "kde.h"

#include "../src/problems/kde_math.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* Pairs one launch of the sums should take at most (float: ~20 ms at the ex2 ceiling;
 * double about as long), so that a cancel is seen within a chunk or two. */
static const double CHUNK_PAIRS_FLOAT = 68719476736.0; /* 2^36 */
static const double CHUNK_PAIRS_DOUBLE = 8589934592.0; /* 2^33 */
/* Threads per block of the small helper kernels (scaling, binning, convolution, finish). */
static const int HELPER_BLOCK = 256;

/* ---- seed 003, as written (bugs documented in kde.h) ---- */

/* The seed's kernel function K. */
__device__ float kde_seed_K(float x)
{
	return (1 / (sqrtf(2 * M_PI))) * expf(-(x * x) / 2);
}

/* The seed's kernel; the only change is `first`, the offset of this launch's outputs. */
__global__ void kde_seed_kernel(const float *x, float *y, int n, int h, float k, int first)
{
	int bx = blockIdx.x;
	int idx = first + blockDim.x * bx + threadIdx.x;

	if (idx < n) {
		float xi = x[idx];

		for (int j = 0; j < n; j++) {
			int xj = x[j];
			y[idx] += kde_seed_K((xi - xj) / h);
		}
	}
}

/* ---- naive: the seed's layout, bugs fixed ---- */

/* K(t) = exp(-t^2/2) / sqrt(2 pi) in precision T (expf in float, as the seed). */
template <typename T> __device__ __forceinline__ T kde_naive_K(T t)
{
	if constexpr (sizeof(T) == sizeof(float))
		return (T)KDE_INV_SQRT_2PI * expf(-(t * t) / 2);
	else
		return (T)KDE_INV_SQRT_2PI * exp(-(t * t) / 2);
}

/* One thread per output i in [first, m): y[i] = norm sum_j K((p_i - x_j) / h), one
 * accumulator of precision T. */
template <typename T>
__global__ void kde_naive_kernel(const T *x, long long n, const T *p, long long m, T h, T norm,
                                 long long first, T *y)
{
	const long long i = first + (long long)blockDim.x * blockIdx.x + threadIdx.x;
	if (i >= m)
		return;
	const T pi = p[i];
	T sum = 0;
	for (long long j = 0; j < n; j++)
		sum += kde_naive_K((pi - x[j]) / h);
	y[i] = sum * norm;
}

/* ---- tiled and fast ---- */

/* 2^e on the special-function unit (one MUFU.EX2; subnormal results flushed to 0). */
__device__ __forceinline__ float kde_ex2(float e)
{
	float r;
	asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(e));
	return r;
}

/* 2^e in double: the polynomial of kde_math.h on the FP64 pipes. */
__device__ __forceinline__ double kde_ex2(double e)
{
	return kde_exp2_poly_d(e);
}

/* Scales coordinates in place: v = (v - c) s, computed in double, rounded to T once. */
template <typename T> __global__ void kde_scale_kernel(T *v, long long count, double c, double s)
{
	const long long i = (long long)blockDim.x * blockIdx.x + threadIdx.x;
	if (i < count)
		v[i] = (T)(((double)v[i] - c) * s);
}

/* Squared scaled distance of point pt to tile entry j (DIM axes, tile axis-major). */
template <typename T, int DIM>
__device__ __forceinline__ T kde_dist2(const T *pt, const T *tile, int j, int b)
{
	T d = pt[0] - tile[j];
	T q = d * d;
	for (int k = 1; k < DIM; k++) {
		d = pt[k] - tile[k * b + j];
		q = fma(d, d, q);
	}
	return q;
}

/* Outputs [i0 + blockIdx.x B R, +B R) (output r B + threadIdx.x of the block for r < R), each
 * the sum of exp2(-|p_i - u_j|^2) over samples [j0, j1) (split in gridDim.y equal slices, one
 * per blockIdx.y, added atomically when more than one), added to acc[i] in double. Samples
 * come in tiles of B (blockDim.x) through shared memory (DIM B values of T), every pair through
 * kde_ex2. Each tile's terms are summed in T, the tile sums in double. u: DIM arrays of n
 * (axis-major), p: DIM arrays of m. Used for double and for dimensions 2 and 3. */
template <typename T, int DIM>
__global__ void kde_tiled_kernel(const T *u, long long n, const T *p, long long m, long long i0,
                                 long long j0, long long j1, double *acc)
{
	extern __shared__ unsigned char kde_smem[];
	T *tile = reinterpret_cast<T *>(kde_smem);
	const int b = blockDim.x;
	const long long base = i0 + (long long)blockIdx.x * b * KDE_GPU_PER_THREAD + threadIdx.x;
	T pt[KDE_GPU_PER_THREAD][DIM];
	double sum[KDE_GPU_PER_THREAD];
	for (int r = 0; r < KDE_GPU_PER_THREAD; r++) {
		const long long i = min(base + (long long)r * b, m - 1);
		for (int k = 0; k < DIM; k++)
			pt[r][k] = p[k * m + i];
		sum[r] = 0;
	}
	const long long slice = (j1 - j0 + gridDim.y - 1) / gridDim.y;
	const long long ys = j0 + blockIdx.y * slice, ye = min(j1, ys + slice);
	for (long long t0 = ys; t0 < ye; t0 += b) {
		const int len = (int)min((long long)b, ye - t0);
		__syncthreads();
		if (threadIdx.x < len)
			for (int k = 0; k < DIM; k++)
				tile[k * b + threadIdx.x] = u[k * n + t0 + threadIdx.x];
		__syncthreads();
		T part[KDE_GPU_PER_THREAD] = {};
#pragma unroll 4
		for (int j = 0; j < len; j++)
			for (int r = 0; r < KDE_GPU_PER_THREAD; r++)
				part[r] += kde_ex2(-kde_dist2<T, DIM>(pt[r], tile, j, b));
		for (int r = 0; r < KDE_GPU_PER_THREAD; r++)
			sum[r] += (double)part[r];
	}
	for (int r = 0; r < KDE_GPU_PER_THREAD; r++) {
		const long long i = base + (long long)r * b;
		if (i < m && gridDim.y > 1)
			atomicAdd(&acc[i], sum[r]);
		else if (i < m)
			acc[i] += sum[r];
	}
}

/* Samples per group of the 1-D float kernels' unrolled inner loops (16-byte shared loads). */
#define KDE_GROUP 8

/* 1 when pair i (sample k of a group of KDE_GROUP with a thread's output r: i = k + r) goes
 * through the polynomial: npoly of every KDE_GROUP consecutive i, spread evenly (i npoly mod
 * KDE_GROUP < npoly), so that each output takes npoly of every KDE_GROUP samples' terms from
 * the polynomial and the unrolled loop alternates polynomials with ex2s finely (bunched, the
 * warps' ex2s would queue on the special-function unit while the FMA pipes wait). */
__host__ __device__ constexpr bool kde_poly_slot(int i, int npoly)
{
	return (i * npoly) % KDE_GROUP < npoly;
}

/* The pairs of one group of KDE_GROUP samples (lo, hi: two float4s of the tile, read by the
 * whole warp at once: a broadcast) with a thread's R outputs pt: d = pt[r] - s and part[r] +=
 * ex2.approx.ftz(-d d) (FADD, FMUL, MUFU.EX2, FADD), or for NPOLY of every KDE_GROUP pairs
 * (kde_poly_slot) part[r] += kde_gauss2_poly_f(d) (FMA pipes). */
template <int NPOLY, int R>
__device__ __forceinline__ void kde_group_plain(float4 lo, float4 hi, const float (&pt)[R],
                                                float (&part)[R])
{
	const float s[KDE_GROUP] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
#pragma unroll
	for (int k = 0; k < KDE_GROUP; k++)
#pragma unroll
		for (int r = 0; r < R; r++) {
			const float d = pt[r] - s[k];
			if (kde_poly_slot(k + r, NPOLY))
				part[r] += kde_gauss2_poly_f(d);
			else
				part[r] += kde_ex2(-d * d);
		}
}

/* The 1-D float kernel of tiled: the layout of kde_tiled_kernel, with the tile padded to B
 * samples by +inf (a term of 0) so that the inner loop has no bounds: per group of KDE_GROUP
 * samples two float4 loads from shared memory, then kde_group_plain without polynomial slots:
 * FADD, FMUL, MUFU.EX2, FADD per pair. B is a multiple of 32. */
__global__ void __launch_bounds__(1024)
    kde_tiled1_kernel(const float *u, const float *p, long long m, long long i0, long long j0,
                      long long j1, double *acc)
{
	extern __shared__ float4 kde_smem4[];
	float *tile = reinterpret_cast<float *>(kde_smem4);
	const int b = blockDim.x;
	const long long base = i0 + (long long)blockIdx.x * b * KDE_GPU_PER_THREAD + threadIdx.x;
	float pt[KDE_GPU_PER_THREAD];
	double sum[KDE_GPU_PER_THREAD];
#pragma unroll
	for (int r = 0; r < KDE_GPU_PER_THREAD; r++) {
		pt[r] = p[min(base + (long long)r * b, m - 1)];
		sum[r] = 0;
	}
	const long long slice = (j1 - j0 + gridDim.y - 1) / gridDim.y;
	const long long ys = j0 + blockIdx.y * slice, ye = min(j1, ys + slice);
	for (long long t0 = ys; t0 < ye; t0 += b) {
		const long long j = t0 + threadIdx.x;
		__syncthreads();
		tile[threadIdx.x] = j < ye ? u[j] : __int_as_float(0x7f800000);
		__syncthreads();
		float part[KDE_GPU_PER_THREAD] = {};
#pragma unroll 2
		for (int g = 0; g < b / 4; g += KDE_GROUP / 4)
			kde_group_plain<0>(kde_smem4[g], kde_smem4[g + 1], pt, part);
#pragma unroll
		for (int r = 0; r < KDE_GPU_PER_THREAD; r++)
			sum[r] += (double)part[r];
	}
#pragma unroll
	for (int r = 0; r < KDE_GPU_PER_THREAD; r++) {
		const long long i = base + (long long)r * b;
		if (i < m && gridDim.y > 1)
			atomicAdd(&acc[i], sum[r]);
		else if (i < m)
			acc[i] += sum[r];
	}
}

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
 * KDE_GROUP): block blockIdx.x takes work item w = w0 + blockIdx.x: x-block xb (outputs [xb B
 * R, +B R), outputs [R threadIdx.x, +R) of it per thread, R = KDE_FAST_PER_THREAD) against the
 * samples [S B (w / xblocks), +S B) (S = tiles), adding to acc. The x-blocks of a slice go from
 * the ends inwards (w mod xblocks = 0, 1, 2, 3, ...: xb = 0, xblocks - 1, 1, xblocks - 2, ...):
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
                    long long xblocks, long long w0, long long tiles, double *acc)
{
	const int b = blockDim.x;
	const long long w = w0 + blockIdx.x, j = w % xblocks;
	const long long xb = j & 1 ? xblocks - 1 - j / 2 : j / 2;
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
 * norm rounded to float for the sorted outputs i < m, f = 2^(-p'^2) (p' = q / 2 as the kernel
 * rounded it, exp2 in double) in a factorized x-block of per_block outputs, else 1. */
__global__ void kde_fast_finish(const double *acc, const float *p, const unsigned *idx,
                                const float *centre, long long per_block, long long m, double norm,
                                float *y)
{
	const long long i = (long long)blockDim.x * blockIdx.x + threadIdx.x;
	if (i >= m)
		return;
	const float c = centre[i / per_block];
	double f = 1;
	if (!isnan(c)) {
		const double pp = 0.5 * (double)kde_fast_q(p[i], c);
		f = exp2(-pp * pp);
	}
	y[idx[i]] = (float)(acc[i] * f * norm);
}

/* v[i] = i for i < count: the outputs' indices the sort carries along. */
__global__ void kde_iota_kernel(unsigned *v, long long count)
{
	const long long i = (long long)blockDim.x * blockIdx.x + threadIdx.x;
	if (i < count)
		v[i] = (unsigned)i;
}

/* y[i] = acc[i] norm rounded to T. */
template <typename T>
__global__ void kde_finish_kernel(const double *acc, long long m, double norm, T *y)
{
	const long long i = (long long)blockDim.x * blockIdx.x + threadIdx.x;
	if (i < m)
		y[i] = (T)(acc[i] * norm);
}

/* ---- binned ---- */

/* Fixed-point scale of the binning weights: a sample adds 2^16 in all, split between its two
 * grid points by its linear-binning weight rounded to 2^-16 (mass kept exactly). */
#define KDE_BIN_ONE 65536u
/* Samples one block bins at most, so that a 32-bit shared bin cannot overflow. */
#define KDE_BIN_PER_BLOCK 65535LL
/* Largest grid binned in shared memory (4-byte bins in the default 48 KiB); larger grids bin
 * straight into the global 64-bit bins. */
#define KDE_BIN_SHARED_MAX 12288

/* Linear binning of samples [blockIdx.x S, +S) (S = per_block) onto the g grid points over
 * [lo, hi] (kde_bin) in fixed point: SHARED: a per-block histogram in shared memory (integer
 * atomics), added to the global 64-bit bins once per block; else global atomics per sample. */
template <typename T, bool SHARED>
__global__ void kde_bin_kernel(const T *x, long long n, double lo, double hi, long long g,
                               long long per_block, unsigned long long *bins)
{
	extern __shared__ unsigned kde_hist[];
	if (SHARED) {
		for (long long i = threadIdx.x; i < g; i += blockDim.x)
			kde_hist[i] = 0;
		__syncthreads();
	}
	const long long j0 = (long long)blockIdx.x * per_block;
	const long long j1 = min(n, j0 + per_block);
	for (long long j = j0 + threadIdx.x; j < j1; j += blockDim.x) {
		double w;
		const long long i = kde_bin((double)x[j], lo, hi, g, &w);
		const unsigned up = (unsigned)__double2uint_rn(w * KDE_BIN_ONE);
		if (SHARED) {
			atomicAdd(&kde_hist[i], KDE_BIN_ONE - up);
			atomicAdd(&kde_hist[i + 1], up);
		} else {
			atomicAdd(&bins[i], (unsigned long long)(KDE_BIN_ONE - up));
			atomicAdd(&bins[i + 1], (unsigned long long)up);
		}
	}
	if (SHARED) {
		__syncthreads();
		for (long long i = threadIdx.x; i < g; i += blockDim.x)
			if (kde_hist[i])
				atomicAdd(&bins[i], (unsigned long long)kde_hist[i]);
	}
}

/* The FFT input, l of 2 L doubles: [0, L) the bins (count / 2^16, zero past g), [L, 2 L) the
 * Gaussian at the grid spacing, exp(-(l dx / h)^2 / 2) at l and L - l for l <= span (a circular
 * kernel; L >= g + span keeps the wrap-around off the g outputs). */
__global__ void kde_fft_input(const unsigned long long *bins, long long g, long long len,
                              long long span, double dx_h, double *buf)
{
	const long long l = (long long)blockDim.x * blockIdx.x + threadIdx.x;
	if (l >= len)
		return;
	buf[l] = l < g ? (double)bins[l] / KDE_BIN_ONE : 0;
	const long long d = l <= len / 2 ? l : len - l;
	const double t = (double)d * dx_h;
	buf[len + l] = d <= span ? exp(-0.5 * t * t) : 0;
}

/* spec[k] = spec[k] spec[half + k] scale for k < half: the product of the two spectra. */
__global__ void kde_spectra_product(cufftDoubleComplex *spec, long long half, double scale)
{
	const long long k = (long long)blockDim.x * blockIdx.x + threadIdx.x;
	if (k >= half)
		return;
	const cufftDoubleComplex a = spec[k], b = spec[half + k];
	spec[k] =
	    make_cuDoubleComplex((a.x * b.x - a.y * b.y) * scale, (a.x * b.y + a.y * b.x) * scale);
}

/* y[i] = conv[i] rounded to T, i < g. */
template <typename T> __global__ void kde_fft_output(const double *conv, long long g, T *y)
{
	const long long i = (long long)blockDim.x * blockIdx.x + threadIdx.x;
	if (i < g)
		y[i] = (T)conv[i];
}

/* ---- ceiling ---- */

/* Only ex2s: 8 independent chains x = 2^-x per thread, iters rounds; one value per thread
 * is written so that nothing is optimised away. */
__global__ void kde_ex2_only_kernel(int iters, float *out)
{
	float v[8];
	for (int k = 0; k < 8; k++)
		v[k] = 0.001f * (float)(threadIdx.x + k);
	for (int it = 0; it < iters; it++)
#pragma unroll
		for (int k = 0; k < 8; k++)
			v[k] = kde_ex2(-v[k]);
	float s = 0;
	for (int k = 0; k < 8; k++)
		s += v[k];
	out[(long long)blockDim.x * blockIdx.x + threadIdx.x] = s;
}

/* ---- host ---- */

/* The fast kernel's polynomial slots per group of KDE_GROUP for share (1/8, 2/8 or 3/8). */
static int kde_fast_slots(double share)
{
	return (int)std::lround(share * KDE_GROUP);
}

/* 1 when variant v takes dimensions above 1 (tiled only). */
static bool kde_multi_dim(int v)
{
	return v == KDE_GPU_TILED;
}

extern "C" int kde_gpu_check(const struct kde_gpu_job *job, struct qx_err *e)
{
	const int v = job->variant, b = job->block;
	if (v < KDE_GPU_SEED || v > KDE_GPU_BINNED)
		return qx_fail(e, "kde: unknown GPU variant %d", v);
	if (job->dim < 1 || job->dim > KDE_DMAX || (job->dim > 1 && !kde_multi_dim(v)))
		return qx_fail(e,
		               "kde: dimension %d: the tiled variant takes 1 to %d, every other "
		               "GPU variant 1",
		               job->dim, KDE_DMAX);
	if ((v == KDE_GPU_SEED || v == KDE_GPU_FAST) && job->prec != QX_FLOAT)
		return qx_fail(e, "kde: the %s variant computes in float only",
		               v == KDE_GPU_SEED ? "seed" : "fast");
	if (job->n < 1 || job->m < 1)
		return qx_fail(e, "kde: needs n >= 1 samples and m >= 1 outputs");
	if (v != KDE_GPU_BINNED && !job->at[0] && job->m != job->n)
		return qx_fail(e, "kde: at the samples m must equal n (%lld, %lld)", job->m,
		               job->n);
	if (v == KDE_GPU_SEED && (job->n > 2147483647LL || job->at[0]))
		return qx_fail(e, "kde: the seed variant evaluates at its samples, n < 2^31");
	if (b < 1 || b > 1024)
		return qx_fail(e, "kde: block %d: allowed 1 to 1024 threads", b);
	if ((v == KDE_GPU_TILED || v == KDE_GPU_FAST) && b % 32)
		return qx_fail(e,
		               "kde: block %d: the %s variant takes whole warps, 32 to 1024 in "
		               "steps of 32",
		               b, v == KDE_GPU_TILED ? "tiled" : "fast");
	if (v == KDE_GPU_FAST &&
	    (kde_fast_slots(job->fast_share) < 1 || kde_fast_slots(job->fast_share) > 3 ||
	     kde_fast_slots(job->fast_share) != job->fast_share * KDE_GROUP))
		return qx_fail(e, "kde: fast share %g: allowed 0.125, 0.25, 0.375",
		               job->fast_share);
	if (v == KDE_GPU_FAST && job->m > (long long)UINT_MAX)
		return qx_fail(e,
		               "kde: the fast variant sorts its outputs with 32-bit indices: m = "
		               "%lld is over 2^32 - 1",
		               job->m);
	if (v == KDE_GPU_BINNED && (job->m < 2 || !(job->hi > job->lo)))
		return qx_fail(e, "kde: binned needs a grid of G >= 2 points over lo < hi");
	for (int k = 0; k < job->dim; k++)
		if (!(job->h[k] > 0) || !std::isfinite(job->h[k]))
			return qx_fail(e, "kde: h = %g: the bandwidth must be a number > 0",
			               job->h[k]);
	return 0;
}

/* Grid points of the binned convolution's half width: 8 h in spacings, at most g - 1. */
static long long kde_span(const struct kde_gpu_job *job)
{
	const double dx = (job->hi - job->lo) / (double)(job->m - 1);
	const double cut = std::ceil(KDE_BIN_CUT * job->h[0] / dx);
	return cut < (double)(job->m - 1) ? (long long)cut : job->m - 1;
}

/* The FFT length of a binned run: the smallest power of 2 >= g + span. */
static long long kde_fft_len(long long g, long long span)
{
	long long len = 2;
	while (len < g + span)
		len *= 2;
	return len;
}

extern "C" size_t kde_gpu_device_bytes(const struct kde_gpu_job *job)
{
	const size_t sz = qx_precision_size(job->prec), d = (size_t)job->dim;
	const size_t n = (size_t)job->n, m = (size_t)job->m;
	switch (job->variant) {
	case KDE_GPU_SEED:
		return 2 * n * sz;
	case KDE_GPU_NAIVE:
		return n * sz + (job->at[0] ? m * sz : 0) + m * sz;
	case KDE_GPU_BINNED: { /* samples, bins, FFT buffers and cuFFT's work area, outputs */
		const long long len = kde_fft_len(job->m, kde_span(job));
		return n * sz + m * 8 + (size_t)len * (16 + 32 + 16) + m * sz;
	}
	case KDE_GPU_FAST: /* samples, outputs; sorted outputs, sums, results; the indices
	                    * and sorted indices; CUB's alternate keys and values and its
	                    * histograms (under 1 MiB); the centres (>= 256 outputs a block) */
		return n * sz + (job->at[0] ? m * sz : 0) + m * (sz + 8 + sz) + m * 8 + m * 8 +
		       ((size_t)1 << 20) + (m / 256 + 1) * sz;
	default:
		return d * n * sz + (job->at[0] ? d * m * sz : 0) + m * sizeof(double) + m * sz;
	}
}

/* The run's clock: events recorded at phase ends on the default stream, the phase names. */
struct kde_clock {
	cudaEvent_t *ev;
	int used;
	struct kde_gpu_times *t;
};

/* Marks the end of phase name. */
static int kde_mark(kde_clock &c, const char *name, struct qx_err *e)
{
	GPU_TRY(cudaEventRecord(c.ev[c.used + 1], 0));
	c.t->name[c.used++] = name;
	return 0;
}

/* Waits for the last mark and fills the phase times. */
static int kde_read_clock(kde_clock &c, struct qx_err *e)
{
	GPU_TRY(cudaEventSynchronize(c.ev[c.used]));
	c.t->nphases = c.used;
	for (int i = 0; i < c.used; i++)
		c.t->ms[i] = gpu_elapsed(c.ev[i], c.ev[i + 1]);
	c.t->total = gpu_elapsed(c.ev[0], c.ev[c.used]);
	return 0;
}

/* Copies count values of T from host to a new device buffer of the run. */
template <typename T>
static int kde_upload(gpu_owned<T> &dev, const void *host, size_t count, struct qx_err *e)
{
	GPU_TRY(cudaMemcpy(dev.ptr, host, count * sizeof(T), cudaMemcpyHostToDevice));
	return 0;
}

/* After a chunk's launch: records its end, waits for the chunk before it (one stays queued
 * so that the GPU never idles) and polls the cancel; returns 0, or -1 with e. */
static int kde_chunk_done(kde_clock &c, const struct kde_gpu_job *job, struct qx_err *e)
{
	GPU_TRY(cudaGetLastError());
	const int k = c.t->chunks++;
	GPU_TRY(cudaEventRecord(c.ev[KDE_GPU_MAX_PHASES + 1 + (k & 1)], 0));
	if (k)
		GPU_TRY(cudaEventSynchronize(c.ev[KDE_GPU_MAX_PHASES + 1 + ((k + 1) & 1)]));
	if (job->cancelled && job->cancelled())
		return qx_fail(e, "run cancelled");
	return 0;
}

/* Outputs per launch of the one-thread-per-output kernels: a full wave of resident threads at
 * least, more when the chunk's pairs stay under pairs; a multiple of block. */
static long long kde_outputs_per_chunk(int block, long long n, double pairs, struct qx_err *e,
                                       long long *out)
{
	int sms = 0, per_sm = 0;
	GPU_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	GPU_TRY(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, 0));
	long long c = std::max((long long)sms * per_sm, (long long)(pairs / (double)n));
	c = (c + block - 1) / block * block;
	*out = c;
	return 0;
}

/* The seed's host code (gaussian_kde) with the seed's arguments: hArg is the block width. */
static int kde_run_seed(const struct kde_gpu_job *job, float *host, kde_clock &c, struct qx_err *e)
{
	const int n = (int)job->n;
	float hArg = (float)job->block; /* the seed passed the block width as h */
	int threadsPerBlock = int(hArg);
	float h = 0.01;
	long long chunk;
	gpu_owned<float> d_x, d_y;
	if (kde_outputs_per_chunk(threadsPerBlock, job->n, CHUNK_PAIRS_FLOAT, e, &chunk))
		return -1;
	GPU_TRY(cudaMalloc(&d_x.ptr, sizeof(float) * n));
	GPU_TRY(cudaMalloc(&d_y.ptr, sizeof(float) * n)); /* never zeroed: bug 2 */
	if (kde_mark(c, "alloc", e) || kde_upload(d_x, job->x[0], (size_t)n, e) ||
	    kde_mark(c, "h2d", e))
		return -1;
	float k = 1 / (n * h);
	for (long long first = 0; first < n; first += chunk) {
		const int xblocks =
		    (int)((std::min(chunk, n - first) + threadsPerBlock - 1) / threadsPerBlock);
		kde_seed_kernel<<<xblocks, threadsPerBlock, threadsPerBlock * sizeof(float)>>>(
		    d_x.ptr, d_y.ptr, n, h, k, (int)first);
		if (kde_chunk_done(c, job, e))
			return -1;
	}
	if (kde_mark(c, "kernel", e))
		return -1;
	GPU_TRY(cudaMemcpy(host, d_y.ptr, n * sizeof(float), cudaMemcpyDeviceToHost));
	if (kde_mark(c, "d2h", e))
		return -1;
	GPU_TRY(cudaFree(d_x.release()));
	GPU_TRY(cudaFree(d_y.release()));
	return kde_mark(c, "free", e);
}

/* naive: the inputs, one launch per chunk of outputs, the copy back. */
template <typename T>
static int kde_run_naive(const struct kde_gpu_job *job, T *host, kde_clock &c, struct qx_err *e)
{
	const long long n = job->n, m = job->m;
	const bool own_at = job->at[0] != nullptr;
	long long chunk;
	gpu_owned<T> d_x, d_p, d_y;
	const double pairs = sizeof(T) == sizeof(float) ? CHUNK_PAIRS_FLOAT : CHUNK_PAIRS_DOUBLE;
	if (kde_outputs_per_chunk(job->block, n, pairs, e, &chunk))
		return -1;
	GPU_TRY(cudaMalloc(&d_x.ptr, n * sizeof(T)));
	if (own_at)
		GPU_TRY(cudaMalloc(&d_p.ptr, m * sizeof(T)));
	GPU_TRY(cudaMalloc(&d_y.ptr, m * sizeof(T)));
	if (kde_mark(c, "alloc", e) || kde_upload(d_x, job->x[0], (size_t)n, e) ||
	    (own_at && kde_upload(d_p, job->at[0], (size_t)m, e)) || kde_mark(c, "h2d", e))
		return -1;
	const T h = (T)job->h[0], norm = (T)(1 / ((double)n * job->h[0]));
	for (long long first = 0; first < m; first += chunk) {
		const long long count = std::min(chunk, m - first);
		const unsigned blocks = (unsigned)((count + job->block - 1) / job->block);
		kde_naive_kernel<T><<<blocks, job->block>>>(d_x.ptr, n, own_at ? d_p.ptr : d_x.ptr,
		                                            m, h, norm, first, d_y.ptr);
		if (kde_chunk_done(c, job, e))
			return -1;
	}
	if (kde_mark(c, "kernel", e))
		return -1;
	GPU_TRY(cudaMemcpy(host, d_y.ptr, m * sizeof(T), cudaMemcpyDeviceToHost));
	if (kde_mark(c, "d2h", e))
		return -1;
	GPU_TRY(cudaFree(d_x.release()));
	if (own_at)
		GPU_TRY(cudaFree(d_p.release()));
	GPU_TRY(cudaFree(d_y.release()));
	return kde_mark(c, "free", e);
}

/* Launches the tiled kernel for outputs [i0, i0 + count) and samples [j0, j1): float 1-D
 * through kde_tiled1_kernel, else kde_tiled_kernel of (T, dim). */
template <typename T>
static void kde_launch_tiled(int dim, dim3 blocks, int b, const T *u, long long n, const T *p,
                             long long m, long long i0, long long j0, long long j1, double *acc)
{
	const size_t shared = (size_t)dim * b * sizeof(T);
	if constexpr (sizeof(T) == sizeof(float)) {
		if (dim == 1) {
			kde_tiled1_kernel<<<blocks, b, shared>>>(u, p, m, i0, j0, j1, acc);
			return;
		}
	} else if (dim == 1) {
		kde_tiled_kernel<T, 1><<<blocks, b, shared>>>(u, n, p, m, i0, j0, j1, acc);
		return;
	}
	if (dim == 2)
		kde_tiled_kernel<T, 2><<<blocks, b, shared>>>(u, n, p, m, i0, j0, j1, acc);
	else
		kde_tiled_kernel<T, 3><<<blocks, b, shared>>>(u, n, p, m, i0, j0, j1, acc);
}

/* tiled: the inputs, scaled on the device; chunks of samples for all outputs (a chunk of
 * outputs at a time when m alone fills a chunk), accumulated in double; finish. */
template <typename T>
static int kde_run_tiled(const struct kde_gpu_job *job, T *host, kde_clock &c, struct qx_err *e)
{
	const long long n = job->n, m = job->m;
	const int dim = job->dim, b = job->block;
	const bool own_at = job->at[0] != nullptr;
	gpu_owned<T> d_u, d_p, d_y;
	gpu_owned<double> d_acc;
	int sms = 0;
	GPU_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	GPU_TRY(cudaMalloc(&d_u.ptr, (size_t)dim * n * sizeof(T)));
	if (own_at)
		GPU_TRY(cudaMalloc(&d_p.ptr, (size_t)dim * m * sizeof(T)));
	GPU_TRY(cudaMalloc(&d_acc.ptr, m * sizeof(double)));
	GPU_TRY(cudaMalloc(&d_y.ptr, m * sizeof(T)));
	if (kde_mark(c, "alloc", e))
		return -1;
	for (int k = 0; k < dim; k++) {
		GPU_TRY(cudaMemcpy(d_u.ptr + (size_t)k * n, job->x[k], n * sizeof(T),
		                   cudaMemcpyHostToDevice));
		if (own_at)
			GPU_TRY(cudaMemcpy(d_p.ptr + (size_t)k * m, job->at[k], m * sizeof(T),
			                   cudaMemcpyHostToDevice));
	}
	if (kde_mark(c, "h2d", e))
		return -1;
	GPU_TRY(cudaMemset(d_acc.ptr, 0, m * sizeof(double)));
	for (int k = 0; k < dim; k++) {
		const double s = KDE_U_SCALE / job->h[k];
		kde_scale_kernel<T>
		    <<<(unsigned)((n + HELPER_BLOCK - 1) / HELPER_BLOCK), HELPER_BLOCK>>>(
		        d_u.ptr + (size_t)k * n, n, job->center[k], s);
		if (own_at)
			kde_scale_kernel<T>
			    <<<(unsigned)((m + HELPER_BLOCK - 1) / HELPER_BLOCK), HELPER_BLOCK>>>(
			        d_p.ptr + (size_t)k * m, m, job->center[k], s);
	}
	GPU_TRY(cudaGetLastError());
	if (kde_mark(c, "scale", e))
		return -1;
	const T *p = own_at ? d_p.ptr : d_u.ptr;
	const double pairs = sizeof(T) == sizeof(float) ? CHUNK_PAIRS_FLOAT : CHUNK_PAIRS_DOUBLE;
	const long long per_block = (long long)b * KDE_GPU_PER_THREAD;
	const long long ichunk =
	    std::max(per_block, (long long)(pairs / b) / per_block * per_block);
	const long long jchunk =
	    std::max((long long)b, (long long)(pairs / (double)std::min(m, ichunk)) / b * b);
	for (long long i0 = 0; i0 < m; i0 += ichunk) {
		const long long count = std::min(ichunk, m - i0);
		const unsigned blocks = (unsigned)((count + per_block - 1) / per_block);
		/* few outputs (a grid, eval): the samples split over blockIdx.y too, to fill the
		 * GPU */
		const unsigned split = (unsigned)std::max(
		    1LL, std::min((long long)(4 * sms) / blocks, jchunk / (16LL * b)));
		for (long long j0 = 0; j0 < n; j0 += jchunk) {
			kde_launch_tiled<T>(dim, dim3(blocks, split), b, d_u.ptr, n, p, m, i0, j0,
			                    std::min(n, j0 + jchunk), d_acc.ptr);
			if (kde_chunk_done(c, job, e))
				return -1;
		}
	}
	kde_finish_kernel<T><<<(unsigned)((m + HELPER_BLOCK - 1) / HELPER_BLOCK), HELPER_BLOCK>>>(
	    d_acc.ptr, m, kde_norm((double)n, dim, job->h), d_y.ptr);
	GPU_TRY(cudaGetLastError());
	if (kde_mark(c, "kernel", e))
		return -1;
	GPU_TRY(cudaMemcpy(host, d_y.ptr, m * sizeof(T), cudaMemcpyDeviceToHost));
	if (kde_mark(c, "d2h", e))
		return -1;
	GPU_TRY(cudaFree(d_u.release()));
	if (own_at)
		GPU_TRY(cudaFree(d_p.release()));
	GPU_TRY(cudaFree(d_acc.release()));
	GPU_TRY(cudaFree(d_y.release()));
	return kde_mark(c, "free", e);
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

/* fast: the inputs, scaled on the device; the outputs sorted with their indices (CUB radix
 * sort) and each x-block's centre (phase sort); work items of (x-block, slice of S tiles of
 * samples) in launches of whole waves (a multiple of the resident blocks), about
 * CHUNK_PAIRS_FLOAT pairs each, accumulated in double; the sums scattered back to the
 * outputs' order with their factor and the norm (kde_fast_finish). All of it timed. */
static int kde_run_fast(const struct kde_gpu_job *job, float *host, kde_clock &c, struct qx_err *e)
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
	 * m allow */
	const long long slots = (long long)sms * std::max(resident, 1);
	const double tile_pairs = (double)per_block * b;
	long long tiles = (long long)(CHUNK_PAIRS_FLOAT / (16.0 * (double)slots * tile_pairs));
	tiles = std::max(1LL, std::min({tiles, xblocks * ntiles / (4 * slots), ntiles}));
	const long long items = xblocks * ((ntiles + tiles - 1) / tiles);
	const long long launch =
	    std::max(1LL, (long long)(CHUNK_PAIRS_FLOAT / (tile_pairs * (double)tiles)) / slots) *
	    slots;
	for (long long w0 = 0; w0 < items; w0 += launch) {
		kernel<<<(unsigned)std::min(launch, items - w0), b, shared>>>(
		    d_u.ptr, n, d_ps.ptr, m, d_centre.ptr, xblocks, w0, tiles, d_acc.ptr);
		if (kde_chunk_done(c, job, e))
			return -1;
	}
	kde_fast_finish<<<(unsigned)((m + HELPER_BLOCK - 1) / HELPER_BLOCK), HELPER_BLOCK>>>(
	    d_acc.ptr, d_ps.ptr, d_idx.ptr, d_centre.ptr, per_block, m,
	    kde_norm((double)n, 1, job->h), d_y.ptr);
	GPU_TRY(cudaGetLastError());
	if (kde_mark(c, "kernel", e))
		return -1;
	GPU_TRY(cudaMemcpy(host, d_y.ptr, m * sizeof(float), cudaMemcpyDeviceToHost));
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

/* Evaluates a cuFFT call; on failure fills e with the call and its status, returns -1. */
#define CUFFT_TRY(call)                                                                            \
	do {                                                                                       \
		cufftResult cufft_try_rc_ = (call);                                                \
		if (cufft_try_rc_ != CUFFT_SUCCESS)                                                \
			return qx_fail(e, "%s: cuFFT status %d", #call, (int)cufft_try_rc_);       \
	} while (0)

/* The cuFFT plans of the last FFT length (made on first use of a length, kept for the next
 * runs: planning costs milliseconds): two real-to-complex transforms of len doubles in one
 * batch, and one complex-to-real back, sharing one work area of ours (auto-allocation off).
 * cuFFT still makes one allocation of its own at the first plan of a process (4.3 MB on an
 * H100, in cufftMakePlanMany), which cufftDestroy leaves: compute-sanitizer lists it at exit. */
struct kde_fft_plans {
	long long len;
	cufftHandle fwd, inv;
	bool has_fwd, has_inv;
	void *work;
};
static kde_fft_plans kde_plans;

/* Destroys the plans and frees their work area (gpu_release calls it at exit). */
static void kde_fft_release(void)
{
	if (kde_plans.has_fwd)
		cufftDestroy(kde_plans.fwd);
	if (kde_plans.has_inv)
		cufftDestroy(kde_plans.inv);
	cudaFree(kde_plans.work);
	kde_plans = kde_fft_plans{};
}

/* Makes the plans of len into kde_plans (which holds none); returns 0, or -1 with e and
 * whatever was made left for kde_fft_release. */
static int kde_fft_make(int nn, struct qx_err *e)
{
	size_t fwd_bytes = 0, inv_bytes = 0;
	CUFFT_TRY(cufftCreate(&kde_plans.fwd));
	kde_plans.has_fwd = true;
	CUFFT_TRY(cufftSetAutoAllocation(kde_plans.fwd, 0));
	CUFFT_TRY(cufftMakePlanMany(kde_plans.fwd, 1, &nn, NULL, 1, nn, NULL, 1, nn / 2 + 1,
	                            CUFFT_D2Z, 2, &fwd_bytes));
	CUFFT_TRY(cufftCreate(&kde_plans.inv));
	kde_plans.has_inv = true;
	CUFFT_TRY(cufftSetAutoAllocation(kde_plans.inv, 0));
	CUFFT_TRY(cufftMakePlan1d(kde_plans.inv, nn, CUFFT_Z2D, 1, &inv_bytes));
	GPU_TRY(cudaMalloc(&kde_plans.work, std::max(fwd_bytes, inv_bytes)));
	CUFFT_TRY(cufftSetWorkArea(kde_plans.fwd, kde_plans.work));
	CUFFT_TRY(cufftSetWorkArea(kde_plans.inv, kde_plans.work));
	return 0;
}

/* Makes the plans for len unless they exist. Returns 0, or -1 with e. */
static int kde_fft_plan(long long len, struct qx_err *e)
{
	if (kde_plans.len == len)
		return 0;
	kde_fft_release();
	gpu_at_release(kde_fft_release);
	if (kde_fft_make((int)len, e)) {
		kde_fft_release();
		return -1;
	}
	kde_plans.len = len;
	return 0;
}

/* binned: the samples, binned through per-block shared histograms (fixed point), then the
 * convolution with the Gaussian by cuFFT (double, zero-padded to a power of 2 >= g + span). */
template <typename T>
static int kde_run_binned(const struct kde_gpu_job *job, T *host, kde_clock &c, struct qx_err *e)
{
	const long long n = job->n, g = job->m, span = kde_span(job), len = kde_fft_len(g, span);
	const long long half = len / 2 + 1;
	const double dx = (job->hi - job->lo) / (double)(g - 1);
	const bool shared = g <= KDE_BIN_SHARED_MAX;
	int sms = 0;
	gpu_owned<T> d_x, d_y;
	gpu_owned<unsigned long long> d_bins;
	gpu_owned<double> d_buf;
	gpu_owned<cufftDoubleComplex> d_spec;
	GPU_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	if (kde_fft_plan(len, e))
		return -1;
	GPU_TRY(cudaMalloc(&d_x.ptr, n * sizeof(T)));
	GPU_TRY(cudaMalloc(&d_bins.ptr, g * sizeof(unsigned long long)));
	GPU_TRY(cudaMalloc(&d_buf.ptr, 2 * len * sizeof(double)));
	GPU_TRY(cudaMalloc(&d_spec.ptr, 2 * half * sizeof(cufftDoubleComplex)));
	GPU_TRY(cudaMalloc(&d_y.ptr, g * sizeof(T)));
	if (kde_mark(c, "alloc", e) || kde_upload(d_x, job->x[0], (size_t)n, e) ||
	    kde_mark(c, "h2d", e))
		return -1;
	GPU_TRY(cudaMemset(d_bins.ptr, 0, g * sizeof(unsigned long long)));
	const long long per_block =
	    std::min(KDE_BIN_PER_BLOCK, std::max(4096LL, (n + 4LL * sms - 1) / (4LL * sms)));
	const unsigned blocks = (unsigned)((n + per_block - 1) / per_block);
	if (shared)
		kde_bin_kernel<T, true><<<blocks, HELPER_BLOCK, g * sizeof(unsigned)>>>(
		    d_x.ptr, n, job->lo, job->hi, g, per_block, d_bins.ptr);
	else
		kde_bin_kernel<T, false><<<blocks, HELPER_BLOCK>>>(d_x.ptr, n, job->lo, job->hi, g,
		                                                   per_block, d_bins.ptr);
	GPU_TRY(cudaGetLastError());
	if (kde_mark(c, "bin", e))
		return -1;
	kde_fft_input<<<(unsigned)((len + HELPER_BLOCK - 1) / HELPER_BLOCK), HELPER_BLOCK>>>(
	    d_bins.ptr, g, len, span, dx / job->h[0], d_buf.ptr);
	GPU_TRY(cudaGetLastError());
	CUFFT_TRY(cufftExecD2Z(kde_plans.fwd, d_buf.ptr, d_spec.ptr));
	kde_spectra_product<<<(unsigned)((half + HELPER_BLOCK - 1) / HELPER_BLOCK), HELPER_BLOCK>>>(
	    d_spec.ptr, half, kde_norm((double)n, 1, job->h) / (double)len);
	GPU_TRY(cudaGetLastError());
	CUFFT_TRY(cufftExecZ2D(kde_plans.inv, d_spec.ptr, d_buf.ptr));
	kde_fft_output<T><<<(unsigned)((g + HELPER_BLOCK - 1) / HELPER_BLOCK), HELPER_BLOCK>>>(
	    d_buf.ptr, g, d_y.ptr);
	GPU_TRY(cudaGetLastError());
	c.t->chunks = 1;
	if (kde_mark(c, "convolve", e))
		return -1;
	GPU_TRY(cudaMemcpy(host, d_y.ptr, g * sizeof(T), cudaMemcpyDeviceToHost));
	if (kde_mark(c, "d2h", e))
		return -1;
	GPU_TRY(cudaFree(d_x.release()));
	GPU_TRY(cudaFree(d_bins.release()));
	GPU_TRY(cudaFree(d_buf.release()));
	GPU_TRY(cudaFree(d_spec.release()));
	GPU_TRY(cudaFree(d_y.release()));
	return kde_mark(c, "free", e);
}

/* Runs the variant in precision T. */
template <typename T>
static int kde_dispatch(const struct kde_gpu_job *job, T *host, kde_clock &c, struct qx_err *e)
{
	switch (job->variant) {
	case KDE_GPU_NAIVE:
		return kde_run_naive<T>(job, host, c, e);
	case KDE_GPU_TILED:
		return kde_run_tiled<T>(job, host, c, e);
	case KDE_GPU_BINNED:
		return kde_run_binned<T>(job, host, c, e);
	default:
		return qx_fail(e, "kde: variant %d has no %s version", job->variant,
		               sizeof(T) == sizeof(float) ? "float" : "double");
	}
}

extern "C" int kde_gpu_run(const struct kde_gpu_job *job, void *host_out, struct kde_gpu_times *t,
                           struct qx_err *e)
{
	size_t free_b = 0, total_b = 0;
	if (kde_gpu_check(job, e))
		return -1;
	GPU_TRY(cudaMemGetInfo(&free_b, &total_b));
	const size_t need = kde_gpu_device_bytes(job);
	if (need > free_b)
		return qx_fail(e, "kde: the run needs %zu MiB of device memory, %zu MiB are free",
		               need >> 20, free_b >> 20);
	*t = kde_gpu_times{};
	kde_clock c = {gpu_events(KDE_GPU_MAX_PHASES + 3, e), 0, t};
	if (!c.ev)
		return -1;
	GPU_TRY(cudaEventRecord(c.ev[0], 0));
	int rc;
	if (job->variant == KDE_GPU_SEED)
		rc = kde_run_seed(job, (float *)host_out, c, e);
	else if (job->variant == KDE_GPU_FAST)
		rc = kde_run_fast(job, (float *)host_out, c, e);
	else if (job->prec == QX_FLOAT)
		rc = kde_dispatch<float>(job, (float *)host_out, c, e);
	else
		rc = kde_dispatch<double>(job, (double *)host_out, c, e);
	return rc ? -1 : kde_read_clock(c, e);
}

extern "C" int kde_gpu_pin(void *p, size_t bytes, struct qx_err *e)
{
	GPU_TRY(cudaHostRegister(p, bytes, cudaHostRegisterDefault));
	return 0;
}

extern "C" void kde_gpu_unpin(void *p)
{
	if (p)
		cudaHostUnregister(p);
}

extern "C" int kde_gpu_ceiling(int reps, struct kde_gpu_ceiling *out, struct qx_err *e)
{
	int clock_khz = 0, per_sm = 0;
	const int block = 256, iters = 4096;
	GPU_TRY(cudaDeviceGetAttribute(&out->sms, cudaDevAttrMultiProcessorCount, 0));
	GPU_TRY(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
	GPU_TRY(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, 0));
	out->clock_mhz = clock_khz / 1000;
	out->ex2_per_s_peak = 16.0 * out->sms * clock_khz * 1e3;
	const unsigned blocks = (unsigned)(out->sms * (per_sm / block));
	cudaEvent_t *ev = gpu_events(2, e);
	gpu_owned<float> d_out;
	std::vector<double> ms;
	if (!ev)
		return -1;
	GPU_TRY(cudaMalloc(&d_out.ptr, (size_t)blocks * block * sizeof(float)));
	kde_ex2_only_kernel<<<blocks, block>>>(iters, d_out.ptr); /* warm-up */
	GPU_TRY(cudaGetLastError());
	for (int r = 0; r < std::max(reps, 1); r++) {
		GPU_TRY(cudaEventRecord(ev[0], 0));
		kde_ex2_only_kernel<<<blocks, block>>>(iters, d_out.ptr);
		GPU_TRY(cudaGetLastError());
		GPU_TRY(cudaEventRecord(ev[1], 0));
		GPU_TRY(cudaEventSynchronize(ev[1]));
		ms.push_back(gpu_elapsed(ev[0], ev[1]));
	}
	std::sort(ms.begin(), ms.end());
	const double med = ms[ms.size() / 2];
	out->ex2_per_s = (double)blocks * block * iters * 8 / (med * 1e-3);
	GPU_TRY(cudaFree(d_out.release()));
	return 0;
}
