/* breadth_multi.cu - problem cubature's variant breadth over several GPUs. The leaves of the
 * partition are divided over the devices: the first partition by mg_split, and from then on
 * every leaf's children stay on its device. Each device keeps its own list, evaluates the rule
 * on its new leaves and sums its leaves' estimates and errors; per iteration the host adds up
 * what the devices found (src/problems/cubature/cubature_multi.h) in three rounds of a few numbers
 * each (the sums and largest error; the error histogram against that largest error; the count of
 * leaves each device splits at the agreed threshold), so that every device splits at the
 * one-GPU run's threshold and the run stops where the one-GPU run stops. When the children
 * waiting for the rule are unevenly spread, whole pairs of them (with their parent's estimate)
 * move from the end of one device's list to the end of another's (mg_rebalance's plan,
 * cudaMemcpyPeerAsync): region data stays on the devices.
 *
 * One host thread drives every device, each with its own allocations, events and (its default)
 * stream: each round ends with the host needing every device's numbers before any device can go
 * on, so threads would meet at a barrier three times an iteration and gain nothing; the calls
 * this thread makes between the rounds only queue work (kernel launches, asynchronous copies
 * into pinned memory), so the devices run side by side while it queues the next one. */
#include <atomic>
#include <cstring>
#include <memory>
#include <vector>

#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "../../src/multigpu.h"
#include "../../src/problems/cubature/cubature_gpu.h"
#include "common.cuh"

/* Pairs of children waiting for the rule may differ by this fraction of their mean over the
 * devices before they move: the rule is most of an iteration's time, and the slowest device's
 * share sets it. */
static const double MULTI_SPREAD = 0.05;

/* A device's events of one iteration: its start, the rule done, the sums copied, the histogram
 * round's start and end, the split count round's start and end, the split's start and end, and
 * the rebalancing transfers done. */
enum {
	MV_START,
	MV_RULES,
	MV_TOT,
	MV_HIST0,
	MV_HIST1,
	MV_SCAN0,
	MV_SCAN1,
	MV_SPLIT0,
	MV_SPLIT1,
	MV_MOVED,
	MV_COUNT
};

/* Pinned host words of a device: its sums, histogram and split count as copied back, and the
 * agreed sums, tolerance and threshold it is sent. */
enum { PH_TOT = 0, PH_TALLY = 4, PH_AGREED = 8, PH_HIST = 16, PH_WORDS = PH_HIST + 264 };

/* One device's share of the run: its lists and work arrays, the rule, its events and pinned
 * words, and its list's state (n leaves, fresh..n-1 new, the children of nparents parents).
 * The destructor makes the device current, so that the owners free on it. */
template <typename T> struct cub_mdev {
	int dev = 0, sms = 0, cur = 0;
	cub_buf<T> buf[2];
	cub_work wk;
	gpu_owned<double> rule_d, parent;
	gpu_owned<double> small; /* sums (cub_tot, tolerance, theta), tally, histogram */
	cub_rule dr;
	cudaEvent_t ev[MV_COUNT] = {};
	double *host = nullptr;
	long long n = 0, fresh = 0, nparents = 0, pcap = 0, nsplit = 0;
	struct qx_timing t = {};

	double *sums()
	{
		return small.ptr;
	}
	double *tally()
	{
		return small.ptr + 8;
	}
	double *hist()
	{
		return small.ptr + 16;
	}
	cub_tot *tot()
	{
		return (cub_tot *)small.ptr;
	}

	~cub_mdev()
	{
		cudaSetDevice(dev);
		for (cudaEvent_t &ev_i : ev)
			if (ev_i)
				cudaEventDestroy(ev_i);
		if (host)
			cudaFreeHost(host);
	}
};

/* Makes device 0 current again when a run ends (after its devices' shares are freed). */
struct cub_device0 {
	~cub_device0()
	{
		cudaSetDevice(0);
	}
};

/* Whether device d has tried to enable its access to device p's memory in this process (a
 * device's context keeps it for the process). */
static std::atomic<int> cub_peer_tried[MG_MAX_DEVICES][MG_MAX_DEVICES];

