/* expint_math_tmpl.h - the E_n(x) algorithms for one precision; included by expint_math.h
 * once with QX_REAL float (QX_SUFFIX f) and once with double (QX_SUFFIX d). */

#ifndef QX_EXPINT_MATH_COMMON
#define QX_EXPINT_MATH_COMMON

#ifdef __CUDACC__
#define QX_HD __host__ __device__ __forceinline__
#else
#define QX_HD static inline
#endif

enum expint_status { EXPINT_OK = 0, EXPINT_DOMAIN = 1, EXPINT_NOCONV = 2 };

/* Which algorithm a run uses: the best one, or the coursework's loops as the seed wrote them. */
enum expint_algo { EXPINT_ALGO_FAST = 0, EXPINT_ALGO_COURSEWORK = 1 };

/* The branches of the fast algorithm (expint_branch_f/_d says which one a point takes): a
 * closed form (n = 0, x = 0, or a value that underflows to 0), the power series, the continued
 * fraction, and the uniform asymptotic expansion for large n. */
enum expint_branch {
	EXPINT_BRANCH_CLOSED = 0,
	EXPINT_BRANCH_SERIES = 1,
	EXPINT_BRANCH_CFRAC = 2,
	EXPINT_BRANCH_EXPANSION = 3,
	EXPINT_NBRANCH = 4
};

/* The name of branch b, for tables. */
QX_HD const char *expint_branch_name(int b)
{
	return b == EXPINT_BRANCH_SERIES      ? "series"
	       : b == EXPINT_BRANCH_CFRAC     ? "continued fraction"
	       : b == EXPINT_BRANCH_EXPANSION ? "expansion (large n)"
	                                      : "closed form";
}

#define EXPINT_EULER 0.57721566490153286061

/* x_j = a + step*j with one rounding (fma), so that every backend samples the same points. */
QX_HD double expint_grid_x(double a, double step, long long j)
{
	return fma(step, (double)j, a);
}

#define QX_CAT_(a, b) a##_##b
#define QX_CAT(a, b) QX_CAT_(a, b)

#endif

#define QX_FN(name) QX_CAT(name, QX_SUFFIX)

/* Per-precision constants: rounding unit, the order from which the asymptotic expansion is
 * accurate to it, a tiny number that stands for zero in Lentz's algorithm (coursework), the x
 * from which E_n(x) < e^{-x}/x rounds to 0 (e^{-x}/x is below half the smallest subnormal
 * there), ln 2 in two parts (Cody and Waite) and 1/ln 2, the largest k for which 2^-k is a
 * normal number with room to spare, and fma. */
#undef QX_ZERO_X
#undef QX_EPS
#undef QX_ASYM_N
#undef QX_TINY
#undef QX_EXP
#undef QX_LOG
#undef QX_FABS
#undef QX_FMA
#undef QX_LN2_HI
#undef QX_LN2_LO
#undef QX_LOG2E
#undef QX_SCALE_MAX
#undef QX_SCALE_STEP
#if QX_SUFFIX_IS_FLOAT
#define QX_EPS 5.9604645e-08f
#define QX_ASYM_N 30
#define QX_TINY 1e-30f
#define QX_ZERO_X 104.0f
#define QX_EXP expf
#define QX_LOG logf
#define QX_FABS fabsf
#define QX_FMA(a, b, c) fmaf((float)(a), (float)(b), (float)(c))
#define QX_LN2_HI 0.693145751953125f
#define QX_LN2_LO 1.428606765330187e-06f
#define QX_LOG2E 1.44269504f
#define QX_SCALE_MAX 120
#define QX_SCALE_STEP 32
#else
#define QX_EPS 1.1102230246251565e-16
#define QX_ASYM_N 250
#define QX_TINY 1e-300
#define QX_ZERO_X 745.0
#define QX_EXP exp
#define QX_LOG log
#define QX_FABS fabs
#define QX_FMA(a, b, c) fma((double)(a), (double)(b), (double)(c))
#define QX_LN2_HI 6.93147180369123816490e-01
#define QX_LN2_LO 1.90821492927058770002e-10
#define QX_LOG2E 1.4426950408889634
#define QX_SCALE_MAX 1000
#define QX_SCALE_STEP 128
#endif

