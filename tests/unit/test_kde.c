/* test_kde.c - problem kde's numerical core on the CPU (src/problems/kde/kde_math.h, kde_data.h):
 * the exact sums in double and float against tests/data/kde_ref.csv (mpmath at two
 * precisions, made by tests/gen_kde_ref.py) in 1-D to 3-D, at the samples and into the
 * tails; the bandwidth rules; the grid; the float sum at n = 2^22; the exact-sample
 * reference; the binned approximation's error; the polynomial exp2 the GPU uses; the seed's
 * arithmetic; the generators; cancellation; `set data FILE`'s errors; the chart a 1-D
 * run leaves for the dashboard (through the problem's run_cpu and session_run); and the samples
 * each session keeps in its own state. */
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <semaphore.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../src/problems/kde/kde_data.h"
#include "../../src/problems/kde/kde_math.h"
#include "../../src/run.h"
#include "../../src/session.h"

#define MAXSETS 8
#define MAXS 256
#define MAXY 1024

struct ref_set {
	char name[16];
	int dim;
	size_t n;
	double x[KDE_DMAX][MAXS];
	long double bw[2][KDE_DMAX]; /* silverman, scott */
};

struct ref_y {
	int set;
	double h[KDE_DMAX], p[KDE_DMAX];
	long double value;
};

static struct ref_set sets[MAXSETS];
static struct ref_y ys[MAXY];
static size_t nsets, nys;

/* Index of set name, added when new (dim given). */
static int set_index(const char *name, int dim)
{
	for (size_t i = 0; i < nsets; i++)
		if (!strcmp(sets[i].name, name))
			return (int)i;
	if (nsets == MAXSETS || dim < 1)
		return -1;
	snprintf(sets[nsets].name, sizeof sets[nsets].name, "%s", name);
	sets[nsets].dim = dim;
	return (int)nsets++;
}

/* Loads tests/data/kde_ref.csv once; fails the group when it is missing or malformed. */
static int load_refs(void **state)
{
	FILE *f = fopen("tests/data/kde_ref.csv", "r");
	char line[512], name[16], rule[16];
	(void)state;
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f)) {
		double a[3], b[3];
		long double v, w[3];
		int dim, s;
		if (line[0] == '#')
			continue;
		if (sscanf(line, "S,%15[^,],%d,%lf,%lf,%lf", name, &dim, &a[0], &a[1], &a[2]) ==
		    5) {
			if ((s = set_index(name, dim)) < 0 || sets[s].n == MAXS)
				return -1;
			for (int k = 0; k < 3; k++)
				sets[s].x[k][sets[s].n] = a[k];
			sets[s].n++;
		} else if (sscanf(line, "B,%15[^,],%15[^,],%Lf,%Lf,%Lf", name, rule, &w[0], &w[1],
		                  &w[2]) == 5) {
			if ((s = set_index(name, 0)) < 0)
				return -1;
			memcpy(sets[s].bw[strcmp(rule, "silverman") ? 1 : 0], w, sizeof w);
		} else if (sscanf(line, "Y,%15[^,],%lf,%lf,%lf,%lf,%lf,%lf,%Lf", name, &a[0], &a[1],
		                  &a[2], &b[0], &b[1], &b[2], &v) == 8) {
			if (nys == MAXY || (s = set_index(name, 0)) < 0)
				return -1;
			ys[nys].set = s;
			memcpy(ys[nys].h, a, sizeof a);
			memcpy(ys[nys].p, b, sizeof b);
			ys[nys++].value = v;
		} else {
			return -1;
		}
	}
	fclose(f);
	return nsets == 5 && nys > 600 ? 0 : -1;
}

/* A view of reference set i as kde_points (not owned). */
static struct kde_points set_points(int i)
{
	struct kde_points p = {.n = sets[i].n, .dim = sets[i].dim};
	for (int k = 0; k < sets[i].dim; k++)
		p.x[k] = sets[i].x[k];
	return p;
}

/* One point as kde_points (not owned). */
static struct kde_points one_point(double *p, int dim)
{
	static double coord[KDE_DMAX][1];
	struct kde_points at = {.n = 1, .dim = dim};
	for (int k = 0; k < dim; k++) {
		coord[k][0] = p[k];
		at.x[k] = coord[k];
	}
	return at;
}

/* The double sum agrees with mpmath to 1e-13 at every reference point, 1-D to 3-D, at the
 * samples and into the tails (down to 1e-114), on 1 and 2 threads alike. */
static void test_exact_double(void **state)
{
	struct qx_err e;
	double worst = 0;
	(void)state;
	for (size_t i = 0; i < nys; i++) {
		const struct ref_y *r = &ys[i];
		struct kde_points s = set_points(r->set), at = one_point((double *)r->p, s.dim);
		double y1, y2;
		assert_int_equal(kde_exact_d(&s, r->h, &at, NULL, 1, &y1, 1, NULL, &e), 0);
		assert_int_equal(kde_exact_d(&s, r->h, &at, NULL, 1, &y2, 2, NULL, &e), 0);
		assert_true(y1 == y2);
		const double rel = (double)fabsl((y1 - r->value) / r->value);
		if (rel > 1e-13)
			fail_msg("%s at %g: %.17g, mpmath %.17Lg (rel %.2g)", sets[r->set].name,
			         r->p[0], y1, r->value, rel);
		worst = fmax(worst, rel);
	}
	print_message("exact double: %zu points, worst relative error %.2g (%s)\n", nys, worst,
	              kde_exact_isa());
}

