/* kde_math.c - the CPU part of kde_math.h: samples, bandwidth rules, grids, the exact sums in
 * double and float (their inner loops in kde_simd.c: AVX-512, AVX2 or scalar), the
 * binned approximation through FFTW, and the seed's arithmetic. */
#include "kde_math.h"

#include <fftw3.h>
#include <limits.h>
#include <stdint.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "kde_simd.h"

int kde_points_alloc(struct kde_points *p, size_t n, int dim, struct qx_err *e)
{
	memset(p, 0, sizeof *p);
	if (dim < 1 || dim > KDE_DMAX)
		return qx_fail(e, "dimension %d: allowed 1 to %d", dim, KDE_DMAX);
	if (n == 0 || n > SIZE_MAX / sizeof(double) / KDE_DMAX)
		return qx_fail(e, "%zu points: allowed 1 to %zu", n,
		               SIZE_MAX / sizeof(double) / KDE_DMAX);
	p->n = n;
	p->dim = dim;
	for (int k = 0; k < dim; k++) {
		p->x[k] = calloc(n, sizeof(double));
		if (!p->x[k]) {
			kde_points_free(p);
			return qx_fail(e,
			               "out of host memory: %zu points of dimension %d need %zu "
			               "bytes",
			               n, dim, n * dim * sizeof(double));
		}
	}
	return 0;
}

void kde_points_free(struct kde_points *p)
{
	for (int k = 0; k < KDE_DMAX; k++)
		free(p->x[k]);
	memset(p, 0, sizeof *p);
}

/* MurmurHash3's 64-bit finalizer: a bijection that spreads every input bit over the output. */
static unsigned long long kde_fmix64(unsigned long long z)
{
	z ^= z >> 33;
	z *= 0xff51afd7ed558ccdULL;
	z ^= z >> 33;
	z *= 0xc4ceb9fe1a85ec53ULL;
	return z ^ (z >> 33);
}

double kde_uniform(unsigned long long seed, unsigned long long counter)
{
	const unsigned long long z = kde_fmix64(kde_fmix64(seed + 0x632be59bd9b4e019ULL) ^
	                                        (counter * 0x9e3779b97f4a7c15ULL));
	return (double)(z >> 11) * 0x1p-53;
}

/* Draws per coordinate: counters (j KDE_DMAX + k) 8 + r, r < 8. */
#define KDE_DRAWS 8

