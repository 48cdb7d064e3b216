/* fft_plans.cu - the cuFFT plan cache of kde's binned variant (fft_plans.cuh): the plans of
 * the last FFT length, kept for the next runs, released at exit. */
#include <algorithm>

#include "fft_plans.cuh"

/* The cuFFT plans of the last FFT length (made on first use of a length, kept for the next
 * runs: planning costs milliseconds): two real-to-complex transforms of len doubles in one
 * batch, and one complex-to-real back, sharing one work area of ours (auto-allocation off).
 * cuFFT still makes one allocation of its own at the first plan of a process (4.3 MB on an
 * H100, in cufftMakePlanMany), which cufftDestroy leaves: compute-sanitizer lists it at exit. */
struct kde_fft_plans {
	long long len;
	cufftHandle fwd, inv;
	bool has_fwd, has_inv;
	void *work;
};
static kde_fft_plans kde_plans;

/* Destroys the plans and frees their work area (gpu_release calls it at exit). */
static void kde_fft_release(void)
{
	if (kde_plans.has_fwd)
		cufftDestroy(kde_plans.fwd);
	if (kde_plans.has_inv)
		cufftDestroy(kde_plans.inv);
	cudaFree(kde_plans.work);
	kde_plans = kde_fft_plans{};
}

/* Makes the plans of len into kde_plans (which holds none); returns 0, or -1 with e and
 * whatever was made left for kde_fft_release. */
static int kde_fft_make(int nn, struct qx_err *e)
{
	size_t fwd_bytes = 0, inv_bytes = 0;
	CUFFT_TRY(cufftCreate(&kde_plans.fwd));
	kde_plans.has_fwd = true;
	CUFFT_TRY(cufftSetAutoAllocation(kde_plans.fwd, 0));
	CUFFT_TRY(cufftMakePlanMany(kde_plans.fwd, 1, &nn, NULL, 1, nn, NULL, 1, nn / 2 + 1,
	                            CUFFT_D2Z, 2, &fwd_bytes));
	CUFFT_TRY(cufftCreate(&kde_plans.inv));
	kde_plans.has_inv = true;
	CUFFT_TRY(cufftSetAutoAllocation(kde_plans.inv, 0));
	CUFFT_TRY(cufftMakePlan1d(kde_plans.inv, nn, CUFFT_Z2D, 1, &inv_bytes));
	GPU_TRY(cudaMalloc(&kde_plans.work, std::max(fwd_bytes, inv_bytes)));
	CUFFT_TRY(cufftSetWorkArea(kde_plans.fwd, kde_plans.work));
	CUFFT_TRY(cufftSetWorkArea(kde_plans.inv, kde_plans.work));
	return 0;
}

/* Makes the plans for len unless they exist and gives them. Returns 0, or -1 with e. */
int kde_fft_plan(long long len, cufftHandle *fwd, cufftHandle *inv, struct qx_err *e)
{
	if (kde_plans.len != len) {
		kde_fft_release();
		gpu_at_release(kde_fft_release);
		if (kde_fft_make((int)len, e)) {
			kde_fft_release();
			return -1;
		}
		kde_plans.len = len;
	}
	*fwd = kde_plans.fwd;
	*inv = kde_plans.inv;
	return 0;
}