/* 2^-k for 0 <= k < QX_SCALE_MAX + 2, built from its bits. */
QX_HD QX_REAL QX_FN(expint_pow2m)(int k)
{
#if QX_SUFFIX_IS_FLOAT
#ifdef __CUDA_ARCH__
	return __int_as_float((127 - k) << 23);
#else
	union {
		unsigned u;
		float f;
	} b = {(unsigned)(127 - k) << 23};
	return b.f;
#endif
#else
#ifdef __CUDA_ARCH__
	return __longlong_as_double((long long)(1023 - k) << 52);
#else
	union {
		unsigned long long u;
		double f;
	} b = {(unsigned long long)(1023 - k) << 52};
	return b.f;
#endif
#endif
}

/* e^{-x} for 0 < x < QX_ZERO_X as 2^-k (c + d), which expint_times_expm_parts multiplies by
 * hi + lo with one rounding in effect (any other x gives x = 0's parts, which callers leave
 * unused): e^{-x} = 2^-k e^y with y = k ln2 - x in [-ln2/2, ln2/2] kept as yh + yl (yh exact), e^y
 * = c + d where c + d = 1 + yh exactly (Fast2Sum) and d also holds yl + y^2 p(y), p the Taylor
 * polynomial of (e^y - 1 - y)/y^2 (to y^11/13! in double, y^6/8! in float: truncation below 0.05 of
 * the rounding unit; Estrin's scheme, for a short chain of dependent operations). The product (c +
 * d)(hi + lo) keeps its low parts; the scaling by 2^-k is exact unless the result is subnormal,
 * where it is the only rounding. */
struct QX_FN(expint_expm) {
	QX_REAL c, d;
	int k;
};
/* The parts of e^{-x} (above); they depend on x only, so a caller with several orders at one x
 * computes them once. */
QX_HD struct QX_FN(expint_expm) QX_FN(expint_expm_parts)(QX_REAL x)
{
	if (!(x > 0 && x < QX_ZERO_X))
		x = 0;
	const int k = (int)(x * QX_LOG2E + (QX_REAL)0.5);
	const QX_REAL kf = (QX_REAL)k;
	const QX_REAL yh = QX_FMA(kf, QX_LN2_HI, -x), yl = kf * QX_LN2_LO, y = yh + yl;
	const QX_REAL y2 = y * y;
#if QX_SUFFIX_IS_FLOAT
	const QX_REAL lo6 = QX_FMA(y2, QX_FMA(y, 8.33333333e-03f, 4.16666667e-02f),
	                           QX_FMA(y, 1.66666667e-01f, 0.5f));
	const QX_REAL hi6 =
	    QX_FMA(y2, 2.48015873e-05f, QX_FMA(y, 1.98412698e-04f, 1.38888889e-03f));
	const QX_REAL p6 = QX_FMA(y2 * y2, hi6, lo6);
#else
	const QX_REAL y4 = y2 * y2;
	const QX_REAL q0 = QX_FMA(y, 0.16666666666666666, 0.5);
	const QX_REAL q1 = QX_FMA(y, 0.008333333333333333, 0.041666666666666664);
	const QX_REAL q2 = QX_FMA(y, 0.0001984126984126984, 0.001388888888888889);
	const QX_REAL q3 = QX_FMA(y, 2.7557319223985893e-06, 2.48015873015873e-05);
	const QX_REAL q4 = QX_FMA(y, 2.505210838544172e-08, 2.755731922398589e-07);
	const QX_REAL q5 = QX_FMA(y, 1.6059043836821613e-10, 2.08767569878681e-09);
	const QX_REAL r0 = QX_FMA(y2, q1, q0), r1 = QX_FMA(y2, q3, q2), r2 = QX_FMA(y2, q5, q4);
	const QX_REAL p6 = QX_FMA(y4, QX_FMA(y4, r2, r1), r0);
#endif
	const QX_REAL c = 1 + yh;
	const QX_REAL d = QX_FMA(y2, p6, ((1 - c) + yh) + yl);
	const struct QX_FN(expint_expm) em = {c, d, k};
	return em;
}

