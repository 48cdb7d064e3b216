/* test_multigpu.c - the division of work over several GPUs, with simulated devices: a batch's
 * contiguous shares (equal and weighted by SM counts, by count or by the items' costs) and cubature
 * breadth's rebalancing plan, checked against their contract and, for the plan, against a
 * brute-force optimum. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../src/multigpu.h"

/* A small deterministic generator (xorshift64*), so a failure repeats. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

/* Checks the split contract for n items over g devices of weights w (NULL: equal): the shares
 * tile [0, n) in order, and each count is within one item of its exact quota. */
static void check_split(long long n, int g, const double *w)
{
	struct mg_share sh[MG_MAX_DEVICES];
	struct qx_err e = {""};
	double sum = 0;
	long long next = 0;
	if (mg_split(n, g, w, sh, &e))
		fail_msg("split %lld over %d: %s", n, g, e.msg);
	for (int d = 0; d < g; d++)
		sum += w ? w[d] : 1;
	for (int d = 0; d < g; d++) {
		const double quota = (double)n * (w ? w[d] : 1) / sum;
		assert_int_equal(sh[d].first, next);
		assert_true(sh[d].count >= 0);
		if (fabs((double)sh[d].count - quota) >= 1 + 1e-9 * quota)
			fail_msg("split %lld over %d: device %d has %lld for a quota of %.3f", n, g,
			         d, sh[d].count, quota);
		next += sh[d].count;
	}
	assert_int_equal(next, n); /* every item exactly once */
}

/* Equal shares differ by at most one, the larger first; n < g leaves empty shares. */
static void test_split_equal(void **state)
{
	struct mg_share sh[MG_MAX_DEVICES];
	struct qx_err e = {""};
	(void)state;
	assert_int_equal(mg_split(10, 4, NULL, sh, &e), 0);
	const long long want[4][2] = {{0, 3}, {3, 3}, {6, 2}, {8, 2}};
	for (int d = 0; d < 4; d++) {
		assert_int_equal(sh[d].first, want[d][0]);
		assert_int_equal(sh[d].count, want[d][1]);
	}
	assert_int_equal(mg_split(2, 4, NULL, sh, &e), 0); /* two items, four devices */
	assert_int_equal(sh[0].count + sh[1].count, 2);
	assert_int_equal(sh[2].count, 0);
	assert_int_equal(sh[3].count, 0);
	assert_int_equal(sh[3].first, 2);
	assert_int_equal(mg_split(0, 3, NULL, sh, &e), 0);
	for (int d = 0; d < 3; d++)
		assert_int_equal(sh[d].count, 0);
	assert_int_equal(mg_split(10000000, 1, NULL, sh, &e), 0); /* one GPU: the whole batch */
	assert_int_equal(sh[0].first, 0);
	assert_int_equal(sh[0].count, 10000000);
	for (int g = 1; g <= MG_MAX_DEVICES; g++)
		for (long long n = 0; n < 3 * g + 2; n++)
			check_split(n, g, NULL);
	check_split(10000000000LL + 7, 3, NULL);
}

/* Weighted by SM counts: a 132-SM and a 66-SM device take 2/3 and 1/3; random weights keep
 * the contract. */
static void test_split_weighted(void **state)
{
	struct mg_share sh[MG_MAX_DEVICES];
	struct qx_err e = {""};
	const double sms[] = {132, 66, 132, 114};
	double w[MG_MAX_DEVICES];
	(void)state;
	assert_int_equal(mg_split(300, 2, sms, sh, &e), 0);
	assert_int_equal(sh[0].count, 200);
	assert_int_equal(sh[1].count, 100);
	assert_int_equal(sh[1].first, 200);
	check_split(1000003, 4, sms);
	check_split(3, 4, sms);
	for (int t = 0; t < 2000; t++) {
		const int g = 1 + (int)(rng() % MG_MAX_DEVICES);
		const long long n = (long long)(rng() % (t % 2 ? 50 : 100000000));
		for (int d = 0; d < g; d++)
			w[d] = 1 + (double)(rng() % 200);
		check_split(n, g, w);
	}
}

