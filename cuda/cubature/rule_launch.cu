/* rule_launch.cu - the rule's launch for cubature's GPU drivers (common.cuh declares it): the
 * one file that instantiates the rule's kernels for every built-in integrand, dimension and
 * precision. Those kernels take most of the build's time; made here once, they are shared by
 * breadth, twophase, the floor and breadth over several GPUs. */
#include "common.cuh"

/* Launches the rule in dimension DN (at least 4) with the kernel made for fn.kind (KIND and
 * up) and DN, half a warp a region (two regions share the end of their work: in dim 6 it was
 * a sixth of the kernel; in dims 7 and 8, on an H100, f5 dim 8 at 1e-9 took 629 ms against
 * 661 with a warp a region, f4 dim 8 at 1e-3 with rule 7 45 against 50), or a warp a region in
 * general above 8; returns false when the kernel would not know the dimension (dim below DN). */
template <typename T, int DN, int KIND = 0>
static bool cub_rule_launch_known(const cub_fn &fn, const cub_rule &rule, cub_list<T> g,
                                  long long cap, long long n, double *est, double *err, int *axis,
                                  const cub_ahead *st)
{
	constexpr int LPR = DN <= 8 ? 16 : 32, RPB = RULE_BLOCK / LPR;
	const unsigned blocks = (unsigned)((n + RPB - 1) / RPB);
	if constexpr (DN > 8) {
		cub_rule_kernel<T, RULE_BLOCK, 1, 0>
		    <<<blocks, RULE_BLOCK>>>(fn, rule, g, cap, n, est, err, axis, st);
		return true;
	} else if constexpr (KIND == CUB_NINTEGRANDS) {
		return false;
	} else if (rule.dim != DN) {
		return rule.dim > DN &&
		       cub_rule_launch_known<T, DN + 1>(fn, rule, g, cap, n, est, err, axis, st);
	} else if (fn.kind != KIND) {
		return cub_rule_launch_known<T, DN, KIND + 1>(fn, rule, g, cap, n, est, err, axis,
		                                              st);
	} else {
		cub_rule_kernel<T, RULE_BLOCK, 1, DN, KIND, LPR>
		    <<<blocks, RULE_BLOCK>>>(fn, rule, g, cap, n, est, err, axis, st);
		return true;
	}
}

/* Launches the rule on regions 0..n-1 of g (with st, on st's new leaves, n at most): a region
 * per warp when that fills the device's sms multiprocessors (2048 threads each), else four
 * warps per region, or 8 or 16 while regions are so few that blocks of 256 or 512 threads all
 * run at once (three of 256 or one of 512 a multiprocessor, at up to 85 and 128 registers a
 * thread), so that each thread takes fewer of the points in turn; half a warp a
 * region in dimensions 4..8 with kernels made for the dimension and the integrand, whose points
 * stay in registers and whose registers are the integrand's own (cub_rule_launch_known, where
 * the integrand's cos and sin arguments stay in cub_cos_reduced's range on the box); returns the
 * launch's error.
 */
template <typename T>
cudaError_t cub_rule_launch(const struct cub_job *job, const cub_rule &rule, cub_list<T> g,
                            long long cap, long long n, double *est, double *err, int *axis,
                            int sms, const cub_ahead *st)
{
	const cub_fn &fn = job->fn;
	if (job->user) {
		/* the user's integrand: one kernel linked at run time for the run's dimension,
		 * half a warp a region in dims 4..8 (as cub_rule_launch_known), else a warp */
		const long long rpb = job->user->dn ? RULE_BLOCK / 16 : RULE_BLOCK / 32;
		cub_fn f = fn;
		cub_rule r = rule;
		const int *tag = nullptr; /* a single integral: no batch */
		const double *bdata = nullptr;
		void *args[] = {&f, &r, &g, &cap, &n, &est, &err, &axis, &st, &tag, &bdata};
		return cudaLaunchKernel((const void *)job->user->kernel[CUB_UK_RULE],
		                        dim3((unsigned)((n + rpb - 1) / rpb)), dim3(RULE_BLOCK),
		                        args, 0, 0);
	}
	const unsigned blocks = (unsigned)((n + RULE_BLOCK / 32 - 1) / (RULE_BLOCK / 32));
	if (n <= sms)
		cub_rule_kernel<T, 512, 16, 0>
		    <<<(unsigned)n, 512>>>(fn, rule, g, cap, n, est, err, axis, st);
	else if (n <= 3LL * sms)
		cub_rule_kernel<T, 256, 8, 0>
		    <<<(unsigned)n, 256>>>(fn, rule, g, cap, n, est, err, axis, st);
	else if (n * 32 < (long long)sms * 2048)
		cub_rule_kernel<T, RULE_BLOCK, 4, 0>
		    <<<(unsigned)n, RULE_BLOCK>>>(fn, rule, g, cap, n, est, err, axis, st);
	else if ((sizeof(T) == sizeof(double) &&
	          cub_trig_arg_bound(&fn, job->a, job->b) > CUB_COS_LIMIT) ||
	         !cub_rule_launch_known<T, 4>(fn, rule, g, cap, n, est, err, axis, st))
		cub_rule_kernel<T, RULE_BLOCK, 1, 0>
		    <<<blocks, RULE_BLOCK>>>(fn, rule, g, cap, n, est, err, axis, st);
	return cudaGetLastError();
}

template cudaError_t cub_rule_launch<float>(const struct cub_job *, const cub_rule &,
                                            cub_list<float>, long long, long long, double *,
                                            double *, int *, int, const cub_ahead *);
template cudaError_t cub_rule_launch<double>(const struct cub_job *, const cub_rule &,
                                             cub_list<double>, long long, long long, double *,
                                             double *, int *, int, const cub_ahead *);