/* (hi + lo) e^{-x} from e^{-x}'s parts em (expint_expm_parts). */
QX_HD QX_REAL QX_FN(expint_times_expm_parts)(const struct QX_FN(expint_expm) * em, QX_REAL hi,
                                             QX_REAL lo)
{
	const QX_REAL c = em->c, d = em->d;
	int k = em->k;
	const QX_REAL ph = c * hi;
	QX_REAL v = ph + QX_FMA(c, lo, QX_FMA(d, hi, QX_FMA(c, hi, -ph)));
	if (k > QX_SCALE_MAX) {
		v *= QX_FN(expint_pow2m)(QX_SCALE_STEP);
		k -= QX_SCALE_STEP;
	}
	return v * QX_FN(expint_pow2m)(k);
}

/* (hi + lo) e^{-x} for 0 < x < QX_ZERO_X (expint_expm_parts, then the product). */
QX_HD QX_REAL QX_FN(expint_times_expm)(QX_REAL x, QX_REAL hi, QX_REAL lo)
{
	const struct QX_FN(expint_expm) em = QX_FN(expint_expm_parts)(x);
	return QX_FN(expint_times_expm_parts)(&em, hi, lo);
}

/* E_n(x) for large n from the uniform asymptotic expansion (DLMF 8.20.3),
 * E_n(x) ~ e^{-x}/(x+n) sum_k A_k(x/n) (n/(x+n)^2)^k, rewritten in w = 1/(x+n) and u = x w:
 * term k is B_k(u) (1-u) w^k with B_k(u) = A_k(u/(1-u)) (1-u)^(k-1), a polynomial, so one
 * division serves. Float keeps k <= 5 (the first term left out is below 1.4e-9 relative for
 * n >= 30), double k <= 7 (below 2.5e-19 for n >= 250). 1/(x+n) is carried with its
 * rounding errors (of the sum and of the division) into the product with e^{-x}, whose parts
 * em = expint_expm_parts(x) the caller gives. */
QX_HD QX_REAL QX_FN(expint_expansion)(int n, QX_REAL x, const struct QX_FN(expint_expm) * em)
{
	const QX_REAL t = (QX_REAL)n, s = x + t;
	const QX_REAL big = x > t ? x : t, small = x > t ? t : x;
	const QX_REAL slo = (big - s) + small;
	const QX_REAL w = 1 / s;
	const QX_REAL e = QX_FMA(-s, w, 1) - slo * w;
	const QX_REAL u = x * w, v = t * w;
	const QX_REAL b2 = QX_FMA(-3, u, 1);
	const QX_REAL b3 = QX_FMA(u, QX_FMA(15, u, -10), 1);
	const QX_REAL b4 = QX_FMA(u, QX_FMA(u, QX_FMA(-105, u, 105), -25), 1);
	const QX_REAL b5 = QX_FMA(u, QX_FMA(u, QX_FMA(u, QX_FMA(945, u, -1260), 490), -56), 1);
#if QX_SUFFIX_IS_FLOAT
	const QX_REAL poly = QX_FMA(w, QX_FMA(w, QX_FMA(w, QX_FMA(w, b5, b4), b3), b2), 1);
#else
	const QX_REAL b6 = QX_FMA(
	    u, QX_FMA(u, QX_FMA(u, QX_FMA(u, QX_FMA(-10395, u, 17325), -9450), 1918), -119), 1);
	const QX_REAL b7 = QX_FMA(
	    u,
	    QX_FMA(
	        u,
	        QX_FMA(u, QX_FMA(u, QX_FMA(u, QX_FMA(135135, u, -270270), 190575), -56980), 6825),
	        -246),
	    1);
	const QX_REAL poly = QX_FMA(
	    w, QX_FMA(w, QX_FMA(w, QX_FMA(w, QX_FMA(w, QX_FMA(w, b7, b6), b5), b4), b3), b2), 1);
#endif
	const QX_REAL z = v * w * poly;
	const QX_REAL sh = 1 + z, sl = (1 - sh) + z;
	const QX_REAL ah = w * sh;
	const QX_REAL al = QX_FMA(w, sl, QX_FMA(ah, e, QX_FMA(w, sh, -ah)));
	return QX_FN(expint_times_expm_parts)(em, ah, al);
}