/* Bad arguments are refused naming what is allowed. */
static void test_split_refuses(void **state)
{
	struct mg_share sh[MG_MAX_DEVICES];
	struct qx_err e = {""};
	const double bad[] = {1, 0}, inf[] = {1, INFINITY};
	(void)state;
	assert_int_equal(mg_split(10, 0, NULL, sh, &e), -1);
	assert_non_null(strstr(e.msg, "expected 1..16"));
	assert_int_equal(mg_split(10, MG_MAX_DEVICES + 1, NULL, sh, &e), -1);
	assert_int_equal(mg_split(-1, 2, NULL, sh, &e), -1);
	assert_non_null(strstr(e.msg, "expected 0 or more"));
	assert_int_equal(mg_split(10, 2, bad, sh, &e), -1);
	assert_non_null(strstr(e.msg, "device 1"));
	assert_int_equal(mg_split(10, 2, inf, sh, &e), -1);
}

/* Checks mg_split_cost's contract for n items of costs c over g devices of weights w (NULL:
 * equal): the shares tile [0, n) in order, and each share's cost is within the largest item's
 * cost of its quota; returns the largest share cost over its weight. */
static double check_split_cost(long long n, int g, const double *w, const double *c)
{
	struct mg_share sh[MG_MAX_DEVICES];
	struct qx_err e = {""};
	double wsum = 0, total = 0, cmax = 0, worst = 0;
	long long next = 0;
	if (mg_split_cost(n, g, w, c, sh, &e))
		fail_msg("split %lld by cost over %d: %s", n, g, e.msg);
	for (int d = 0; d < g; d++)
		wsum += w ? w[d] : 1;
	for (long long i = 0; i < n; i++) {
		total += c[i];
		cmax = c[i] > cmax ? c[i] : cmax;
	}
	for (int d = 0; d < g; d++) {
		double share = 0;
		const double quota = total * (w ? w[d] : 1) / wsum;
		assert_int_equal(sh[d].first, next);
		assert_true(sh[d].count >= 0);
		for (long long i = sh[d].first; i < sh[d].first + sh[d].count; i++)
			share += c[i];
		if (fabs(share - quota) > cmax * (1 + 1e-9) + 1e-9 * total)
			fail_msg(
			    "split %lld by cost over %d: device %d costs %.6g for a quota of %.6g "
			    "(largest item %.6g)",
			    n, g, d, share, quota, cmax);
		worst = share / (w ? w[d] : 1) > worst ? share / (w ? w[d] : 1) : worst;
		next += sh[d].count;
	}
	assert_int_equal(next, n); /* every item exactly once */
	return worst;
}

/* Unequal costs: expint's 20000 float orders (the first 29 about 4.6 times the rest) over 4
 * equal GPUs give GPU 0 fewer orders and every GPU its quarter of the cost; a tie ends a share
 * before the item; equal, absent or zero costs split as mg_split does; random costs and weights
 * keep the contract. */
