/* cubature_multi.h - what the GPUs of a breadth run over several devices agree on each
 * iteration (cuda/cubature/breadth_multi.cu): plain C, no CUDA, so that it is unit-tested
 * with simulated devices on any machine.
 *
 * breadth's one-GPU iteration (cuda/cubature/breadth.cu) decides from three things about all its
 * leaves: the sums of their estimates and errors, the largest error, and a histogram of the
 * errors in quarter octaves below that largest error (the error in each bucket summed). Each
 * device computes these for its own leaves, the histogram against the largest error of all
 * devices; the host adds them up (cub_multi_agree, cub_multi_hist) and picks the tolerance and
 * the split threshold from the sums (cub_multi_theta), as cub_theta_kernel does on one GPU:
 * every device then splits the leaves over the same threshold. The sums are the one-GPU sums
 * added in another order, so the decisions are the same but at a threshold a rounding apart. */
#ifndef QX_CUBATURE_MULTI_H
#define QX_CUBATURE_MULTI_H

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

/* The sums of g devices' sums dev[0..g) in device order, the largest of their largest errors
 * (fmax: a NaN is passed over, as CUB's reduction with fmax does). */
struct cub_multi_tot cub_multi_agree(const struct cub_multi_tot *dev, int g);

/* sum[0..nb) = the bucket-wise sum of g devices' histograms, device d's at hist + d * stride. */
void cub_multi_hist(const double *hist, int g, long long stride, int nb, double *sum);

/* From the agreed sums all, the summed histogram hist[0..CUB_HIST_BUCKETS], the retired
 * leaves' fin_est and fin_err and the tolerances: *tol = max(abs_tol, rel |fin_est + all.est|)
 * and *theta, the split threshold: the upper edge all.max 2^-(CUB_HIST_BUCKETS - k)/4 of the
 * highest bucket k < CUB_HIST_BUCKETS whose buckets 0..k sum to at most
 * CUB_BREADTH_KEEP (tol - fin_err); all.max 2^-64 when no bucket past 0 fits but bucket 0
 * does, -1 (every leaf splits) when bucket 0 alone is over it. */
void cub_multi_theta(const double *hist, struct cub_multi_tot all, double fin_est, double fin_err,
                     double rel, double abs_tol, double *tol, double *theta);

#ifdef __cplusplus
}
#endif

#endif
