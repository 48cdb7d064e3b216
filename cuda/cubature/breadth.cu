/* breadth.cu - cubature's breadth variant on one GPU: the partition's leaves stay in one list
 * with their results; every iteration evaluates the new leaves, checks children against their
 * parent, and splits every leaf whose error is over a threshold taken from a histogram of the
 * errors (the device-wide form of "split the worst"), with a CUB scan for the positions; while
 * the list is small, a batch of iterations is queued at a time, the list's size kept on the
 * device, and one block classifies (ahead.cuh). breadth_multi.cu runs it over several GPUs with
 * the pieces of common.cuh and ahead.cuh. */
#include <algorithm>
#include <vector>

#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "../../src/problems/cubature/cubature_gpu.h"
#include "../gpu_util.cuh"
#include "ahead.cuh"
#include "breadth_stop.cuh"
#include "common.cuh"
#include "rule_kernel.cuh"

/* One block of HIST_BUCKETS threads, from the sums tot and the error histogram hist: the
 * tolerance max(abs, rel |fin_est + tot->est|) into *tolp, and the split threshold *theta, the
 * upper edge of the highest bucket K < HIST_BUCKETS whose buckets 0..K sum to at most
 * BREADTH_KEEP (tolerance - fin_err), so that the leaves at or under it keep that share of
 * what the tolerance leaves and the largest error always splits; -1 (split all) when bucket 0
 * alone is over it. Zeroes hist for the next iteration. (cub_ahead_classify_kernel finds the
 * same threshold by bisection.) */
__global__ void __launch_bounds__(256)
    cub_theta_kernel(double *hist, const cub_tot *tot, double fin_est, double fin_err, double rel,
                     double abs_tol, double *tolp, double *theta)
{
	typedef cub::BlockScan<double, 256> scan_t;
	__shared__ typename scan_t::TempStorage tmp;
	const double tol = fmax(abs_tol, rel * fabs(fin_est + tot->est));
	const double budget = BREADTH_KEEP * (tol - fin_err), h0 = hist[0];
	double cum;
	scan_t(tmp).InclusiveSum(hist[1 + threadIdx.x], cum);
	cum += h0;
	const int k = __syncthreads_count(cum <= budget && threadIdx.x < HIST_BUCKETS - 1);
	hist[1 + threadIdx.x] = 0;
	if (threadIdx.x == 0) {
		hist[0] = 0;
		*tolp = tol;
		if (k > 0)
			*theta = tot->max * exp2(-(HIST_BUCKETS - k) / 4.0);
		else
			*theta = h0 <= budget ? tot->max * 0x1p-64 : -1;
	}
}

/* breadth: the leaves of the partition stay in one list with their results. Each iteration
 * evaluates the rule on the new leaves (children, checked against their parents), sums
 * estimates and errors, and splits every leaf whose error is over a threshold chosen from a
 * histogram of the errors so that the unsplit leaves' errors take at most BREADTH_KEEP of the
 * tolerance the retired ones leave (the largest always splits): the device-wide form of the
 * sequential queue's "split the worst". Unsplit leaves are kept, not evaluated again; they
 * retire (their sums final) only when the list would outgrow the budget. The first
 * partition (cub_breadth_pieces) splits whole, so a run converges, when the summed errors
 * meet the tolerance, only once every leaf's estimate has been checked against its parent's.
 * The lists grow as needed, 8x at a time. While the list is small the iterations run ahead
 * of the host (cub_breadth_ahead); after that the host waits once per iteration, for one
 * copy of the tally. */
