/* breadth_multi.cu - problem cubature's variant breadth over several GPUs. The run starts where
 * the one-GPU run starts: while the first partition is small its leaves sit on GPU 0, which runs
 * the first iterations ahead of the host exactly as the one-GPU run does (ahead.cuh). From then
 * on each device keeps its own list, evaluates the rule on its new leaves and sums its leaves'
 * estimates and errors; every iteration's children stay on their device until there are enough
 * of them to fill every device (cub_multi_plan, cubature_multi.h), after which whole pairs of
 * them (with their parent's estimate) move from the end of one device's list to the end of
 * another's whenever the counts drift apart (mg_rebalance's plan, cudaMemcpyPeerAsync): region
 * data stays on the devices.
 *
 * The devices agree on the one-GPU run's decisions among themselves: each copies the others'
 * sums (3 numbers) and then their error histograms (257) from their memory once the others
 * have them (a cross-device event wait, then cudaMemcpyPeerAsync), and adds them up in device
 * order with cubature_multi.h's functions, so every device holds the same agreed sums,
 * tolerance and split threshold, bit for bit. The host hears from the devices once an
 * iteration (each one's tally: the agreed sums and tolerance and its own count of leaves that
 * split) and then plans the split, the moves and the next iteration.
 *
 * One host thread drives every device, each with its own allocations, events and (its default)
 * stream: the host needs every device's tally before any device can split, so threads would
 * meet at a barrier every iteration and gain nothing; the calls this thread makes between two
 * tallies only queue work (kernel launches, asynchronous copies, allocations in stream order),
 * so the devices run side by side while it queues the next one. The region arrays come from
 * each device's memory pool, which every other device may read and write and which keeps its
 * freed blocks for later runs (cub_multi_pool): with peer access on, every cudaMalloc and
 * cudaFree is mapped on every device and took milliseconds (on 4 H200s a third of a run's
 * time once its setup and its lists' growth were added up). */
#include <atomic>
#include <cstring>
#include <memory>
#include <vector>

#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "../../src/multigpu.h"
#include "../../src/problems/cubature/cubature_gpu.h"
#include "../multigpu.cuh"
#include "ahead.cuh"
#include "breadth_stop.cuh"
#include "common.cuh"

/* Pairs of children waiting for the rule may differ by this fraction of their mean over the
 * devices before they move: the rule is most of an iteration's time, and the slowest device's
 * share sets it (on 4 H200s the devices waited some 1 ms an iteration for the slowest at 0.05;
 * the moves between them take a fraction of that). */
static const double MULTI_SPREAD = 0.01;

/* The children an iteration must have before they are divided over the devices, in waves of
 * the rule kernel on one device (every multiprocessor full): below two, a device alone takes
 * as long as its share would on several, and the rounds between devices cost more than the
 * rule saves. */
static const double SPREAD_WAVES = 2;

/* A device's events: an iteration's start, the rule done, its own sums ready, the others' sums
 * copied in, its histogram ready, the others' histograms copied in, the tally copied to the host;
 * its split's start and end, and the transfers into it done. Running ahead (GPU 0) uses the
 * first 3 AHEAD_BATCH + 2. */
enum {
	MV_START,
	MV_RULES,
	MV_TOT,
	MV_GOT_TOT,
	MV_HIST,
	MV_GOT_HIST,
	MV_TALLY,
	MV_SPLIT0,
	MV_SPLIT1,
	MV_MOVED,
	MV_COUNT
};
static const int MV_EVENTS = std::max<int>(MV_COUNT, 3 * AHEAD_BATCH + 2);

/* A device's small words (doubles): the agreed sums (cub_tot) with the tolerance and threshold
 * after them; the tally and the retired sums; every device's sums (4 words a device, as copied
 * from it) and every device's histogram (HIST_BUCKETS + 1 words a device). */
enum {
	SW_SUMS = 0,
	SW_TALLY = 8,
	SW_MAIL = 16,
	SW_HIST = SW_MAIL + 4 * MG_MAX_DEVICES,
	SW_WORDS = SW_HIST + (HIST_BUCKETS + 1) * MG_MAX_DEVICES
};

/* One device's share of the run: its lists and work arrays, the rule, its events, its pinned
 * tally words (host, 8), and its list's state (n leaves, fresh..n-1 new, the children of
 * nparents parents); split_pending: its last split's phases are not yet in t; pooled: its
 * arrays come from its memory pool (cub_realloc). The destructor makes the device current, so
 * that the owners free on it. */
