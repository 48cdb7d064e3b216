/* fft_plans.cuh - the cuFFT plan cache of kde's binned variant (fft_plans.cu) and the check of
 * a cuFFT call. */
#ifndef QX_CUDA_KDE_FFT_PLANS_CUH
#define QX_CUDA_KDE_FFT_PLANS_CUH

#include <cufft.h>

#include "../gpu_util.cuh"

/* Evaluates a cuFFT call; on failure fills e with the call and its status, returns -1. */
#define CUFFT_TRY(call)                                                                            \
	do {                                                                                       \
		cufftResult cufft_try_rc_ = (call);                                                \
		if (cufft_try_rc_ != CUFFT_SUCCESS)                                                \
			return qx_fail(e, "%s: cuFFT status %d", #call, (int)cufft_try_rc_);       \
	} while (0)

/* Makes the plans for len unless they exist (two real-to-complex transforms of len doubles in
 * one batch, one complex-to-real back) and gives them in *fwd and *inv. Returns 0, or -1 with
 * e. */
int kde_fft_plan(long long len, cufftHandle *fwd, cufftHandle *inv, struct qx_err *e);

#endif
