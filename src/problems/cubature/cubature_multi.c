/* cubature_multi.c - the per-iteration agreement of breadth over several GPUs (see
 * cubature_multi.h). No CUDA, no state. */
#include "cubature_multi.h"

#include <math.h>

/* Adds the devices' sums in device order (cubature_multi.h). */
struct cub_multi_tot cub_multi_agree(const struct cub_multi_tot *dev, int g)
{
	struct cub_multi_tot all = {0, 0, 0};
	for (int d = 0; d < g; d++) {
		all.est += dev[d].est;
		all.err += dev[d].err;
		all.max = fmax(all.max, dev[d].max);
	}
	return all;
}

/* Adds the devices' histograms bucket by bucket, in device order. */
void cub_multi_hist(const double *hist, int g, long long stride, int nb, double *sum)
{
	for (int k = 0; k < nb; k++) {
		double s = 0;
		for (int d = 0; d < g; d++)
			s += hist[d * stride + k];
		sum[k] = s;
	}
}

/* The tolerance and threshold of cub_theta_kernel (cuda/cubature/breadth.cu) from the summed
 * histogram: k counts the prefixes 0..t+1 (t < CUB_HIST_BUCKETS - 1) within the budget, as the
 * kernel's threads count theirs (the comparisons are the kernel's, so a NaN sum fits no
 * prefix and every leaf splits). */
void cub_multi_theta(const double *hist, struct cub_multi_tot all, double fin_est, double fin_err,
                     double rel, double abs_tol, double *tol, double *theta)
{
	const double t = fmax(abs_tol, rel * fabs(fin_est + all.est));
	const double budget = CUB_BREADTH_KEEP * (t - fin_err), h0 = hist[0];
	double cum = h0;
	int k = 0;
	for (int i = 0; i < CUB_HIST_BUCKETS - 1; i++) {
		cum += hist[1 + i];
		k += cum <= budget;
	}
	*tol = t;
	if (k > 0)
		*theta = all.max * exp2(-(CUB_HIST_BUCKETS - k) / 4.0);
	else
		*theta = h0 <= budget ? all.max * 0x1p-64 : -1;
}