/* The smallest exponent sum_k ((p_k - x_jk) / h_k)^2 / 2 over the samples of set r->set: how
 * far into the tail point p lies (the float error of exp(-q) grows with q). */
static double tail_depth(const struct ref_y *r)
{
	const struct ref_set *s = &sets[r->set];
	double best = INFINITY;
	for (size_t j = 0; j < s->n; j++) {
		double q = 0;
		for (int k = 0; k < s->dim; k++)
			q += pow((r->p[k] - s->x[k][j]) / r->h[k], 2) / 2;
		best = fmin(best, q);
	}
	return best;
}

/* The float sum is within 1e-5 of mpmath wherever some sample lies within 6.3 h (q <= 20)
 * and within 4e-7 q further into the tail (float's relative error of an exponent of size q),
 * wherever the density is a normal float (>= 1e-30). */
static void test_exact_float(void **state)
{
	struct qx_err e;
	double worst = 0;
	size_t checked = 0;
	(void)state;
	for (size_t i = 0; i < nys; i++) {
		const struct ref_y *r = &ys[i];
		struct kde_points s = set_points(r->set), at = one_point((double *)r->p, s.dim);
		float y;
		if (r->value < 1e-30L)
			continue;
		assert_int_equal(kde_exact_f(&s, r->h, &at, NULL, 1, &y, 2, NULL, &e), 0);
		const double rel = (double)fabsl((y - r->value) / r->value);
		const double q = tail_depth(r), bound = q <= 20 ? 1e-5 : 4e-7 * q;
		if (rel > bound)
			fail_msg("%s at %g (q %.3g): %.9g, mpmath %.17Lg (rel %.2g)",
			         sets[r->set].name, r->p[0], q, y, r->value, rel);
		if (q <= 20)
			worst = fmax(worst, rel);
		checked++;
	}
	assert_true(checked > 500);
	print_message("exact float: %zu points, worst relative error %.2g where q <= 20\n", checked,
	              worst);
}

/* The bandwidth rules agree with mpmath's evaluation of the same formulas to 1e-13. */
static void test_bandwidth(void **state)
{
	struct qx_err e;
	(void)state;
	for (size_t i = 0; i < nsets; i++) {
		struct kde_points s = set_points((int)i);
		for (int rule = 0; rule < 2; rule++) {
			double h[KDE_DMAX];
			assert_int_equal(kde_bandwidth(&s, rule ? KDE_SCOTT : KDE_SILVERMAN, h, &e),
			                 0);
			for (int k = 0; k < s.dim; k++)
				if (fabsl((h[k] - sets[i].bw[rule][k]) / sets[i].bw[rule][k]) >
				    1e-13)
					fail_msg("%s rule %d axis %d: %.17g, mpmath %.17Lg",
					         sets[i].name, rule, k, h[k], sets[i].bw[rule][k]);
		}
	}
	double one = 3, h;
	struct kde_points flat = {.n = 1, .dim = 1, .x = {&one}};
	assert_int_equal(kde_bandwidth(&flat, KDE_SCOTT, &h, &e), -1);
	assert_non_null(strstr(e.msg, "at least 2 samples"));
	double same[4] = {2, 2, 2, 2};
	struct kde_points eq = {.n = 4, .dim = 1, .x = {same}};
	assert_int_equal(kde_bandwidth(&eq, KDE_SILVERMAN, &h, &e), -1);
	assert_non_null(strstr(e.msg, "no spread"));
}

/* The grid spans the samples padded by 3 h with exact ends; in 2-D axis 0 varies fastest. */
static void test_grid(void **state)
{
	struct qx_err e;
	struct kde_points s = set_points(3), g;
	const double h[2] = {0.5, 0.25};
	double lo[2], hi[2], mn = INFINITY, mx = -INFINITY;
	(void)state;
	for (size_t j = 0; j < s.n; j++) {
		mn = fmin(mn, s.x[1][j]);
		mx = fmax(mx, s.x[1][j]);
	}
	kde_grid_limits(&s, h, lo, hi);
	assert_true(lo[1] == mn - 0.75 && hi[1] == mx + 0.75);
	assert_true(kde_grid_coord(lo[0], hi[0], 7, 0) == lo[0]);
	assert_true(kde_grid_coord(lo[0], hi[0], 7, 6) == hi[0]);
	assert_true(fabs(kde_grid_coord(0, 6, 7, 4) - 4) < 1e-15);
	assert_int_equal(kde_grid_points(lo, hi, 2, 5, &g, &e), 0);
	assert_int_equal(g.n, 25);
	assert_true(g.x[0][1] > g.x[0][0] && g.x[1][1] == g.x[1][0]);
	assert_true(g.x[0][5] == lo[0] && g.x[1][5] > lo[1] && g.x[1][24] == hi[1]);
	kde_points_free(&g);
	assert_int_equal(kde_grid_points(lo, hi, 3, (size_t)1 << 30, &g, &e), -1);
	qx_cancel_request(); /* a Ctrl-C: the grid's build stops (a 3-D grid takes seconds) */
	assert_int_equal(kde_grid_points(lo, hi, 2, 5, &g, &e), -1);
	assert_non_null(strstr(e.msg, "cancelled while building the grid"));
	qx_cancel_clear();
}