#if !QX_SUFFIX_IS_FLOAT
/* The depth of the continued fraction that leaves a truncation error below a tenth of the
 * rounding unit of double (of float when for_float) for every order n < QX_ASYM_N at this x,
 * and for every x > 0 when n >= 20 (n >= 10 for float): fitted with margin to the depths
 * measured in long double (n = 1..249, x = 0.05..700; n = 4..40, x = 1e-8..1). */
QX_HD long expint_cfrac_depth(int n, double x, int for_float)
{
	const double by_x = for_float ? 6 + 27 / x : 14 + 104 / x;
	const double by_n = for_float ? 5 + 260.0 / n : 10 + 1000.0 / n;
	return (long)(by_x < by_n ? by_x : by_n) + 1;
}

/* E_n(x) by the continued fraction 1/(b_0 + a_1/(b_1 + a_2/(b_2 + ...))) times e^{-x},
 * b_i = x + n + 2i, a_i = -i (n-1+i), evaluated backward from the given depth, the stable
 * direction (a rounding error made deep in the fraction is damped on the way out, where
 * forward (Lentz) evaluation lets them add up): the ratio P_1/P_0 of the solution of
 * P_{i-1} = b_{i-1} P_i + a_i P_{i+1}, P_{depth+1} = 1, P_depth = b_depth, rescaled by 2^-600
 * when it grows large, then the quotient with its remainder. Each step keeps the rounding
 * errors of b_{i-1} and of b_{i-1} P_i, which the cancellation with a_i P_{i+1} would enlarge. */
QX_HD double expint_cfrac_back(int n, double x, long depth)
{
	double m = (double)n + 2 * (double)depth, ii = (double)depth;
	double nm1i = (double)(n - 1) + (double)depth;
	double p1 = 1, p0 = x + m;
	for (long i = depth; i >= 1; i--) {
		m -= 2;
		/* b_{i-1} = x + m with its rounding error bl (TwoSum), b p0 with its own (fma) */
		const double b = x + m, bv = b - m, bl = (m - (b - bv)) + (x - bv);
		const double h = b * p0, hl = fma(bl, p0, fma(b, p0, -h));
		const double pn = fma(-(ii * nm1i), p1, h) + hl;
		p1 = p0;
		p0 = pn;
		ii -= 1;
		nm1i -= 1;
		if (p0 > 0x1p600) {
			p0 *= 0x1p-600;
			p1 *= 0x1p-600;
		}
	}
	const double ah = p1 / p0, al = fma(-ah, p0, p1) / p0;
	return expint_times_expm_d(x, ah, al);
}

/* E_n(x) for n < 20, 0 < x <= 1/2 by the power series
 * E_n(x) = sum_{k != n-1} -(-x)^k / ((k-n+1) k!) + (-x)^{n-1}/(n-1)! (psi(n) - ln x),
 * psi(n) = -gamma + sum_{k<n} 1/k, summed with compensation (the terms alternate and cancel
 * by up to e^{2x}); gamma in two parts. Stops when a term is below 1/16 of the rounding unit
 * relative to the sum; returns EXPINT_NOCONV after iters terms. */
