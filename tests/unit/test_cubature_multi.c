/* test_cubature_multi.c - what the GPUs of cubature breadth over several devices agree on each
 * iteration (src/problems/cubature/cubature_multi.h), with simulated devices: leaves drawn over
 * many octaves of error are dealt to 1..16 devices, each device sums its leaves and builds its
 * error histogram against the agreed largest error as cub_hist_kernel does; the agreed sums, the
 * tolerance, the threshold and the leaves that split must be those of all the leaves on one
 * device, whether the devices without leaves take part or are left out; the threshold is
 * checked against its definition, edge cases included. Where an iteration's new regions go
 * (cub_multi_plan): nowhere while they are too few to fill the devices, then balanced for good. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../src/problems/cubature/cubature_multi.h"

#define NB (CUB_HIST_BUCKETS + 1)
#define MAXLEAF 20000
#define MAXDEV 16

/* A small deterministic generator (xorshift64*), so a failure repeats. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static double uniform(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (double)((rng_state * 0x2545f4914f6cdd1dULL) >> 11) * 0x1p-53;
}

/* The bucket of error v against the largest error m (cub_hist_kernel's rule). */
static int bucket(double v, double m)
{
	if (!(v > m * 0x1p-64))
		return 0;
	const int q = (int)floor(4 * log2(m / v));
	return CUB_HIST_BUCKETS - (q < CUB_HIST_BUCKETS - 1 ? q : CUB_HIST_BUCKETS - 1);
}

/* A simulated device's sums and histogram (against max m) over leaves [lo, hi). */
static struct cub_multi_tot device_tot(const double *est, const double *err, int lo, int hi)
{
	struct cub_multi_tot t = {0, 0, 0};
	for (int r = lo; r < hi; r++) {
		t.est += est[r];
		t.err += err[r];
		t.max = fmax(t.max, err[r]);
	}
	return t;
}

static void device_hist(const double *err, int lo, int hi, double m, double *hist)
{
	memset(hist, 0, NB * sizeof *hist);
	for (int r = lo; r < hi; r++)
		hist[bucket(err[r], m)] += err[r];
}

static double est[MAXLEAF], err[MAXLEAF];

/* The devices' sums as a device holds them after copying the others': 4 words a device. */
#define MAIL 4

/* Draws n leaves: errors spread over 40 octaves, estimates of either sign. */
static void draw(int n)
{
	for (int r = 0; r < n; r++) {
		err[r] = ldexp(uniform() + 0.5, -(int)(40 * uniform()));
		est[r] = (uniform() - 0.3) * 1e-3;
	}
}

/* The run's decision on g devices holding contiguous deals of the n leaves (cut at random):
 * the agreed sums, tolerance and threshold; with only_busy, the devices without leaves are left
 * out of the agreement (as the driver leaves them), else they take part with empty sums. */
static void decide_on(int n, int g, int only_busy, double fin_est, double fin_err, double rel,
                      double abs_tol, struct cub_multi_tot *all, double *tol, double *theta)
{
	static double hist[MAXDEV * NB];
	double mail[MAXDEV * MAIL];
	unsigned mask = 0;
	int cut[MAXDEV + 1];
	cut[0] = 0;
	cut[g] = n;
	for (int d = 1; d < g; d++) /* sorted cuts, some devices empty */
		cut[d] = cut[d - 1] + (int)((n - cut[d - 1]) * uniform() * 2 / (g - d + 1));
	for (int d = 1; d < g; d++)
		if (cut[d] > n)
			cut[d] = n;
	for (int d = 0; d < g; d++) {
		const struct cub_multi_tot t = device_tot(est, err, cut[d], cut[d + 1]);
		mail[d * MAIL] = t.est;
		mail[d * MAIL + 1] = t.err;
		mail[d * MAIL + 2] = t.max;
		mail[d * MAIL + 3] = NAN; /* never read */
		mask |= (!only_busy || cut[d + 1] > cut[d]) ? 1u << d : 0;
	}
	*all = cub_multi_agree(mail, g, MAIL, mask);
	for (int d = 0; d < g; d++)
		device_hist(err, cut[d], cut[d + 1], all->max, hist + d * NB);
	double sum[NB];
	for (int k = 0; k < NB; k++)
		sum[k] = cub_multi_bucket(hist, g, NB, mask, k);
	cub_multi_theta(sum, *all, fin_est, fin_err, rel, abs_tol, tol, theta);
}

/* decide_on with every device taking part. */
static void decide(int n, int g, double fin_est, double fin_err, double rel, double abs_tol,
                   struct cub_multi_tot *all, double *tol, double *theta)
{
	decide_on(n, g, 0, fin_est, fin_err, rel, abs_tol, all, tol, theta);
}