template <typename T> struct cub_mdev {
	int dev = 0, sms = 0, cur = 0, split_pending = 0;
	bool pooled = true;
	cub_buf<T> buf[2];
	cub_work wk;
	cub_owned<double> rule_d, parent, small;
	cub_rule dr;
	cudaEvent_t ev[MV_EVENTS] = {};
	double *host = nullptr;
	long long n = 0, fresh = 0, nparents = 0, pcap = 0;
	struct qx_timing t = {};

	double *sums()
	{
		return small.ptr + SW_SUMS;
	}
	double *tally()
	{
		return small.ptr + SW_TALLY;
	}
	cub_tot *tot()
	{
		return (cub_tot *)sums();
	}
	double *mail(int d)
	{
		return small.ptr + SW_MAIL + 4 * d;
	}
	double *hist(int d)
	{
		return small.ptr + SW_HIST + (HIST_BUCKETS + 1) * d;
	}

	~cub_mdev()
	{
		cudaSetDevice(dev);
		for (cudaEvent_t &ev_i : ev)
			if (ev_i)
				cudaEventDestroy(ev_i);
	}
};

/* The pinned host words of all devices (8 each), freed last; device 0 current again at the
 * end of a run (after its devices' shares are freed). */
struct cub_multi_host {
	double *words = nullptr;
	~cub_multi_host()
	{
		if (words)
			cudaFreeHost(words);
		cudaSetDevice(0);
	}
};

/* Whether device d has tried to enable its access to device p's memory in this process (a
 * device's context keeps it for the process). */
static std::atomic<int> cub_peer_tried[MG_MAX_DEVICES][MG_MAX_DEVICES];

/* Whether device d's memory pool lets device p read and write its blocks, in this process. */
static std::atomic<int> cub_pool_shared[MG_MAX_DEVICES][MG_MAX_DEVICES];

/* Makes device dev's memory pool keep its freed blocks (as gpu_open does device 0's), so that
 * later runs get them back without going to the driver, and lets every other device of g that
 * can reach dev's memory read and write its blocks (the copies between devices); returns 1 when
 * every other device can (the run's arrays then come from the pools), 0 when one cannot (the
 * run's arrays then come from cudaMalloc, which peer access maps for the copies), or -1 with
 * e. */
static int cub_multi_pool(int dev, int g, struct qx_err *e)
{
	cudaMemPool_t pool;
	int every = 1;
	if (gpu_keep_pool(dev, e))
		return -1;
	GPU_TRY(cudaDeviceGetDefaultMemPool(&pool, dev));
	for (int p = 0; p < g; p++) {
		int can = 0;
		if (p == dev || cub_pool_shared[dev][p].load())
			continue;
		if (cudaDeviceCanAccessPeer(&can, p, dev) != cudaSuccess || !can) {
			cudaGetLastError();
			every = 0;
			continue;
		}
		cudaMemAccessDesc acc = {};
		acc.location.type = cudaMemLocationTypeDevice;
		acc.location.id = p;
		acc.flags = cudaMemAccessFlagsProtReadWrite;
		GPU_TRY(cudaMemPoolSetAccess(pool, &acc, 1));
		cub_pool_shared[dev][p].store(1);
	}
	return every;
}

/* One thread: the sums of the devices in mask of g, from their words in mail (4 each), added in
 * device order, into *tot. */
static __global__ void cub_agree_kernel(const double *mail, int g, unsigned mask, cub_tot *tot)
{
	const struct cub_multi_tot a = cub_multi_agree(mail, g, 4, mask);
	*tot = cub_tot{a.est, a.err, a.max};
}

/* A block of at least HIST_BUCKETS + 1 threads: the histograms of the devices in mask of g
 * (hist, HIST_BUCKETS + 1 words a device) added bucket by bucket in device order; then, from
 * them and the agreed sums tot, the tolerance into *tolp and the split threshold into *theta
 * (cub_multi_theta). */
static __global__ void cub_agree_theta_kernel(const double *hist, int g, unsigned mask,
                                              const cub_tot *tot, double fin_est, double fin_err,
                                              double rel, double abs_tol, double *tolp,
                                              double *theta)
{
	__shared__ double sum[HIST_BUCKETS + 1];
	for (int k = threadIdx.x; k <= HIST_BUCKETS; k += blockDim.x)
		sum[k] = cub_multi_bucket(hist, g, HIST_BUCKETS + 1, mask, k);
	__syncthreads();
	if (threadIdx.x == 0)
		cub_multi_theta(sum, cub_multi_tot{tot->est, tot->err, tot->max}, fin_est, fin_err,
		                rel, abs_tol, tolp, theta);
}

/* Sets up device D.dev's share: its events, small words, the rule, lists with room for the
 * first partition's count regions from first on (written by cub_init_kernel) and their split;
 * peer access to the other devices where there is one. Returns 0 or -1 with e. */