/* Sets up device D.dev's share: its events, pinned words, the rule, lists with room for the
 * first partition's count regions from first on (written by cub_init_kernel) and their split;
 * peer access to the other devices where there is one. Returns 0 or -1 with e. */
template <typename T>
static int cub_multi_setup(const struct cub_gpu_job *job, cub_mdev<T> &D, int g, int l,
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
	GPU_TRY(cudaMallocHost(&D.host, PH_WORDS * sizeof(double)));
	GPU_TRY(cudaMalloc(&D.small.ptr, (16 + HIST_BUCKETS + 1) * sizeof(double)));
	if (cub_rule_upload(job->rule, D.rule_d, D.dr, e))
		return -1;
	D.n = share.count;
	const long long cap = std::min(budget_cap, std::max(BREADTH_FIRST_CAP, 2 * D.n));
	if (cub_buf_reserve(D.buf[0], dim, cap, e) || cub_buf_reserve(D.buf[1], dim, cap, e))
		return -1;
	if (D.n > 0) {
		cub_init_kernel<T><<<(unsigned)((D.n + ELEM_BLOCK - 1) / ELEM_BLOCK), ELEM_BLOCK>>>(
		    D.n, dim, l, job->a, job->b, cub_list<T>{D.buf[0].c, D.buf[0].h}, cap,
		    share.first);
		GPU_TRY(cudaGetLastError());
	}
	GPU_TRY(cudaDeviceSynchronize());
	qx_timing_add(&D.t, "alloc", qx_now_ms() - t0, 0);
	return 0;
}

/* The first round on D: the rule on its new leaves, the children's check, the sums of its
 * leaves into its pinned words (event MV_TOT). Returns 0 or -1 with e. */
template <typename T>
static int cub_multi_rules(const struct cub_gpu_job *job, cub_mdev<T> &D, struct qx_err *e)
{
	cub_buf<T> &in = D.buf[D.cur];
	const long long nnew = D.n - D.fresh;
	auto tot_in = thrust::make_transform_iterator(thrust::make_counting_iterator(0LL),
	                                              cub_tot_of{in.est, in.err});
	auto split_in = thrust::make_transform_iterator(thrust::make_counting_iterator(0LL),
	                                                cub_split_of{in.err, D.sums() + 4, 0});
	GPU_TRY(cudaSetDevice(D.dev));
	if (cub_work_reserve(D.wk, in.cap, split_in, tot_in, D.tot(), e))
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
	GPU_TRY(cub::DeviceReduce::Reduce(D.wk.tmp, bytes, tot_in, D.tot(), (int)D.n, cub_tot_add{},
	                                  cub_tot{0, 0, 0}));
	GPU_TRY(
	    cudaMemcpyAsync(D.host + PH_TOT, D.sums(), 3 * sizeof(double), cudaMemcpyDeviceToHost));
	GPU_TRY(cudaEventRecord(D.ev[MV_TOT]));
	return 0;
}

/* The second round on D: the agreed sums in, the histogram of its errors against the agreed
 * largest error out to its pinned words (event MV_HIST1). Returns 0 or -1 with e. */
template <typename T>
static int cub_multi_hist_round(cub_mdev<T> &D, const struct cub_multi_tot &all, struct qx_err *e)
{
	const cub_buf<T> &in = D.buf[D.cur];
	GPU_TRY(cudaSetDevice(D.dev));
	GPU_TRY(cudaEventRecord(D.ev[MV_HIST0]));
	D.host[PH_AGREED] = all.est;
	D.host[PH_AGREED + 1] = all.err;
	D.host[PH_AGREED + 2] = all.max;
	GPU_TRY(cudaMemcpyAsync(D.sums(), D.host + PH_AGREED, 3 * sizeof(double),
	                        cudaMemcpyHostToDevice));
	GPU_TRY(cudaMemsetAsync(D.hist(), 0, (HIST_BUCKETS + 1) * sizeof(double)));
	if (D.n > 0) {
		const unsigned eb = (unsigned)((D.n + ELEM_BLOCK - 1) / ELEM_BLOCK);
		cub_hist_kernel<<<std::min(eb, 1024u), ELEM_BLOCK>>>(D.n, in.err, D.tot(),
		                                                     D.hist());
		GPU_TRY(cudaGetLastError());
	}
	GPU_TRY(cudaMemcpyAsync(D.host + PH_HIST, D.hist(), (HIST_BUCKETS + 1) * sizeof(double),
	                        cudaMemcpyDeviceToHost));
	GPU_TRY(cudaEventRecord(D.ev[MV_HIST1]));
	return 0;
}

