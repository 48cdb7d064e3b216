/* longman_math.h - what the CPU (C11) and the GPU (CUDA) share for problem `longman`: the
 * integrands' names, how the M integrals' (lambda, omega) are spread over their ranges, where
 * the first zero lies, which method an integral takes, the exact values, and which values of
 * the user's batch parameters an integral takes. Everything here is in double and does not
 * depend on the run's precision. */
#ifndef QX_LONGMAN_MATH_H
#define QX_LONGMAN_MATH_H

#include <math.h>

#ifdef __CUDACC__
#define LM_HD __host__ __device__ __forceinline__
#else
#define LM_HD static inline
#endif

enum longman_integrand { LM_COS = 0, LM_SIN = 1, LM_J0 = 2 };
enum longman_method { LM_EULER = 0, LM_DIRECT = 1, LM_AUTO = 2 };
enum longman_spread { LM_GRID = 0, LM_RANDOM = 1 };
enum longman_mathlib { LM_FAST = 0, LM_PRECISE = 1 };

/* Limits of the tables: N areas need N+1 zeros after the first part; Gauss order g. */
#define LM_NMAX 1024
#define LM_GMAX 128

/* Threads per block of the GPU layouts. Packed launches the session's block, which must be
 * whole warps up to the kernel's launch bound; block sets its own, N+1 rounded up to a warp. */
#define LM_WARP 32
#define LM_PACKED_MAX_BLOCK 256

/* Returns 1 when the packed layout can launch blocks of `block` threads, else 0. */
LM_HD int longman_packed_block_ok(int block)
{
	return block >= LM_WARP && block <= LM_PACKED_MAX_BLOCK && block % LM_WARP == 0;
}

/* Returns the threads per block of the block layout for N areas: N+1 rounded up to a warp. */
LM_HD int longman_block_threads(int n)
{
	return (n + LM_WARP) / LM_WARP * LM_WARP;
}

#define LM_PI 3.14159265358979323846
#define LM_LN3 1.09861228866810969140

