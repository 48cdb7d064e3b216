/* multigpu.h - how a run divides its work over several GPUs: plain C (no CUDA), so that it is
 * unit-tested with simulated devices on any machine.
 *
 * The contract:
 *  - mg_split divides a batch of n items (longman's integrals, expint's orders, kde's outputs)
 *    over g devices in contiguous shares, device d taking [first, first + count) in device
 *    order: the shares tile [0, n), every item exactly once; a share may be empty (n < g, or
 *    a weight small against the others). With weights (a device's SM count, say) share d's
 *    count is within one item of n w_d / sum(w) (largest remainders; ties to the lower
 *    device); without, the counts differ by at most one, the larger ones first.
 *  - mg_split_cost divides such a batch whose items cost unequal work (expint's orders: the
 *    low ones take the slow branches) so that the shares' costs, not their counts, follow the
 *    weights: each share's cost is within the largest item's cost of its quota.
 *  - mg_rebalance plans how cubature breadth's devices, holding live[d] live regions each,
 *    hand regions to each other so that the counts end within a spread of each other (one
 *    region, or a fraction of the mean): the fewest regions moved for that spread, in at most
 *    (senders + receivers - 1) transfers. Counts already within the spread move nothing.
 * Every function returns 0, or -1 with e naming the bad argument and what is allowed; none
 * allocates or keeps state, so any thread may call them. */
#ifndef QX_MULTIGPU_H
#define QX_MULTIGPU_H

#include "qx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most devices a division takes (QX_MAX_GPUS). */
#define MG_MAX_DEVICES QX_MAX_GPUS

/* One device's contiguous share of a batch: items [first, first + count). */
struct mg_share {
	long long first, count;
};

/* Splits n >= 0 items over 1 <= g <= MG_MAX_DEVICES devices into shares[0..g) (see above).
 * weights: g finite weights > 0 (NULL: equal). Returns 0, or -1 with e. */
int mg_split(long long n, int g, const double *weights, struct mg_share *shares, struct qx_err *e);

/* Splits n >= 0 items of costs cost[0..n) (finite, >= 0) over 1 <= g <= MG_MAX_DEVICES devices
 * of weights (NULL: equal) into contiguous shares[0..g) in device order: share d ends at the
 * item boundary whose cost prefix is nearest to the total cost times the weights of devices
 * 0..d over their sum (a tie ends it before the item), so each share's cost is within the
 * largest item's cost of total w_d / sum(w). cost NULL or all zero: mg_split. Returns 0, or -1
 * with e naming the bad argument. */
int mg_split_cost(long long n, int g, const double *weights, const double *cost,
                  struct mg_share *shares, struct qx_err *e);

/* One transfer of a rebalancing plan: device from sends count > 0 regions to device to. */
struct mg_move {
	int from, to;
	long long count;
};

/* The spread mg_rebalance ends within for live counts of total `total` over g devices and a
 * fraction frac >= 0 of the mean: max(1, floor(frac * total / g)) regions. */
long long mg_spread(long long total, int g, double frac);

/* Plans the transfers that bring live[0..g) (each >= 0; 1 <= g <= MG_MAX_DEVICES) within
 * mg_spread(sum, g, frac) of each other moving the fewest regions: moves[0..*nmoves) (room for
 * MG_MAX_DEVICES - 1), the largest sender paired with the largest receiver first; after[]
 * (NULL: not wanted) gets each device's count once they are done. Returns 0 (*nmoves 0 when
 * the counts are within the spread already), or -1 with e. */
int mg_rebalance(const long long *live, int g, double frac, struct mg_move *moves, int *nmoves,
                 long long *after, struct qx_err *e);

#ifdef __cplusplus
}
#endif

#endif
