/* expint_cost.h - what each order's row of an expint grid costs the GPU's fast kernel, relative
 * to the other rows: the low orders take the series or the continued fraction (in double, tens
 * of steps a point), the others the asymptotic expansion (a fixed polynomial). A run over
 * several GPUs divides the orders by these costs (mg_split_cost), so that each GPU gets its
 * share of the work rather than of the rows. Plain C, no state. */
#ifndef QX_EXPINT_COST_H
#define QX_EXPINT_COST_H

#include "../../qx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The modeled GPU time of the fast algorithm's E_n(x), n >= 1, x > 0, in precision prec (x is
 * rounded to it, as the kernel rounds it), in picoseconds a point on an H100: only the ratios
 * between points mean anything on other GPUs. */
double expint_point_cost(int n, double x, enum qx_precision prec);

/* Fills cost[0..n) with the modeled GPU time of rows (orders) 1..n of the grid x_j = a +
 * (b-a) j/m, j = 1..m (n >= 1, m >= 1, a < b): m times the mean of expint_point_cost over at
 * most 256 evenly spaced samples of the row. The rows from the first one that takes the
 * expansion on cost the same (their branch no longer depends on n), so only the rows below it
 * are sampled. */
void expint_row_costs(int n, long long m, double a, double b, enum qx_precision prec, double *cost);

#ifdef __cplusplus
}
#endif

#endif