/* Generated samples: the same seed gives the same samples, another seed others; the
 * distributions have their moments or quartiles (n = 2^16, each bound > 5 standard errors). */
static void test_generate(void **state)
{
	struct qx_err e;
	struct kde_points a, b;
	const size_t n = 1 << 16;
	(void)state;
	assert_int_equal(kde_points_alloc(&a, n, 2, &e), 0);
	assert_int_equal(kde_points_alloc(&b, n, 2, &e), 0);
	kde_generate(KDE_NORMAL, 5, &a);
	kde_generate(KDE_NORMAL, 5, &b);
	assert_memory_equal(a.x[1], b.x[1], n * sizeof(double));
	kde_generate(KDE_NORMAL, 6, &b);
	assert_true(a.x[0][0] != b.x[0][0] && a.x[1][7] != b.x[1][7]);
	for (int d = KDE_NORMAL; d <= KDE_STUDENT; d++) {
		double sum = 0, ss = 0, neg = 0, q[2];
		kde_generate(d, 11, &a);
		for (size_t j = 0; j < n; j++) {
			sum += a.x[0][j];
			ss += a.x[0][j] * a.x[0][j];
			neg += a.x[0][j] < 0;
			assert_true(isfinite(a.x[0][j]));
		}
		const double mean = sum / n, var = ss / n - mean * mean;
		memcpy(b.x[0], a.x[0], n * sizeof(double));
		struct kde_points one = {.n = n, .dim = 1, .x = {b.x[0]}};
		double h;
		assert_int_equal(kde_bandwidth(&one, KDE_SCOTT, &h, &e), 0);
		q[0] = mean;
		q[1] = var;
		switch (d) {
		case KDE_NORMAL:
			assert_true(fabs(mean) < 0.02 && fabs(var - 1) < 0.03);
			break;
		case KDE_MIXTURE: /* 0.5 N(-2, 1) + 0.5 N(2, 1/4): mean 0, variance 4.625 */
			assert_true(fabs(mean) < 0.05 && fabs(var - 4.625) < 0.1);
			/* P(x < 0) = (Phi(2) + Phi(-4)) / 2 = 0.48864 */
			assert_true(fabs(neg / n - 0.48864) < 0.01);
			break;
		case KDE_UNIFORM:
			assert_true(fabs(mean - 0.5) < 0.006 && fabs(var - 1.0 / 12) < 0.003);
			for (size_t j = 0; j < n; j++)
				assert_true(a.x[0][j] >= 0 && a.x[0][j] < 1);
			break;
		case KDE_EXPONENTIAL:
			assert_true(fabs(mean - 1) < 0.02 && fabs(var - 1) < 0.06 && neg == 0);
			break;
		default: /* t with 3 degrees of freedom: half the samples below 0, and a
		          * variance of 3 that converges slowly: only bounds */
			assert_true(fabs(neg / n - 0.5) < 0.01 && var > 2 && var < 5);
			break;
		}
		(void)q;
	}
	kde_points_free(&a);
	kde_points_free(&b);
}

/* At n = 2^22 normal samples (Silverman's h) the float sum at 64 outputs stays within 1e-5 of
 * the double sum (the Gaussian KDE study's bound for float; naive float summation exceeds it),
 * and the exact-sample reference (idx) gives the same values as the full run at those outputs. */
static void test_float_large_n(void **state)
{
	struct qx_err e;
	struct kde_points s;
	const size_t n = (size_t)1 << 22, k = 64;
	size_t idx[64];
	double h, yd[64], worst = 0;
	float yf[64];
	(void)state;
	assert_int_equal(kde_points_alloc(&s, n, 1, &e), 0);
	kde_generate(KDE_NORMAL, 1, &s);
	assert_int_equal(kde_bandwidth(&s, KDE_SILVERMAN, &h, &e), 0);
	kde_sample_indices(n, k, idx);
	assert_true(idx[0] == 0 && idx[1] == n / k && idx[63] == 63 * (n / k));
	assert_int_equal(kde_exact_d(&s, &h, &s, idx, k, yd, 2, NULL, &e), 0);
	assert_int_equal(kde_exact_f(&s, &h, &s, idx, k, yf, 2, NULL, &e), 0);
	for (size_t i = 0; i < k; i++)
		worst = fmax(worst, fabs(yf[i] - yd[i]) / yd[i]);
	print_message("float at n = 2^22: worst relative error %.2g over %zu outputs\n", worst, k);
	assert_true(worst <= 1e-5);
	/* the idx outputs equal a run over points that are those samples */
	struct kde_points at;
	double y2[64];
	assert_int_equal(kde_points_alloc(&at, k, 1, &e), 0);
	for (size_t i = 0; i < k; i++)
		at.x[0][i] = s.x[0][idx[i]];
	assert_int_equal(kde_exact_d(&s, &h, &at, NULL, k, y2, 2, NULL, &e), 0);
	assert_memory_equal(y2, yd, sizeof yd);
	kde_points_free(&at);
	kde_points_free(&s);
}

