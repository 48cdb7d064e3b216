/* multigpu.c - the division of a run's work over several GPUs (see multigpu.h): contiguous
 * shares of a batch, and the plan that rebalances an adaptive run's live regions. No CUDA,
 * no state. */
#include "multigpu.h"

#include <math.h>

/* Checks a device count; returns 0, or -1 with e naming what is allowed. */
static int mg_check_devices(const char *what, int g, struct qx_err *e)
{
	if (g < 1 || g > MG_MAX_DEVICES)
		return qx_fail(e, "%s: %d devices: expected 1..%d", what, g, MG_MAX_DEVICES);
	return 0;
}

/* Splits by largest remainders (multigpu.h); returns 0 or -1 with e. */
int mg_split(long long n, int g, const double *weights, struct mg_share *shares, struct qx_err *e)
{
	long double sum = 0, quota[MG_MAX_DEVICES], frac[MG_MAX_DEVICES];
	long long count[MG_MAX_DEVICES], rem = n, first = 0;
	if (mg_check_devices("split", g, e))
		return -1;
	if (n < 0)
		return qx_fail(e, "split: %lld items: expected 0 or more", n);
	for (int d = 0; d < g; d++) {
		const double w = weights ? weights[d] : 1;
		if (!isfinite(w) || w <= 0)
			return qx_fail(
			    e, "split: weight %g of device %d: expected a finite number > 0", w, d);
		sum += w;
	}
	for (int d = 0; d < g; d++) {
		quota[d] = (long double)n * ((weights ? weights[d] : 1) / sum);
		count[d] = (long long)floorl(quota[d]);
		if (count[d] > n)
			count[d] = n;
		frac[d] = quota[d] - count[d];
		rem -= count[d];
	}
	/* rounding may leave the floors' sum a little over n (never by a device's worth): take
	 * the excess from the smallest remainders, then hand what is left to the largest */
	while (rem < 0) {
		int k = -1;
		for (int d = 0; d < g; d++)
			if (count[d] > 0 && (k < 0 || frac[d] < frac[k]))
				k = d;
		count[k]--;
		frac[k] += 1;
		rem++;
	}
	while (rem > 0) {
		int k = 0;
		for (int d = 1; d < g; d++)
			if (frac[d] > frac[k])
				k = d;
		count[k]++;
		frac[k] -= 1;
		rem--;
	}
	for (int d = 0; d < g; d++) {
		shares[d] = (struct mg_share){first, count[d]};
		first += count[d];
	}
	return 0;
}

/* Splits by cost prefixes (multigpu.h) in one pass over the items: share d's end is the
 * boundary nearest its cumulative quota, the quotas rising with d, so the ends do too. */
int mg_split_cost(long long n, int g, const double *weights, const double *cost,
                  struct mg_share *shares, struct qx_err *e)
{
	long double total = 0, wsum = 0, wcum = 0, prefix = 0;
	long long k = 0, first = 0;
	if (mg_split(n, g, weights, shares, e)) /* checks g, n and the weights */
		return -1;
	for (long long i = 0; cost && i < n; i++) {
		if (!isfinite(cost[i]) || cost[i] < 0)
			return qx_fail(e,
			               "split: cost %g of item %lld: expected a finite number >= 0",
			               cost[i], i);
		total += cost[i];
	}
	if (!cost || total == 0)
		return 0; /* mg_split's shares */
	for (int d = 0; d < g; d++)
		wsum += weights ? weights[d] : 1;
	for (int d = 0; d < g; d++) {
		wcum += weights ? weights[d] : 1;
		const long double target = d == g - 1 ? total : total * (wcum / wsum);
		while (k < n && prefix + cost[k] <= target)
			prefix += cost[k++];
		/* prefix <= target < prefix + cost[k]: take item k when that ends nearer */
		if (d < g - 1 && k < n && prefix + cost[k] - target < target - prefix)
			prefix += cost[k++];
		if (d == g - 1)
			k = n;
		shares[d] = (struct mg_share){first, k - first};
		first = k;
	}
	return 0;
}

/* The spread allowed for total regions over g devices at fraction frac of the mean. */
long long mg_spread(long long total, int g, double frac)
{
	const double s = g > 0 && frac > 0 ? floor(frac * (double)total / g) : 0;
	return s >= 1 ? (long long)s : 1;
}

