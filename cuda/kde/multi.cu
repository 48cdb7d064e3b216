/* multi.cu - problem kde over several GPUs (kde_gpu_run_multi, src/problems/kde/kde_gpu.h): the
 * outputs split over the devices by their SM counts (src/multigpu.h) in shares of whole thread
 * blocks, each share run by its variant (run.cuh's kde_clock carries the share) from a host thread
 * of its own that makes its device current, on events and buffers of its own. */
#include <algorithm>
#include <atomic>

#include "../multigpu.cuh"
#include "run.cuh"

/* One device's timing events (created on that device); every buffer of a share is a gpu_owned
 * of its variant's run. */
using kde_share_res = gpu_share_res<0, KDE_GPU_MAX_PHASES + 3>;

/* Device dev's share, outputs [first, first + count), on the calling thread: makes dev
 * current, checks its free memory, runs the variant into host with its phases in *t. Returns
 * 0 or -1 with e. */
static int kde_run_share(const struct kde_gpu_job *job, int dev, long long first, long long count,
                         void *host, const std::atomic<int> *stop, struct kde_gpu_times *t,
                         struct qx_err *e)
{
	kde_share_res r;
	size_t free_b = 0, total_b = 0;
	GPU_TRY(cudaSetDevice(dev));
	r.dev = dev;
	GPU_TRY(gpu_mem_info_unpooled(&free_b, &total_b));
	const size_t need = kde_gpu_device_bytes(job);
	if (need > free_b)
		return qx_fail(e, "kde: the run needs %zu MiB of device memory, %zu MiB are free",
		               need >> 20, free_b >> 20);
	for (cudaEvent_t &x : r.ev)
		GPU_TRY(cudaEventCreate(&x));
	*t = kde_gpu_times{};
	kde_clock c = {r.ev, 0, t, first, count, stop};
	if (stop->load())
		return qx_fail(e, "stopped: another GPU failed");
	GPU_TRY(cudaEventRecord(c.ev[0], 0));
	return kde_run_variant(job, host, c, e) ? -1 : kde_read_clock(c, e);
}

extern "C" int kde_gpu_run_multi(const struct kde_gpu_job *job, int ngpus, void *host_out,
                                 struct kde_gpu_times *t, struct kde_gpu_times *per,
                                 struct qx_err *e)
{
	double weights[QX_MAX_GPUS];
	struct mg_share share[QX_MAX_GPUS];
	if (kde_gpu_check(job, e))
		return -1;
	if (ngpus < 1 || ngpus > QX_MAX_GPUS)
		return qx_fail(e, "kde: %d GPUs: expected 1..%d", ngpus, QX_MAX_GPUS);
	if (job->variant == KDE_GPU_BINNED && ngpus > 1)
		return qx_fail(
		    e, "kde: variant binned runs on one GPU (its grid is one FFT): set "
		       "gpus 1; tiled, fast, naive and seed divide their outputs over GPUs");
	if (gpu_sm_weights(ngpus, weights, e))
		return -1;
	/* shares of whole units of KDE_SHARE_ALIGN blocks of outputs */
	const long long unit = (long long)KDE_SHARE_ALIGN * job->block;
	if (mg_split((job->m + unit - 1) / unit, ngpus, weights, share, e))
		return -1;
	for (int d = 0; d < ngpus; d++) {
		const long long first = std::min(job->m, share[d].first * unit);
		const long long end = std::min(job->m, (share[d].first + share[d].count) * unit);
		share[d] = {first, end - first};
		per[d] = kde_gpu_times{};
	}
	if (gpu_run_shares(
	        ngpus,
	        [&](int d, const std::atomic<int> *stop, struct qx_err *err) {
		        return kde_run_share(job, d, share[d].first, share[d].count, host_out, stop,
		                             &per[d], err);
	        },
	        e))
		return -1;
	*t = per[gpu_slowest(per, ngpus)];
	return 0;
}
