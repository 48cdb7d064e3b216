/* test_kde_gpu.c - problem kde's GPU variants (src/problems/kde/kde_gpu.h) against the CPU
 * reference (kde_exact_d of src/problems/kde/kde_math.h, itself checked against mpmath by
 * test_kde): every variant at small and moderate n, float and double, 1-D to 3-D for tiled, the
 * seed's bugs, the binned error, limits, cancellation and the ex2 ceiling. Skips (exit 0) in a
 * build without CUDA or without a usable GPU, unless QUADX_REQUIRE_GPU is set. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../src/device.h"
#include "../../src/problems/kde/kde_math.h"

#ifdef QX_HAVE_CUDA
#include "../../src/problems/kde/kde_gpu.h"
#include "gpu_fixture.h"

/* n samples of dist (seed 1) in double, with Silverman's h per axis. */
static void samples(struct kde_points *s, size_t n, int dim, enum kde_dist dist, double *h)
{
	struct qx_err e;
	assert_int_equal(kde_points_alloc(s, n, dim, &e), 0);
	kde_generate(dist, 1, s);
	assert_int_equal(kde_bandwidth(s, KDE_SILVERMAN, h, &e), 0);
}

/* Copies the coordinates of p into float or double arrays for a job (freed by drop()). */
static void *coords(const struct kde_points *p, int k, enum qx_precision prec)
{
	if (prec == QX_DOUBLE) {
		double *d = malloc(p->n * sizeof *d);
		memcpy(d, p->x[k], p->n * sizeof *d);
		return d;
	}
	float *f = malloc(p->n * sizeof *f);
	for (size_t j = 0; j < p->n; j++)
		f[j] = (float)p->x[k][j];
	return f;
}

/* The job for variant v over samples s at points at (NULL: the samples). */
static struct kde_gpu_job job_for(int v, enum qx_precision prec, const struct kde_points *s,
                                  const struct kde_points *at, const double *h, int block)
{
	struct kde_gpu_job j = {.variant = v,
	                        .prec = prec,
	                        .dim = s->dim,
	                        .n = (long long)s->n,
	                        .m = (long long)(at ? at->n : s->n),
	                        .block = block,
	                        .fast_share = 0.25};
	double c[KDE_DMAX];
	kde_center(s, c);
	for (int k = 0; k < s->dim; k++) {
		j.x[k] = coords(s, k, prec);
		j.at[k] = at ? coords(at, k, prec) : NULL;
		j.h[k] = h[k];
		j.center[k] = c[k];
	}
	return j;
}

/* Frees a job's coordinate copies. */
static void drop(struct kde_gpu_job *j)
{
	for (int k = 0; k < 3; k++) {
		free((void *)j->x[k]);
		free((void *)j->at[k]);
	}
}

/* Runs job; returns its m values as doubles (malloc'd) and checks its phases add up. */
static double *run(const struct kde_gpu_job *job)
{
	struct qx_err e;
	struct kde_gpu_times t;
	const size_t sz = job->prec == QX_DOUBLE ? sizeof(double) : sizeof(float);
	void *out = malloc((size_t)job->m * sz);
	double *y = malloc((size_t)job->m * sizeof *y), sum = 0;
	if (kde_gpu_run(job, out, &t, &e))
		fail_msg("variant %d: %s", job->variant, e.msg);
	for (int i = 0; i < t.nphases; i++) {
		assert_non_null(t.name[i]);
		assert_true(t.ms[i] >= 0);
		sum += t.ms[i];
	}
	assert_true(t.nphases >= 4 && t.chunks >= 1 &&
	            fabs(sum - t.total) <= 1e-3 * t.total + 1e-3);
	for (long long i = 0; i < job->m; i++)
		y[i] = job->prec == QX_DOUBLE ? ((double *)out)[i] : ((float *)out)[i];
	free(out);
	return y;
}

/* The worst relative error of y[idx[i]] against ref[i], i < k (idx NULL: i). */
static double worst_rel(const double *y, const size_t *idx, const double *ref, size_t k)
{
	double w = 0;
	for (size_t i = 0; i < k; i++)
		w = fmax(w, fabs(y[idx ? idx[i] : i] - ref[i]) / ref[i]);
	return w;
}