template <typename T>
static int cub_multi_setup(const struct cub_job *job, cub_mdev<T> &D, int g, int l,
                           struct mg_share share, long long budget_cap, struct qx_err *e)
{
	const int dim = job->rule->dim;
	const double t0 = qx_now_ms();
	GPU_TRY(cudaSetDevice(D.dev));
	for (int p = 0; p < g; p++) { /* once a process: enabling it again is an error */
		int can = 0;
		if (p != D.dev && !cub_peer_tried[D.dev][p].exchange(1) &&
		    cudaDeviceCanAccessPeer(&can, D.dev, p) == cudaSuccess && can &&
		    cudaDeviceEnablePeerAccess(p, 0) != cudaSuccess)
			cudaGetLastError(); /* no direct access: the copies go through the host */
	}
	GPU_TRY(cudaDeviceGetAttribute(&D.sms, cudaDevAttrMultiProcessorCount, D.dev));
	for (cudaEvent_t &ev : D.ev)
		GPU_TRY(cudaEventCreate(&ev));
	if (cub_realloc(D.small, SW_WORDS, e, D.pooled) ||
	    cub_rule_upload(job->rule, D.rule_d, D.dr, e, D.pooled))
		return -1;
	D.n = share.count;
	const long long cap = std::min(budget_cap, std::max(BREADTH_FIRST_CAP, 2 * D.n));
	if (cub_buf_reserve(D.buf[0], dim, cap, e, D.pooled) ||
	    cub_buf_reserve(D.buf[1], dim, cap, e, D.pooled))
		return -1;
	if (D.n > 0) {
		cub_init_kernel<T><<<(unsigned)((D.n + ELEM_BLOCK - 1) / ELEM_BLOCK), ELEM_BLOCK>>>(
		    D.n, dim, l, job->a, job->b, cub_list<T>{D.buf[0].c, D.buf[0].h}, cap,
		    share.first);
		GPU_TRY(cudaGetLastError());
	}
	qx_timing_add(&D.t, "alloc", qx_now_ms() - t0, 0);
	return 0;
}

/* The first round on D: the rule on its new leaves, the children's check, the sums of its
 * leaves into its own mail words (event MV_TOT). Returns 0 or -1 with e. */
template <typename T>
static int cub_multi_rules(const struct cub_job *job, cub_mdev<T> &D, struct qx_err *e)
{
	cub_buf<T> &in = D.buf[D.cur];
	const long long nnew = D.n - D.fresh;
	cub_tot *mine = (cub_tot *)D.mail(D.dev);
	auto tot_in = thrust::make_transform_iterator(thrust::make_counting_iterator(0LL),
	                                              cub_tot_of{in.est, in.err});
	auto split_in = thrust::make_transform_iterator(thrust::make_counting_iterator(0LL),
	                                                cub_split_of{in.err, D.sums() + 4, 0});
	GPU_TRY(cudaSetDevice(D.dev));
	if (cub_work_reserve(D.wk, in.cap, split_in, tot_in, mine, e, D.pooled))
		return -1;
	GPU_TRY(cudaEventRecord(D.ev[MV_START]));
	if (nnew > 0)
		GPU_TRY(cub_rule_launch<T>(job, D.dr, cub_list<T>{in.c + D.fresh, in.h + D.fresh},
		                           in.cap, nnew, in.est + D.fresh, in.err + D.fresh,
		                           in.axis + D.fresh, D.sms));
	GPU_TRY(cudaEventRecord(D.ev[MV_RULES]));
	if (D.nparents)
		cub_children_kernel<<<(unsigned)((D.nparents + ELEM_BLOCK - 1) / ELEM_BLOCK),
		                      ELEM_BLOCK>>>(D.nparents, 2, D.parent.ptr, in.est + D.fresh,
		                                    in.err + D.fresh);
	GPU_TRY(cudaGetLastError());
	size_t bytes = D.wk.tmp_bytes;
	GPU_TRY(cub::DeviceReduce::Reduce(D.wk.tmp, bytes, tot_in, mine, (int)D.n, cub_tot_add{},
	                                  cub_tot{0, 0, 0}));
	GPU_TRY(cudaEventRecord(D.ev[MV_TOT]));
	return 0;
}

/* Copies into D's words, once each other device in mask of devs has recorded its event k,
 * that device's count words at word(device) (D's own place for it, and the other device's
 * own: the same offset on both); then records event done on D. Returns 0 or -1 with e. */
template <typename T, typename W>
static int cub_multi_gather(std::vector<std::unique_ptr<cub_mdev<T>>> &devs, unsigned mask,
                            cub_mdev<T> &D, int k, W word, size_t count, int done, struct qx_err *e)
{
	for (size_t o = 0; o < devs.size(); o++) {
		cub_mdev<T> &O = *devs[o];
		if (O.dev == D.dev || !(mask >> O.dev & 1))
			continue;
		GPU_TRY(cudaStreamWaitEvent(0, O.ev[k], 0));
		GPU_TRY(cudaMemcpyPeerAsync(word(D, O.dev), D.dev, word(O, O.dev), O.dev,
		                            count * sizeof(double), 0));
	}
	GPU_TRY(cudaEventRecord(D.ev[done]));
	return 0;
}

/* The second round on D: the other devices' sums, the agreed sums (device order) into D's sums,
 * D's histogram against the agreed largest error into its own histogram words (event
 * MV_HIST). Returns 0 or -1 with e. */