/* The third round on D: the tolerance and threshold in, the split positions at the threshold
 * (all leaves with all), the count of its leaves that split out (event MV_SCAN1). Returns 0 or
 * -1 with e. */
template <typename T>
static int cub_multi_scan_round(cub_mdev<T> &D, double tol, double theta, int all, struct qx_err *e)
{
	const cub_buf<T> &in = D.buf[D.cur];
	const cub_split_of split = {in.err, D.sums() + 4, all};
	GPU_TRY(cudaSetDevice(D.dev));
	GPU_TRY(cudaEventRecord(D.ev[MV_SCAN0]));
	D.host[PH_AGREED + 3] = tol;
	D.host[PH_AGREED + 4] = theta;
	D.host[PH_TALLY + 3] = 0;
	GPU_TRY(cudaMemcpyAsync(D.sums() + 3, D.host + PH_AGREED + 3, 2 * sizeof(double),
	                        cudaMemcpyHostToDevice));
	if (D.n > 0) {
		auto split_in =
		    thrust::make_transform_iterator(thrust::make_counting_iterator(0LL), split);
		size_t bytes = D.wk.tmp_bytes;
		GPU_TRY(
		    cub::DeviceScan::ExclusiveSum(D.wk.tmp, bytes, split_in, D.wk.pos, (int)D.n));
		cub_breadth_tally_kernel<<<1, 1>>>(D.n, D.tot(), D.sums() + 3, D.wk.pos, split,
		                                   D.tally());
		GPU_TRY(cudaGetLastError());
		GPU_TRY(cudaMemcpyAsync(D.host + PH_TALLY, D.tally(), 5 * sizeof(double),
		                        cudaMemcpyDeviceToHost));
	}
	GPU_TRY(cudaEventRecord(D.ev[MV_SCAN1]));
	return 0;
}

/* Waits for event k of D; returns 0 or -1 with e. */
template <typename T> static int cub_multi_wait(cub_mdev<T> &D, int k, struct qx_err *e)
{
	GPU_TRY(cudaEventSynchronize(D.ev[k]));
	return 0;
}

/* The sums of the leaves of D that do not split (estimates, errors) into D's pinned tally
 * words 0 and 1 (event MV_SCAN1): the unsplit leaves retire when the lists would outgrow the
 * budget. Returns 0 or -1 with e. */
template <typename T> static int cub_multi_unsplit(cub_mdev<T> &D, int all, struct qx_err *e)
{
	const cub_buf<T> &in = D.buf[D.cur];
	const cub_split_of split = {in.err, D.sums() + 4, all};
	GPU_TRY(cudaSetDevice(D.dev));
	D.host[PH_TALLY] = D.host[PH_TALLY + 1] = 0;
	for (int k = 0; k < 2 && D.n > 0; k++) {
		cub_unsplit_kernel<<<(unsigned)((D.n + ELEM_BLOCK - 1) / ELEM_BLOCK), ELEM_BLOCK>>>(
		    D.n, k ? in.err : in.est, split, D.wk.scratch);
		GPU_TRY(cudaGetLastError());
		size_t bytes = D.wk.tmp_bytes;
		GPU_TRY(
		    cub::DeviceReduce::Sum(D.wk.tmp, bytes, D.wk.scratch, D.tally() + k, (int)D.n));
	}
	if (D.n > 0)
		GPU_TRY(cudaMemcpyAsync(D.host + PH_TALLY, D.tally(), 2 * sizeof(double),
		                        cudaMemcpyDeviceToHost));
	GPU_TRY(cudaEventRecord(D.ev[MV_SCAN1]));
	return 0;
}

/* D's split into its other list, with room made there for next leaves and in its parents'
 * array for npar parents (what rebalancing leaves it); keep: unsplit leaves stay. Returns 0 or
 * -1 with e. */