/* A standard normal from draws r and r + 1 of stream c (Box-Muller, cosine branch). */
static double kde_normal(unsigned long long seed, unsigned long long c, int r)
{
	const double u1 = 1 - kde_uniform(seed, c + r); /* (0, 1] */
	const double u2 = kde_uniform(seed, c + r + 1);
	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/* One draw of dist for stream c (a coordinate of a sample). */
static double kde_draw(enum kde_dist dist, unsigned long long seed, unsigned long long c)
{
	switch (dist) {
	case KDE_MIXTURE:
		return kde_uniform(seed, c + 2) < 0.5 ? -2 + kde_normal(seed, c, 0)
		                                      : 2 + 0.5 * kde_normal(seed, c, 0);
	case KDE_UNIFORM:
		return kde_uniform(seed, c);
	case KDE_EXPONENTIAL:
		return -log1p(-kde_uniform(seed, c));
	case KDE_STUDENT: {
		double chi2 = 0;
		for (int r = 2; r < 8; r += 2) {
			const double z = kde_normal(seed, c, r);
			chi2 += z * z;
		}
		return kde_normal(seed, c, 0) / sqrt(chi2 / 3);
	}
	case KDE_NORMAL:
	default:
		return kde_normal(seed, c, 0);
	}
}

void kde_generate(enum kde_dist dist, unsigned long long seed, struct kde_points *p)
{
	for (int k = 0; k < p->dim; k++)
		for (size_t j = 0; j < p->n; j++)
			p->x[k][j] = kde_draw(dist, seed,
			                      ((unsigned long long)j * KDE_DMAX + k) * KDE_DRAWS);
}

/* The k-th smallest of a[0..n) (0-based), reordering a (Hoare's selection, middle pivot). */
static double kde_select(double *a, size_t n, size_t k)
{
	long long lo = 0, hi = (long long)n - 1;
	const long long kk = (long long)k;
	while (lo < hi) {
		const double pivot = a[lo + (hi - lo) / 2];
		long long i = lo, j = hi;
		while (i <= j) {
			while (a[i] < pivot)
				i++;
			while (a[j] > pivot)
				j--;
			if (i <= j) {
				const double t = a[i];
				a[i++] = a[j];
				a[j--] = t;
			}
		}
		if (kk <= j)
			hi = j;
		else if (kk >= i)
			lo = i;
		else
			return a[kk];
	}
	return a[kk];
}

/* Quantile p of a[0..n) interpolated linearly between order statistics (R's type 7),
 * reordering a. */
static double kde_quantile(double *a, size_t n, double p)
{
	const double pos = (double)(n - 1) * p;
	const size_t i = (size_t)pos;
	const double lo = kde_select(a, n, i);
	if (i + 1 >= n)
		return lo;
	double next = a[i + 1];
	for (size_t j = i + 2; j < n; j++)
		if (a[j] < next)
			next = a[j];
	return lo + (pos - (double)i) * (next - lo);
}

/* The interquartile range of a[0..n) (n >= 2), from a copy; returns 0, or -1 with e. */
static int kde_iqr(const double *a, size_t n, double *iqr, struct qx_err *e)
{
	double *c = malloc(n * sizeof *c);
	if (!c)
		return qx_fail(e, "out of host memory: the quartiles of %zu samples need %zu bytes",
		               n, n * sizeof *c);
	memcpy(c, a, n * sizeof *c);
	const double q3 = kde_quantile(c, n, 0.75);
	*iqr = q3 - kde_quantile(c, n, 0.25);
	free(c);
	return 0;
}

/* The sample standard deviation (divisor n - 1) of a[0..n), two passes. */
static double kde_stddev(const double *a, size_t n)
{
	double mean = 0, ss = 0;
	for (size_t j = 0; j < n; j++)
		mean += a[j];
	mean /= (double)n;
	for (size_t j = 0; j < n; j++)
		ss += (a[j] - mean) * (a[j] - mean);
	return sqrt(ss / (double)(n - 1));
}

int kde_bandwidth(const struct kde_points *s, enum kde_bw_rule rule, double *h, struct qx_err *e)
{
	const double n = (double)s->n, d = s->dim;
	if (s->n < 2)
		return qx_fail(e, "a bandwidth rule needs at least 2 samples, there are %zu", s->n);
	for (int k = 0; k < s->dim; k++) {
		double scale = kde_stddev(s->x[k], s->n), factor = pow(n, -1 / (d + 4));
		if (rule == KDE_SILVERMAN && s->dim == 1) {
			double iqr = 0;
			if (kde_iqr(s->x[k], s->n, &iqr, e))
				return -1;
			if (iqr > 0 && iqr / 1.34 < scale)
				scale = iqr / 1.34;
			factor *= 0.9;
		} else if (rule == KDE_SILVERMAN) {
			factor *= pow(4 / (d + 2), 1 / (d + 4));
		}
		h[k] = factor * scale;
		if (!(h[k] > 0) || !isfinite(h[k]))
			return qx_fail(e,
			               "the %s rule gives h = %g on axis %d: the samples have no "
			               "spread there; set h to a number > 0",
			               rule == KDE_SILVERMAN ? "silverman" : "scott", h[k], k + 1);
	}
	return 0;
}

void kde_grid_limits(const struct kde_points *s, const double *h, double *lo, double *hi)
{
	for (int k = 0; k < s->dim; k++) {
		double a = s->x[k][0], b = a;
		for (size_t j = 1; j < s->n; j++) {
			a = fmin(a, s->x[k][j]);
			b = fmax(b, s->x[k][j]);
		}
		lo[k] = a - 3 * h[k];
		hi[k] = b + 3 * h[k];
	}
}

double kde_grid_coord(double lo, double hi, size_t g, size_t i)
{
	if (g < 2)
		return lo;
	if (i + 1 == g)
		return hi;
	return lo + (hi - lo) * (double)i / (double)(g - 1);
}

int kde_grid_points(const double *lo, const double *hi, int dim, size_t g, struct kde_points *p,
                    struct qx_err *e)
{
	size_t total = 1;
	for (int k = 0; k < dim; k++) {
		if (g && total > SIZE_MAX / g)
			return qx_fail(e, "a grid of %zu^%d points is too large", g, dim);
		total *= g;
	}
	if (kde_points_alloc(p, total, dim, e))
		return -1;
	for (size_t i = 0; i < total; i++) {
		size_t rest = i;
		if ((i & 0xFFFFF) == 0 && qx_cancelled()) { /* a 3-D grid takes seconds */
			kde_points_free(p);
			return qx_fail(e, "cancelled while building the grid");
		}
		for (int k = 0; k < dim; k++) {
			p->x[k][i] = kde_grid_coord(lo[k], hi[k], g, rest % g);
			rest /= g;
		}
	}
	return 0;
}

void kde_center(const struct kde_points *s, double *c)
{
	for (int k = 0; k < s->dim; k++) {
		double sum = 0;
		for (size_t j = 0; j < s->n; j++)
			sum += s->x[k][j];
		c[k] = sum / (double)s->n;
	}
}

void kde_sample_indices(size_t m, size_t k, size_t *idx)
{
	for (size_t i = 0; i < k; i++)
		idx[i] = (size_t)((unsigned __int128)i * m / k);
}

const char *kde_exact_isa(void)
{
	return kde_isa_name(kde_simd_best());
}

/* Computes outputs first <= k < end of a run (into the run's own array); ctx is the run's
 * state. */
typedef void kde_outputs_fn(size_t first, size_t end, void *ctx);

/* Calls some(first, end, ctx) over k < m on `threads` OpenMP threads (<= 0: OpenMP's default)
 * in blocks of about 2^23 pairs, polling hk between blocks; returns 0, or -1 with e when
 * cancelled. */
static int kde_for_outputs(size_t m, size_t n, int threads, const struct kde_hooks *hk,
                           kde_outputs_fn *some, void *ctx, struct qx_err *e)
{
	const size_t per = n >= (1u << 23) ? 1 : (1u << 23) / n;
	const long long blocks = (long long)((m + per - 1) / per);
	int stop = 0;
#pragma omp parallel for schedule(dynamic, 1)                                                      \
    num_threads(threads > 0 ? threads : omp_get_max_threads())
	for (long long b = 0; b < blocks; b++) {
		int stopped;
#pragma omp atomic read
		stopped = stop;
		if (stopped)
			continue;
		if (hk && hk->cancelled && hk->cancelled()) {
#pragma omp atomic write
			stop = 1;
			continue;
		}
		const size_t first = (size_t)b * per, end = first + per < m ? first + per : m;
		some(first, end, ctx);
		if (hk && hk->progress)
			hk->progress((long long)(end - first));
	}
	if (stop)
		return qx_fail(e, "run cancelled");
	return 0;
}

/* The state of a double exact run. */
struct kde_run_d {
	const struct kde_points *s, *at;
	const size_t *idx;
	double sc[KDE_DMAX], norm;
	enum kde_isa isa;
	double *y;
};

/* Outputs first..end - 1 of a double run, KDE_SIMD_GROUP at a time: the compensated sums at
 * their points. */
static void kde_outputs_d(size_t first, size_t end, void *ctx)
{
	const struct kde_run_d *r = ctx;
	const struct kde_points *s = r->s;
	for (size_t k = first; k < end; k += KDE_SIMD_GROUP) {
		const size_t m = end - k < KDE_SIMD_GROUP ? end - k : KDE_SIMD_GROUP;
		double coord[KDE_DMAX][KDE_SIMD_GROUP], sums[KDE_SIMD_GROUP];
		const double *p[KDE_DMAX];
		for (int a = 0; a < s->dim; a++) {
			for (size_t i = 0; i < m; i++)
				coord[a][i] = r->at->x[a][r->idx ? r->idx[k + i] : k + i];
			p[a] = coord[a];
		}
		kde_simd_sums_d(r->isa, s->n, s->dim, (const double *const *)s->x, m, p, r->sc,
		                sums);
		for (size_t i = 0; i < m; i++)
			r->y[k + i] = r->norm * sums[i];
	}
}

int kde_exact_d(const struct kde_points *s, const double *h, const struct kde_points *at,
                const size_t *idx, size_t m, double *y, int threads, const struct kde_hooks *hk,
                struct qx_err *e)
{
	struct kde_run_d r = {.s = s, .at = at, .idx = idx, .y = y, .isa = kde_simd_best()};
	for (int a = 0; a < s->dim; a++)
		r.sc[a] = M_SQRT1_2 / h[a];
	r.norm = kde_norm((double)s->n, s->dim, h);
	return kde_for_outputs(m, s->n, threads, hk, kde_outputs_d, &r, e);
}

/* The state of a float exact run: the samples' and the outputs' scaled float coordinates. */
struct kde_run_f {
	size_t n;
	int dim;
	enum kde_isa isa;
	float *u[KDE_DMAX], *p[KDE_DMAX];
	double norm;
	float *y;
};

/* Outputs first..end - 1 of a float run, KDE_SIMD_GROUP at a time: the sums of
 * exp2(-|p_k - u_j|^2). */
static void kde_outputs_f(size_t first, size_t end, void *ctx)
{
	const struct kde_run_f *r = ctx;
	for (size_t k = first; k < end; k += KDE_SIMD_GROUP) {
		const size_t m = end - k < KDE_SIMD_GROUP ? end - k : KDE_SIMD_GROUP;
		const float *p[KDE_DMAX];
		double sums[KDE_SIMD_GROUP];
		for (int a = 0; a < r->dim; a++)
			p[a] = r->p[a] + k;
		kde_simd_sums_f(r->isa, r->n, r->dim, (const float *const *)r->u, m, p, sums);
		for (size_t i = 0; i < m; i++)
			r->y[k + i] = (float)(r->norm * sums[i]);
	}
}

int kde_exact_f(const struct kde_points *s, const double *h, const struct kde_points *at,
                const size_t *idx, size_t m, float *y, int threads, const struct kde_hooks *hk,
                struct qx_err *e)
{
	struct kde_run_f r = {.n = s->n, .dim = s->dim, .y = y, .isa = kde_simd_best()};
	double c[KDE_DMAX];
	int rc = -1;
	kde_center(s, c);
	r.norm = kde_norm((double)s->n, s->dim, h);
	for (int a = 0; a < s->dim; a++) {
		const double sc = KDE_U_SCALE / h[a];
		r.u[a] = malloc(s->n * sizeof(float));
		r.p[a] = malloc((m ? m : 1) * sizeof(float));
		if (!r.u[a] || !r.p[a]) {
			qx_fail(e, "out of host memory: the float copies need %zu bytes",
			        (s->n + m) * s->dim * sizeof(float));
			goto out;
		}
		for (size_t j = 0; j < s->n; j++)
			r.u[a][j] = (float)((s->x[a][j] - c[a]) * sc);
		for (size_t k = 0; k < m; k++)
			r.p[a][k] = (float)((at->x[a][idx ? idx[k] : k] - c[a]) * sc);
	}
	rc = kde_for_outputs(m, s->n, threads, hk, kde_outputs_f, &r, e);
out:
	for (int a = 0; a < s->dim; a++) {
		free(r.u[a]);
		free(r.p[a]);
	}
	return rc;
}

int kde_binned(const struct kde_points *s, double h, double lo, double hi, size_t g, double *y,
               const struct kde_hooks *hk, struct qx_err *e)
{
	if (g < 2 || !(hi > lo) || !(h > 0))
		return qx_fail(e, "binned: needs G >= 2 grid points over lo < hi and h > 0");
	const double dx = (hi - lo) / (double)(g - 1);
	const double cut = ceil(KDE_BIN_CUT * h / dx);
	const size_t span = cut < (double)(g - 1) ? (size_t)cut : g - 1;
	size_t p = 1;
	while (p < g + span)
		p *= 2;
	double *in = fftw_alloc_real(p), *ker = fftw_alloc_real(p);
	fftw_complex *fin = fftw_alloc_complex(p / 2 + 1), *fker = fftw_alloc_complex(p / 2 + 1);
	fftw_plan fwd_in = NULL, fwd_ker = NULL, back = NULL;
	int rc = -1;
	if (!in || !ker || !fin || !fker) {
		qx_fail(e, "out of host memory: the FFTs of %zu points need %zu bytes", p,
		        p * 4 * sizeof(double));
		goto out;
	}
	fwd_in = fftw_plan_dft_r2c_1d((int)p, in, fin, FFTW_ESTIMATE);
	fwd_ker = fftw_plan_dft_r2c_1d((int)p, ker, fker, FFTW_ESTIMATE);
	back = fftw_plan_dft_c2r_1d((int)p, fin, in, FFTW_ESTIMATE);
	if (!fwd_in || !fwd_ker || !back) {
		qx_fail(e, "binned: FFTW could not plan a transform of %zu points", p);
		goto out;
	}
	memset(in, 0, p * sizeof(double));
	memset(ker, 0, p * sizeof(double));
	for (size_t j = 0; j < s->n; j++) {
		double w;
		const long long i = kde_bin(s->x[0][j], lo, hi, (long long)g, &w);
		in[i] += 1 - w;
		in[i + 1] += w;
	}
	if (hk && hk->cancelled && hk->cancelled()) {
		qx_fail(e, "run cancelled");
		goto out;
	}
	/* the kernel at offsets -span..span, negative offsets wrapped to the end; 1/p undoes
	 * the unnormalised inverse transform */
	const double norm = kde_norm((double)s->n, 1, &h) / (double)p;
	for (size_t l = 0; l <= span; l++) {
		const double t = (double)l * dx / h;
		ker[l] = norm * exp(-0.5 * t * t);
		if (l)
			ker[p - l] = ker[l];
	}
	fftw_execute(fwd_in);
	fftw_execute(fwd_ker);
	for (size_t f = 0; f < p / 2 + 1; f++) {
		const double ar = fin[f][0], ai = fin[f][1], br = fker[f][0], bi = fker[f][1];
		fin[f][0] = ar * br - ai * bi;
		fin[f][1] = ar * bi + ai * br;
	}
	fftw_execute(back);
	memcpy(y, in, g * sizeof(double));
	if (hk && hk->progress)
		hk->progress((long long)g);
	rc = 0;
out:
	if (fwd_in)
		fftw_destroy_plan(fwd_in);
	if (fwd_ker)
		fftw_destroy_plan(fwd_ker);
	if (back)
		fftw_destroy_plan(back);
	fftw_free(in);
	fftw_free(ker);
	fftw_free(fin);
	fftw_free(fker);
	return rc;
}

/* float to int as the GPU's cvt.rzi.s32.f32 does: toward zero, saturated, NaN to 0. */
static int kde_trunc_sat(float v)
{
	if (isnan(v))
		return 0;
	if (v >= 2147483647.0f)
		return INT_MAX;
	if (v <= -2147483648.0f)
		return INT_MIN;
	return (int)v;
}

/* The seed's kernel function K, in float as the seed wrote it. */
static float kde_seed_k(float x)
{
	return (1 / (sqrtf(2 * M_PI))) * expf(-(x * x) / 2);
}

void kde_seed_emulate(const float *x, size_t n, int hi, float *y)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			const int xj = kde_trunc_sat(x[j]);
			y[i] += kde_seed_k((x[i] - xj) / hi);
		}
}