static void test_split_cost(void **state)
{
	struct mg_share sh[MG_MAX_DEVICES], plain[MG_MAX_DEVICES];
	struct qx_err e = {""};
	const double sms[] = {132, 66, 132, 114}, one_heavy[] = {0, 0, 100, 0, 0};
	double w[MG_MAX_DEVICES];
	static double c[20000];
	(void)state;
	for (int i = 0; i < 20000; i++)
		c[i] = i < 29 ? 4.6 : 1;
	assert_int_equal(mg_split_cost(20000, 4, NULL, c, sh, &e), 0);
	assert_true(sh[0].count < 5000 && sh[0].count > 4900);
	assert_true(sh[1].count > 5000 && sh[3].count > 5000);
	check_split_cost(20000, 4, NULL, c);
	check_split_cost(20000, 4, sms, c);
	assert_int_equal(mg_split_cost(5, 2, NULL, one_heavy, sh, &e), 0);
	assert_int_equal(sh[0].count, 2); /* 50 either way: the heavy item goes to device 1 */
	assert_int_equal(sh[1].first, 2);
	assert_int_equal(sh[1].count, 3);
	for (int i = 0; i < 1000; i++)
		c[i] = 0;
	assert_int_equal(mg_split_cost(1000, 3, sms, c, sh, &e), 0); /* all zero: by count */
	assert_int_equal(mg_split(1000, 3, sms, plain, &e), 0);
	for (int d = 0; d < 3; d++)
		assert_int_equal(sh[d].count, plain[d].count);
	assert_int_equal(mg_split_cost(1000, 3, sms, NULL, sh, &e), 0);
	for (int d = 0; d < 3; d++)
		assert_int_equal(sh[d].count, plain[d].count);
	assert_int_equal(mg_split_cost(0, 4, NULL, c, sh, &e), 0);
	for (int d = 0; d < 4; d++)
		assert_int_equal(sh[d].count, 0);
	for (int t = 0; t < 3000; t++) {
		const int g = 1 + (int)(rng() % MG_MAX_DEVICES);
		const long long n = (long long)(rng() % (t % 3 ? 40 : 20000));
		for (long long i = 0; i < n; i++) /* some zeros, a few heavy items */
			c[i] = rng() % 5 == 0 ? 0 : (double)(rng() % (rng() % 50 ? 10 : 100000));
		for (int d = 0; d < g; d++)
			w[d] = 1 + (double)(rng() % 200);
		check_split_cost(n, g, t % 2 ? w : NULL, c);
	}
}

/* A negative or non-finite cost is refused naming the item; the other arguments as mg_split. */
static void test_split_cost_refuses(void **state)
{
	struct mg_share sh[MG_MAX_DEVICES];
	struct qx_err e = {""};
	const double neg[] = {1, 2, -1}, nan_cost[] = {1, NAN}, bad[] = {1, 0};
	(void)state;
	assert_int_equal(mg_split_cost(3, 2, NULL, neg, sh, &e), -1);
	assert_non_null(strstr(e.msg, "item 2"));
	assert_non_null(strstr(e.msg, "expected a finite number >= 0"));
	assert_int_equal(mg_split_cost(2, 2, NULL, nan_cost, sh, &e), -1);
	assert_non_null(strstr(e.msg, "item 1"));
	assert_int_equal(mg_split_cost(2, 2, bad, neg, sh, &e), -1);
	assert_non_null(strstr(e.msg, "device 1"));
	assert_int_equal(mg_split_cost(2, 0, NULL, neg, sh, &e), -1);
	assert_int_equal(mg_split_cost(-1, 2, NULL, neg, sh, &e), -1);
}

/* Runs the plan for live over g devices at frac and checks it: the moves are between
 * distinct devices, positive, at most g - 1 of them, each device only sends or only
 * receives, and applying them gives after[], whose spread is within mg_spread; returns the
 * regions moved. */
static long long check_plan(const long long *live, int g, double frac)
{
	struct mg_move mv[MG_MAX_DEVICES];
	struct qx_err e = {""};
	long long after[MG_MAX_DEVICES], now[MG_MAX_DEVICES], moved = 0, total = 0, lo, hi;
	int n = -1, sends[MG_MAX_DEVICES] = {0}, gets[MG_MAX_DEVICES] = {0};
	if (mg_rebalance(live, g, frac, mv, &n, after, &e))
		fail_msg("rebalance: %s", e.msg);
	assert_true(n >= 0 && n <= (g > 1 ? g - 1 : 0));
	memcpy(now, live, (size_t)g * sizeof *now);
	for (int i = 0; i < n; i++) {
		assert_true(mv[i].from >= 0 && mv[i].from < g && mv[i].to >= 0 && mv[i].to < g);
		assert_true(mv[i].from != mv[i].to);
		assert_true(mv[i].count > 0);
		sends[mv[i].from] = gets[mv[i].to] = 1;
		now[mv[i].from] -= mv[i].count;
		now[mv[i].to] += mv[i].count;
		moved += mv[i].count;
	}
	lo = hi = now[0];
	for (int d = 0; d < g; d++) {
		assert_false(sends[d] && gets[d]);
		assert_int_equal(now[d], after[d]);
		assert_true(now[d] >= 0);
		lo = now[d] < lo ? now[d] : lo;
		hi = now[d] > hi ? now[d] : hi;
		total += live[d];
	}
	if (hi - lo > mg_spread(total, g, frac))
		fail_msg("rebalance ended with a spread of %lld (allowed %lld)", hi - lo,
		         mg_spread(total, g, frac));
	return moved;
}