/* Leaves over theta among the n. */
static int splits(int n, double theta)
{
	int k = 0;
	for (int r = 0; r < n; r++)
		k += err[r] > theta;
	return k;
}

static void test_devices_agree_with_one(void **state)
{
	(void)state;
	for (int trial = 0; trial < 40; trial++) {
		const int n = 100 + (int)(uniform() * (MAXLEAF - 100));
		const double rel = pow(10, -3 - 6 * uniform()), fin_err = 0;
		draw(n);
		struct cub_multi_tot one, all;
		double tol1, theta1;
		decide(n, 1, 0, fin_err, rel, 0, &one, &tol1, &theta1);
		for (int g = 2; g <= MAXDEV; g *= 2) {
			double tol, theta;
			decide_on(n, g, trial % 2, 0, fin_err, rel, 0, &all, &tol, &theta);
			assert_true(all.max == one.max);
			assert_true(fabs(all.est - one.est) <= 1e-12 * fabs(one.est) + 1e-300);
			assert_true(fabs(all.err - one.err) <= 1e-12 * one.err);
			assert_true(fabs(tol - tol1) <= 1e-12 * tol1);
			assert_true(theta == theta1);
			assert_int_equal(splits(n, theta), splits(n, theta1));
		}
	}
}

/* The threshold's definition: the leaves at or under it (their buckets) keep at most
 * CUB_BREADTH_KEEP (tol - fin_err), the next bucket edge up would pass it, and the largest
 * error always splits. */
static void test_theta_definition(void **state)
{
	(void)state;
	for (int trial = 0; trial < 200; trial++) {
		const int n = 1000;
		const double rel = pow(10, -2 - 10 * uniform()), fin_err = 1e-6 * uniform() * rel;
		struct cub_multi_tot all;
		double tol, theta;
		draw(n);
		decide(n, 1 + trial % 7, 0.25, fin_err, rel, 0, &all, &tol, &theta);
		const double budget = CUB_BREADTH_KEEP * (tol - fin_err);
		assert_true(tol == fmax(0, rel * fabs(0.25 + all.est)));
		assert_true(theta < all.max);
		double kept = 0, next = 0;
		const double up = theta > 0 ? theta * exp2(0.25) : all.max * 0x1p-64 * exp2(0.25);
		for (int r = 0; r < n; r++) {
			kept += err[r] <= theta ? err[r] : 0;
			next += bucket(err[r], all.max) <= bucket(up, all.max) ? err[r] : 0;
		}
		assert_true(kept <= budget * (1 + 1e-12));
		if (theta < all.max * exp2(-0.25) * (1 - 1e-12))
			assert_true(next > budget * (1 - 1e-12));
	}
}

/* Edge cases: a NaN error anywhere splits every leaf (-1); a tolerance the errors fit whole
 * keeps all but the top bucket; a tolerance spent by the retired leaves splits all; bucket 0
 * alone within the budget gives its edge. */
static void test_theta_edges(void **state)
{
	(void)state;
	double hist[NB] = {0}, tol, theta;
	struct cub_multi_tot all = {1, NAN, 1};
	hist[0] = NAN; /* a NaN error falls in bucket 0 */
	cub_multi_theta(hist, all, 0, 0, 1e-3, 0, &tol, &theta);
	assert_true(theta == -1);
	memset(hist, 0, sizeof hist);
	hist[CUB_HIST_BUCKETS] = 1e-9;
	all = (struct cub_multi_tot){1, 1e-9, 1e-9};
	cub_multi_theta(hist, all, 0, 0, 1e-3, 0, &tol, &theta);
	assert_true(tol == 1e-3);
	assert_true(theta == 1e-9 * exp2(-0.25));
	cub_multi_theta(hist, all, 0, 2e-3, 1e-3, 0, &tol, &theta);
	assert_true(theta == -1);
	hist[0] = 1e-20;
	hist[1] = 1e-3;
	all = (struct cub_multi_tot){1, 1e-3, 1};
	cub_multi_theta(hist, all, 0, 0, 1e-3, 1e-4, &tol, &theta);
	assert_true(theta == 0x1p-64);
	all.est = 0; /* the absolute tolerance when it is the larger */
	cub_multi_theta(hist, all, 0, 0, 1e-3, 1e-4, &tol, &theta);
	assert_true(tol == 1e-4);
}

/* pairs after applying moves[0..nmoves) to them must be after, every move from a device with
 * pairs to another, the total kept. */