/* Regions above hi over the devices (what they must send at least). */
static long long mg_excess(const long long *live, int g, long long hi)
{
	long long sum = 0;
	for (int d = 0; d < g; d++)
		sum += live[d] > hi ? live[d] - hi : 0;
	return sum;
}

/* Regions missing below lo over the devices (what they must receive at least). */
static long long mg_deficit(const long long *live, int g, long long lo)
{
	long long sum = 0;
	for (int d = 0; d < g; d++)
		sum += live[d] < lo ? lo - live[d] : 0;
	return sum;
}

/* Regions moved to bring every count into [lo, lo + s]: the larger of what must leave the
 * devices above and what must reach those below (the rest moves inside the band). */
static long long mg_cost(const long long *live, int g, long long lo, long long s)
{
	const long long out = mg_excess(live, g, lo + s), in = mg_deficit(live, g, lo);
	return out > in ? out : in;
}

/* Plans the fewest regions moved into a band of width mg_spread (multigpu.h): the band's low
 * end lo ranges over [ceil(T/g) - s, floor(T/g)] (else the counts cannot sum to T), where
 * what must leave falls and what must arrive grows with lo, so the cheapest lo is where they
 * cross (a binary search). The counts are clamped into the band; the difference is made up
 * on the devices inside it, the largest giving first (or the smallest taking first); the
 * senders and receivers are then paired largest first. */
int mg_rebalance(const long long *live, int g, double frac, struct mg_move *moves, int *nmoves,
                 long long *after, struct qx_err *e)
{
	long long total = 0, end[MG_MAX_DEVICES];
	*nmoves = 0;
	if (mg_check_devices("rebalance", g, e))
		return -1;
	if (!isfinite(frac) || frac < 0)
		return qx_fail(e, "rebalance: fraction %g: expected a finite number >= 0", frac);
	for (int d = 0; d < g; d++) {
		if (live[d] < 0)
			return qx_fail(e,
			               "rebalance: %lld live regions on device %d: expected >= 0",
			               live[d], d);
		total += live[d];
	}
	const long long s = mg_spread(total, g, frac);
	long long lo = (total + g - 1) / g - s, hi = total / g;
	if (lo < 0)
		lo = 0;
	while (lo < hi) { /* the smallest lo where what must arrive reaches what must leave */
		const long long mid = lo + (hi - lo) / 2;
		if (mg_deficit(live, g, mid) >= mg_excess(live, g, mid + s))
			hi = mid;
		else
			lo = mid + 1;
	}
	if (lo > 0 && lo - 1 >= (total + g - 1) / g - s &&
	    mg_cost(live, g, lo - 1, s) < mg_cost(live, g, lo, s))
		lo--;
	long long sum = 0;
	for (int d = 0; d < g; d++) {
		end[d] = live[d] < lo ? lo : live[d] > lo + s ? lo + s : live[d];
		sum += end[d];
	}
	while (sum != total) { /* make up the difference inside the band */
		int k = -1;
		for (int d = 0; d < g; d++) {
			if (sum < total && end[d] < lo + s && (k < 0 || end[d] < end[k]))
				k = d;
			if (sum > total && end[d] > lo && (k < 0 || end[d] > end[k]))
				k = d;
		}
		const long long room = sum < total ? lo + s - end[k] : end[k] - lo;
		const long long need = sum < total ? total - sum : sum - total;
		const long long step = room < need ? room : need;
		end[k] += sum < total ? step : -step;
		sum += sum < total ? step : -step;
	}
	long long give[MG_MAX_DEVICES];
	for (int d = 0; d < g; d++)
		give[d] = live[d] - end[d]; /* > 0: sends, < 0: receives */
	for (;;) {
		int from = -1, to = -1;
		for (int d = 0; d < g; d++) {
			if (give[d] > 0 && (from < 0 || give[d] > give[from]))
				from = d;
			if (give[d] < 0 && (to < 0 || give[d] < give[to]))
				to = d;
		}
		if (from < 0 || to < 0)
			break;
		const long long n = give[from] < -give[to] ? give[from] : -give[to];
		moves[(*nmoves)++] = (struct mg_move){from, to, n};
		give[from] -= n;
		give[to] += n;
	}
	for (int d = 0; after && d < g; d++)
		after[d] = end[d];
	return 0;
}