/* The fewest regions any final counts within spread s of each other (summing to the same
 * total) need moved, by trying every band [lo, lo + s]: the larger of what must leave the
 * devices above it and what must reach those below. */
static long long brute_min_moved(const long long *live, int g, long long s)
{
	long long best = -1, total = 0;
	for (int d = 0; d < g; d++)
		total += live[d];
	for (long long lo = 0; lo <= total; lo++) {
		long long out = 0, in = 0;
		if (g * lo > total || g * (lo + s) < total)
			continue;
		for (int d = 0; d < g; d++) {
			out += live[d] > lo + s ? live[d] - lo - s : 0;
			in += live[d] < lo ? lo - live[d] : 0;
		}
		const long long cost = out > in ? out : in;
		if (best < 0 || cost < best)
			best = cost;
	}
	return best;
}

/* Within one region: a skewed list is evened out, a balanced one moves nothing. */
static void test_rebalance_one_region(void **state)
{
	struct mg_move mv[MG_MAX_DEVICES];
	struct qx_err e = {""};
	long long after[4];
	int n = -1;
	const long long skew[] = {1000, 0, 0, 0}, even[] = {251, 250, 251, 250},
	                off[] = {251, 250, 250, 249};
	(void)state;
	assert_int_equal(mg_rebalance(skew, 4, 0, mv, &n, after, &e), 0);
	assert_int_equal(n, 3);
	for (int i = 0; i < n; i++) {
		assert_int_equal(mv[i].from, 0);
		assert_int_equal(mv[i].count, 250);
	}
	assert_int_equal(check_plan(skew, 4, 0), 750);
	assert_int_equal(mg_rebalance(even, 4, 0, mv, &n, after, &e), 0);
	assert_int_equal(n, 0); /* within one region of each other already */
	assert_int_equal(after[0], 251);
	assert_int_equal(mg_rebalance(off, 4, 0, mv, &n, after, &e), 0); /* a spread of 2 */
	assert_int_equal(n, 1);
	assert_int_equal(mv[0].from, 0);
	assert_int_equal(mv[0].to, 3);
	assert_int_equal(mv[0].count, 1);
	const long long two[] = {7, 2};
	assert_int_equal(check_plan(two, 2, 0), 2); /* 7 2 -> 5 4 */
	const long long one[] = {12345};
	assert_int_equal(check_plan(one, 1, 0), 0);
}

/* Within a fraction of the mean: less moves, and none while the spread is within it. */
static void test_rebalance_fraction(void **state)
{
	const long long live[] = {1300, 1000, 900, 800}; /* mean 1000 */
	const long long close[] = {1040, 1000, 980, 980};
	(void)state;
	assert_int_equal(mg_spread(4000, 4, 0.1), 100);
	assert_int_equal(mg_spread(4000, 4, 0), 1);
	assert_int_equal(mg_spread(3, 4, 0.5), 1);
	assert_int_equal(check_plan(live, 4, 0.1), brute_min_moved(live, 4, 100));
	assert_true(check_plan(live, 4, 0.1) < check_plan(live, 4, 0));
	assert_int_equal(check_plan(close, 4, 0.1), 0);
}

/* Random counts on 1..16 simulated devices: every plan keeps the contract and moves exactly
 * the brute-force fewest regions. */