template <typename T>
static int cub_multi_hist_round(std::vector<std::unique_ptr<cub_mdev<T>>> &devs, unsigned mask,
                                cub_mdev<T> &D, struct qx_err *e)
{
	const cub_buf<T> &in = D.buf[D.cur];
	const int g = (int)devs.size();
	GPU_TRY(cudaSetDevice(D.dev));
	if (cub_multi_gather(
	        devs, mask, D, MV_TOT, [](cub_mdev<T> &X, int d) { return X.mail(d); }, 3,
	        MV_GOT_TOT, e))
		return -1;
	cub_agree_kernel<<<1, 1>>>(D.mail(0), g, mask, D.tot());
	GPU_TRY(cudaGetLastError());
	GPU_TRY(cudaMemsetAsync(D.hist(D.dev), 0, (HIST_BUCKETS + 1) * sizeof(double)));
	const unsigned eb = (unsigned)((D.n + ELEM_BLOCK - 1) / ELEM_BLOCK);
	cub_hist_kernel<<<std::min(eb, 1024u), ELEM_BLOCK>>>(D.n, in.err, D.tot(), D.hist(D.dev));
	GPU_TRY(cudaGetLastError());
	GPU_TRY(cudaEventRecord(D.ev[MV_HIST]));
	return 0;
}

/* The third round on D: the other devices' histograms, the tolerance and threshold (fin_est,
 * fin_err: the retired leaves' sums), the split positions at the threshold (all leaves with
 * all) and D's tally (cub_breadth_tally_kernel's 5 numbers) into its pinned words (event
 * MV_TALLY). Returns 0 or -1 with e. */
template <typename T>
static int cub_multi_scan_round(const struct cub_job *job,
                                std::vector<std::unique_ptr<cub_mdev<T>>> &devs, unsigned mask,
                                cub_mdev<T> &D, double fin_est, double fin_err, int all,
                                struct qx_err *e)
{
	const cub_buf<T> &in = D.buf[D.cur];
	const cub_split_of split = {in.err, D.sums() + 4, all};
	const int g = (int)devs.size();
	GPU_TRY(cudaSetDevice(D.dev));
	if (cub_multi_gather(
	        devs, mask, D, MV_HIST, [](cub_mdev<T> &X, int d) { return X.hist(d); },
	        HIST_BUCKETS + 1, MV_GOT_HIST, e))
		return -1;
	cub_agree_theta_kernel<<<1, (HIST_BUCKETS + 1 + 31) / 32 * 32>>>(
	    D.hist(0), g, mask, D.tot(), fin_est, fin_err, job->rel, job->abs, D.sums() + 3,
	    D.sums() + 4);
	GPU_TRY(cudaGetLastError());
	auto split_in = thrust::make_transform_iterator(thrust::make_counting_iterator(0LL), split);
	size_t bytes = D.wk.tmp_bytes;
	GPU_TRY(cub::DeviceScan::ExclusiveSum(D.wk.tmp, bytes, split_in, D.wk.pos, (int)D.n));
	cub_breadth_tally_kernel<<<1, 1>>>(D.n, D.tot(), D.sums() + 3, D.wk.pos, split, D.tally());
	GPU_TRY(cudaGetLastError());
	GPU_TRY(cudaMemcpyAsync(D.host, D.tally(), 5 * sizeof(double), cudaMemcpyDeviceToHost));
	GPU_TRY(cudaEventRecord(D.ev[MV_TALLY]));
	return 0;
}

/* Waits for event k of D; returns 0 or -1 with e. */
template <typename T> static int cub_multi_wait(cub_mdev<T> &D, int k, struct qx_err *e)
{
	GPU_TRY(cudaEventSynchronize(D.ev[k]));
	return 0;
}

/* The sums of the leaves of D that do not split (estimates, errors) into D's pinned words 0
 * and 1 (event MV_TALLY): the unsplit leaves retire when the lists would outgrow the budget.
 * Returns 0 or -1 with e. */
template <typename T> static int cub_multi_unsplit(cub_mdev<T> &D, int all, struct qx_err *e)
{
	const cub_buf<T> &in = D.buf[D.cur];
	const cub_split_of split = {in.err, D.sums() + 4, all};
	GPU_TRY(cudaSetDevice(D.dev));
	for (int k = 0; k < 2; k++) {
		cub_unsplit_kernel<<<(unsigned)((D.n + ELEM_BLOCK - 1) / ELEM_BLOCK), ELEM_BLOCK>>>(
		    D.n, k ? in.err : in.est, split, D.wk.scratch);
		GPU_TRY(cudaGetLastError());
		size_t bytes = D.wk.tmp_bytes;
		GPU_TRY(
		    cub::DeviceReduce::Sum(D.wk.tmp, bytes, D.wk.scratch, D.tally() + k, (int)D.n));
	}
	GPU_TRY(cudaMemcpyAsync(D.host, D.tally(), 2 * sizeof(double), cudaMemcpyDeviceToHost));
	GPU_TRY(cudaEventRecord(D.ev[MV_TALLY]));
	return 0;
}

