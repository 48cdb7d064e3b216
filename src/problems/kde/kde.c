/* kde.c - problem `kde`: Gaussian kernel density estimation, y(p) = 1 / (n prod h_k (2 pi)^(d/2))
 * sum_j exp(-sum_k (p_k - x_jk)^2 / (2 h_k^2)) over n samples (drawn from a distribution and a
 * seed, or read from a file) at the samples themselves or at a grid of G points per axis. CPU: the
 * exact sum (OpenMP, SLEEF) and the binned FFT approximation; GPU: the Gaussian KDE study's own
 * kernel as written (variant seed), naive, tiled, fast and binned (cuda/kde/). The reference is the
 * exact double sum on the CPU: at every output for small sizes, at an evenly spread sample of
 * outputs for large ones. The numerical core is kde_math.c, the file reader kde_data.c.
 * One file, over 600 lines: it is the problem's interface (problem.h) and nothing else, the
 * callbacks of kde_problem, static, sharing the cache of the samples and outputs (kde_state,
 * kept in the session's slot: problem.h's state);
 * the numerics (kde_math.c, kde_simd.c), the reader, the GPU code and the parameters' enum and
 * definitions (kde_params.[ch]) are in their own files. */
#include "../../problem.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../stats.h"
#include "kde_data.h"
#include "kde_math.h"
#include "kde_params.h"

#ifdef QX_HAVE_CUDA
#include "kde_gpu.h"
#endif

/* Pairs up to which the reference is the double sum at every output; beyond, at a sample of
 * KDE_REF_PAIRS / n outputs (at least KDE_REF_MIN_SAMPLE). */
#define KDE_REF_PAIRS 1073741824.0 /* 2^30 */
#define KDE_REF_MIN_SAMPLE 64
/* The chart's histogram (1-D): ceil(sqrt(n)) bins, at least KDE_HIST_MIN, at most KDE_HIST_MAX. */
#define KDE_HIST_MIN 16
#define KDE_HIST_MAX 128

enum { V_TILED, V_FAST, V_NAIVE, V_SEED, V_BINNED, V_COUNT };

static const struct variant_def kde_variants[V_COUNT] = {
    [V_TILED] = {"tiled", QX_ON_CPU | QX_ON_GPU,
                 "exact. GPU: samples through shared memory in tiles, 4 outputs per thread,\n"
                 "      one ex2 per pair. CPU: the exact sum, OpenMP over the outputs, SLEEF\n"
                 "      AVX-512 or AVX2 over the samples (threads 1: the serial baseline)",
                 0},
    [V_FAST] = {"fast", QX_ON_GPU,
                "float, 1-D: outputs sorted, each block's pairs factorized about its centre;\n"
                "      where outputs are dense one ex2 serves 8 (Taylor, 3 FMAs a pair), else\n"
                "      an FMUL, ex2 and FMA a pair, share of them by a polynomial: past the\n"
                "      special-function unit's ceiling",
                0},
    [V_NAIVE] = {"naive", QX_ON_GPU,
                 "the seed's layout (one thread per output, expf, one accumulator), bugs "
                 "fixed",
                 0},
    [V_SEED] = {"seed", QX_ON_GPU,
                "the seed's kernel and host code as written, bugs and all (help kde)", 0},
    [V_BINNED] = {"binned", QX_ON_CPU | QX_ON_GPU,
                  "approximate: linear binning onto the G grid, Gaussian convolution by FFT\n"
                  "      (CPU: FFTW; GPU: cuFFT), 1-D; at the samples, interpolated from the grid",
                  1},
};

/* The samples and what follows from them for one set of parameters, cached across runs in the
 * session's slot (problem.h's state; kde_state_free frees it): the samples in double (and
 * float, made on first use), the bandwidth, the grid's ends, the samples' mean, the grid
 * points when evaluating at the grid, and in 1-D the histogram the runs' charts show. */
struct kde_state {
	char key[PARAM_PATH_MAX + 256];
	struct kde_points s, grid;
	float *sf[KDE_DMAX], *gf[KDE_DMAX];
	double h[KDE_DMAX], lo[KDE_DMAX], hi[KDE_DMAX], center[KDE_DMAX];
	int dim, at;
	int column;            /* data FILE: the first column read (column auto's choice), else 0 */
	size_t m, g;           /* outputs, grid points per axis */
	int sf_pinned;         /* sf[0..dim) page-locked for the GPU's copies */
	struct qx_series hist; /* dim 1: the samples' histogram as a density (kde_histogram) */
};

/* Frees everything the cache holds and empties it. */
static void kde_state_clear(struct kde_state *st)
{
	kde_points_free(&st->s);
	kde_points_free(&st->grid);
#ifdef QX_HAVE_CUDA
	for (int k = 0; k < KDE_DMAX && st->sf_pinned; k++)
		kde_gpu_unpin(st->sf[k]);
#endif
	for (int k = 0; k < KDE_DMAX; k++) {
		free(st->sf[k]);
		free(st->gf[k]);
	}
	memset(st, 0, sizeof *st);
}

/* state_free: frees the state in the session's slot (NULL: none). The session ends before the
 * GPU context goes (gpu_release), so the float samples are unpinned while it exists. */
