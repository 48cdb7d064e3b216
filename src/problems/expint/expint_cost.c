/* expint_cost.c - the GPU cost model of the fast algorithm's rows (expint_cost.h): each branch
 * of expint_fast_em timed on an H100 (the fast kernel's mapping, every point of a launch of
 * one branch and depth), fitted to the branch's step count within about 10%. */
#include "expint_cost.h"

#include "expint_math.h"

/* Picoseconds a point on an H100: the expansion and the closed form by precision ([0] float,
 * [1] double; the closed form in double was not timed apart and takes float's ratio to the
 * expansion); the continued fraction per its depth and the series per term, both computed in
 * double in either precision, the series plus one division an order when its loop reaches
 * the digamma term. */
static const double COST_EXPANSION[2] = {6.1, 8.1}, COST_CLOSED[2] = {4.6, 6.1};
static const double COST_CFRAC = 9.2, COST_CFRAC_STEP = 1.22;
static const double COST_SERIES = 8.4, COST_SERIES_TERM = 2.8, COST_DIGAMMA_ORDER = 0.9;

/* Samples a row's cost is estimated from. */
enum { COST_SAMPLES = 256 };

/* The series' terms at x (0 < x <= 1/2): the first k with x^k / k! below 2^-57, which is
 * within one of the terms expint_series_acc sums before its stopping test holds. */
static int series_terms(double x)
{
	double t = 1;
	int k = 0;
	while (t >= 0x1p-57 && k < 200) {
		k++;
		t *= x / k;
	}
	return k;
}

/* The modeled time of one point (expint_cost.h). */
double expint_point_cost(int n, double x, enum qx_precision prec)
{
	const int p = prec == QX_DOUBLE;
	const int branch = p ? expint_branch_d(n, x) : expint_branch_f(n, (float)x);
	const double xr = p ? x : (double)(float)x;
	if (branch == EXPINT_BRANCH_EXPANSION)
		return COST_EXPANSION[p];
	if (branch == EXPINT_BRANCH_CFRAC)
		return COST_CFRAC + COST_CFRAC_STEP * (double)expint_cfrac_depth(n, xr, !p);
	if (branch == EXPINT_BRANCH_SERIES) {
		const int terms = series_terms(xr);
		return COST_SERIES + COST_SERIES_TERM * terms +
		       (n > 1 && terms >= n - 1 ? COST_DIGAMMA_ORDER * (n - 1) : 0);
	}
	return COST_CLOSED[p];
}

/* m times the mean cost of order `order` over the row's samples. */
static double row_cost(int order, long long m, double a, double step, enum qx_precision prec)
{
	const long long s = m < COST_SAMPLES ? m : COST_SAMPLES;
	double sum = 0;
	for (long long i = 0; i < s; i++) {
		const long long j = s > 1 ? 1 + i * (m - 1) / (s - 1) : 1;
		sum += expint_point_cost(order, expint_grid_x(a, step, j), prec);
	}
	return sum / (double)s * (double)m;
}

/* Fills the rows' costs (expint_cost.h). */
void expint_row_costs(int n, long long m, double a, double b, enum qx_precision prec, double *cost)
{
	const double step = (b - a) / (double)m;
	int i = 0;
	for (; i < n; i++) {
		const int order = i + 1;
		const int uniform = prec == QX_DOUBLE
		                        ? expint_branch_d(order, 1.0) == EXPINT_BRANCH_EXPANSION
		                        : expint_branch_f(order, 1.0f) == EXPINT_BRANCH_EXPANSION;
		cost[i] = row_cost(order, m, a, step, prec);
		if (uniform)
			break;
	}
	for (int k = i + 1; k < n; k++)
		cost[k] = cost[i];
}
