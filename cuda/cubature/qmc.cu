/* qmc.cu - cubature's variant qmc on one GPU (cubature_gpu.h): the CPU's lattice, shifts and
 * doublings (cubature_qmc.c), a kernel a level with a row of blocks a shift; the host adds each
 * shift's blocks in block order (cub_qmc_stats). */
#include <vector>

#include "../../src/problems/cubature/cubature_gpu.h"
#include "../gpu_util.cuh"
#include "mc_kernels.cuh"

/* qmc's kernel for the built-in integrands (mc_kernels.cuh). */
template <typename T>
__global__ void __launch_bounds__(MC_BLOCK)
    cub_qmc_kernel(const __grid_constant__ cub_fn fn, double a, double b, const uint64_t *z, int m,
                   unsigned long long first, unsigned long long step, unsigned long long count,
                   const double *shifts, double vol, double *blk)
{
	cub_qmc_body<T, 0>(fn, a, b, z, m, first, step, count, shifts, vol, blk);
}

/* Launches a level on blocks x shifts blocks: the user's kernel where the job has one, else
 * the built-ins' in precision T; returns the launch's error. */
template <typename T>
static cudaError_t cub_qmc_launch(const struct cub_job *job, unsigned blocks, const uint64_t *z,
                                  int m, unsigned long long first, unsigned long long step,
                                  unsigned long long count, const double *shifts, double vol,
                                  double *blk)
{
	cub_fn fn = job->fn;
	double a = job->a, b = job->b;
	const dim3 grid(blocks, (unsigned)job->shifts);
	if (job->user) {
		void *args[] = {&fn, &a, &b, &z, &m, &first, &step, &count, &shifts, &vol, &blk};
		return cudaLaunchKernel((const void *)job->user->kernel[CUB_UK_RULE], grid,
		                        dim3(MC_BLOCK), args, 0, 0);
	}
	cub_qmc_kernel<T><<<grid, MC_BLOCK>>>(fn, a, b, z, m, first, step, count, shifts, vol, blk);
	return cudaGetLastError();
}

/* qmc in precision T: the levels as cub_cpu_qmc's, phases "alloc", "samples", "copies" and
 * "free" into *t. */
template <typename T>
static int cub_run_qmc(const struct cub_job *job, struct cub_result *res, struct qx_timing *t,
                       struct qx_err *e)
{
	const int dim = job->fn.dim, R = job->shifts;
	const double t0 = qx_now_ms();
	int sms = 0;
	GPU_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	const unsigned most = (unsigned)std::max(1, 8 * sms / R);
	cudaEvent_t *ev = gpu_events(2, e);
	if (!ev)
		return -1;
	uint64_t z[CUB_FN_MAX_DIM];
	std::vector<double> shifts((size_t)R * CUB_FN_MAX_DIM), sum(R), blk(3 * (size_t)R * most);
	cub_qmc_vector(dim, z);
	for (int r = 0; r < R; r++)
		cub_mc_uniforms(job->seed, CUB_MC_QMC_STREAM + (unsigned)r, 0, dim,
		                &shifts[(size_t)r * CUB_FN_MAX_DIM]);
	gpu_owned<uint64_t> z_d;
	gpu_owned<double> shifts_d, blk_d;
	GPU_TRY(cudaMalloc(&z_d.ptr, sizeof z));
	GPU_TRY(cudaMalloc(&shifts_d.ptr, shifts.size() * sizeof(double)));
	GPU_TRY(cudaMalloc(&blk_d.ptr, blk.size() * sizeof(double)));
	GPU_TRY(cudaMemcpy(z_d.ptr, z, sizeof z, cudaMemcpyHostToDevice));
	GPU_TRY(cudaMemcpy(shifts_d.ptr, shifts.data(), shifts.size() * sizeof(double),
	                   cudaMemcpyHostToDevice));
	double vol = 1;
	for (int i = 0; i < dim; i++)
		vol *= job->b - job->a;
	qx_timing_add(t, "alloc", qx_now_ms() - t0, 0);
	*res = (struct cub_result){};
	res->mc = CUB_MC_QMC;
	res->chi2_dof = NAN;
	res->reason = CUB_MAXEVAL;
	res->live = 1;
	int m = CUB_QMC_FIRST_LOG2;
	while (m > 0 && (double)R * (double)(1ULL << m) > (double)job->maxeval)
		m--;
	for (int level = 0;; level++, m++) {
		if (qx_cancelled())
			return qx_fail(e, "run cancelled");
		const unsigned long long first = level ? 1 : 0, step = level ? 2 : 1;
		const unsigned long long count = level ? 1ULL << (m - 1) : 1ULL << m;
		const unsigned blocks =
		    (unsigned)std::min<unsigned long long>(most, (count + MC_BLOCK - 1) / MC_BLOCK);
		const double c0 = qx_now_ms();
		GPU_TRY(cudaEventRecord(ev[0]));
		GPU_LAUNCH(cub_qmc_launch<T>(job, blocks, z_d.ptr, m, first, step, count,
		                             shifts_d.ptr, vol, blk_d.ptr));
		GPU_TRY(cudaEventRecord(ev[1]));
		GPU_TRY(cudaMemcpy(blk.data(), blk_d.ptr, 3 * (size_t)R * blocks * sizeof(double),
		                   cudaMemcpyDeviceToHost));
		const double ms = gpu_elapsed(ev[0], ev[1]);
		qx_timing_add(t, "samples", ms, 0);
		qx_timing_add(t, "copies", qx_now_ms() - c0 - ms, 0);
		for (int r = 0; r < R; r++)
			for (unsigned k = 0; k < blocks; k++) {
				sum[r] += blk[3 * ((size_t)r * blocks + k)];
				res->nonfinite += (long long)blk[3 * ((size_t)r * blocks + k) + 2];
			}
		const int stop = cub_qmc_level_end(job, res, sum.data(), R, m, count, level);
		cub_history_record(res, level + 1, res->value, res->err, 1, (double)res->evals);
		qx_progress_add((long long)(R * count));
		cub_progress_error(res->value, res->err, job->rel, job->abs);
		if (stop)
			break;
	}
	const double f0 = qx_now_ms();
	GPU_TRY(cudaFree(z_d.release()));
	GPU_TRY(cudaFree(shifts_d.release()));
	GPU_TRY(cudaFree(blk_d.release()));
	qx_timing_add(t, "free", qx_now_ms() - f0, 0);
	t->total = qx_now_ms() - t0;
	res->peak_bytes = (double)(sizeof z + (shifts.size() + blk.size()) * sizeof(double));
	return 0;
}

/* Variant qmc on device 0 (cubature_gpu.h). */
extern "C" int cub_gpu_qmc_run(const struct cub_job *job, struct cub_result *res,
                               struct qx_timing *t, struct qx_err *e)
{
	return job->prec == QX_DOUBLE ? cub_run_qmc<double>(job, res, t, e)
	                              : cub_run_qmc<float>(job, res, t, e);
}