/* The binned approximation at G = 4096 (n = 2^16) stays within 1e-4 relative of the exact
 * sum wherever the density is above 1e-3 of its maximum, for a normal and the mixture. */
static void test_binned(void **state)
{
	struct qx_err e;
	const size_t n = 1 << 16, g = 4096;
	double *yb = malloc(g * sizeof *yb), *yx = malloc(g * sizeof *yx);
	(void)state;
	for (int d = KDE_NORMAL; d <= KDE_MIXTURE; d++) {
		struct kde_points s, grid;
		double h, lo, hi, top = 0, worst = 0;
		assert_int_equal(kde_points_alloc(&s, n, 1, &e), 0);
		kde_generate(d, 3, &s);
		assert_int_equal(kde_bandwidth(&s, KDE_SILVERMAN, &h, &e), 0);
		kde_grid_limits(&s, &h, &lo, &hi);
		assert_int_equal(kde_grid_points(&lo, &hi, 1, g, &grid, &e), 0);
		assert_int_equal(kde_binned(&s, h, lo, hi, g, yb, NULL, &e), 0);
		assert_int_equal(kde_exact_d(&s, &h, &grid, NULL, g, yx, 2, NULL, &e), 0);
		for (size_t i = 0; i < g; i++)
			top = fmax(top, yx[i]);
		for (size_t i = 0; i < g; i++)
			if (yx[i] > 1e-3 * top)
				worst = fmax(worst, fabs(yb[i] - yx[i]) / yx[i]);
		print_message("binned %s, n = 2^16, G = 4096, h = %.3g: worst relative error %.2g "
		              "where y > 1e-3 max\n",
		              d == KDE_NORMAL ? "normal" : "mixture", h, worst);
		assert_true(worst <= 1e-4);
		assert_true(worst > 0); /* an approximation: an exact match would be suspect */
		kde_points_free(&grid);
		kde_points_free(&s);
	}
	assert_int_equal(kde_binned(&(struct kde_points){0}, 1, 0, 1, 1, yb, NULL, &e), -1);
	free(yb);
	free(yx);
}

/* The polynomial 2^-d^2 of the fast GPU variant: <= 4e-6 relative in float over |d| <= 11.18
 * (d^2 up to 125); beyond, below 2^-124; its factorized a 2^(q s) likewise over the fast
 * kernel's range, and 0 for a sample it drops (a = 0, s = 0). The double exp2 of the tiled
 * double kernel: <= 4e-16 over [-1021, 0]; 0 below. */
static void test_exp2_poly(void **state)
{
	double wf = 0, wd = 0;
	(void)state;
	for (int i = 0; i <= 2000000; i++) {
		const float d = 11.18f * (float)i / 2000000.0f;
		const double ed = -1021.0 * i / 2000000.0;
		const double xf = exp2(-(double)d * (double)d);
		wf = fmax(wf, fabs(kde_gauss2_poly_f(d) - xf) / xf);
		wf = fmax(wf, fabs(kde_gauss2_poly_f(-d) - xf) / xf);
		const long double x = exp2l((long double)ed);
		wd = fmax(wd, (double)fabsl((kde_exp2_poly_d(ed) - x) / x));
	}
	/* the factorized a 2^(q s) over the fast kernel's range: |q| <= 3 (outputs within 1.5
	 * of the centre), |s| <= 9.5, a = 2^(-s^2) */
	double wq = 0;
	for (int i = 0; i <= 400; i++)
		for (int k = 0; k <= 2000; k++) {
			const float q = -3.0f + 6.0f * (float)i / 400.0f;
			const float sv = -9.5f + 19.0f * (float)k / 2000.0f;
			const float a = (float)exp2(-(double)sv * sv);
			const double x = (double)a * exp2((double)q * sv);
			wq = fmax(wq, fabs(kde_fact_poly_f(q, sv, a) - x) / x);
		}
	print_message("exp2 polynomial: float %.2g (factorized %.2g), double %.2g relative\n", wf,
	              wq, wd);
	assert_true(wf <= 4e-6 && wq <= 4e-6 && wd <= 4e-16);
	assert_true(kde_fact_poly_f(0, 0, 0) == 0 && kde_fact_poly_f(2, 0.5f, 0.25f) == 0.5f);
	assert_true(wf > 0); /* a polynomial: an exact match would be suspect */
	assert_true(kde_gauss2_poly_f(12.0f) <= 0x1p-124f && kde_gauss2_poly_f(12.0f) > 0);
	assert_true(kde_gauss2_poly_f(INFINITY) <= 0x1p-124f);
	assert_true(kde_gauss2_poly_f(0) == 1 && kde_gauss2_poly_f(1) == 0.5f);
	assert_true(kde_exp2_poly_d(-1022.0) == 0 && kde_exp2_poly_d(-3) == 0.125);
}

