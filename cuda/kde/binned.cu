/* binned.cu - kde's binned variant (src/problems/kde/kde_gpu.h): linear binning of the samples in
 * fixed point through per-block shared histograms, then the convolution with the Gaussian by cuFFT
 * (double, zero-padded), its plans from the cache of fft_plans.cu. */
#include <algorithm>

#include <cufft.h>

#include "fft_plans.cuh"
#include "kernels.cuh"
#include "run.cuh"

/* Fixed-point scale of the binning weights: a sample adds 2^16 in all, split between its two
 * grid points by its linear-binning weight rounded to 2^-16 (mass kept exactly). */
#define KDE_BIN_ONE 65536u
/* Samples one block bins at most, so that a 32-bit shared bin cannot overflow. */
#define KDE_BIN_PER_BLOCK 65535LL
/* Largest grid binned in shared memory (4-byte bins in the default 48 KiB); larger grids bin
 * straight into the global 64-bit bins. */
#define KDE_BIN_SHARED_MAX 12288

/* Linear binning of samples [blockIdx.x S, +S) (S = per_block) onto the g grid points over
 * [lo, hi] (kde_bin) in fixed point: SHARED: a per-block histogram in shared memory (integer
 * atomics), added to the global 64-bit bins once per block; else global atomics per sample. */
template <typename T, bool SHARED>
__global__ void kde_bin_kernel(const T *x, long long n, double lo, double hi, long long g,
                               long long per_block, unsigned long long *bins)
{
	extern __shared__ unsigned kde_hist[];
	if (SHARED) {
		for (long long i = threadIdx.x; i < g; i += blockDim.x)
			kde_hist[i] = 0;
		__syncthreads();
	}
	const long long j0 = (long long)blockIdx.x * per_block;
	const long long j1 = min(n, j0 + per_block);
	for (long long j = j0 + threadIdx.x; j < j1; j += blockDim.x) {
		double w;
		const long long i = kde_bin((double)x[j], lo, hi, g, &w);
		const unsigned up = (unsigned)__double2uint_rn(w * KDE_BIN_ONE);
		if (SHARED) {
			atomicAdd(&kde_hist[i], KDE_BIN_ONE - up);
			atomicAdd(&kde_hist[i + 1], up);
		} else {
			atomicAdd(&bins[i], (unsigned long long)(KDE_BIN_ONE - up));
			atomicAdd(&bins[i + 1], (unsigned long long)up);
		}
	}
	if (SHARED) {
		__syncthreads();
		for (long long i = threadIdx.x; i < g; i += blockDim.x)
			if (kde_hist[i])
				atomicAdd(&bins[i], (unsigned long long)kde_hist[i]);
	}
}

/* The FFT input, l of 2 L doubles: [0, L) the bins (count / 2^16, zero past g), [L, 2 L) the
 * Gaussian at the grid spacing, exp(-(l dx / h)^2 / 2) at l and L - l for l <= span (a circular
 * kernel; L >= g + span keeps the wrap-around off the g outputs). */
__global__ void kde_fft_input(const unsigned long long *bins, long long g, long long len,
                              long long span, double dx_h, double *buf)
{
	const long long l = (long long)blockDim.x * blockIdx.x + threadIdx.x;
	if (l >= len)
		return;
	buf[l] = l < g ? (double)bins[l] / KDE_BIN_ONE : 0;
	const long long d = l <= len / 2 ? l : len - l;
	const double t = (double)d * dx_h;
	buf[len + l] = d <= span ? exp(-0.5 * t * t) : 0;
}

/* spec[k] = spec[k] spec[half + k] scale for k < half: the product of the two spectra. */
__global__ void kde_spectra_product(cufftDoubleComplex *spec, long long half, double scale)
{
	const long long k = (long long)blockDim.x * blockIdx.x + threadIdx.x;
	if (k >= half)
		return;
	const cufftDoubleComplex a = spec[k], b = spec[half + k];
	spec[k] =
	    make_cuDoubleComplex((a.x * b.x - a.y * b.y) * scale, (a.x * b.y + a.y * b.x) * scale);
}

/* y[i] = conv[i] rounded to T, i < g. */
template <typename T> __global__ void kde_fft_output(const double *conv, long long g, T *y)
{
	const long long i = (long long)blockDim.x * blockIdx.x + threadIdx.x;
	if (i < g)
		y[i] = (T)conv[i];
}

