/* cubature_multi.h - what the GPUs of a breadth run over several devices agree on each
 * iteration, and where its regions go (cuda/cubature/breadth_multi.cu): plain C, no CUDA, so
 * that it is unit-tested with simulated devices on any machine. The agreement's functions are
 * inline and also compiled for the device, where every GPU runs them on the numbers it gathers
 * from the others; the host runs the same code in the tests.
 *
 * breadth's one-GPU iteration (cuda/cubature/breadth.cu) decides from three things about all its
 * leaves: the sums of their estimates and errors, the largest error, and a histogram of the
 * errors in quarter octaves below that largest error (the error in each bucket summed). Each
 * device computes these for its own leaves, the histogram against the largest error of all
 * devices; the sums are added up in device order (cub_multi_agree, cub_multi_bucket) and the
 * tolerance and the split threshold picked from them (cub_multi_theta), as cub_theta_kernel does
 * on one GPU: every device then splits the leaves over the same threshold. The sums are the
 * one-GPU sums added in another order, so the decisions are the same but at a threshold a
 * rounding apart. */
#ifndef QX_CUBATURE_MULTI_H
#define QX_CUBATURE_MULTI_H

#include "../../multigpu.h"
#include "cubature_math.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Buckets of breadth's error histogram past bucket 0: quarter octaves below the largest
 * error (bucket 0 holds the errors at most 2^-64 of it). */
#define CUB_HIST_BUCKETS 256
/* Share of the remaining tolerance the unsplit leaves may take: near 1, each iteration splits
 * only the leaves that must split (fewer evaluations: on an H100 f1 dim 8 at 1e-4 took 1.27e10
 * at 0.5, 9.2e9 at 0.9) for a few more iterations. */
#define CUB_BREADTH_KEEP 0.9

/* One device's sums over its leaves: estimates, errors, the largest error. */
struct cub_multi_tot {
	double est, err, max;
};

/* The sums of the devices in mask (bit d: device d) of dev[0..g), added in device order, the
 * largest of their largest errors (fmax: a NaN is passed over, as CUB's reduction with fmax
 * does); dev[d] is stride doubles after dev[d - 1]. */
CUB_HD struct cub_multi_tot cub_multi_agree(const double *dev, int g, int stride, unsigned mask)
{
	struct cub_multi_tot all = {0, 0, 0};
	for (int d = 0; d < g; d++)
		if (mask >> d & 1) {
			const double *t = dev + d * stride;
			all.est += t[0];
			all.err += t[1];
			all.max = fmax(all.max, t[2]);
		}
	return all;
}

/* Bucket k of the devices' histograms summed in device order: the devices in mask of g, device
 * d's histogram at hist + d * stride. */
CUB_HD double cub_multi_bucket(const double *hist, int g, long long stride, unsigned mask, int k)
{
	double s = 0;
	for (int d = 0; d < g; d++)
		if (mask >> d & 1)
			s += hist[d * stride + k];
	return s;
}

/* From the agreed sums all, the summed histogram hist[0..CUB_HIST_BUCKETS], the retired
 * leaves' fin_est and fin_err and the tolerances: *tol = max(abs_tol, rel |fin_est + all.est|)
 * and *theta, the split threshold: the upper edge all.max 2^-(CUB_HIST_BUCKETS - k)/4 of the
 * highest bucket k < CUB_HIST_BUCKETS whose buckets 0..k sum to at most
 * CUB_BREADTH_KEEP (tol - fin_err); all.max 2^-64 when no bucket past 0 fits but bucket 0
 * does, -1 (every leaf splits) when bucket 0 alone is over it. k counts the prefixes 0..t+1
 * within the budget as cub_theta_kernel's threads count theirs (the comparisons are the
 * kernel's, so a NaN sum fits no prefix and every leaf splits). */
CUB_HD void cub_multi_theta(const double *hist, struct cub_multi_tot all, double fin_est,
                            double fin_err, double rel, double abs_tol, double *tol, double *theta)
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

/* Where an iteration's new regions go: pairs[0..g) holds each device's pairs of children
 * waiting for the rule (as its split left them). While *spread is 0 the run keeps to the devices
 * that hold regions (the first, when it starts there): nothing moves until the children, 2
 * sum(pairs), reach fill, a count worth dividing over the g devices (fewer: each device's share
 * would not fill it, and a round between devices costs more than it saves); from then on
 * (*spread set) mg_rebalance brings the pairs within frac of their mean (multigpu.h). Fills
 * moves[0..*nmoves) and after[0..g) (each device's pairs once moved); returns 0 or -1 with e. */
int cub_multi_plan(const long long *pairs, int g, long long fill, double frac, int *spread,
                   struct mg_move *moves, int *nmoves, long long *after, struct qx_err *e);

#ifdef __cplusplus
}
#endif

#endif