/* The seed's arithmetic: with h truncated to int 0 every term is K(+-inf) = 0, except NaN
 * where x_i equals a truncated sample; with h = 1 and whole-number samples (truncation a no-op)
 * it is n h times the density without the seed's missing 1/(n h). y is added to, not set. */
static void test_seed_emulate(void **state)
{
	struct qx_err e;
	const float x[4] = {1.0f, 1.5f, 2.25f, -0.5f};
	float y[4] = {0, 0, 7, 0};
	(void)state;
	kde_seed_emulate(x, 4, 0, y);
	assert_true(isnan(y[0]) && y[1] == 0 && y[2] == 7 && y[3] == 0);
	const float w[3] = {1, 2, 4};
	double wd[3] = {1, 2, 4}, yd[3], h = 1;
	float yw[3] = {0, 0, 0};
	struct kde_points s = {.n = 3, .dim = 1, .x = {wd}};
	kde_seed_emulate(w, 3, 1, yw);
	assert_int_equal(kde_exact_d(&s, &h, &s, NULL, 3, yd, 1, NULL, &e), 0);
	for (int i = 0; i < 3; i++)
		assert_true(fabs(yw[i] - 3 * yd[i]) < 1e-6 * yw[i]);
}

/* A cancel request stops a run with "run cancelled"; progress counts every output. */
static int always(void)
{
	return 1;
}
static long long progressed;
static void count_progress(long long k)
{
	progressed += k;
}
static void test_cancel(void **state)
{
	struct qx_err e;
	struct kde_points s = set_points(1);
	double h = 0.3, y[MAXS];
	float yf[MAXS];
	const struct kde_hooks stop = {always, NULL}, count = {NULL, count_progress};
	(void)state;
	assert_int_equal(kde_exact_d(&s, &h, &s, NULL, s.n, y, 2, &stop, &e), -1);
	assert_string_equal(e.msg, "run cancelled");
	assert_int_equal(kde_exact_f(&s, &h, &s, NULL, s.n, yf, 2, &stop, &e), -1);
	assert_int_equal(kde_binned(&s, h, -5, 5, 64, y, &stop, &e), -1);
	progressed = 0;
	assert_int_equal(kde_exact_d(&s, &h, &s, NULL, s.n, y, 2, &count, &e), 0);
	assert_int_equal(progressed, (long long)s.n);
}