/* Runs variant v at the samples (n of them) and compares 512 evenly spread outputs with the
 * CPU double sum; returns the worst relative error. */
static double at_samples(int v, enum qx_precision prec, size_t n, int block)
{
	struct qx_err e;
	struct kde_points s;
	double h, ref[512];
	size_t idx[512], k = n < 512 ? n : 512;
	samples(&s, n, 1, KDE_NORMAL, &h);
	kde_sample_indices(n, k, idx);
	assert_int_equal(kde_exact_d(&s, &h, &s, idx, k, ref, 0, NULL, &e), 0);
	struct kde_gpu_job j = job_for(v, prec, &s, NULL, &h, block);
	double *y = run(&j);
	const double w = worst_rel(y, idx, ref, k);
	print_message("variant %d %s n = %zu block %d: worst relative error %.2g\n", v,
	              prec == QX_DOUBLE ? "double" : "float", n, block, w);
	free(y);
	drop(&j);
	kde_points_free(&s);
	return w;
}

/* The seed's kernel, the first run of the process (a fresh allocation, zero): with h = 0 in
 * the kernel every output is 0, or NaN where x_i equals a truncated sample, exactly as
 * kde_seed_emulate says; the job's h is ignored; blocks 2 and 1024 alike. */
static void test_seed(void **state)
{
	struct kde_points s;
	double h;
	(void)state;
	if (!fixture_have_gpu)
		skip();
	samples(&s, 3000, 1, KDE_MIXTURE, &h);
	s.x[0][10] = 1.0; /* whole numbers: (x_i - (int)x_j) / 0 = 0 / 0 where x_j is in [1, 2) */
	s.x[0][20] = -2.0;
	for (int block = 2; block <= 1024; block *= 512) {
		struct kde_gpu_job j = job_for(KDE_GPU_SEED, QX_FLOAT, &s, NULL, &h, block);
		float *emu = calloc(s.n, sizeof *emu);
		kde_seed_emulate(j.x[0], s.n, 0, emu);
		double *y = run(&j);
		size_t nans = 0;
		for (size_t i = 0; i < s.n; i++) {
			if (isnan(emu[i]) != isnan(y[i]))
				fail_msg("seed block %d output %zu: GPU %g, emulation %g", block, i,
				         y[i], emu[i]);
			nans += isnan(emu[i]) != 0;
			if (block == 2 && !isnan(emu[i]) && y[i] != emu[i])
				fail_msg("seed output %zu: %g, not the emulation's %g (the never "
				         "zeroed y held data: not a fresh allocation?)",
				         i, y[i], emu[i]);
		}
		assert_true(nans >= 2);
		print_message("seed block %d: %zu NaN outputs, as the emulation\n", block, nans);
		free(y);
		free(emu);
		drop(&j);
	}
	kde_points_free(&s);
}

/* naive and tiled in double agree with the CPU double sum to 1e-12; naive in float stays
 * within 1e-3 (its single float accumulator; its error is printed), tiled float within 4e-6
 * and fast within 1e-5 at n = 2^20 (the Gaussian KDE study's bounds), and both at small n and odd
 * blocks. */
static void test_exact_variants(void **state)
{
	(void)state;
	if (!fixture_have_gpu)
		skip();
	assert_true(at_samples(KDE_GPU_NAIVE, QX_DOUBLE, 2000, 128) <= 1e-12);
	assert_true(at_samples(KDE_GPU_NAIVE, QX_DOUBLE, 1 << 17, 256) <= 1e-12);
	assert_true(at_samples(KDE_GPU_TILED, QX_DOUBLE, 2001, 96) <= 1e-12);
	assert_true(at_samples(KDE_GPU_TILED, QX_DOUBLE, 1 << 17, 256) <= 1e-12);
	assert_true(at_samples(KDE_GPU_NAIVE, QX_FLOAT, 2000, 7) <= 1e-5);
	assert_true(at_samples(KDE_GPU_NAIVE, QX_FLOAT, 1 << 20, 256) <= 1e-3);
	assert_true(at_samples(KDE_GPU_TILED, QX_FLOAT, 2001, 32) <= 4e-6);
	assert_true(at_samples(KDE_GPU_TILED, QX_FLOAT, 1 << 20, 256) <= 4e-6);
	assert_true(at_samples(KDE_GPU_FAST, QX_FLOAT, 2001, 64) <= 1e-5);
	assert_true(at_samples(KDE_GPU_FAST, QX_FLOAT, 1 << 20, 256) <= 1e-5);
}