static void kde_state_free(void *state)
{
	if (state)
		kde_state_clear(state);
	free(state);
}

/* Writes the identity of what p's samples, bandwidth and grid depend on into key (the data
 * file with its size and modification time, so that an edited file is read again; a FIFO's
 * identity only, since it can be read once); returns
 * 0, or -1 with e when the data file cannot be examined. */
static int kde_state_key(const struct param_value *p, char *key, size_t len, struct qx_err *e)
{
	const char *path = param_path(p[P_DATA]);
	struct stat st;
	if (!path) {
		snprintf(key, len, "n=%.0f dist=%d seed=%.0f h=%.17g dim=%d at=%d G=%.0f",
		         p[P_N].num, (int)p[P_DIST].num, p[P_SEED].num, p[P_H].num,
		         (int)p[P_DIM].num, (int)p[P_AT].num, p[P_G].num);
		return 0;
	}
	if (stat(path, &st))
		return qx_fail(e, "data %s: cannot open: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode)) /* a FIFO or device: read once, its samples kept */
		st.st_size = 0, st.st_mtim.tv_sec = (time_t)st.st_ino, st.st_mtim.tv_nsec = 0;
	snprintf(key, len, "data=%s size=%lld mtime=%lld.%09ld col=%d h=%.17g dim=%d at=%d G=%.0f",
	         path, (long long)st.st_size, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
	         (int)p[P_COLUMN].num, p[P_H].num, (int)p[P_DIM].num, (int)p[P_AT].num, p[P_G].num);
	return 0;
}

/* Host bytes of the samples and outputs of n samples at m outputs of dimension dim: the
 * samples and points in double and float, the values and the reference. */
static double kde_bytes(double n, double m, int dim, int at_grid)
{
	return n * dim * 12.0 + (at_grid ? m * dim * 12.0 : 0) + m * 16.0;
}

/* Fills the outputs of st (the samples, or the grid's points); returns 0 or -1 with e. */
static int kde_state_outputs(struct kde_state *st, const struct param_value *p, struct qx_err *e)
{
	st->at = (int)p[P_AT].num;
	st->g = (size_t)p[P_G].num;
	if (st->at == AT_SAMPLES) {
		st->m = st->s.n;
		return 0;
	}
	if (kde_grid_points(st->lo, st->hi, st->dim, st->g, &st->grid, e))
		return -1;
	st->m = st->grid.n;
	return 0;
}

/* The histogram of the 1-D samples of st as bars of a density (count / (n width): they
 * integrate to 1, comparable with the estimate) into st->hist: ceil(sqrt(n)) bins (16..128)
 * over the samples' range, which is the grid's range less 3 h at each end (kde_grid_limits);
 * samples all at one point (possible with a numeric h) get a range around it: h each side, or
 * a billionth of the point where h is too small to widen it. */
static void kde_histogram(struct kde_state *st)
{
	size_t count[KDE_HIST_MAX] = {0};
	const double *x = st->s.x[0], n = (double)st->s.n;
	double lo = st->lo[0] + 3 * st->h[0], hi = st->hi[0] - 3 * st->h[0];
	if (!(hi > lo)) {
		const double pad = fmax(st->h[0], fmax(fabs(lo), 1) * 1e-9);
		lo -= pad;
		hi += pad;
	}
	const int bins = (int)fmin(KDE_HIST_MAX, fmax(KDE_HIST_MIN, ceil(sqrt(n))));
	const double width = (hi - lo) / bins;
	for (size_t j = 0; j < st->s.n; j++) { /* the ends' rounding kept inside the range */
		const double b = floor((x[j] - lo) / width);
		count[b < 0 ? 0 : b >= bins ? bins - 1 : (int)b]++;
	}
	st->hist = (struct qx_series){.kind = QX_SERIES_BARS, .npoints = bins};
	snprintf(st->hist.name, sizeof st->hist.name, "histogram of the samples (%d bins)", bins);
	for (int b = 0; b < bins; b++) {
		st->hist.x[b] = lo + (b + 0.5) * width;
		st->hist.y[b] = (double)count[b] / (n * width);
	}
}

/* Refuses a bandwidth so small that 1/h, or the density's largest value 1/(prod h (2 pi)^(d/2))
 * in front of the sum, overflows a double: every value would be NaN or inf. Returns 0, or -1
 * with e naming h and about the smallest h allowed in this dim. */
static int kde_h_check(const struct kde_state *st, struct qx_err *e)
{
	const double peak = kde_norm(1, st->dim, st->h);
	const double least =
	    fmax(pow(pow(KDE_INV_SQRT_2PI, st->dim) / DBL_MAX, 1.0 / st->dim), 1 / DBL_MAX);
	int ok = isfinite(peak) && peak > 0;
	for (int k = 0; k < st->dim; k++)
		ok &= isfinite(1 / st->h[k]);
	if (ok)
		return 0;
	return qx_fail(e,
	               "h %g: too small a bandwidth in dim %d: 1/h^%d overflows a double, so every "
	               "value would be NaN or inf (h at least %.3g)",
	               st->h[0], st->dim, st->dim, least * 1.001);
}

/* Returns the state for p in the session's slot (made there on first use), built (samples
 * generated or read, bandwidth, grid) when p differs from the one it holds; NULL with e filled
 * when there is no slot, the data file is bad, the samples have no spread, or memory is
 * short. */
static struct kde_state *kde_state(const struct param_value *p, void **slot, struct qx_err *e)
{
	struct kde_state *st;
	char key[sizeof st->key];
	if (!slot) {
		qx_fail(e, "kde keeps its samples in the session's state: none was given");
		return NULL;
	}
	if (!*slot && !(*slot = calloc(1, sizeof *st))) {
		qx_fail(e, "cannot allocate kde's state");
		return NULL;
	}
	st = *slot;
	if (kde_state_key(p, key, sizeof key, e))
		return NULL;
	if (st->s.n && !strcmp(key, st->key))
		return st;
	kde_state_clear(st);
	st->dim = (int)p[P_DIM].num;
	const char *path = param_path(p[P_DATA]);
	if (path) {
		int cols[KDE_DMAX];
		for (int k = 0; k < st->dim; k++) /* auto (-1): cols[0] 0, the loader chooses */
			cols[k] = p[P_COLUMN].num < 0 ? 0 : (int)p[P_COLUMN].num + k;
		if (kde_data_load(path, cols, st->dim, (size_t)KDE_N_MAX, &st->s, e))
			return NULL;
		st->column = cols[0];
		if (st->s.n < 2) {
			kde_state_clear(st);
			qx_fail(e, "data %s: 1 sample; a density needs at least 2", path);
			return NULL;
		}
	} else {
		if (kde_points_alloc(&st->s, (size_t)p[P_N].num, st->dim, e))
			return NULL;
		kde_generate((enum kde_dist)p[P_DIST].num, (unsigned long long)p[P_SEED].num,
		             &st->s);
	}
	if (p[P_H].num < 0) {
		if (kde_bandwidth(&st->s, (enum kde_bw_rule)(-1 - p[P_H].num), st->h, e)) {
			kde_state_clear(st);
			return NULL;
		}
	} else {
		for (int k = 0; k < st->dim; k++)
			st->h[k] = p[P_H].num;
	}
	if (kde_h_check(st, e)) {
		kde_state_clear(st);
		return NULL;
	}
	kde_grid_limits(&st->s, st->h, st->lo, st->hi);
	kde_center(&st->s, st->center);
	if (st->dim == 1)
		kde_histogram(st);
	if (kde_state_outputs(st, p, e)) {
		kde_state_clear(st);
		return NULL;
	}
	snprintf(st->key, sizeof st->key, "%s", key);
	return st;
}

/* The points the outputs are at: the samples or the grid. */
static const struct kde_points *kde_at(const struct kde_state *st)
{
	return st->at == AT_SAMPLES ? &st->s : &st->grid;
}

/* Checks what the parameters allow before anything is allocated: the outputs and samples
 * must fit the host memory (naming n, G and both sizes), a data file must read cleanly and
 * have spread. Returns 0, or -1 with e. */
static int kde_check(const struct param_value *p, void **state, struct qx_err *e)
{
	const int dim = (int)p[P_DIM].num, at_grid = (int)p[P_AT].num == AT_GRID;
	const double avail = (double)qx_host_mem_available();
	const double m = at_grid ? pow(p[P_G].num, dim) : p[P_N].num;
	const char *path = param_path(p[P_DATA]);
	const double slots = p[P_SHARE].num * 8;
	if (p[P_COLUMN].num >= 0 && p[P_COLUMN].num != floor(p[P_COLUMN].num))
		return qx_fail(e, "column %g: expected a column number 1..%d or auto",
		               p[P_COLUMN].num, KDE_COLUMN_MAX);
	if (slots != 1 && slots != 2 && slots != 3)
		return qx_fail(
		    e,
		    "share %g: the fast variant is built for 0.125, 0.25 and 0.375 (1, 2 "
		    "or 3 of every 8 exponentials by the polynomial)",
		    p[P_SHARE].num);
	if (!path) {
		const double need = kde_bytes(p[P_N].num, m, dim, at_grid);
		char grid[64] = "";
		if (at_grid)
			snprintf(grid, sizeof grid, " at G = %.0f points per axis", p[P_G].num);
		char needs[32], has[32];
		format_mib(need / 1048576.0, needs, sizeof needs);
		format_mib(avail / 1048576.0, has, sizeof has);
		if (m > (double)(SIZE_MAX / 16) || (avail > 0 && need > avail))
			return qx_fail(
			    e,
			    "n = %.0f samples%s (dim %d): needs %s of host memory, %s is "
			    "available",
			    p[P_N].num, grid, dim, needs, has);
		return 0;
	}
	if (at_grid && avail > 0 && kde_bytes(0, m, dim, 1) > avail) {
		char needs[32], has[32];
		format_mib(kde_bytes(0, m, dim, 1) / 1048576.0, needs, sizeof needs);
		format_mib(avail / 1048576.0, has, sizeof has);
		return qx_fail(e,
		               "G = %.0f points per axis (dim %d) needs %s of host memory, %s is "
		               "available",
		               p[P_G].num, dim, needs, has);
	}
	return kde_state(p, state, e) ? 0 : -1;
}

/* n, dist and seed draw the samples: unused while data names a file. */
static const char *kde_param_unused(const struct param_value *p, size_t k)
{
	if ((k == P_N || k == P_DIST || k == P_SEED) && param_path(p[P_DATA]))
		return "the samples are the data file's (set data none to draw n samples from dist "
		       "with seed)";
	return NULL;
}

/* Number of outputs: the samples (n, or the data file's count) or G^dim grid points; 0 when
 * the data cannot be read (check refuses such parameters first). */
static size_t kde_count(const struct param_value *p, void **state, const struct user_defs *u)
{
	(void)u;
	struct qx_err e;
	if (!param_path(p[P_DATA]))
		return (int)p[P_AT].num == AT_GRID ? (size_t)pow(p[P_G].num, p[P_DIM].num)
		                                   : (size_t)p[P_N].num;
	const struct kde_state *st = kde_state(p, state, &e);
	return st ? st->m : 0;
}

/* Fills x, y, z of output i (its point); returns dim. */
static int kde_point(const struct param_value *p, void **state, const struct user_defs *u, size_t i,
                     const char **names, double *vals, int cap)
{
	(void)u;
	static const char *const axis[KDE_DMAX] = {"x", "y", "z"};
	struct qx_err e;
	const struct kde_state *st = kde_state(p, state, &e);
	int k;
	if (!st || i >= st->m)
		return 0;
	for (k = 0; k < st->dim && k < cap; k++) {
		names[k] = axis[k];
		vals[k] = kde_at(st)->x[k][i];
	}
	return k;
}

/* Number of samples: n, or the data file's count (0 when it cannot be read). */
static size_t kde_nsamples(const struct param_value *p, void **state)
{
	struct qx_err e;
	if (!param_path(p[P_DATA]))
		return (size_t)p[P_N].num;
	const struct kde_state *st = kde_state(p, state, &e);
	return st ? st->s.n : 0;
}

/* The reference: the exact double sum at every output, or at an evenly spread sample of
 * KDE_REF_PAIRS / n of them when the pairs exceed KDE_REF_PAIRS. */
static enum qx_ref_kind kde_ref_choice(const struct param_value *p, void **state, size_t *samples,
                                       const char **name)
{
	const size_t n = kde_nsamples(p, state), m = kde_count(p, state, NULL);
	if ((double)n * (double)m <= KDE_REF_PAIRS) {
		*name = "cpu double sum at every output";
		return QX_REF_CPU;
	}
	*samples = (size_t)fmax(KDE_REF_PAIRS / (double)n, KDE_REF_MIN_SAMPLE);
	*name = "cpu double sum at an exact sample of outputs";
	return QX_REF_SAMPLE;
}

/* The hooks the CPU sums poll. */
static const struct kde_hooks kde_cpu_hooks = {qx_cancelled, qx_progress_add};

/* reference: the double sums at outputs idx[0..n) (idx NULL: all) into ref[idx[i]]. */
static int kde_reference(const struct param_value *p, void **state, const struct user_defs *u,
                         int threads, const size_t *idx, size_t n, double *ref, struct qx_err *e)
{
	(void)u; /* no user integrand here */
	const struct kde_state *st = kde_state(p, state, e);
	double *y;
	if (!st)
		return -1;
	if (!idx)
		return kde_exact_d(&st->s, st->h, kde_at(st), NULL, n, ref, threads, &kde_cpu_hooks,
		                   e);
	if (!(y = malloc((n ? n : 1) * sizeof *y)))
		return qx_fail(e, "cannot allocate the reference sample of %zu values", n);
	const int rc =
	    kde_exact_d(&st->s, st->h, kde_at(st), idx, n, y, threads, &kde_cpu_hooks, e);
	for (size_t i = 0; i < n && !rc; i++)
		ref[idx[i]] = y[i];
	free(y);
	return rc;
}

/* Linear interpolation of the g grid values yg over [lo, hi] at the m points x into out (of
 * prec): the binned variants at the samples. */
static void kde_interpolate(const double *yg, size_t g, double lo, double hi, const double *x,
                            size_t m, enum qx_precision prec, void *out)
{
	for (size_t i = 0; i < m; i++) {
		double w;
		const long long j = kde_bin(x[i], lo, hi, (long long)g, &w);
		const double v = (1 - w) * yg[j] + w * yg[j + 1];
		if (prec == QX_DOUBLE)
			((double *)out)[i] = v;
		else
			((float *)out)[i] = (float)v;
	}
}

/* The m points (x[i], y[i]) (x NULL: m points evenly spread over [lo, hi], ends included; y
 * of prec) as the chart's line into c: the means of x and of y over the points in each of
 * min(m, QX_CHART_POINTS) equal bins of [lo, hi], the empty bins left out. Points outside
 * [lo, hi] count in the end bins. */
static void kde_chart_line(const double *x, const void *y, enum qx_precision prec, size_t m,
                           double lo, double hi, struct qx_series *c)
{
	double sx[QX_CHART_POINTS] = {0}, sy[QX_CHART_POINTS] = {0};
	size_t count[QX_CHART_POINTS] = {0};
	const int bins = m < QX_CHART_POINTS ? (int)m : QX_CHART_POINTS;
	for (size_t i = 0; i < m; i++) {
		const double xi = x ? x[i] : kde_grid_coord(lo, hi, m, i);
		const double b = floor((xi - lo) / (hi - lo) * bins);
		const int k = b < 0 ? 0 : b >= bins ? bins - 1 : (int)b;
		sx[k] += xi;
		sy[k] += value_at(y, prec, i);
		count[k]++;
	}
	c->kind = QX_SERIES_LINE;
	c->npoints = 0;
	for (int k = 0; k < bins; k++)
		if (count[k]) {
			c->x[c->npoints] = sx[k] / (double)count[k];
			c->y[c->npoints++] = sy[k] / (double)count[k];
		}
}

/* Fills the chart of a 1-D run (none in 2-D and 3-D) into o: the samples' histogram (bars of
 * a density) and the estimate as a line: at the grid, its values (beyond QX_CHART_POINTS,
 * their means in that many bins); at the samples, the mean of the values at the samples in
 * each of min(n, QX_CHART_POINTS) equal bins over their range, at the bin's mean x (the same
 * density on the same axis, not a value at any one sample); binned at the samples (yg, the G
 * values at its grid in double, given), that grid, which the values are interpolated from.
 * Either way one pass over the outputs at most, next to the run's own n or more per output. */
static void kde_chart(const struct kde_state *st, enum qx_precision prec, const void *values,
                      const double *yg, struct run_output *o)
{
	struct qx_chart *c = &o->chart;
	struct qx_series *line = &c->series[1];
	if (st->dim != 1)
		return;
	c->nseries = 2;
	snprintf(c->title, sizeof c->title, "density of %zu samples, h %.4g", st->s.n, st->h[0]);
	snprintf(c->xlabel, sizeof c->xlabel, "x");
	c->series[0] = st->hist;
	if (yg) {
		kde_chart_line(NULL, yg, QX_DOUBLE, st->g, st->lo[0], st->hi[0], line);
		snprintf(line->name, sizeof line->name, "estimate at its grid of %zu", st->g);
	} else if (st->at == AT_GRID) {
		kde_chart_line(st->grid.x[0], values, prec, st->m, st->lo[0], st->hi[0], line);
		snprintf(line->name, sizeof line->name, "estimate at the grid of %zu", st->m);
	} else {
		const double lo = st->hist.x[0], hi = st->hist.x[st->hist.npoints - 1];
		const double half = (hi - lo) / (2 * (st->hist.npoints - 1));
		kde_chart_line(st->s.x[0], values, prec, st->m, lo - half, hi + half, line);
		snprintf(line->name, sizeof line->name, "estimate at the samples, bin means");
	}
}

/* CPU binned: kde_binned at the grid, copied or interpolated to the outputs; the chart from
 * the grid at the samples (kde_chart). */
static int kde_cpu_binned(const struct kde_state *st, const struct run_request *rq,
                          struct run_output *o, struct qx_err *e)
{
	double *yg = malloc(st->g * sizeof *yg);
	int rc;
	if (!yg)
		return qx_fail(e, "cannot allocate the binned grid of %zu values", st->g);
	rc = kde_binned(&st->s, st->h[0], st->lo[0], st->hi[0], st->g, yg, &kde_cpu_hooks, e);
	if (!rc) {
		kde_interpolate(yg, st->g, st->lo[0], st->hi[0], kde_at(st)->x[0], st->m, rq->prec,
		                o->values);
		kde_chart(st, rq->prec, o->values, st->at == AT_SAMPLES ? yg : NULL, o);
	}
	free(yg);
	return rc;
}

/* Refuses variant v where it cannot run: the dimension (above 1: tiled only) and, on the GPU,
 * the precision, the evaluation points and the block (launch != 0). Returns 0 or -1. */
static int kde_variant_ok(const struct param_value *p, int v, enum qx_precision prec, int block,
                          int launch, struct qx_err *e)
{
	const char *name = kde_variants[v].name;
	if (p[P_DIM].num > 1 && v != V_TILED)
		return qx_fail(e, "variant %s is 1-D: dim %.0f needs variant tiled (set dim 1)",
		               name, p[P_DIM].num);
	if (!launch)
		return 0;
	if ((v == V_SEED || v == V_FAST) && prec != QX_FLOAT)
		return qx_fail(e, "variant %s computes in float only: set precision float", name);
	if (v == V_SEED &&
	    (p[P_AT].num != AT_SAMPLES || param_path(p[P_DATA]) || p[P_N].num > 2147483647.0))
		return qx_fail(e, "variant seed runs the seed's experiment only: generated samples "
		                  "(data none), at samples, n < 2^31");
	if ((v == V_TILED || v == V_FAST) && (block % 32 || block < 32))
		return qx_fail(
		    e,
		    "bad block %d for variant %s: expected whole warps, a multiple of 32 "
		    "in 32..1024",
		    block, name);
	return 0;
}

/* run_cpu: tiled (the exact sum in prec on rq->threads threads) or binned. */
static int kde_run_cpu(const struct run_request *rq, struct run_output *o, struct qx_err *e)
{
	const struct kde_state *st = kde_state(rq->params, rq->state, e);
	if (!st || kde_variant_ok(rq->params, rq->variant, rq->prec, rq->block, 0, e))
		return -1;
	o->work = (double)st->s.n * (double)st->m;
	if (rq->variant == V_BINNED)
		return kde_cpu_binned(st, rq, o, e);
	if (rq->prec == QX_DOUBLE ? kde_exact_d(&st->s, st->h, kde_at(st), NULL, st->m, o->values,
	                                        rq->threads, &kde_cpu_hooks, e)
	                          : kde_exact_f(&st->s, st->h, kde_at(st), NULL, st->m, o->values,
	                                        rq->threads, &kde_cpu_hooks, e))
		return -1;
	kde_chart(st, rq->prec, o->values, NULL, o);
	return 0;
}

/* The CPU double tiled run is the reference itself (the same sum). */
static int kde_is_reference(enum qx_backend b, enum qx_precision prec, int variant)
{
	return b == QX_CPU && prec == QX_DOUBLE && variant == V_TILED;
}

/* gpu_block: the block the variant launches (the block setting; seed: its "h" argument), or
 * -1 with e when it cannot launch it or does not apply to the parameters. */
static int kde_gpu_block(const struct run_request *rq, struct qx_err *e)
{
	return kde_variant_ok(rq->params, rq->variant, rq->prec, rq->block, 1, e) ? -1 : rq->block;
}

/* The largest relative error of the m values vals (of prec) against ref where ref is above
 * 1e-3 of the largest reference value (NaN: no reference there). */
static double kde_err_core(const double *ref, const void *vals, enum qx_precision prec, size_t m)
{
	double peak = 0, worst = 0;
	for (size_t i = 0; i < m; i++)
		if (!isnan(ref[i]))
			peak = fmax(peak, ref[i]);
	for (size_t i = 0; i < m; i++) {
		if (isnan(ref[i]) || !(ref[i] > 1e-3 * peak))
			continue;
		const double v =
		    prec == QX_DOUBLE ? ((const double *)vals)[i] : ((const float *)vals)[i];
		worst = fmax(worst, fabs(v - ref[i]) / ref[i]);
	}
	return worst;
}

/* add_figures: the bandwidth of the first axis, the samples, and for binned err_core: the
 * largest relative error where the density is above 1e-3 of its maximum (the measure of the
 * binned approximation; the tails, where it is larger, count in the error line). */
static void kde_add_figures(const struct run_request *rq, const double *ref, struct run_output *o)
{
	struct qx_err e;
	const struct kde_state *st = kde_state(rq->params, rq->state, &e);
	if (!st)
		return;
	run_output_figure(o, "h", st->h[0]);
	run_output_figure_as(o, "samples", (double)st->s.n, QX_FIG_COUNT);
	if (st->column) {
		run_output_figure_as(o, "column", st->column, QX_FIG_COUNT);
		if (rq->params[P_COLUMN].num < 0 && !o->note)
			o->note =
			    "data column chosen by column auto: the first that is not a row id "
			    "(a header named id, index or row, or the row numbers 1..n); set "
			    "column N to choose";
	}
	if (rq->variant == V_BINNED && ref)
		run_output_figure(o, "err_core", kde_err_core(ref, o->values, rq->prec, st->m));
}

/* Host bytes besides results and reference: the samples and points in double and float. */
static size_t kde_host_bytes(const struct run_request *rq)
{
	const struct param_value *p = rq->params;
	const int at_grid = (int)p[P_AT].num == AT_GRID;
	const double m = (double)kde_count(p, rq->state, NULL);
	return (
	    size_t)(kde_bytes((double)kde_nsamples(p, rq->state), m, (int)p[P_DIM].num, at_grid) -
	            m * 16.0);
}

/* One point (eval): the coordinates args[0..dim) as a kde_points of 1 into pt (pointing into
 * coords). */
static void kde_one_point(const double *args, int dim, double *coords, struct kde_points *pt)
{
	memset(pt, 0, sizeof *pt);
	pt->n = 1;
	pt->dim = dim;
	for (int k = 0; k < dim; k++) {
		coords[k] = args[k];
		pt->x[k] = &coords[k];
	}
}

#ifdef QX_HAVE_CUDA
/* The float copy of the dim axes of pts into f (made once). Returns 0, or -1 with e. */
static int kde_float_copy(const struct kde_points *pts, float **f, struct qx_err *e)
{
	for (int k = 0; k < pts->dim; k++) {
		if (f[k])
			continue;
		if (!(f[k] = malloc(pts->n * sizeof(float))))
			return qx_fail(e, "cannot allocate the float copy of %zu points", pts->n);
		for (size_t j = 0; j < pts->n; j++)
			f[k][j] = (float)pts->x[k][j];
	}
	return 0;
}

/* The GPU job of variant v in prec for state st at the points at (NULL: the samples) of m
 * outputs. Returns 0, or -1 with e (no memory for the float copies). */
static int kde_job(struct kde_state *st, const struct run_request *rq, int v,
                   const struct kde_points *at, float **atf, struct kde_gpu_job *job,
                   struct qx_err *e)
{
	static const int gpu_variant[V_COUNT] = {[V_TILED] = KDE_GPU_TILED,
	                                         [V_FAST] = KDE_GPU_FAST,
	                                         [V_NAIVE] = KDE_GPU_NAIVE,
	                                         [V_SEED] = KDE_GPU_SEED,
	                                         [V_BINNED] = KDE_GPU_BINNED};
	const int fl = rq->prec == QX_FLOAT;
	*job = (struct kde_gpu_job){.variant = gpu_variant[v],
	                            .prec = rq->prec,
	                            .dim = st->dim,
	                            .n = (long long)st->s.n,
	                            .m = at ? (long long)at->n : (long long)st->s.n,
	                            .block = rq->block,
	                            .fast_share = rq->params[P_SHARE].num,
	                            .lo = st->lo[0],
	                            .hi = st->hi[0],
	                            .cancelled = qx_cancelled};
	if (fl && (kde_float_copy(&st->s, st->sf, e) || (at && kde_float_copy(at, atf, e))))
		return -1;
	if (fl && !st->sf_pinned) { /* page-locked once, kept with the samples */
		int k = 0;
		while (k < st->dim && !kde_gpu_pin(st->sf[k], st->s.n * sizeof(float), e))
			k++;
		st->sf_pinned = k == st->dim;
		while (!st->sf_pinned && k-- > 0)
			kde_gpu_unpin(st->sf[k]);
		if (!st->sf_pinned)
			return -1;
	}
	for (int k = 0; k < st->dim; k++) {
		job->x[k] = fl ? (const void *)st->sf[k] : (const void *)st->s.x[k];
		job->at[k] = !at ? NULL : fl ? (const void *)atf[k] : (const void *)at->x[k];
		job->h[k] = st->h[k];
		job->center[k] = st->center[k];
	}
	if (v == V_BINNED) { /* the grid of G points over [lo, hi], made on the device */
		job->m = (long long)st->g;
		job->at[0] = NULL;
	}
	return 0;
}

/* Adds the phases of a GPU run t to the run's timing. */
static void kde_add_times(const struct kde_gpu_times *t, struct qx_timing *q)
{
	for (int i = 0; i < t->nphases; i++)
		qx_timing_add(q, t->name[i], t->ms[i], 0);
	q->total += t->total;
}

/* run_gpu: the variant on the GPU (over rq->gpus GPUs: its outputs divided, each GPU's phases
 * in gpu_time; binned refused there); binned at the samples is interpolated from its grid on
 * the host (phase interp); the chart after (kde_chart). */
static int kde_run_gpu(const struct run_request *rq, struct run_output *o, struct qx_err *e)
{
	struct kde_state *st = kde_state(rq->params, rq->state, e);
	struct kde_gpu_job job;
	struct kde_gpu_times t;
	if (!st || kde_variant_ok(rq->params, rq->variant, rq->prec, rq->block, 1, e) ||
	    kde_job(st, rq, rq->variant, st->at == AT_GRID ? &st->grid : NULL, st->gf, &job, e))
		return -1;
	o->work = (double)st->s.n * (double)st->m;
	if (rq->gpus > 1) { /* the outputs over several GPUs, each one's phases in gpu_time */
		struct kde_gpu_times per[QX_MAX_GPUS];
		if (kde_gpu_run_multi(&job, rq->gpus, o->values, &t, per, e))
			return -1;
		o->ngpus = rq->gpus;
		kde_add_times(&t, &o->time);
		for (int g = 0; g < rq->gpus; g++)
			kde_add_times(&per[g], &o->gpu_time[g]);
		kde_chart(st, rq->prec, o->values, NULL, o);
		return 0;
	}
	if (rq->variant != V_BINNED || st->at == AT_GRID) {
		if (kde_gpu_run(&job, o->values, &t, e))
			return -1;
		kde_add_times(&t, &o->time);
		kde_chart(st, rq->prec, o->values, NULL, o);
		return 0;
	}
	double *yg = malloc(st->g * sizeof *yg);
	void *raw = malloc(st->g * qx_precision_size(rq->prec));
	int rc = -1;
	if (!yg || !raw)
		qx_fail(e, "cannot allocate the binned grid of %zu values", st->g);
	else if (!kde_gpu_run(&job, raw, &t, e)) {
		const double t0 = qx_now_ms();
		for (size_t i = 0; i < st->g; i++)
			yg[i] = rq->prec == QX_DOUBLE ? ((double *)raw)[i] : ((float *)raw)[i];
		kde_interpolate(yg, st->g, st->lo[0], st->hi[0], st->s.x[0], st->m, rq->prec,
		                o->values);
		kde_add_times(&t, &o->time);
		qx_timing_add(&o->time, "interp", qx_now_ms() - t0, 0);
		o->time.total += qx_now_ms() - t0;
		kde_chart(st, rq->prec, o->values, yg, o);
		rc = 0;
	}
	free(yg);
	free(raw);
	return rc;
}

/* Device bytes of the GPU run (the samples and outputs; the float copies are not made). */
static size_t kde_device_bytes(const struct run_request *rq)
{
	const size_t sz = qx_precision_size(rq->prec),
	             m = kde_count(rq->params, rq->state, rq->user);
	const struct param_value *p = rq->params;
	const size_t n = kde_nsamples(p, rq->state), dim = (size_t)p[P_DIM].num;
	const int grid = (int)p[P_AT].num == AT_GRID;
	if (rq->variant == V_BINNED) /* the FFT's length is below 4 G: its buffers, cuFFT's area */
		return n * sz + (size_t)p[P_G].num * (sizeof(double) + sz + 4 * 64);
	if (rq->variant ==
	    V_FAST) /* sorted outputs, indices, CUB's copies (kde_gpu_device_bytes) */
		return n * sz + (grid ? m * sz : 0) + m * (2 * sz + 24) + (m / 256 + 1) * sz +
		       ((size_t)1 << 20);
	return dim * n * sz + (grid ? dim * m * sz : 0) + m * (sizeof(double) + sz);
}
#endif

/* eval X [Y [Z]]: the density at one point from the current samples on backend b in prec
 * (the GPU: variant tiled, block 256), with the exact double sum and the error. */
static int kde_eval(const double *args, const struct param_value *p, void **state,
                    const struct user_defs *u, enum qx_backend b, enum qx_precision prec,
                    struct eval_result *out, struct qx_err *e)
{
	(void)u; /* no user integrand here */
	struct kde_state *st = kde_state(p, state, e);
	struct kde_points pt;
	double coords[KDE_DMAX], exact;
	int given = 0;
	if (!st)
		return -1;
	while (given < KDE_DMAX && !isnan(args[given]))
		given++;
	if (given != st->dim)
		return qx_fail(e, "eval for kde at dim %d takes %d coordinate%s (X%s%s), got %d",
		               st->dim, st->dim, st->dim > 1 ? "s" : "", st->dim > 1 ? " Y" : "",
		               st->dim > 2 ? " Z" : "", given);
	kde_one_point(args, st->dim, coords, &pt);
	if (kde_exact_d(&st->s, st->h, &pt, NULL, 1, &exact, 0, &kde_cpu_hooks, e))
		return -1;
	if (b == QX_GPU) {
#ifdef QX_HAVE_CUDA
		const struct run_request rq = {
		    .params = p, .prec = prec, .variant = V_TILED, .block = 256, .state = state};
		float *ptf[KDE_DMAX] = {NULL};
		struct kde_gpu_job job;
		struct kde_gpu_times t;
		double d = 0;
		float f = 0;
		int rc = kde_job(st, &rq, V_TILED, &pt, ptf, &job, e) ||
		         kde_gpu_run(&job, prec == QX_DOUBLE ? (void *)&d : (void *)&f, &t, e);
		for (int k = 0; k < KDE_DMAX; k++)
			free(ptf[k]);
		if (rc)
			return -1;
		out->value = prec == QX_DOUBLE ? d : f;
#else
		return 1;
#endif
	} else if (prec == QX_DOUBLE) {
		out->value = exact;
	} else {
		float f;
		if (kde_exact_f(&st->s, st->h, &pt, NULL, 1, &f, 0, &kde_cpu_hooks, e))
			return -1;
		out->value = f;
	}
	if (prec == QX_FLOAT && ((exact > 0 && exact < FLT_MIN) || exact > FLT_MAX)) {
		qx_fail(e, "the density %.3g is outside float's normal range", exact);
		return QX_EVAL_UNREPRESENTABLE;
	}
	out->nfigures = 3;
	out->figure[0] = (struct qx_figure){.name = "exact", .value = exact};
	out->figure[1] = (struct qx_figure){.name = "error", .value = fabs(out->value - exact)};
	out->figure[2] = (struct qx_figure){.name = "h", .value = st->h[0]};
	return 0;
}

/* The phases its GPU runs report (cuda/kde/), in order, and the host's interpolation. */
static const char *const kde_phases[] = {"alloc",    "h2d", "scale", "sort",   "kernel", "bin",
                                         "convolve", "d2h", "free",  "interp", NULL};
static const char *const kde_table_phases[] = {"kernel", "d2h", NULL};

// clang-format off
const struct problem kde_problem = {
    .name = "kde", .summary = "Gaussian kernel density estimation",
    .phases = kde_phases, .table_phases = kde_table_phases, .work_unit = "pairs",
    .params = kde_params_def, .nparams = P_COUNT, .param_unused = kde_param_unused,
    .ref_kind = QX_REF_CPU, .ref_name = "cpu double sum at every output",
    .ref_choice = kde_ref_choice,
    .variants = kde_variants, .nvariants = V_COUNT,
    .eval_args = kde_eval_args, .neval_args = KDE_NEVAL_ARGS, .neval_min = 1,
    .check = kde_check, .count = kde_count, .host_bytes = kde_host_bytes,
    .point = kde_point, .run_cpu = kde_run_cpu,
    .reference = kde_reference, .is_reference = kde_is_reference,
    .add_figures = kde_add_figures, .gpu_block = kde_gpu_block,
    .eval = kde_eval, .multi_gpu = 1, .state_free = kde_state_free,
#ifdef QX_HAVE_CUDA
    .run_gpu = kde_run_gpu, .device_bytes = kde_device_bytes,
#endif
};
// clang-format on