/* binned: the samples, binned through per-block shared histograms (fixed point), then the
 * convolution with the Gaussian by cuFFT (double, zero-padded to a power of 2 >= g + span). */
template <typename T>
int kde_run_binned(const struct kde_gpu_job *job, T *host, kde_clock &c, struct qx_err *e)
{
	const long long n = job->n, g = job->m, span = kde_span(job), len = kde_fft_len(g, span);
	const long long half = len / 2 + 1;
	const double dx = (job->hi - job->lo) / (double)(g - 1);
	const bool shared = g <= KDE_BIN_SHARED_MAX;
	int sms = 0;
	gpu_owned<T> d_x, d_y;
	gpu_owned<unsigned long long> d_bins;
	gpu_owned<double> d_buf;
	gpu_owned<cufftDoubleComplex> d_spec;
	cufftHandle fwd, inv;
	GPU_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	if (kde_fft_plan(len, &fwd, &inv, e))
		return -1;
	GPU_TRY(cudaMalloc(&d_x.ptr, n * sizeof(T)));
	GPU_TRY(cudaMalloc(&d_bins.ptr, g * sizeof(unsigned long long)));
	GPU_TRY(cudaMalloc(&d_buf.ptr, 2 * len * sizeof(double)));
	GPU_TRY(cudaMalloc(&d_spec.ptr, 2 * half * sizeof(cufftDoubleComplex)));
	GPU_TRY(cudaMalloc(&d_y.ptr, g * sizeof(T)));
	if (kde_mark(c, "alloc", e) || kde_upload(d_x, job->x[0], (size_t)n, e) ||
	    kde_mark(c, "h2d", e))
		return -1;
	GPU_TRY(cudaMemset(d_bins.ptr, 0, g * sizeof(unsigned long long)));
	const long long per_block =
	    std::min(KDE_BIN_PER_BLOCK, std::max(4096LL, (n + 4LL * sms - 1) / (4LL * sms)));
	const unsigned blocks = (unsigned)((n + per_block - 1) / per_block);
	if (shared)
		kde_bin_kernel<T, true><<<blocks, HELPER_BLOCK, g * sizeof(unsigned)>>>(
		    d_x.ptr, n, job->lo, job->hi, g, per_block, d_bins.ptr);
	else
		kde_bin_kernel<T, false><<<blocks, HELPER_BLOCK>>>(d_x.ptr, n, job->lo, job->hi, g,
		                                                   per_block, d_bins.ptr);
	GPU_TRY(cudaGetLastError());
	if (kde_mark(c, "bin", e))
		return -1;
	kde_fft_input<<<(unsigned)((len + HELPER_BLOCK - 1) / HELPER_BLOCK), HELPER_BLOCK>>>(
	    d_bins.ptr, g, len, span, dx / job->h[0], d_buf.ptr);
	GPU_TRY(cudaGetLastError());
	CUFFT_TRY(cufftExecD2Z(fwd, d_buf.ptr, d_spec.ptr));
	kde_spectra_product<<<(unsigned)((half + HELPER_BLOCK - 1) / HELPER_BLOCK), HELPER_BLOCK>>>(
	    d_spec.ptr, half, kde_norm((double)n, 1, job->h) / (double)len);
	GPU_TRY(cudaGetLastError());
	CUFFT_TRY(cufftExecZ2D(inv, d_spec.ptr, d_buf.ptr));
	kde_fft_output<T><<<(unsigned)((g + HELPER_BLOCK - 1) / HELPER_BLOCK), HELPER_BLOCK>>>(
	    d_buf.ptr, g, d_y.ptr);
	GPU_TRY(cudaGetLastError());
	c.t->chunks = 1;
	if (kde_mark(c, "convolve", e))
		return -1;
	GPU_TRY(cudaMemcpy(host, d_y.ptr, g * sizeof(T), cudaMemcpyDeviceToHost));
	if (kde_mark(c, "d2h", e))
		return -1;
	GPU_TRY(cudaFree(d_x.release()));
	GPU_TRY(cudaFree(d_bins.release()));
	GPU_TRY(cudaFree(d_buf.release()));
	GPU_TRY(cudaFree(d_spec.release()));
	GPU_TRY(cudaFree(d_y.release()));
	return kde_mark(c, "free", e);
}

template int kde_run_binned<float>(const struct kde_gpu_job *, float *, kde_clock &,
                                   struct qx_err *);
template int kde_run_binned<double>(const struct kde_gpu_job *, double *, kde_clock &,
                                    struct qx_err *);