/* tiled in 2-D and 3-D at a grid, float and double, against the CPU double sum. */
static void test_tiled_dims(void **state)
{
	struct qx_err e;
	(void)state;
	if (!fixture_have_gpu)
		skip();
	for (int dim = 2; dim <= 3; dim++) {
		struct kde_points s, grid;
		double h[3], lo[3], hi[3];
		samples(&s, 5000, dim, KDE_MIXTURE, h);
		kde_grid_limits(&s, h, lo, hi);
		assert_int_equal(kde_grid_points(lo, hi, dim, dim == 2 ? 40 : 12, &grid, &e), 0);
		double *ref = malloc(grid.n * sizeof *ref);
		assert_int_equal(kde_exact_d(&s, h, &grid, NULL, grid.n, ref, 0, NULL, &e), 0);
		for (int p = QX_FLOAT; p <= QX_DOUBLE; p++) {
			struct kde_gpu_job j = job_for(KDE_GPU_TILED, p, &s, &grid, h, 128);
			double *y = run(&j), w = 0, top = 0;
			for (size_t i = 0; i < grid.n; i++)
				top = fmax(top, ref[i]);
			for (size_t i = 0; i < grid.n; i++)
				if (ref[i] > 1e-6 * top)
					w = fmax(w, fabs(y[i] - ref[i]) / ref[i]);
			print_message(
			    "tiled %d-D %s: worst relative error %.2g (density > 1e-6 max)\n", dim,
			    p == QX_DOUBLE ? "double" : "float", w);
			assert_true(w <= (p == QX_DOUBLE ? 1e-12 : 1e-5));
			free(y);
			drop(&j);
		}
		free(ref);
		kde_points_free(&grid);
		kde_points_free(&s);
	}
}

/* binned at G = 4096 over n = 2^20: within 1e-4 of the exact sum where the density is above
 * 1e-3 of its maximum, and equal to the CPU's binned (FFTW) to 1e-9 of the maximum. */
static void test_binned(void **state)
{
	struct qx_err e;
	struct kde_points s, grid;
	const size_t g = 4096;
	double h, lo, hi;
	(void)state;
	if (!fixture_have_gpu)
		skip();
	samples(&s, 1 << 20, 1, KDE_NORMAL, &h);
	kde_grid_limits(&s, &h, &lo, &hi);
	assert_int_equal(kde_grid_points(&lo, &hi, 1, g, &grid, &e), 0);
	double *ref = malloc(g * sizeof *ref), *cpu = malloc(g * sizeof *cpu), top = 0;
	assert_int_equal(kde_exact_d(&s, &h, &grid, NULL, g, ref, 0, NULL, &e), 0);
	assert_int_equal(kde_binned(&s, h, lo, hi, g, cpu, NULL, &e), 0);
	for (size_t i = 0; i < g; i++)
		top = fmax(top, ref[i]);
	for (int p = QX_FLOAT; p <= QX_DOUBLE; p++) {
		struct kde_gpu_job j = job_for(KDE_GPU_BINNED, p, &s, NULL, &h, 256);
		j.m = (long long)g;
		j.lo = lo;
		j.hi = hi;
		double *y = run(&j), w = 0, wc = 0;
		for (size_t i = 0; i < g; i++) {
			if (ref[i] > 1e-3 * top)
				w = fmax(w, fabs(y[i] - ref[i]) / ref[i]);
			wc = fmax(wc, fabs(y[i] - cpu[i]) / top);
		}
		print_message("binned %s: worst relative error %.2g (density > 1e-3 max), "
		              "%.2g of max from the CPU's\n",
		              p == QX_DOUBLE ? "double" : "float", w, wc);
		/* the GPU bins in fixed point (2^16 per sample, cuda/kde/binned.cu), the CPU in
		 * double: each bin differs by up to 2^-17 of a sample's weight */
		assert_true(w <= 1e-4 && wc <= (p == QX_DOUBLE ? 1e-8 : 1e-6));
		free(y);
		drop(&j);
	}
	free(ref);
	free(cpu);
	kde_points_free(&grid);
	kde_points_free(&s);
}