QX_HD int expint_series_acc(int n, double x, long iters, double *out)
{
	const double euler_hi = 0.5772156649015329, euler_lo = -4.942915152430645e-18;
	const int nm1 = n - 1;
	double sum, comp, fact = 1;
	if (nm1 == 0) {
		const double lx = -log(x);
		sum = lx - euler_hi;
		comp = ((lx - sum) - euler_hi) - euler_lo;
	} else {
		sum = 1.0 / nm1;
		comp = fma(-sum, (double)nm1, 1.0) / nm1;
	}
	for (long i = 1; i <= iters; i++) {
		double del;
		fact *= -x / (double)i;
		if (i != nm1) {
			del = -fact / (double)(i - nm1);
		} else {
			double harmonic = 0;
			for (int k = nm1; k >= 1; k--)
				harmonic += 1.0 / k;
			del = fact * (((harmonic - euler_hi) - euler_lo) - log(x));
		}
		const double next = sum + del, bv = next - sum;
		comp += (sum - (next - bv)) + (del - bv);
		sum = next;
		if (fabs(del) < fabs(sum) * (QX_EPS / 16)) {
			*out = sum + comp;
			return EXPINT_OK;
		}
	}
	return EXPINT_NOCONV;
}
#endif

/* E_n(x) for x > 1 by the continued fraction, evaluated with modified Lentz's method; stops
 * when the update factor is 1 to within eps. Returns EXPINT_NOCONV after iters steps. */
QX_HD int QX_FN(expint_cfrac)(int n, QX_REAL x, long iters, QX_REAL eps, QX_REAL big, QX_REAL *out)
{
	const QX_REAL nm1 = (QX_REAL)(n - 1);
	QX_REAL b = x + (QX_REAL)n, c = big, d = 1 / b, h = d;
	for (long i = 1; i <= iters; i++) {
		const QX_REAL ri = (QX_REAL)i, a = -ri * (nm1 + ri);
		b += 2;
		d = 1 / (a * d + b);
		c = b + a / c;
		const QX_REAL del = c * d;
		h *= del;
		if (QX_FABS(del - 1) <= eps) {
			*out = h * QX_EXP(-x);
			return EXPINT_OK;
		}
	}
	return EXPINT_NOCONV;
}

/* E_n(x) for 0 < x <= 1 by the power series; the term with k = n-1 carries the digamma
 * function psi(n) = -gamma + sum_{k<n} 1/k. Stops when a term falls below eps relative to
 * the sum. Returns EXPINT_NOCONV after iters terms. */
QX_HD int QX_FN(expint_series)(int n, QX_REAL x, long iters, QX_REAL eps, QX_REAL *out)
{
	const int nm1 = n - 1;
	QX_REAL ans = nm1 != 0 ? (QX_REAL)1 / (QX_REAL)nm1 : -QX_LOG(x) - (QX_REAL)EXPINT_EULER;
	QX_REAL fact = 1;
	for (long i = 1; i <= iters; i++) {
		QX_REAL del;
		fact *= -x / (QX_REAL)i;
		if (i != nm1) {
			del = -fact / (QX_REAL)(i - nm1);
		} else {
			QX_REAL psi = -(QX_REAL)EXPINT_EULER;
			for (int k = 1; k <= nm1; k++)
				psi += (QX_REAL)1 / (QX_REAL)k;
			del = fact * (-QX_LOG(x) + psi);
		}
		ans += del;
		if (QX_FABS(del) < QX_FABS(ans) * eps) {
			*out = ans;
			return EXPINT_OK;
		}
	}
	return EXPINT_NOCONV;
}

/* Handles the domain and the closed-form cases shared by both algorithms: returns
 * EXPINT_DOMAIN for n < 0, x < 0 (or NaN), x = 0 with n <= 1; EXPINT_OK with *out set for
 * n = 0 (e^{-x}/x), x = 0 (1/(n-1)) and x >= QX_ZERO_X (0: the value underflows, and near
 * the top of the range the continued fraction's subnormal 1/x would never converge); -1 when
 * the caller must compute. */
