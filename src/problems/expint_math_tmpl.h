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
 * accurate to it (checked against mpmath in tests/unit/test_expint.c), a tiny number that
 * stands for zero in Lentz's algorithm, and the x from which E_n(x) < e^{-x}/x rounds to 0
 * (e^{-x}/x is below half the smallest subnormal there). */
#undef QX_ZERO_X
#undef QX_EPS
#undef QX_ASYM_N
#undef QX_TINY
#undef QX_EXP
#undef QX_LOG
#undef QX_FABS
#if QX_SUFFIX_IS_FLOAT
#define QX_EPS 5.9604645e-08f
#define QX_ASYM_N 30
#define QX_TINY 1e-30f
#define QX_ZERO_X 104.0f
#define QX_EXP expf
#define QX_LOG logf
#define QX_FABS fabsf
#else
#define QX_EPS 1.1102230246251565e-16
#define QX_ASYM_N 250
#define QX_TINY 1e-300
#define QX_ZERO_X 745.0
#define QX_EXP exp
#define QX_LOG log
#define QX_FABS fabs
#endif

/* E_n(x) for large n from the uniform asymptotic expansion (DLMF 8.20.3):
 * E_n(x) ~ e^{-x}/(x+n) * sum_k A_k(l) q^k with l = x/n, q = n/(x+n)^2. Float keeps A_0..A_4
 * (relative error below 5e-8 for n >= 30), double A_0..A_6 (below 3e-17 for n >= 250). */
QX_HD QX_REAL QX_FN(expint_asymptotic)(int n, QX_REAL x)
{
	const QX_REAL t = (QX_REAL)n, l = x / t, rs = 1 / (x + t), q = t * rs * rs;
	const QX_REAL a2 = 1 - 2 * l;
	const QX_REAL a3 = 1 + l * (-8 + 6 * l);
	const QX_REAL a4 = 1 + l * (-22 + l * (58 - 24 * l));
#if QX_SUFFIX_IS_FLOAT
	QX_REAL sum = 1 + q * (1 + q * (a2 + q * (a3 + q * a4)));
#else
	const QX_REAL a5 = 1 + l * (-52 + l * (328 + l * (-444 + 120 * l)));
	const QX_REAL a6 = 1 + l * (-114 + l * (1452 + l * (-4400 + l * (3708 - 720 * l))));
	QX_REAL sum = 1 + q * (1 + q * (a2 + q * (a3 + q * (a4 + q * (a5 + q * a6)))));
#endif
	return QX_EXP(-x) * rs * sum;
}

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

/* E_n(x), the fast algorithm: asymptotic expansion for large n, otherwise the continued
 * fraction (x > 1) or the series (x <= 1), each stopped at this precision's rounding unit. */
QX_HD int QX_FN(expint_fast)(int n, QX_REAL x, long iters, QX_REAL *out)
{
	const int special = QX_FN(expint_special)(n, x, out);
	if (special >= 0)
		return special;
	if (n >= QX_ASYM_N) {
		*out = QX_FN(expint_asymptotic)(n, x);
		return EXPINT_OK;
	}
	if (x > 1)
		return QX_FN(expint_cfrac)(n, x, iters, QX_EPS, 1 / QX_TINY, out);
	return QX_FN(expint_series)(n, x, iters, QX_EPS, out);
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