/* Returns 1: every poll says cancel. */
static int cancel_now(void)
{
	return 1;
}

/* Refusals before allocating (block, dimension, precision, memory), a cancelled run, and a
 * run after both that works. */
static void test_limits_and_cancel(void **state)
{
	struct qx_err e;
	struct kde_points s;
	struct kde_gpu_times t;
	double h;
	(void)state;
	if (!fixture_have_gpu)
		skip();
	samples(&s, 1 << 16, 1, KDE_NORMAL, &h);
	struct kde_gpu_job j = job_for(KDE_GPU_TILED, QX_FLOAT, &s, NULL, &h, 100);
	float *out = malloc(s.n * sizeof *out);
	assert_int_equal(kde_gpu_run(&j, out, &t, &e), -1);
	assert_non_null(strstr(e.msg, "whole warps"));
	j.block = 256;
	j.dim = 2;
	j.variant = KDE_GPU_NAIVE;
	assert_int_equal(kde_gpu_check(&j, &e), -1);
	assert_non_null(strstr(e.msg, "dimension 2"));
	j.dim = 1;
	j.variant = KDE_GPU_FAST;
	j.prec = QX_DOUBLE;
	assert_int_equal(kde_gpu_check(&j, &e), -1);
	j.prec = QX_FLOAT;
	j.variant = KDE_GPU_TILED;
	const long long n = j.n;
	j.n = j.m = 1LL << 40;
	assert_int_equal(kde_gpu_run(&j, out, &t, &e), -1);
	assert_non_null(strstr(e.msg, "MiB of device memory"));
	j.n = j.m = n;
	j.cancelled = cancel_now;
	assert_int_equal(kde_gpu_run(&j, out, &t, &e), -1);
	assert_string_equal(e.msg, "run cancelled");
	j.cancelled = NULL;
	assert_int_equal(kde_gpu_run(&j, out, &t, &e), 0);
	free(out);
	drop(&j);
	kde_points_free(&s);
}

/* The ex2-only kernel reaches between 30% and 110% of 16 ex2 per clock per SM. */
static void test_ceiling(void **state)
{
	struct qx_err e;
	struct kde_gpu_ceiling c;
	(void)state;
	if (!fixture_have_gpu)
		skip();
	assert_int_equal(kde_gpu_ceiling(5, &c, &e), 0);
	print_message("ex2 ceiling: %d SMs at %d MHz: peak %.3g/s, measured %.3g/s\n", c.sms,
	              c.clock_mhz, c.ex2_per_s_peak, c.ex2_per_s);
	assert_true(c.ex2_per_s > 0.3 * c.ex2_per_s_peak && c.ex2_per_s < 1.1 * c.ex2_per_s_peak);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_seed), /* first: its never-zeroed y must be a fresh allocation */
	    cmocka_unit_test(test_exact_variants), cmocka_unit_test(test_tiled_dims),
	    cmocka_unit_test(test_binned),         cmocka_unit_test(test_limits_and_cancel),
	    cmocka_unit_test(test_ceiling),
	};
	const int rc = cmocka_run_group_tests(tests, fixture_open_gpu, NULL);
	gpu_release();
	return rc;
}

#else

int main(void)
{
	printf("test_kde_gpu: skipped: this build has no CUDA (nvcc was not found)\n");
	return getenv("QUADX_REQUIRE_GPU") ? 1 : 0;
}

#endif