/* Writes text to a temporary file; returns its path (static buffer). */
static const char *tmpfile_with(const char *text)
{
	static char path[64];
	snprintf(path, sizeof path, "/tmp/test_kde_XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (long)strlen(text));
	close(fd);
	return path;
}

/* Loads text with columns cols; returns the loader's status, e filled, p owned on success. */
static int load_text(const char *text, const int *cols, int ncols, size_t max_n,
                     struct kde_points *p, struct qx_err *e)
{
	const char *path = tmpfile_with(text);
	int chosen[KDE_DMAX];
	memcpy(chosen, cols, (size_t)ncols * sizeof *cols);
	const int rc = kde_data_load(path, chosen, ncols, max_n, p, e);
	unlink(path);
	return rc;
}

/* Good files: one number per line (blank and comment lines skipped, CRLF accepted), a CSV
 * column with a header, two columns as a 2-D sample. */
static void test_data_good(void **state)
{
	struct qx_err e;
	struct kde_points p;
	const int one = 1, two = 2, both[2] = {3, 1};
	(void)state;
	assert_int_equal(load_text("1.5\n\n# note\n-2e-3\r\n 7 \n", &one, 1, 10, &p, &e), 0);
	assert_int_equal(p.n, 3);
	assert_true(p.x[0][0] == 1.5 && p.x[0][1] == -2e-3 && p.x[0][2] == 7);
	kde_points_free(&p);
	assert_int_equal(load_text("id,value\n1,\"0.25\"\n2,4\n", &two, 1, 10, &p, &e), 0);
	assert_true(p.n == 2 && p.x[0][0] == 0.25 && p.x[0][1] == 4);
	kde_points_free(&p);
	assert_int_equal(load_text("1,2,3\n4,5,6\n", both, 2, 10, &p, &e), 0);
	assert_true(p.dim == 2 && p.x[0][1] == 6 && p.x[1][1] == 4);
	kde_points_free(&p);
}

/* Loads text with column auto in ncols columns; returns the first column chosen, or -1 with e
 * filled. */
static int load_auto(const char *text, int ncols, struct qx_err *e)
{
	struct kde_points p;
	int cols[KDE_DMAX] = {0};
	const char *path = tmpfile_with(text);
	const int rc = kde_data_load(path, cols, ncols, 100, &p, e);
	unlink(path);
	if (rc)
		return -1;
	for (int c = 1; c < ncols; c++)
		assert_int_equal(cols[c], cols[0] + c);
	assert_int_equal(p.dim, ncols);
	kde_points_free(&p);
	return cols[0];
}

/* column auto: a column of row ids is never chosen silently: neither one named id, index, row
 * (any case) in the header nor one holding the row numbers from 0 or 1; a lone column, or a
 * file of just dim columns, is read from 1; every choice an id is refused, naming the file. */
static void test_data_auto_column(void **state)
{
	struct qx_err e;
	(void)state;
	assert_int_equal(load_auto("id,x\n1,0.5\n2,0.25\n3,4\n", 1, &e), 2);
	assert_int_equal(load_auto("x,ID\n7,0.5\n9,0.25\n3,4\n", 1, &e), 1);
	assert_int_equal(load_auto("1,0.5\n2,0.25\n3,4\n", 1, &e), 2);         /* 1..n */
	assert_int_equal(load_auto("# rows\n0,0.5\n1,0.25\n2,4\n", 1, &e), 2); /* 0..n-1 */
	assert_int_equal(load_auto("2,0.5\n3,0.25\n4,4\n", 1, &e), 1);         /* not from 0 or 1 */
	assert_int_equal(load_auto("1,0.5\n3,0.25\n2,4\n", 1, &e), 1);         /* not in order */
	assert_int_equal(load_auto("Index,row,a,b\n1,1,5,6\n2,2,7,8\n3,3,9,1\n", 2, &e), 3);
	assert_int_equal(load_auto("index,a\n1,5\n2,7\n", 2, &e), 1); /* just dim columns */
	assert_int_equal(load_auto("1\n2\n3\n", 1, &e), 1);           /* one number a line */
	assert_int_equal(load_auto("id,row\n1,1\n2,2\n3,3\n", 1, &e), -1);
	assert_non_null(strstr(e.msg, "column auto: no 1 column without a row id"));
	assert_non_null(strstr(e.msg, "set column N"));
}

/* Bad files: each fails with the line and what was found, or the reason; nothing is kept. */
static void test_data_bad(void **state)
{
	struct qx_err e;
	struct kde_points p;
	const int one = 1, three = 3;
	static const struct {
		const char *text, *expect;
	} bad[] = {
	    {"1\n2\nabc\n4\n", "line 3: 'abc' is not a number"},
	    {"1\n2x\n", "line 2: '2x' is not a number"},
	    {"1\nnan\n", "line 2: 'nan' is not allowed"},
	    {"NaN\n", "line 1: 'NaN' is not allowed"},
	    {"1\n-inf\n", "line 2: '-inf' is not allowed"},
	    {"1\n1e999\n", "line 2: '1e999' is not allowed"},
	    {"1\n,\n", "line 2: '' is not a number (empty field)"},
	    {"", "no samples"},
	    {"\n# only a comment\n", "no samples"},
	    {"value\n", "no samples"},
	    {"1\n2\n3\n4\n", "4 samples, at most 3 allowed"},
	};
	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		memset(&p, 0, sizeof p);
		if (load_text(bad[i].text, &one, 1, 3 + (i != 10), &p, &e) != -1)
			fail_msg("'%s' loaded", bad[i].text);
		if (!strstr(e.msg, bad[i].expect))
			fail_msg("'%s': '%s' lacks '%s'", bad[i].text, e.msg, bad[i].expect);
		assert_null(p.x[0]);
	}
	assert_int_equal(load_text("1,2\n3\n", &three, 1, 10, &p, &e), -1);
	assert_non_null(strstr(e.msg, "line 1: no column 3"));
	int col = 1;
	assert_int_equal(kde_data_load("/nonexistent/kde.txt", &col, 1, 10, &p, &e), -1);
	assert_non_null(strstr(e.msg, "/nonexistent/kde.txt: cannot open"));
	assert_int_equal(kde_data_load("/tmp", &col, 1, 10, &p, &e), -1);
	assert_non_null(strstr(e.msg, "/tmp: read error"));
}

/* The density of the samples s (bandwidth h) at the points x[0..m), exact in double. */
static void exact_at(const struct kde_points *s, double h, const double *x, size_t m, double *y)
{
	struct kde_points at = {.n = m, .dim = 1, .x = {(double *)x}};
	struct qx_err e;
	assert_int_equal(kde_exact_d(s, &h, &at, NULL, m, y, 1, NULL, &e), 0);
}

/* Checks the chart c of a 1-D run on the n samples s (bandwidth h, grid lo..hi of G points)
 * at the grid or not, binned or not, with values vals of prec: a histogram whose bars are
 * the samples' own counts over their range in ceil(sqrt(n)) bins, as a density integrating
 * to 1; a line that integrates to 1 (trapezoids) and is the density: at the grid, the run's
 * values at the grid's points; at the samples, the exact density at each bin's mean x to 1%
 * (bin means) where it is above a tenth of its peak, binned: its grid, to 1%. */
