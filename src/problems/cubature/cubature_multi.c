/* cubature_multi.c - where the new regions of breadth over several GPUs go (see
 * cubature_multi.h; the agreement itself is inline there). No CUDA, no state. */
#include "cubature_multi.h"

/* Keeps the pairs where they are until their children reach fill, then rebalances for good
 * (cubature_multi.h). */
int cub_multi_plan(const long long *pairs, int g, long long fill, double frac, int *spread,
                   struct mg_move *moves, int *nmoves, long long *after, struct qx_err *e)
{
	if (mg_rebalance(pairs, g, frac, moves, nmoves, after, e)) /* checks the arguments */
		return -1;
	long long total = 0;
	for (int d = 0; d < g; d++)
		total += pairs[d];
	if (*spread || 2 * total >= fill) {
		*spread = 1;
		return 0;
	}
	*nmoves = 0;
	for (int d = 0; d < g; d++)
		after[d] = pairs[d];
	return 0;
}