static void test_rebalance_random(void **state)
{
	long long live[MG_MAX_DEVICES];
	(void)state;
	for (int t = 0; t < 3000; t++) {
		const int g = 1 + (int)(rng() % MG_MAX_DEVICES);
		const double frac = t % 3 == 0 ? 0 : (double)(rng() % 50) / 100;
		const long long top = t % 2 ? 40 : 400;
		long long total = 0;
		for (int d = 0; d < g; d++)
			total += live[d] = (long long)(rng() % (uint64_t)top);
		const long long moved = check_plan(live, g, frac);
		assert_int_equal(moved, brute_min_moved(live, g, mg_spread(total, g, frac)));
	}
}

/* The fewest regions moved over every final vector of g <= 4 counts (each 0..total) that sums
 * to the total with a spread within s, enumerated. */
static long long exhaustive_min_moved(const long long *live, int g, long long s)
{
	long long total = 0, best = -1, c[4] = {0};
	for (int d = 0; d < g; d++)
		total += live[d];
	for (;;) {
		long long sum = 0, lo = c[0], hi = c[0], moved = 0;
		for (int d = 0; d < g; d++) {
			sum += c[d];
			lo = c[d] < lo ? c[d] : lo;
			hi = c[d] > hi ? c[d] : hi;
			moved += live[d] > c[d] ? live[d] - c[d] : 0;
		}
		if (sum == total && hi - lo <= s && (best < 0 || moved < best))
			best = moved;
		int d = 0;
		while (d < g && ++c[d] > total)
			c[d++] = 0;
		if (d == g)
			return best;
	}
}

/* Every list of up to 4 devices with 0..5 regions each, at spreads 1 and 2: the plan moves
 * what the enumeration of all final counts finds fewest. */
static void test_rebalance_exhaustive(void **state)
{
	long long live[4];
	(void)state;
	for (int g = 1; g <= 4; g++)
		for (int code = 0; code < 1296; code++) {
			long long total = 0;
			for (int d = 0, c = code; d < g; d++, c /= 6)
				total += live[d] = c % 6;
			for (double frac = 0; frac <= 1; frac += 1) {
				const long long s = mg_spread(total, g, frac);
				assert_int_equal(check_plan(live, g, frac),
				                 exhaustive_min_moved(live, g, s));
			}
		}
}

/* Bad arguments are refused, and nothing is planned. */
static void test_rebalance_refuses(void **state)
{
	struct mg_move mv[MG_MAX_DEVICES];
	struct qx_err e = {""};
	const long long neg[] = {5, -1}, ok[] = {5, 1};
	int n = 7;
	(void)state;
	assert_int_equal(mg_rebalance(neg, 2, 0, mv, &n, NULL, &e), -1);
	assert_int_equal(n, 0);
	assert_non_null(strstr(e.msg, "device 1"));
	assert_int_equal(mg_rebalance(ok, 2, -0.5, mv, &n, NULL, &e), -1);
	assert_int_equal(mg_rebalance(ok, 2, NAN, mv, &n, NULL, &e), -1);
	assert_int_equal(mg_rebalance(ok, 0, 0, mv, &n, NULL, &e), -1);
	assert_int_equal(mg_rebalance(ok, 2, 0, mv, &n, NULL, &e), 0); /* after NULL is fine */
	assert_int_equal(n, 1);
	assert_int_equal(mv[0].count, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_split_equal),
	    cmocka_unit_test(test_split_weighted),
	    cmocka_unit_test(test_split_refuses),
	    cmocka_unit_test(test_split_cost),
	    cmocka_unit_test(test_split_cost_refuses),
	    cmocka_unit_test(test_rebalance_one_region),
	    cmocka_unit_test(test_rebalance_fraction),
	    cmocka_unit_test(test_rebalance_random),
	    cmocka_unit_test(test_rebalance_exhaustive),
	    cmocka_unit_test(test_rebalance_refuses),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
