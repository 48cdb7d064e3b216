/* kernels.cuh - the device code problem kde's GPU variants share (cuda/kde/): the exponential
 * 2^e of the sums (ex2.approx in float, kde_math.h's polynomial in double), the scaling of the
 * coordinates, and the 1-D float inner loop over a group of samples that tiled and fast both
 * run. */
#ifndef QX_CUDA_KDE_KERNELS_CUH
#define QX_CUDA_KDE_KERNELS_CUH

#include "../../src/problems/kde/kde_gpu.h"

#include "../../src/problems/kde/kde_math.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

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

#endif
