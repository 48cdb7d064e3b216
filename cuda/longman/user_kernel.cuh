/* user_kernel.cuh - problem longman's packed kernel for an amplitude the user typed, g(x) in
 * place of e^{-lambda x}, in precision LM_USER_T (double or float) with the C name
 * qx_lm_user_S (S: d or f) that the run-time linker resolves. lm_user_d.lto.cu and
 * lm_user_f.lto.cu build it to LTO-IR, which quadx embeds and links at run time (src/gpujit)
 * with the amplitude's own LTO-IR from NVRTC, qx_user_S(x, p) at the point x = {x, lambda}, so
 * that the amplitude is inlined into the kernel. cuda/longman/longman.cu includes this header for
 * struct lm_user_args alone and launches the kernel with cudaLaunchKernel. */
#ifndef QX_LONGMAN_USER_KERNEL_CUH
#define QX_LONGMAN_USER_KERNEL_CUH

#include "../../src/problems/longman/longman_math.h"
#include "../../src/problems/longman/longman_gpu.h"

/* The kernel's argument: the batch as cuda/longman/longman.cu's lm_args (m the (lambda, omega)
 * points, team lanes per integral, team = 1 << team_log2), the tables of the kernel's precision
 * (longman.cu's device globals, by address: Gauss-Legendre nodes t and weights w, Euler
 * weights c, J0 zeros z), the user's parameters, and the user's batch parameters (batch.nb 0:
 * none) with their lists in device memory (vals), which integral k's parameters come from. */
struct lm_user_args {
	long long m;
	int n, g, team, team_log2;
	double lam_lo, lam_hi, om_lo, om_hi, a;
	int spread, trig, method;
	unsigned long long seed;
	const void *t, *w, *c, *z;
	double p[LM_USER_PARAMS];
	struct longman_batch batch;
	const double *vals;
};

#endif

#ifdef LM_USER_T

#define LM_USER_CAT_(a, b) a##b
#define LM_USER_CAT(a, b) LM_USER_CAT_(a, b)

/* The user's amplitude at x[0] = x with x[1] = lambda, compiled by NVRTC at run time
 * (src/problems/user_integrand.c writes it, bare). */
extern "C" __device__ LM_USER_T LM_USER_CAT(qx_user_, LM_USER_S)(const LM_USER_T *x,
                                                                 const double *p);

/* J0 in each precision. */
__device__ __forceinline__ float lm_user_j0(float x)
{
	return j0f(x);
}
__device__ __forceinline__ double lm_user_j0(double x)
{
	return j0(x);
}

/* Lane `lane`'s share of one integral with oscillator F: segments lane, lane + team, ... of
 * the first part (segment 0, from a) and the N areas, each by Gauss-Legendre of order g, the
 * area j weighted by its Euler weight c[j] (or 1: the direct sum). cos and sin of omega x are
 * taken as cospi/sinpi of (omega/pi) x, as the built-in kernels' precise functions. */
template <typename T, int F>
__device__ __forceinline__ T lm_user_share(const lm_user_args &a, const double *par, T lam, T om,
                                           T om_pi, T inv_om, T th1, int euler, int lane)
{
	const T *t = (const T *)a.t, *w = (const T *)a.w, *c = (const T *)a.c, *z = (const T *)a.z;
	T sum = 0;
	for (int seg = lane; seg <= a.n; seg += a.team) {
		const T x0 = seg == 0     ? (T)a.a
		             : F == LM_J0 ? z[seg - 1] * inv_om
		                          : (th1 + (T)(seg - 1) * (T)LM_PI) * inv_om;
		const T x1 = F == LM_J0 ? z[seg] * inv_om : (th1 + (T)seg * (T)LM_PI) * inv_om;
		const T hh = (x1 - x0) / 2;
		T part = 0;
		for (int i = 0; i < a.g; i++) {
			const T at[2] = {x0 + hh * (1 + t[i]), lam};
			const T osc = F == LM_J0    ? lm_user_j0(om * at[0])
			              : F == LM_SIN ? sinpi(om_pi * at[0])
			                            : cospi(om_pi * at[0]);
			part += w[i] * (LM_USER_CAT(qx_user_, LM_USER_S)(at, par) * osc);
		}
		sum += (seg == 0 || !euler ? (T)1 : c[seg - 1]) * (part * hh);
	}
	return sum;
}

/* The packed layout for the user's amplitude: a team of a.team lanes per integral, each
 * taking every team-th segment, the team's sum finished by xor shuffles; out[i] gets
 * integral first + i for i < count, at (lambda, omega) point (first + i) % m and, in a batch,
 * with the parameters of its grid point (first + i) / m in a copy of the user's. Blocks are
 * whole warps. */
extern "C" __global__ void __launch_bounds__(LM_PACKED_MAX_BLOCK)
    LM_USER_CAT(qx_lm_user_, LM_USER_S)(lm_user_args a, long long first, long long count,
                                        LM_USER_T *out)
{
	typedef LM_USER_T T;
	const long long tid = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	const long long local = tid >> a.team_log2;
	const int lane = (int)(tid & (a.team - 1));
	T sum = 0;
	if (local < count) {
		const long long k = first + local;
		double lam, om, mine[LM_USER_PARAMS];
		const double *par = a.p;
		if (a.batch.nb) {
			for (int j = 0; j < LM_USER_PARAMS; j++)
				mine[j] = a.p[j];
			longman_batch_params(&a.batch, a.vals, k, mine);
			par = mine;
		}
		longman_params(k % a.m, a.m, a.lam_lo, a.lam_hi, a.om_lo, a.om_hi, a.spread, a.seed,
		               &lam, &om);
		const T th1 = a.trig == LM_J0 ? (T)0 : (T)longman_first_phase(a.trig, om, a.a);
		const int euler = longman_use_euler(a.method, lam, om);
		const T tl = (T)lam, to = (T)om, op = (T)(om / LM_PI), io = (T)(1 / om);
		sum = a.trig == LM_COS
		          ? lm_user_share<T, LM_COS>(a, par, tl, to, op, io, th1, euler, lane)
		      : a.trig == LM_SIN
		          ? lm_user_share<T, LM_SIN>(a, par, tl, to, op, io, th1, euler, lane)
		          : lm_user_share<T, LM_J0>(a, par, tl, to, op, io, th1, euler, lane);
	}
	for (int off = a.team / 2; off > 0; off >>= 1)
		sum += __shfl_xor_sync(0xffffffffu, sum, off);
	if (local < count && lane == 0)
		out[local] = sum;
}

#endif