template <typename T>
static int cub_multi_split(const struct cub_gpu_job *job, cub_mdev<T> &D, int all, int keep,
                           long long next, long long npar, long long budget_cap, struct qx_err *e)
{
	const int dim = job->rule->dim;
	cub_buf<T> &in = D.buf[D.cur], &out = D.buf[1 - D.cur];
	const cub_split_of split = {in.err, D.sums() + 4, all};
	GPU_TRY(cudaSetDevice(D.dev));
	if (next > out.cap &&
	    cub_buf_reserve(out, dim, std::min(budget_cap, std::max(next, 8 * in.cap)), e))
		return -1;
	/* this iteration's parents were read by its children's check, queued before */
	if (D.pcap < npar) {
		D.pcap = std::max(npar, in.cap);
		if (cub_realloc(D.parent, D.pcap, e))
			return -1;
	}
	GPU_TRY(cudaEventRecord(D.ev[MV_SPLIT0]));
	if (D.n > 0)
		GPU_TRY(cub_next_launch<T>(D.n, dim, cub_list<T>{in.c, in.h}, in.cap, in.est,
		                           in.err, in.axis, split, D.wk.pos, keep,
		                           keep ? D.n - D.nsplit : 0, cub_list<T>{out.c, out.h},
		                           out.cap, out.est, out.err, out.axis, D.parent.ptr));
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
	D.fresh = fresh;
	D.nparents = npar;
	D.n = fresh + 2 * npar;
	D.cur = 1 - D.cur;
	return 0;
}

/* Adds D's phases of the iteration just waited for (its events up to MV_SCAN1) to its timing,
 * and with split_pending those of the split before it. */
template <typename T> static void cub_multi_phases(cub_mdev<T> &D, int split_pending)
{
	qx_timing_add(&D.t, "rules", gpu_elapsed(D.ev[MV_START], D.ev[MV_RULES]), 0);
	qx_timing_add(&D.t, "classify",
	              gpu_elapsed(D.ev[MV_RULES], D.ev[MV_TOT]) +
	                  gpu_elapsed(D.ev[MV_HIST0], D.ev[MV_HIST1]) +
	                  gpu_elapsed(D.ev[MV_SCAN0], D.ev[MV_SCAN1]),
	              0);
	if (split_pending) {
		qx_timing_add(&D.t, "split", gpu_elapsed(D.ev[MV_SPLIT0], D.ev[MV_SPLIT1]), 0);
		qx_timing_add(&D.t, "copies", gpu_elapsed(D.ev[MV_SPLIT1], D.ev[MV_MOVED]), 0);
	}
}

/* Calls f(d) for every device in order; on the first failure returns -1 with e naming the GPU
 * (a cancelled run's error as it is). */
template <typename F> static int cub_each(int g, struct qx_err *e, F f)
{
	for (int d = 0; d < g; d++)
		if (f(d)) {
			if (!strcmp(e->msg, "run cancelled"))
				return -1;
			struct qx_err inner = *e;
			return qx_fail(e, "GPU %d of %d: %s", d, g, inner.msg);
		}
	return 0;
}

/* breadth over g devices (see the file's comment): the decisions of cub_run_breadth
 * (cuda/cubature/breadth.cu) from the agreed sums, every iteration through the host. */