static void check_chart(const struct qx_chart *c, const struct kde_points *s, double h, double lo,
                        double hi, size_t g, int at_grid, int binned, const void *vals,
                        enum qx_precision prec)
{
	const struct qx_series *bars = &c->series[0], *line = &c->series[1];
	const int bins = (int)ceil(sqrt((double)s->n));
	double xmin = s->x[0][0], xmax = xmin, area = 0, y[QX_CHART_POINTS], peak = 0;
	int count[QX_CHART_POINTS] = {0};
	assert_int_equal(c->nseries, 2);
	assert_string_equal(c->xlabel, "x");
	assert_int_equal(bars->kind, QX_SERIES_BARS);
	assert_int_equal(bars->npoints, bins);
	for (size_t j = 1; j < s->n; j++) {
		xmin = fmin(xmin, s->x[0][j]);
		xmax = fmax(xmax, s->x[0][j]);
	}
	const double width = (xmax - xmin) / bins;
	for (size_t j = 0; j < s->n; j++) {
		const int b = (int)((s->x[0][j] - xmin) / width);
		count[b < bins ? b : bins - 1]++;
	}
	for (int b = 0; b < bins; b++) {
		assert_true(fabs(bars->x[b] - (xmin + (b + 0.5) * width)) <= 1e-12 * (xmax - xmin));
		assert_true(fabs(bars->y[b] * (double)s->n * width - count[b]) < 1e-6);
		area += bars->y[b] * width;
	}
	assert_true(fabs(area - 1) < 1e-12);
	assert_int_equal(line->kind, QX_SERIES_LINE);
	assert_true(line->npoints > 100 && line->npoints <= QX_CHART_POINTS);
	area = 0;
	for (int i = 1; i < line->npoints; i++) {
		assert_true(line->x[i] > line->x[i - 1]);
		area += (line->x[i] - line->x[i - 1]) * (line->y[i] + line->y[i - 1]) / 2;
	}
	assert_true(fabs(area - 1) < 1e-2);
	if (at_grid || binned) { /* the grid's own points */
		assert_int_equal(line->npoints, (int)g);
		for (int i = 0; i < line->npoints; i++)
			assert_true(fabs(line->x[i] - kde_grid_coord(lo, hi, g, (size_t)i)) <=
			            1e-12 * (hi - lo));
	}
	if (at_grid) {
		for (int i = 0; i < line->npoints; i++)
			assert_true(line->y[i] == value_at(vals, prec, (size_t)i));
		return;
	}
	exact_at(s, h, line->x, (size_t)line->npoints, y);
	for (int i = 0; i < line->npoints; i++)
		peak = fmax(peak, y[i]);
	for (int i = 0; i < line->npoints; i++)
		if (y[i] > 0.1 * peak && !(fabs(line->y[i] - y[i]) <= 1e-2 * y[i]))
			fail_msg("at x=%g the chart's line is %g, the density %g", line->x[i],
			         line->y[i], y[i]);
}

/* The chart of every CPU variant, at the grid (G 200) and at the samples, in float and double
 * (n 3000: 55 bins), checked against samples drawn here (check_chart); session_run keeps a
 * copy with the result; at dim 2 there is none. */
static void test_chart(void **state)
{
	static const char *const at[2] = {"samples", "grid"}, *const variant[2] = {"tiled",
	                                                                           "binned"};
	struct session *ss = calloc(1, sizeof *ss);
	struct kde_points smp;
	struct qx_err e;
	char words[160];
	double h, lo, hi, *vals = calloc(3000, sizeof *vals);
	(void)state;
	assert_true(ss && vals);
	assert_int_equal(kde_points_alloc(&smp, 3000, 1, &e), 0);
	kde_generate(KDE_MIXTURE, 7, &smp);
	assert_int_equal(kde_bandwidth(&smp, KDE_SILVERMAN, &h, &e), 0);
	kde_grid_limits(&smp, &h, &lo, &hi);
	session_init(ss);
	assert_int_equal(session_use(ss, "kde", &e), 0);
	for (int k = 0; k < 8; k++) {
		const int grid = k & 1, binned = k >> 1 & 1;
		const enum qx_precision prec = (enum qx_precision)(k >> 2);
		snprintf(words, sizeof words,
		         "n 3000 dist mixture seed 7 G 200 at %s variant %s precision %s", at[grid],
		         variant[binned], qx_precision_name(prec));
		if (session_set_words(ss, words, &e))
			fail_msg("%s: %s", words, e.msg);
		const struct run_request rq = session_request(ss);
		struct run_output o = {.values = vals};
		if (ss->prob->run_cpu(&rq, &o, &e))
			fail_msg("%s: %s", words, e.msg);
		check_chart(&o.chart, &smp, h, lo, hi, 200, grid, binned, vals, prec);
	}
	assert_int_equal(session_set_words(ss, "repeat 1 warmup 0", &e), 0);
	assert_int_equal(session_run(ss, QX_CPU, &e), 0);
	assert_non_null(ss->last->chart);
	check_chart(ss->last->chart, &smp, h, lo, hi, 200, 0, 1, ss->last_values, QX_DOUBLE);
	assert_int_equal(session_set_words(ss, "n 300 dim 2 at samples variant tiled", &e), 0);
	const struct run_request rq = session_request(ss);
	struct run_output o = {.values = vals};
	assert_int_equal(ss->prob->run_cpu(&rq, &o, &e), 0);
	assert_int_equal(o.chart.nseries, 0);
	assert_int_equal(session_run(ss, QX_CPU, &e), 0);
	assert_null(ss->last->chart);
	session_free(ss);
	kde_points_free(&smp);
	free(ss);
	free(vals);
}

/* A FIFO's writer: 1..6 to the first reader that opens it, then 7..9 to one more reader for
 * each post of loaded (the reader before is done), until stop (fifo_stop). opens counts the
 * readers served. */