static void check_moves(const long long *pairs, int g, const struct mg_move *moves, int nmoves,
                        const long long *after)
{
	long long got[MAXDEV], t0 = 0, t1 = 0;
	for (int d = 0; d < g; d++)
		got[d] = pairs[d];
	for (int m = 0; m < nmoves; m++) {
		assert_true(moves[m].from != moves[m].to && moves[m].count > 0);
		got[moves[m].from] -= moves[m].count;
		got[moves[m].to] += moves[m].count;
	}
	for (int d = 0; d < g; d++) {
		assert_true(got[d] == after[d] && after[d] >= 0);
		t0 += pairs[d];
		t1 += after[d];
	}
	assert_true(t0 == t1);
}

/* A run starting on device 0 of 4: its pairs stay there while their children are under fill,
 * then spread over the devices within the spread, and keep being balanced once spread, however
 * few. */
static void test_plan_stays_then_spreads(void **state)
{
	(void)state;
	const long long fill = 1000;
	struct mg_move moves[MAXDEV];
	long long after[MAXDEV];
	int nmoves = -1, spread = 0;
	for (long long p = 1; p < fill / 2; p = p * 3 / 2 + 1) {
		const long long pairs[4] = {p, 0, 0, 0};
		assert_int_equal(
		    cub_multi_plan(pairs, 4, fill, 0.05, &spread, moves, &nmoves, after, NULL), 0);
		assert_int_equal(nmoves, 0);
		assert_int_equal(spread, 0);
		check_moves(pairs, 4, moves, nmoves, after);
	}
	const long long big[4] = {fill / 2, 0, 0, 0};
	assert_int_equal(cub_multi_plan(big, 4, fill, 0.05, &spread, moves, &nmoves, after, NULL),
	                 0);
	assert_int_equal(spread, 1);
	assert_int_equal(nmoves, 3);
	check_moves(big, 4, moves, nmoves, after);
	for (int d = 0; d < 4; d++)
		assert_true(llabs(after[d] - fill / 8) <= mg_spread(fill / 2, 4, 0.05));
	const long long few[4] = {7, 0, 1, 0}; /* spread already: balanced however few */
	assert_int_equal(cub_multi_plan(few, 4, fill, 0.05, &spread, moves, &nmoves, after, NULL),
	                 0);
	assert_true(nmoves > 0);
	check_moves(few, 4, moves, nmoves, after);
	for (int d = 0; d < 4; d++)
		assert_true(after[d] >= 1 && after[d] <= 3);
}

/* Random pairs on up to 16 devices, spread or not: the moves are consistent, nothing moves
 * unless spread or the children reach fill, and once moved the counts are within the spread. */
static void test_plan_random(void **state)
{
	(void)state;
	struct mg_move moves[MAXDEV];
	long long pairs[MAXDEV], after[MAXDEV];
	for (int trial = 0; trial < 2000; trial++) {
		const int g = 1 + (int)(uniform() * MAXDEV);
		const long long fill = (long long)(uniform() * 1e6);
		long long total = 0;
		int spread = trial % 3 == 0, nmoves = -1;
		for (int d = 0; d < g; d++) {
			pairs[d] = uniform() < 0.3 ? 0 : (long long)(uniform() * uniform() * 1e5);
			total += pairs[d];
		}
		const int was = spread;
		assert_int_equal(
		    cub_multi_plan(pairs, g, fill, 0.05, &spread, moves, &nmoves, after, NULL), 0);
		check_moves(pairs, g, moves, nmoves, after);
		assert_int_equal(spread, was || 2 * total >= fill);
		if (!spread)
			assert_int_equal(nmoves, 0);
		else {
			long long lo = after[0], hi = after[0];
			for (int d = 1; d < g; d++) {
				lo = after[d] < lo ? after[d] : lo;
				hi = after[d] > hi ? after[d] : hi;
			}
			assert_true(hi - lo <= mg_spread(total, g, 0.05));
		}
	}
}

/* Bad input: a device count out of range or a negative count is one error, nothing planned. */
static void test_plan_refuses(void **state)
{
	(void)state;
	struct mg_move moves[MAXDEV];
	long long after[MAXDEV];
	const long long neg[2] = {5, -1};
	struct qx_err e = {0};
	int spread = 0, nmoves = -1;
	assert_int_equal(cub_multi_plan(neg, 0, 10, 0.05, &spread, moves, &nmoves, after, &e), -1);
	assert_non_null(strstr(e.msg, "device"));
	assert_int_equal(cub_multi_plan(neg, 2, 10, 0.05, &spread, moves, &nmoves, after, &e), -1);
	assert_non_null(strstr(e.msg, "-1"));
	assert_int_equal(nmoves, 0);
	assert_int_equal(spread, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_devices_agree_with_one),
	    cmocka_unit_test(test_theta_definition),
	    cmocka_unit_test(test_theta_edges),
	    cmocka_unit_test(test_plan_stays_then_spreads),
	    cmocka_unit_test(test_plan_random),
	    cmocka_unit_test(test_plan_refuses),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