/* A 64-bit mix of (seed, k) (splitmix64's finalizer): the same bits on host and device. */
LM_HD unsigned long long longman_hash(unsigned long long seed, unsigned long long k)
{
	unsigned long long z = seed * 0x9E3779B97F4A7C15ULL + (k + 1) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

/* (lambda, omega) of integral k of m. Grid: when both ranges are wide, a ceil(sqrt(m)) wide
 * grid with omega varying fastest (the last row may be partial); when one is a single value,
 * m points over the other. Random: uniform in the ranges from hash(seed, k). */
LM_HD void longman_params(long long k, long long m, double llo, double lhi, double olo, double ohi,
                          int spread, unsigned long long seed, double *lam, double *om)
{
	if (spread == LM_RANDOM) {
		const unsigned long long h = longman_hash(seed, (unsigned long long)k);
		const double u = (double)(h >> 11) * 0x1p-53;
		const double v = (double)(longman_hash(h, 0) >> 11) * 0x1p-53;
		*lam = llo + (lhi - llo) * u;
		*om = olo + (ohi - olo) * v;
		return;
	}
	long long no = m, nl = 1;
	if (llo != lhi && olo != ohi) {
		no = (long long)ceil(sqrt((double)m));
		nl = (m + no - 1) / no;
	} else if (llo != lhi) {
		no = 1;
		nl = m;
	}
	const long long i = k / no, j = k - i * no;
	*lam = nl > 1 ? llo + (lhi - llo) * (double)i / (double)(nl - 1) : llo;
	*om = no > 1 ? olo + (ohi - olo) * (double)j / (double)(no - 1) : olo;
}

/* 1 when integral (lam, om) is summed by the Euler transform: always for euler, never for
 * direct, and for auto when q = exp(-lam pi / om) > 1/3, i.e. lam pi < ln(3) om. */
LM_HD int longman_use_euler(int method, double lam, double om)
{
	if (method == LM_AUTO)
		return lam * LM_PI < LM_LN3 * om;
	return method == LM_EULER;
}

/* omega x_1 for cos and sin: the phase of the first zero of the oscillating factor after a
 * (cos: pi/2 + k pi, sin: k pi). */
LM_HD double longman_first_phase(int integrand, double om, double a)
{
	if (integrand == LM_SIN)
		return (floor(om * a / LM_PI) + 1) * LM_PI;
	return (floor((om * a - LM_PI / 2) / LM_PI) + 1) * LM_PI + LM_PI / 2;
}

/* The exact integral from a to infinity (j0: a = 0 only). */
static inline double longman_exact(int integrand, double lam, double om, double a)
{
	const double d = lam * lam + om * om;
	if (integrand == LM_J0)
		return 1 / sqrt(d);
	if (integrand == LM_SIN)
		return exp(-lam * a) * (lam * sin(om * a) + om * cos(om * a)) / d;
	return exp(-lam * a) * (lam * cos(om * a) - om * sin(om * a)) / d;
}

/* Batch parameters a run takes at most (USER_BATCH_PARAMS), and integrals: M times their grid. */
#define LM_BATCH_PARAMS 4
#define LM_BATCH_MAX 1000000000LL

/* The user's batch parameters of an expression amplitude (set param k RANGE|LIST): nb lists,
 * list b (len[b] values at off[b] of one array of them all) for the user's parameter slot[b].
 * Integral k of a batch run takes the (lambda, omega) point k % m of the m = M points and the
 * grid point k / m, the first list varying fastest: every (lambda, omega) at every point. */
struct longman_batch {
	long long m;
	int nb;
	int slot[LM_BATCH_PARAMS];
	long long len[LM_BATCH_PARAMS], off[LM_BATCH_PARAMS];
};

/* Writes integral k's batch parameter values from vals (the lists, b->off[b] each) into the
 * user's parameters p; nothing for nb 0. Host and device, so that a kernel finds an integral's
 * parameters from its index alone. */
LM_HD void longman_batch_params(const struct longman_batch *b, const double *vals, long long k,
                                double *p)
{
	long long g = k / b->m;
	for (int j = 0; j < b->nb; j++) {
		p[b->slot[j]] = vals[b->off[j] + g % b->len[j]];
		g /= b->len[j];
	}
}

#ifndef __CUDACC__
/* A user's amplitude g(x) in place of e^{-lambda x} (CPU): the compiled expression in both
 * precisions, called at the point {x, lambda} with the user's parameters p. */
struct longman_amp {
	double (*d)(const double *x, const double *p);
	float (*f)(const float *x, const double *p);
	const double *p;
};
#endif

#endif

/* The per-precision part, CPU only: include with LM_REAL (float or double) and LM_SUFFIX (f
 * or d) defined. It defines longman_segment_<suffix>() and longman_value_<suffix>(). */
#if defined(LM_REAL) && !defined(__CUDACC__)

#define LM_CAT_(a, b) a##_##b
#define LM_CAT(a, b) LM_CAT_(a, b)
#define LM_FN(name) LM_CAT(name, LM_SUFFIX)

#undef LM_FEXP
#undef LM_FCOS
#undef LM_FSIN
#undef LM_BESSEL
#if LM_SUFFIX_IS_FLOAT
#define LM_FEXP expf
#define LM_FCOS cosf
#define LM_FSIN sinf
#define LM_BESSEL j0f
#else
#define LM_FEXP exp
#define LM_FCOS cos
#define LM_FSIN sin
#define LM_BESSEL j0
#endif

/* The user's amplitude amp at x (lambda lam) in this precision. */
static inline LM_REAL LM_FN(longman_amp_at)(const struct longman_amp *amp, LM_REAL lam, LM_REAL x)
{
	const LM_REAL at[2] = {x, lam};
#if LM_SUFFIX_IS_FLOAT
	return amp->f(at, amp->p);
#else
	return amp->d(at, amp->p);
#endif
}

/* Gauss-Legendre of order g (nodes t, weights w on [-1, 1]) of the amplitude (e^{-lam x}, or
 * the user's amp when not NULL) times the oscillating factor over [x0, x0 + h]. */
static inline LM_REAL LM_FN(longman_segment)(int integrand, LM_REAL lam, LM_REAL om, LM_REAL x0,
                                             LM_REAL h, int g, const LM_REAL *t, const LM_REAL *w,
                                             const struct longman_amp *amp)
{
	const LM_REAL hh = h / 2;
	LM_REAL s = 0;
	for (int i = 0; i < g; i++) {
		const LM_REAL x = x0 + hh * (1 + t[i]);
		const LM_REAL osc = integrand == LM_J0    ? LM_BESSEL(om * x)
		                    : integrand == LM_SIN ? LM_FSIN(om * x)
		                                          : LM_FCOS(om * x);
		const LM_REAL env = amp ? LM_FN(longman_amp_at)(amp, lam, x) : LM_FEXP(-lam * x);
		s += w[i] * (env * osc);
	}
	return s * hh;
}

/* Zero s >= 1 of the oscillating factor after a: (th1 + (s-1) pi)/om for cos and sin (th1 the
 * first zero's phase), z[s-1]/om for j0 (z the zeros of J0). */
static inline LM_REAL LM_FN(longman_zero)(int integrand, LM_REAL om, LM_REAL th1, int s,
                                          const LM_REAL *z)
{
	if (integrand == LM_J0)
		return z[s - 1] / om;
	return (th1 + (LM_REAL)(s - 1) * (LM_REAL)LM_PI) / om;
}

/* Longman's estimate of the integral from a to infinity: the first part [a, x_1] plus the n
 * signed half-cycle areas A_j = int_{x_{j+1}}^{x_{j+2}}, each weighted by c[j] (the Euler
 * transform's weights) or by 1 (c NULL: the plain partial sum); amp: the user's amplitude, or
 * NULL for e^{-lam x}. */
static inline LM_REAL LM_FN(longman_value)(int integrand, LM_REAL lam, LM_REAL om, LM_REAL a,
                                           LM_REAL th1, int n, int g, const LM_REAL *t,
                                           const LM_REAL *w, const LM_REAL *z, const LM_REAL *c,
                                           const struct longman_amp *amp)
{
	LM_REAL x0 = LM_FN(longman_zero)(integrand, om, th1, 1, z);
	LM_REAL sum = LM_FN(longman_segment)(integrand, lam, om, a, x0 - a, g, t, w, amp);
	for (int j = 0; j < n; j++) {
		const LM_REAL x1 = LM_FN(longman_zero)(integrand, om, th1, j + 2, z);
		const LM_REAL area =
		    LM_FN(longman_segment)(integrand, lam, om, x0, x1 - x0, g, t, w, amp);
		sum += c ? c[j] * area : area;
		x0 = x1;
	}
	return sum;
}

#endif