/* Adds D's split phases (its last split and the transfers into it) to its timing once they
 * are done, if not yet added. Returns 0 or -1 with e. */
template <typename T> static int cub_multi_split_phases(cub_mdev<T> &D, struct qx_err *e)
{
	if (!D.split_pending)
		return 0;
	GPU_TRY(cudaSetDevice(D.dev));
	GPU_TRY(cudaEventSynchronize(D.ev[MV_MOVED]));
	qx_timing_add(&D.t, "split", gpu_elapsed(D.ev[MV_SPLIT0], D.ev[MV_SPLIT1]), 0);
	qx_timing_add(&D.t, "copies", gpu_elapsed(D.ev[MV_SPLIT1], D.ev[MV_MOVED]), 0);
	D.split_pending = 0;
	return 0;
}

/* Adds the phases of D's iteration just waited for: the rule; classify (the children's check,
 * the sums, the histogram, the threshold, the scan and tally); copies (waiting for the other
 * devices and copying their numbers in); then its split's, if pending. Returns 0 or -1. */
template <typename T> static int cub_multi_phases(cub_mdev<T> &D, struct qx_err *e)
{
	qx_timing_add(&D.t, "rules", gpu_elapsed(D.ev[MV_START], D.ev[MV_RULES]), 0);
	qx_timing_add(&D.t, "classify",
	              gpu_elapsed(D.ev[MV_RULES], D.ev[MV_TOT]) +
	                  gpu_elapsed(D.ev[MV_GOT_TOT], D.ev[MV_HIST]) +
	                  gpu_elapsed(D.ev[MV_GOT_HIST], D.ev[MV_TALLY]),
	              0);
	qx_timing_add(&D.t, "copies",
	              gpu_elapsed(D.ev[MV_TOT], D.ev[MV_GOT_TOT]) +
	                  gpu_elapsed(D.ev[MV_HIST], D.ev[MV_GOT_HIST]),
	              0);
	return cub_multi_split_phases(D, e);
}

/* D's split into its other list, with room made there for next leaves and in its parents'
 * array for npar parents (what rebalancing leaves it); keep: unsplit leaves stay (the children
 * from base on). Returns 0 or -1 with e. */
template <typename T>
static int cub_multi_split(const struct cub_job *job, cub_mdev<T> &D, int all, int keep,
                           long long base, long long next, long long npar, long long budget_cap,
                           struct qx_err *e)
{
	const int dim = job->rule->dim;
	cub_buf<T> &in = D.buf[D.cur], &out = D.buf[1 - D.cur];
	const cub_split_of split = {in.err, D.sums() + 4, all};
	if (cub_multi_split_phases(D, e))
		return -1;
	GPU_TRY(cudaSetDevice(D.dev));
	if (next > out.cap &&
	    cub_buf_reserve(out, dim, std::min(budget_cap, std::max(next, 8 * in.cap)), e,
	                    D.pooled))
		return -1;
	/* this iteration's parents were read by its children's check, queued before */
	if (D.pcap < npar) {
		D.pcap = std::max(npar, in.cap);
		if (cub_realloc(D.parent, D.pcap, e, D.pooled))
			return -1;
	}
	GPU_TRY(cudaEventRecord(D.ev[MV_SPLIT0]));
	if (D.n > 0)
		GPU_TRY(cub_next_launch<T>(D.n, dim, cub_list<T>{in.c, in.h}, in.cap, in.est,
		                           in.err, in.axis, split, D.wk.pos, keep, base,
		                           cub_list<T>{out.c, out.h}, out.cap, out.est, out.err,
		                           out.axis, D.parent.ptr));
	GPU_TRY(cudaEventRecord(D.ev[MV_SPLIT1]));
	return 0;
}

/* Moves the last count pairs of children (and their parents' estimates) of S's next list to
 * the end of R's, on R's stream once S's split is done; fresh[]: where each one's children
 * start, pairs[]: each one's pairs so far (updated). Returns 0 or -1 with e. */
template <typename T>
static int cub_multi_move(int dim, cub_mdev<T> &S, cub_mdev<T> &R, long long count,
                          const long long *fresh, long long *pairs, struct qx_err *e)
{
	const cub_buf<T> &from = S.buf[1 - S.cur], &to = R.buf[1 - R.cur];
	const long long src = fresh[S.dev] + 2 * (pairs[S.dev] - count),
	                dst = fresh[R.dev] + 2 * pairs[R.dev];
	const size_t bytes = 2 * (size_t)count * sizeof(T);
	GPU_TRY(cudaSetDevice(R.dev));
	GPU_TRY(cudaStreamWaitEvent(0, S.ev[MV_SPLIT1], 0));
	for (int i = 0; i < dim; i++) {
		GPU_TRY(cudaMemcpyPeerAsync(to.c + i * to.cap + dst, R.dev,
		                            from.c + i * from.cap + src, S.dev, bytes, 0));
		GPU_TRY(cudaMemcpyPeerAsync(to.h + i * to.cap + dst, R.dev,
		                            from.h + i * from.cap + src, S.dev, bytes, 0));
	}
	GPU_TRY(cudaMemcpyPeerAsync(R.parent.ptr + pairs[R.dev], R.dev,
	                            S.parent.ptr + pairs[S.dev] - count, S.dev,
	                            (size_t)count * sizeof(double), 0));
	pairs[S.dev] -= count;
	pairs[R.dev] += count;
	return 0;
}