template <typename T>
static int cub_run_multi(const struct cub_gpu_job *job, int g, struct cub_result *res,
                         struct qx_timing *t, struct qx_timing *per, struct qx_err *e)
{
	const struct cub_rule *rule = job->rule;
	const int dim = rule->dim, npts = rule->npts;
	/* the one-GPU run's bound on the leaves of all devices: the same decisions; a device's
	 * lists never hold more than all of them */
	const long long budget_cap = std::min<long long>(
	    (long long)(job->budget / cub_gpu_region_bytes(dim, job->prec)), 1LL << 30);
	const double t_start = qx_now_ms();
	struct mg_share share[MG_MAX_DEVICES];
	cub_device0 restore; /* declared first: destroyed after the devices' shares */
	*res = (struct cub_result){};
	res->reason = CUB_CONVERGED;
	if (budget_cap < 4)
		return qx_fail(e, "budget %.3g MiB: expected room for 4 regions of %zu bytes",
		               job->budget / 1048576.0, cub_gpu_region_bytes(dim, job->prec));
	for (int d = 0; d < g; d++) { /* the budget on every device, before anything runs */
		size_t free_b = 0, total = 0;
		GPU_TRY(cudaSetDevice(d));
		GPU_TRY(cudaMemGetInfo(&free_b, &total));
		if (job->budget > free_b)
			return qx_fail(
			    e,
			    "budget %.1f MiB (a GPU's) does not fit on GPU %d of %d, which "
			    "has %.1f MiB free: set budget lower, or 0 for half the smallest "
			    "GPU's free memory",
			    job->budget / 1048576.0, d, g, free_b / 1048576.0);
	}
	const int l = cub_breadth_pieces(job, budget_cap, e);
	if (l < 0 || mg_split((long long)pow(l, dim), g, NULL, share, e))
		return -1;
	std::vector<std::unique_ptr<cub_mdev<T>>> devs;
	for (int d = 0; d < g; d++) {
		devs.emplace_back(new cub_mdev<T>);
		devs[d]->dev = d;
	}
	if (cub_each(g, e, [&](int d) {
		    return cub_multi_setup<T>(job, *devs[d], g, l, share[d], budget_cap, e);
	    }))
		return -1;
	double fin_est = 0, fin_err = 0, live_est = 0, live_err = 0, tol = 0;
	double hist[HIST_BUCKETS + 1];
	struct cub_multi_tot tots[MG_MAX_DEVICES], all;
	long long n = 0, nsplit_of[MG_MAX_DEVICES], fresh[MG_MAX_DEVICES], after[MG_MAX_DEVICES];
	int split_pending = 0;
	for (int d = 0; d < g; d++)
		n += devs[d]->n;
	for (;;) {
		if (qx_cancelled())
			return qx_fail(e, "run cancelled");
		/* round 1: the rule and each device's sums */
		long long nnew = 0;
		for (int d = 0; d < g; d++)
			nnew += devs[d]->n - devs[d]->fresh;
		if (cub_each(g, e, [&](int d) { return cub_multi_rules<T>(job, *devs[d], e); }) ||
		    cub_each(g, e, [&](int d) { return cub_multi_wait(*devs[d], MV_TOT, e); }))
			return -1;
		res->evals += nnew * npts;
		res->regions += nnew;
		res->iterations++;
		qx_progress_add(nnew * npts);
		for (int d = 0; d < g; d++)
			tots[d] = devs[d]->n > 0 ? cub_multi_tot{devs[d]->host[PH_TOT],
			                                         devs[d]->host[PH_TOT + 1],
			                                         devs[d]->host[PH_TOT + 2]}
			                         : cub_multi_tot{0, 0, 0};
		all = cub_multi_agree(tots, g);
		/* round 2: the histogram against the largest error of all */
		if (cub_each(g, e, [&](int d) { return cub_multi_hist_round(*devs[d], all, e); }) ||
		    cub_each(g, e, [&](int d) { return cub_multi_wait(*devs[d], MV_HIST1, e); }))
			return -1;
		std::vector<double> hs((size_t)g * PH_WORDS);
		for (int d = 0; d < g; d++)
			std::copy(devs[d]->host + PH_HIST,
			          devs[d]->host + PH_HIST + HIST_BUCKETS + 1,
			          hs.begin() + (size_t)d * PH_WORDS);
		cub_multi_hist(hs.data(), g, PH_WORDS, HIST_BUCKETS + 1, hist);
		double theta;
		cub_multi_theta(hist, all, fin_est, fin_err, job->rel, job->abs, &tol, &theta);
		live_est = all.est;
		live_err = all.err;
		cub_history_add(job, res, fin_est + live_est, fin_err + live_err, n);
		const int split_all = res->iterations == 1;
		/* round 3: the leaves each device splits */
		if (cub_each(g, e,
		             [&](int d) {
			             return cub_multi_scan_round(*devs[d], tol, theta, split_all,
			                                         e);
		             }) ||
		    cub_each(g, e, [&](int d) { return cub_multi_wait(*devs[d], MV_SCAN1, e); }))
			return -1;
		long long nsplit = 0;
		for (int d = 0; d < g; d++) {
			cub_multi_phases(*devs[d], split_pending);
			nsplit_of[d] = devs[d]->nsplit = (long long)devs[d]->host[PH_TALLY + 3];
			nsplit += nsplit_of[d];
		}
		split_pending = 0;
		if (fin_err + live_err <= tol && res->iterations > 1)
			break;
		if (nsplit == 0) {
			res->reason = CUB_NO_PROGRESS;
			break;
		}
		if (res->evals + 2 * nsplit * npts > job->maxeval) {
			res->reason = CUB_MAXEVAL;
			break;
		}
		int keep = 1;
		if (n + nsplit > budget_cap) {
			if (2 * nsplit > budget_cap) {
				res->reason = CUB_BUDGET;
				break;
			}
			/* the lists would outgrow the budget: the unsplit leaves retire */
			keep = 0;
			if (cub_each(
			        g, e,
			        [&](int d) { return cub_multi_unsplit(*devs[d], split_all, e); }) ||
			    cub_each(g, e,
			             [&](int d) { return cub_multi_wait(*devs[d], MV_SCAN1, e); }))
				return -1;
			for (int d = 0; d < g; d++)
				if (devs[d]->n > 0) {
					fin_est += devs[d]->host[PH_TALLY];
					fin_err += devs[d]->host[PH_TALLY + 1];
				}
		}
		/* the plan first, so that the split makes room for what each device receives */
		struct mg_move moves[MG_MAX_DEVICES];
		int nmoves = 0;
		if (mg_rebalance(nsplit_of, g, MULTI_SPREAD, moves, &nmoves, after, e))
			return -1;
		for (int d = 0; d < g; d++)
			fresh[d] = keep ? devs[d]->n - devs[d]->nsplit : 0;
		if (cub_each(g, e, [&](int d) {
			    const long long most = std::max(nsplit_of[d], after[d]);
			    return cub_multi_split(job, *devs[d], split_all, keep,
			                           fresh[d] + 2 * most, most, budget_cap, e);
		    }))
			return -1;
		for (int m = 0; m < nmoves; m++)
			if (cub_multi_move(dim, *devs[moves[m].from], *devs[moves[m].to],
			                   moves[m].count, fresh, nsplit_of, e)) {
				struct qx_err inner = *e;
				return qx_fail(e, "GPU %d of %d: %s", moves[m].to, g, inner.msg);
			}
		if (cub_each(g, e, [&](int d) {
			    return cub_multi_advance(*devs[d], fresh[d], nsplit_of[d], e);
		    }))
			return -1;
		split_pending = 1;
		n = 0;
		for (int d = 0; d < g; d++)
			n += devs[d]->n;
	}
	res->peak_bytes = 0;
	for (int d = 0; d < g; d++) {
		const cub_mdev<T> &D = *devs[d];
		res->peak_bytes +=
		    (double)(D.buf[0].cap + D.buf[1].cap) * (2 * dim * sizeof(T) + 20) +
		    (double)(D.wk.cap + D.wk.cap / 2 + D.pcap) * sizeof(double);
	}
	res->live = n;
	res->value = fin_est + live_est;
	res->err = fin_err + live_err;
	if (res->reason == CUB_CONVERGED &&
	    !(res->err <= fmax(job->abs, job->rel * fabs(res->value))))
		res->reason = CUB_NO_PROGRESS;
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
extern "C" int cub_gpu_run_multi(const struct cub_gpu_job *job, int ngpus, struct cub_result *res,
                                 struct qx_timing *t, struct qx_timing *per, struct qx_err *e)
{
	if (ngpus < 1 || ngpus > MG_MAX_DEVICES)
		return qx_fail(e, "cubature: %d GPUs: expected 1..%d", ngpus, MG_MAX_DEVICES);
	if (job->algo != CUB_GPU_BREADTH)
		return qx_fail(e,
		               "cubature: variant twophase runs on one GPU (gpus is %d): set gpus "
		               "1, or variant breadth, which divides its work over GPUs",
		               ngpus);
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
		    cudaMemGetInfo(&free_b, &total) != cudaSuccess) {
			least = 0;
			break;
		}
		least = d == 0 || free_b < least ? free_b : least;
	}
	cudaSetDevice(0);
	return least / 2;
}
