/* mc_user.cuh - the Monte Carlo variants' kernels for the user's integrand in precision
 * MC_USER_T (suffix MC_USER_S), with C names the run-time linker resolves: qx_cub_vegas_S and
 * qx_cub_qmc_S (mc_kernels.cuh's bodies, KIND CUB_KIND_USER), linked with qx_user_S. */
#include "mc_kernels.cuh"

#define MC_CAT3(a, b, c) a##b##c
#define MC_NAME(a, s, c) MC_CAT3(a, s, c)

/* The user's integrand, compiled by NVRTC at run time (src/problems/user_integrand.c). */
extern "C" __device__ MC_USER_T MC_NAME(qx_user_, MC_USER_S, )(const MC_USER_T *x, const double *p);

template <> __device__ MC_USER_T cub_user_t<MC_USER_T>(const MC_USER_T *x, const double *p)
{
	return MC_NAME(qx_user_, MC_USER_S, )(x, p);
}

extern "C" __global__ void __launch_bounds__(MC_BLOCK)
    MC_NAME(qx_cub_vegas_, MC_USER_S, )(const __grid_constant__ cub_fn fn, double a, double b,
                                        const double *grid, int nb, cub_vegas_strata st, int lanes,
                                        unsigned it, unsigned long long seed, double vol,
                                        cub_vegas_state *state, double *blk, void *bins)
{
	cub_vegas_body<MC_USER_T, CUB_KIND_USER>(fn, a, b, grid, nb, st, lanes, it, seed, vol,
	                                         state, blk, bins);
}

extern "C" __global__ void __launch_bounds__(MC_BLOCK)
    MC_NAME(qx_cub_qmc_, MC_USER_S, )(const __grid_constant__ cub_fn fn, double a, double b,
                                      const uint64_t *z, int m, unsigned long long first,
                                      unsigned long long step, unsigned long long count,
                                      const double *shifts, double vol, double *blk)
{
	cub_qmc_body<MC_USER_T, CUB_KIND_USER>(fn, a, b, z, m, first, step, count, shifts, vol,
	                                       blk);
}