/* Records MV_MOVED on D (after any transfers into it) and makes its next list current with
 * fresh unsplit leaves and npar pairs of children. Returns 0 or -1 with e. */
template <typename T>
static int cub_multi_advance(cub_mdev<T> &D, long long fresh, long long npar, struct qx_err *e)
{
	GPU_TRY(cudaSetDevice(D.dev));
	GPU_TRY(cudaEventRecord(D.ev[MV_MOVED]));
	D.split_pending = 1;
	D.fresh = fresh;
	D.nparents = npar;
	D.n = fresh + 2 * npar;
	D.cur = 1 - D.cur;
	return 0;
}

/* Calls f(d) for every device d in mask of g, in order; on the first failure returns -1 with
 * e naming the GPU (a cancelled run's error as it is). */
template <typename F> static int cub_each(int g, unsigned mask, struct qx_err *e, F f)
{
	for (int d = 0; d < g; d++)
		if ((mask >> d & 1) && f(d)) {
			if (!strcmp(e->msg, "run cancelled"))
				return -1;
			struct qx_err inner = *e;
			return qx_fail(e, "GPU %d of %d: %s", d, g, inner.msg);
		}
	return 0;
}

/* breadth over g devices (see the file's comment): the decisions of cub_run_breadth
 * (cuda/cubature/breadth.cu) from the sums the devices agree on, the host once an iteration. */