template <typename T>
static int cub_run_breadth(const struct cub_job *job, struct cub_result *res, struct qx_timing *t,
                           struct qx_err *e)
{
	const struct cub_rule *rule = job->rule;
	const int dim = rule->dim;
	const long long budget_cap = cub_breadth_start(job, res, e);
	const double t_start = qx_now_ms();
	cub_buf<T> buf[2];
	cub_owned<double> parent, rule_d; /* parents' estimates past acap; points and weights */
	cub_owned<unsigned char> small;   /* sums, tally, histogram; running ahead's */
	cub_work wk;                      /* scratch, pos and CUB's storage for wcap leaves */
	double *scratch = nullptr;
	int *pos = nullptr;
	void *tmp = nullptr;
	size_t tmp_bytes = 0;
	long long wcap = 0, pcap = 0; /* capacity of work; of parent */
	int sms = 0;
	if (budget_cap < 0)
		return -1;
	const int l = cub_breadth_pieces(job, budget_cap, e);
	if (l < 0)
		return -1;
	cudaEvent_t *ev = gpu_events(std::max<int>(EV_COUNT, 3 * AHEAD_BATCH + 2), e);
	if (!ev)
		return -1;
	GPU_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	/* small, one allocation: sums, tally and histogram; the state of running ahead; the
	 * parents' estimates and the positions of acap leaves (the lists' room while small) */
	const long long acap = std::min(std::min(budget_cap, BREADTH_FIRST_CAP), AHEAD_CAP);
	const size_t ahead_at = (16 + HIST_BUCKETS + 1 + 31) / 32 * 32 * sizeof(double),
	             parent_at = ahead_at + (sizeof(cub_ahead) + 255) / 256 * 256,
	             pos_at = parent_at + acap * sizeof(double);
	if (cub_realloc(small, (long long)(pos_at + acap * sizeof(int)), e))
		return -1;
	double *sums = (double *)small.ptr, *tally = sums + 8, *hist = sums + 16;
	double *parent_p = (double *)(small.ptr + parent_at);
	pcap = acap;
	GPU_TRY(cudaMemset(hist, 0, (HIST_BUCKETS + 1) * sizeof(double)));
	cub_rule dr;
	if (cub_rule_upload(rule, rule_d, dr, e))
		return -1;
	long long n = (long long)pow(l, dim);
	if (cub_buf_reserve(buf[0], dim, std::min(budget_cap, std::max(BREADTH_FIRST_CAP, n)), e) ||
	    cub_buf_reserve(buf[1], dim, buf[0].cap, e))
		return -1;
	cub_list<T> g = {buf[0].c, buf[0].h};
	cub_init_kernel<T><<<(unsigned)((n + ELEM_BLOCK - 1) / ELEM_BLOCK), ELEM_BLOCK>>>(
	    n, dim, l, job->a, job->b, g, buf[0].cap);
	GPU_TRY(cudaGetLastError());
	GPU_TRY(cudaDeviceSynchronize());
	qx_timing_add(t, "alloc", qx_now_ms() - t_start, 0);
	cub_tot *tot = (cub_tot *)sums;
	double *tol_d = sums + 3, *theta_d = sums + 4;
	double fin_est = 0, fin_err = 0, live_est = 0, live_err = 0, tally_h[5] = {0};
	/* the first iterations run ahead of the host while the list is small, if the first
	 * split fits there; the host goes on from where they hand over */
	cub_ahead ahead = {};
	ahead.n = n;
	ahead.stop = AHEAD_HOST;
	if (2 * n <= acap && 3.0 * n * rule->npts <= job->maxeval &&
	    cub_breadth_ahead<T>(job, dr, buf, n, acap, parent_p, (int *)(small.ptr + pos_at),
	                         (cub_ahead *)(small.ptr + ahead_at), sms, ev, res, t, &ahead, e))
		return -1;
	if (ahead.stop == AHEAD_DONE)
		res->reason = ahead.reason;
	n = ahead.n;
	long long fresh = ahead.fresh, nparents = ahead.nparents;
	live_est = ahead.est;
	live_err = ahead.err;
	int cur = (int)(cub_ahead_splits(&ahead) % 2), split_pending = 0;
	while (ahead.stop == AHEAD_HOST) {
		if (qx_cancelled())
			return qx_fail(e, "run cancelled");
		cub_buf<T> &in = buf[cur];
		g = {in.c, in.h};
		const cub_split_of split = {in.err, theta_d, res->iterations == 0};
		auto tot_in = thrust::make_transform_iterator(thrust::make_counting_iterator(0LL),
		                                              cub_tot_of{in.est, in.err});
		auto split_in =
		    thrust::make_transform_iterator(thrust::make_counting_iterator(0LL), split);
		if (wcap < in.cap) { /* the work arrays follow the largest list */
			if (cub_work_reserve(wk, in.cap, split_in, tot_in, tot, e))
				return -1;
			wcap = wk.cap;
			scratch = wk.scratch;
			pos = wk.pos;
			tmp = wk.tmp;
			tmp_bytes = wk.tmp_bytes;
		}
		const unsigned eb = (unsigned)((n + ELEM_BLOCK - 1) / ELEM_BLOCK);
		const long long nnew = n - fresh;
		GPU_TRY(cudaEventRecord(ev[EV_START]));
		cub_list<T> gf = {in.c + fresh, in.h + fresh};
		GPU_TRY(cub_rule_launch<T>(job, dr, gf, in.cap, nnew, in.est + fresh,
		                           in.err + fresh, in.axis + fresh, sms));
		GPU_TRY(cudaEventRecord(ev[EV_RULES]));
		/* the children's check counts as classification, as when running ahead */
		if (nparents)
			cub_children_kernel<<<(unsigned)((nparents + ELEM_BLOCK - 1) / ELEM_BLOCK),
			                      ELEM_BLOCK>>>(nparents, 2, parent_p, in.est + fresh,
			                                    in.err + fresh);
		GPU_TRY(cudaGetLastError());
		cub_breadth_count(job, res, nnew);
		size_t bytes = tmp_bytes;
		GPU_TRY(cub::DeviceReduce::Reduce(tmp, bytes, tot_in, tot, (int)n, cub_tot_add{},
		                                  cub_tot{0, 0, 0}));
		cub_hist_kernel<<<std::min(eb, 1024u), ELEM_BLOCK>>>(n, in.err, tot, hist);
		cub_theta_kernel<<<1, HIST_BUCKETS>>>(hist, tot, fin_est, fin_err, job->rel,
		                                      job->abs, tol_d, theta_d);
		GPU_TRY(cudaGetLastError());
		bytes = tmp_bytes;
		GPU_TRY(cub::DeviceScan::ExclusiveSum(tmp, bytes, split_in, pos, (int)n));
		cub_breadth_tally_kernel<<<1, 1>>>(n, tot, tol_d, pos, split, tally);
		GPU_TRY(cudaGetLastError());
		if (cub_tally_copy(tally, tally_h, 5, ev, split_pending, t, e))
			return -1;
		split_pending = 0;
		live_est = tally_h[0];
		live_err = tally_h[1];
		const double tol = tally_h[2];
		const long long nsplit = (long long)tally_h[3];
		const enum cub_breadth_step step = cub_breadth_decide(
		    job, res, fin_est + live_est, fin_err + live_err, tol, n, nsplit, budget_cap);
		if (step == CUB_BREADTH_STOP)
			break;
		const int keep = step == CUB_BREADTH_SPLIT;
		if (!keep) { /* the list would outgrow the budget: the unsplit leaves retire */
			double ret[2];
			for (int k = 0; k < 2; k++) {
				cub_unsplit_kernel<<<eb, ELEM_BLOCK>>>(n, k ? in.err : in.est,
				                                       split, scratch);
				GPU_TRY(cudaGetLastError());
				bytes = tmp_bytes;
				GPU_TRY(
				    cub::DeviceReduce::Sum(tmp, bytes, scratch, tally + k, (int)n));
			}
			GPU_TRY(cudaMemcpy(ret, tally, sizeof ret, cudaMemcpyDeviceToHost));
			fin_est += ret[0];
			fin_err += ret[1];
		}
		const long long nkeep = keep ? n - nsplit : 0, next = nkeep + 2 * nsplit;
		cub_buf<T> &out = buf[1 - cur];
		if (next > out.cap &&
		    cub_buf_reserve(out, dim, std::min(budget_cap, std::max(next, 8 * in.cap)), e))
			return -1;
		/* parent's entries of this iteration were read by the children's check */
		if (pcap < nsplit) {
			pcap = in.cap;
			if (cub_realloc(parent, pcap, e))
				return -1;
			parent_p = parent.ptr;
		}
		GPU_TRY(cudaEventRecord(ev[EV_SPLIT0]));
		GPU_TRY(cub_next_launch<T>(n, dim, g, in.cap, in.est, in.err, in.axis, split, pos,
		                           keep, nkeep, cub_list<T>{out.c, out.h}, out.cap, out.est,
		                           out.err, out.axis, parent_p));
		GPU_TRY(cudaEventRecord(ev[EV_SPLIT1]));
		split_pending = 1;
		nparents = nsplit;
		fresh = nkeep;
		n = next;
		cur = 1 - cur;
	}
	/* the region arrays only grow: the two lists, work (scratch and positions), the parents'
	 * estimates, and running ahead's positions and parents (these counted in pcap until
	 * parent took over) */
	res->peak_bytes = (double)(buf[0].cap + buf[1].cap) * (2 * dim * sizeof(T) + 20) +
	                  (double)(wcap + wcap / 2 + pcap) * sizeof(double) +
	                  (double)acap * (sizeof(int) + (parent.ptr ? sizeof(double) : 0));
	cub_breadth_finish(job, res, fin_est + live_est, fin_err + live_err, n);
	t->total = qx_now_ms() - t_start;
	return 0;
}

/* breadth in the job's precision (cubature_gpu.h). */
extern "C" int cub_gpu_breadth_run(const struct cub_job *job, struct cub_result *res,
                                   struct qx_timing *t, struct qx_err *e)
{
	return job->prec == QX_DOUBLE ? cub_run_breadth<double>(job, res, t, e)
	                              : cub_run_breadth<float>(job, res, t, e);
}