QX_HD int QX_FN(expint_special)(int n, QX_REAL x, QX_REAL *out)
{
	if (n < 0 || !(x >= 0) || (x == 0 && n <= 1))
		return EXPINT_DOMAIN;
	if (n == 0) {
		*out = QX_EXP(-x) / x;
		return EXPINT_OK;
	}
	if (x == 0) {
		*out = (QX_REAL)1 / (QX_REAL)(n - 1);
		return EXPINT_OK;
	}
	if (x >= QX_ZERO_X) {
		*out = 0;
		return EXPINT_OK;
	}
	return -1;
}

/* The branch (enum expint_branch) the fast algorithm takes at (n, x) in the domain: the
 * expansion from QX_ASYM_N, the series for n < 20 and x <= 1/2, else the continued fraction. */
QX_HD int QX_FN(expint_branch)(int n, QX_REAL x)
{
	if (n == 0 || x == 0 || x >= QX_ZERO_X)
		return EXPINT_BRANCH_CLOSED;
	if (n >= QX_ASYM_N)
		return EXPINT_BRANCH_EXPANSION;
	return n < 20 && x <= (QX_REAL)0.5 ? EXPINT_BRANCH_SERIES : EXPINT_BRANCH_CFRAC;
}

/* E_n(x), the fast algorithm, to within 2 ulp: e^{-x}/x for n = 0 (the quotient carried with
 * its remainder), the expansion for large n, otherwise the series or the continued fraction,
 * which in float are computed in double and rounded once (they serve only n < 30 there).
 * em = expint_expm_parts(x): the parts of e^{-x}, which a caller with several orders at one x
 * computes once. Returns EXPINT_NOCONV when the series needs more than iters terms or the
 * continued fraction a depth above iters. */
QX_HD int QX_FN(expint_fast_em)(int n, QX_REAL x, long iters, const struct QX_FN(expint_expm) * em,
                                QX_REAL *out)
{
	if (n == 0 && x > 0 && x < QX_ZERO_X) {
		const QX_REAL r = 1 / x;
		*out = QX_FN(expint_times_expm_parts)(em, r, QX_FMA(-x, r, 1) * r);
		return EXPINT_OK;
	}
	const int special = QX_FN(expint_special)(n, x, out);
	if (special >= 0)
		return special;
	const int branch = QX_FN(expint_branch)(n, x);
	if (branch == EXPINT_BRANCH_EXPANSION) {
		*out = QX_FN(expint_expansion)(n, x, em);
		return EXPINT_OK;
	}
	if (branch == EXPINT_BRANCH_SERIES) {
		double v = 0;
		const int status = expint_series_acc(n, (double)x, iters, &v);
		*out = (QX_REAL)v;
		return status;
	}
	const long depth = expint_cfrac_depth(n, (double)x, QX_SUFFIX_IS_FLOAT);
	if (depth > iters)
		return EXPINT_NOCONV;
	*out = (QX_REAL)expint_cfrac_back(n, (double)x, depth);
	return EXPINT_OK;
}

/* E_n(x), the fast algorithm (expint_fast_em with e^{-x}'s parts computed here). */
QX_HD int QX_FN(expint_fast)(int n, QX_REAL x, long iters, QX_REAL *out)
{
	const struct QX_FN(expint_expm) em = QX_FN(expint_expm_parts)(x);
	return QX_FN(expint_fast_em)(n, x, iters, &em, out);
}

/* E_n(x) as the coursework computed it: continued fraction or series with the fixed
 * tolerance 1e-30, which keeps iterating long past this precision's rounding unit. */
QX_HD int QX_FN(expint_coursework)(int n, QX_REAL x, long iters, QX_REAL *out)
{
	const int special = QX_FN(expint_special)(n, x, out);
	if (special >= 0)
		return special;
	if (x > 1)
		return QX_FN(expint_cfrac)(n, x, iters, (QX_REAL)1e-30, 1 / QX_TINY, out);
	return QX_FN(expint_series)(n, x, iters, (QX_REAL)1e-30, out);
}

#undef QX_FN