template <typename T>
static int cub_run_multi(const struct cub_job *job, int g, struct cub_result *res,
                         struct qx_timing *t, struct qx_timing *per, struct qx_err *e)
{
	const struct cub_rule *rule = job->rule;
	const int dim = rule->dim, npts = rule->npts;
	const unsigned every = g >= 32 ? ~0u : (1u << g) - 1;
	/* the one-GPU run's bound on the leaves of all devices: the same decisions; a device's
	 * lists never hold more than all of them */
	const long long budget_cap = cub_breadth_start(job, res, e);
	const double t_start = qx_now_ms();
	struct mg_share share[MG_MAX_DEVICES] = {};
	cub_multi_host host; /* declared first: destroyed after the devices' shares */
	if (budget_cap < 0)
		return -1;
	for (int d = 0; d < g; d++) { /* the budget on every device, before anything runs */
		size_t free_b = 0, total = 0;
		GPU_TRY(cudaSetDevice(d));
		GPU_TRY(gpu_mem_info_pooled(&free_b, &total));
		if (job->budget > free_b)
			return qx_fail(
			    e,
			    "budget %.1f MiB (a GPU's) does not fit on GPU %d of %d, which "
			    "has %.1f MiB free: set budget lower, or 0 for half the smallest "
			    "GPU's free memory",
			    job->budget / 1048576.0, d, g, free_b / 1048576.0);
	}
	const int l = cub_breadth_pieces(job, budget_cap, e);
	if (l < 0)
		return -1;
	std::vector<std::unique_ptr<cub_mdev<T>>> devs;
	/* Destroyed before devs: every device's queued work (a copy may read another device's
	 * arrays) is done before any device frees its own, on every return path. */
	struct sync_devices {
		const std::vector<std::unique_ptr<cub_mdev<T>>> &devs;
		~sync_devices()
		{
			for (const auto &dv : devs) {
				cudaSetDevice(dv->dev);
				cudaDeviceSynchronize();
				(void)cudaGetLastError(); /* teardown: the run's error is reported
				                             already */
			}
		}
	} sync_guard{devs};
	int pooled = 1; /* every device reaches every other's pool */
	for (int d = 0; d < g; d++) {
		devs.emplace_back(new cub_mdev<T>);
		devs[d]->dev = d;
		const int every_peer = cub_multi_pool(d, g, e);
		if (every_peer < 0) {
			struct qx_err inner = *e;
			return qx_fail(e, "GPU %d of %d: %s", d, g, inner.msg);
		}
		pooled &= every_peer;
	}
	for (int d = 0; d < g; d++)
		devs[d]->pooled = pooled;
	/* the children that fill every device: SPREAD_WAVES waves of the rule on the smallest
	 * one (a region a warp over dim 8, else half a warp) */
	int sms = 0;
	for (int d = 0; d < g; d++) {
		int v = 0;
		GPU_TRY(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, d));
		sms = d == 0 || v < sms ? v : sms;
	}
	const long long fill = (long long)(SPREAD_WAVES * sms * 2048 / (dim > 8 ? 32 : 16));
	/* the first partition: on GPU 0 while it would not fill the devices (the others are set
	 * up when regions first move to them), else dealt out */
	const long long first = (long long)pow(l, dim);
	int spread = first >= fill;
	if (spread && mg_split(first, g, NULL, share, e))
		return -1;
	if (!spread)
		share[0] = mg_share{0, first};
	unsigned ready = spread ? every : 1; /* the devices set up */
	GPU_TRY(cudaMallocHost(&host.words, (size_t)g * 8 * sizeof(double)));
	for (int d = 0; d < g; d++)
		devs[d]->host = host.words + 8 * d;
	if (cub_each(g, ready, e, [&](int d) {
		    return cub_multi_setup<T>(job, *devs[d], g, l, share[d], budget_cap, e);
	    }))
		return -1;
	double fin_est = 0, fin_err = 0, live_est = 0, live_err = 0, tol = 0;
	long long n = first, nsplit_of[MG_MAX_DEVICES], fresh[MG_MAX_DEVICES],
	          after[MG_MAX_DEVICES];
	/* the first iterations run ahead of the host on GPU 0 while its list is small, as on one
	 * GPU (the same arithmetic); the devices go on from where they hand over */
	const long long acap = std::min(std::min(budget_cap, BREADTH_FIRST_CAP), AHEAD_CAP);
	cub_ahead ahead = {};
	ahead.stop = AHEAD_HOST;
	if (!spread && 2 * first <= acap && 3.0 * first * npts <= job->maxeval &&
	    cub_each(g, 1, e, [&](int d) {
		    cub_mdev<T> &D = *devs[d];
		    cub_owned<int> pos;
		    cub_owned<cub_ahead> st;
		    GPU_TRY(cudaSetDevice(D.dev));
		    if (cub_realloc(pos, acap, e, D.pooled) || cub_realloc(st, 1, e, D.pooled) ||
		        cub_realloc(D.parent, acap, e, D.pooled))
			    return -1;
		    D.pcap = acap;
		    if (cub_breadth_ahead<T>(job, D.dr, D.buf, first, acap, D.parent.ptr, pos.ptr,
		                             st.ptr, D.sms, D.ev, res, &D.t, &ahead, e))
			    return -1;
		    D.cur = (int)(cub_ahead_splits(&ahead) % 2);
		    D.n = n = ahead.n;
		    D.fresh = ahead.fresh;
		    D.nparents = ahead.nparents;
		    return 0;
	    }))
		return -1;
	if (ahead.stop == AHEAD_DONE)
		res->reason = ahead.reason;
	live_est = ahead.est;
	live_err = ahead.err;
	while (ahead.stop == AHEAD_HOST) {
		if (qx_cancelled())
			return qx_fail(e, "run cancelled");
		unsigned mask = 0;
		long long nnew = 0;
		for (int d = 0; d < g; d++) {
			mask |= devs[d]->n > 0 ? 1u << d : 0;
			nnew += devs[d]->n - devs[d]->fresh;
		}
		cub_breadth_count(job, res, nnew);
		const int split_all = res->iterations == 1;
		/* the rule and sums, the agreed sums and histograms, the threshold and tally,
		 * queued on every device (each round's events recorded before another device waits
		 * for them); then the host waits for the tallies */
		if (cub_each(g, mask, e,
		             [&](int d) { return cub_multi_rules<T>(job, *devs[d], e); }) ||
		    cub_each(
		        g, mask, e,
		        [&](int d) { return cub_multi_hist_round<T>(devs, mask, *devs[d], e); }) ||
		    cub_each(g, mask, e, [&](int d) {
			    return cub_multi_scan_round<T>(job, devs, mask, *devs[d], fin_est,
			                                   fin_err, split_all, e);
		    }))
			return -1;
		if (cub_each(g, mask, e,
		             [&](int d) { return cub_multi_wait(*devs[d], MV_TALLY, e); }))
			return -1;
		long long nsplit = 0;
		int lead = -1; /* the first device with leaves: its tally's agreed sums */
		for (int d = 0; d < g; d++) {
			nsplit_of[d] = mask >> d & 1 ? (long long)devs[d]->host[3] : 0;
			nsplit += nsplit_of[d];
			lead = lead < 0 && (mask >> d & 1) ? d : lead;
		}
		if (cub_each(g, mask, e, [&](int d) { return cub_multi_phases(*devs[d], e); }))
			return -1;
		live_est = devs[lead]->host[0];
		live_err = devs[lead]->host[1];
		tol = devs[lead]->host[2];
		const enum cub_breadth_step step = cub_breadth_decide(
		    job, res, fin_est + live_est, fin_err + live_err, tol, n, nsplit, budget_cap);
		if (step == CUB_BREADTH_STOP)
			break;
		const int keep = step == CUB_BREADTH_SPLIT;
		if (!keep) { /* the lists would outgrow the budget: the unsplit leaves retire */
			if (cub_each(
			        g, mask, e,
			        [&](int d) { return cub_multi_unsplit(*devs[d], split_all, e); }) ||
			    cub_each(g, mask, e,
			             [&](int d) { return cub_multi_wait(*devs[d], MV_TALLY, e); }))
				return -1;
			for (int d = 0; d < g; d++)
				if (mask >> d & 1) {
					fin_est += devs[d]->host[0];
					fin_err += devs[d]->host[1];
				}
		}
		/* the plan first, so that the split makes room for what each device receives */
		struct mg_move moves[MG_MAX_DEVICES];
		int nmoves = 0;
		if (cub_multi_plan(nsplit_of, g, fill, MULTI_SPREAD, &spread, moves, &nmoves, after,
		                   e))
			return -1;
		unsigned next_mask = 0;
		for (int d = 0; d < g; d++) {
			fresh[d] = keep && (mask >> d & 1) ? devs[d]->n - nsplit_of[d] : 0;
			next_mask |= (mask >> d & 1) || after[d] > 0 ? 1u << d : 0;
		}
		if (cub_each(g, next_mask & ~ready, e, [&](int d) {
			    return cub_multi_setup<T>(job, *devs[d], g, l, mg_share{0, 0},
			                              budget_cap, e);
		    }))
			return -1;
		ready |= next_mask;
		if (cub_each(g, next_mask, e, [&](int d) {
			    const long long most = std::max(nsplit_of[d], after[d]);
			    return cub_multi_split(job, *devs[d], split_all, keep, fresh[d],
			                           fresh[d] + 2 * most, most, budget_cap, e);
		    }))
			return -1;
		for (int m = 0; m < nmoves; m++)
			if (cub_multi_move(dim, *devs[moves[m].from], *devs[moves[m].to],
			                   moves[m].count, fresh, nsplit_of, e)) {
				struct qx_err inner = *e;
				return qx_fail(e, "GPU %d of %d: %s", moves[m].to, g, inner.msg);
			}
		if (cub_each(g, next_mask, e, [&](int d) {
			    return cub_multi_advance(*devs[d], fresh[d], nsplit_of[d], e);
		    }))
			return -1;
		n = 0;
		for (int d = 0; d < g; d++)
			n += devs[d]->n;
	}
	if (cub_each(g, every, e, [&](int d) { return cub_multi_split_phases(*devs[d], e); }))
		return -1;
	res->peak_bytes = 0;
	for (int d = 0; d < g; d++) {
		const cub_mdev<T> &D = *devs[d];
		res->peak_bytes +=
		    (double)(D.buf[0].cap + D.buf[1].cap) * (2 * dim * sizeof(T) + 20) +
		    (double)(D.wk.cap + D.wk.cap / 2 + D.pcap) * sizeof(double);
	}
	cub_breadth_finish(job, res, fin_est + live_est, fin_err + live_err, n);
	/* each device's time: its own phases; the run's: the slowest device's phases and the
	 * run's wall time (the host's rounds between them included) */
	int slow = 0;
	for (int d = 0; d < g; d++) {
		per[d] = devs[d]->t;
		per[d].total = 0;
		for (int k = 0; k < per[d].nphases; k++)
			per[d].total += per[d].phase[k].ms;
		if (per[d].total > per[slow].total)
			slow = d;
	}
	*t = per[slow];
	t->total = qx_now_ms() - t_start;
	return 0;
}