struct fifo_writer {
	const char *path;
	pthread_t thread;
	sem_t loaded;
	atomic_int opens, stop;
};

/* The writer's thread: each open waits for a reader, which then reads to the end; each after
 * the first waits for a post of loaded, so that it cannot write into the stream before. */
static void *fifo_serve(void *arg)
{
	struct fifo_writer *w = arg;
	for (;;) {
		if (atomic_load(&w->opens) > 0)
			sem_wait(&w->loaded);
		const int fd = open(w->path, O_WRONLY);
		if (fd < 0)
			return NULL;
		if (atomic_load(&w->stop)) {
			close(fd);
			return NULL;
		}
		const char *text =
		    atomic_fetch_add(&w->opens, 1) ? "7\n8\n9\n" : "1\n2\n3\n4\n5\n6\n";
		const ssize_t len = (ssize_t)strlen(text);
		const ssize_t wrote = write(fd, text, (size_t)len);
		close(fd);
		if (wrote != len)
			return NULL;
	}
}

/* Stops the writer: a reader of its own lets its waiting open return, then it is joined. */
static void fifo_stop(struct fifo_writer *w)
{
	atomic_store(&w->stop, 1);
	sem_post(&w->loaded);
	const int fd = open(w->path, O_RDONLY | O_NONBLOCK);
	pthread_join(w->thread, NULL);
	if (fd >= 0)
		close(fd);
}

/* Two sessions keep their own samples: session a reads a FIFO (read once, its samples kept in
 * a's state), session b draws samples of its own, and a's runs after b's still have the six
 * samples a read without opening the FIFO again (one cache for both would have lost them to
 * b and read the FIFO's next three); freeing b leaves a's state intact. kde refuses a call
 * without a slot for its state. */
static void test_sessions_own_samples(void **state)
{
	char dir[] = "/tmp/qx_kde_stateXXXXXX", path[64], words[128];
	struct fifo_writer w = {.path = path};
	struct session *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
	const struct problem *kde = problem_find("kde");
	struct param_value v[QX_MAX_PARAMS];
	struct qx_err e;
	(void)state;
	assert_true(a && b && kde && mkdtemp(dir));
	for (size_t k = 0; k < kde->nparams; k++)
		v[k] = param_default(&kde->params[k]);
	const double at[KDE_DMAX] = {0, NAN, NAN};
	struct eval_result r;
	assert_int_equal(kde->eval(at, v, NULL, NULL, QX_CPU, QX_DOUBLE, &r, &e), -1);
	assert_non_null(strstr(e.msg, "state"));
	snprintf(path, sizeof path, "%s/samples", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(sem_init(&w.loaded, 0, 0), 0);
	assert_int_equal(pthread_create(&w.thread, NULL, fifo_serve, &w), 0);
	session_init(a);
	session_init(b);
	assert_int_equal(session_use(a, "kde", &e), 0);
	assert_int_equal(session_use(b, "kde", &e), 0);
	snprintf(words, sizeof words, "data %s repeat 1 warmup 0", path);
	if (session_set_words(a, words, &e))
		fail_msg("%s: %s", words, e.msg);
	assert_int_equal(atomic_load(&w.opens), 1);
	sem_post(&w.loaded);
	assert_int_equal(session_set_words(b, "n 300 seed 5 repeat 1 warmup 0", &e), 0);
	assert_int_equal(session_run(b, QX_CPU, &e), 0);
	assert_int_equal(b->last->evals, 300);
	void **sa = session_state(a, kde), **sb = session_state(b, kde);
	assert_true(sa && sb && *sa && *sb && *sa != *sb);
	for (int round = 0; round < 2; round++) {
		const char *names[QX_MAX_COORDS];
		double c[QX_MAX_COORDS];
		if (session_run(a, QX_CPU, &e))
			fail_msg("run %d of session a: %s", round, e.msg);
		assert_int_equal(a->last->evals, 6);
		assert_int_equal(
		    kde->point(a->last->params, sa, &a->last->user, 5, names, c, QX_MAX_COORDS), 1);
		assert_true(c[0] == 6);
		if (round == 0)
			session_free(b); /* a's state outlives b's */
	}
	assert_int_equal(atomic_load(&w.opens), 1);
	session_free(a);
	fifo_stop(&w);
	sem_destroy(&w.loaded);
	unlink(path);
	rmdir(dir);
	free(a);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_exact_double),
	    cmocka_unit_test(test_exact_float),
	    cmocka_unit_test(test_bandwidth),
	    cmocka_unit_test(test_grid),
	    cmocka_unit_test(test_generate),
	    cmocka_unit_test(test_float_large_n),
	    cmocka_unit_test(test_binned),
	    cmocka_unit_test(test_exp2_poly),
	    cmocka_unit_test(test_seed_emulate),
	    cmocka_unit_test(test_cancel),
	    cmocka_unit_test(test_data_good),
	    cmocka_unit_test(test_data_auto_column),
	    cmocka_unit_test(test_data_bad),
	    cmocka_unit_test(test_chart),
	    cmocka_unit_test(test_sessions_own_samples),
	};
	return cmocka_run_group_tests(tests, load_refs, NULL);
}