/* Runs breadth over ngpus devices (src/problems/cubature/cubature_gpu.h). */
extern "C" int cub_gpu_breadth_run_multi(const struct cub_job *job, int ngpus,
                                         struct cub_result *res, struct qx_timing *t,
                                         struct qx_timing *per, struct qx_err *e)
{
	if (ngpus < 1 || ngpus > MG_MAX_DEVICES)
		return qx_fail(e, "cubature: %d GPUs: expected 1..%d", ngpus, MG_MAX_DEVICES);
	return job->prec == QX_DOUBLE ? cub_run_multi<double>(job, ngpus, res, t, per, e)
	                              : cub_run_multi<float>(job, ngpus, res, t, per, e);
}

/* Half the smallest free memory of devices 0..ngpus-1; 0 when one cannot be read. */
extern "C" size_t cub_gpu_default_budget_multi(int ngpus)
{
	size_t least = 0;
	for (int d = 0; d < ngpus; d++) {
		size_t free_b = 0, total = 0;
		if (cudaSetDevice(d) != cudaSuccess ||
		    gpu_mem_info_pooled(&free_b, &total) != cudaSuccess) {
			least = 0;
			break;
		}
		least = d == 0 || free_b < least ? free_b : least;
	}
	cudaSetDevice(0);
	return least / 2;
}
