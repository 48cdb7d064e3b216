/* user_kernels.cuh - the kernels of problem cubature made for an integrand the user typed, in
 * precision CUB_USER_T (double or float), with C names that the run-time linker resolves:
 * qx_cub_rule_S and qx_cub_phase2_S (S: d or f). The Makefile compiles user_kernels.cu
 * once per precision and kernel to LTO-IR, which quadx
 * embeds and links at run time with the integrand's own LTO-IR (NVRTC's), qx_user_S, so that
 * the integrand is inlined into every kernel. The kernels and their launch shapes are
 * common.cuh's for the built-in integrands once regions fill the device: a warp a region, or half
 * a warp a region in dimensions 4..8 with the dimension known (the shapes with more warps a
 * region, for the first few iterations, are left out: each kernel costs link time). Their fn
 * is a __grid_constant__: the integrand reads its data through a pointer into the kernel's
 * parameters, and a plain parameter whose address is taken is first copied whole (fn is some
 * 2 KiB) to each thread's local memory. */
#include "rule_kernel.cuh"

#define CUB_CAT3(a, b, c) a##b##c
#define CUB_NAME(a, s, c) CUB_CAT3(a, s, c)

/* The user's integrand, compiled by NVRTC at run time (src/problems/user_integrand.c writes
 * it). */
extern "C" __device__ CUB_USER_T CUB_NAME(qx_user_, CUB_USER_S, )(const CUB_USER_T *x,
                                                                  const double *p);

template <> __device__ CUB_USER_T cub_user_t<CUB_USER_T>(const CUB_USER_T *x, const double *p)
{
	return CUB_NAME(qx_user_, CUB_USER_S, )(x, p);
}

/* One kernel a build of this file (CUB_USER_RULE_DN: the rule kernel, half a warp a region in
 * that dimension (4..8), or a warp a region for 0; else twophase's phase 2), so that a run links
 * only the kernels it launches: the link compiles each kernel with the integrand inlined, and
 * that is most of the compile time a user waits for. */
#ifdef CUB_USER_RULE_DN
extern "C" __global__ void __launch_bounds__(RULE_BLOCK, CUB_RULE_MIN_BLOCKS(RULE_BLOCK))
    CUB_NAME(qx_cub_rule_, CUB_USER_S, )(const __grid_constant__ cub_fn fn, cub_rule rule,
                                         cub_list<CUB_USER_T> g, long long cap, long long n,
                                         double *est, double *err, int *axis, const cub_ahead *st,
                                         const int *tag, const double *bdata)
{
	constexpr int lpr = CUB_USER_RULE_DN ? 16 : 32;
	cub_rule_body<CUB_USER_T, RULE_BLOCK, 1, CUB_USER_RULE_DN, CUB_KIND_USER, lpr>(
	    fn, rule, g, cap, n, est, err, axis, st, tag, bdata);
}
#else
extern "C" __global__ void CUB_NAME(qx_cub_phase2_, CUB_USER_S, )(
    long long n, const __grid_constant__ cub_fn fn, cub_rule rule, cub_list<CUB_USER_T> g,
    long long cap, double rem, double vol_total, long long evals, int hsz,
    cub_p2_region<CUB_USER_T> *heap, double *est, double *err, const int *axis, const double *vol,
    long long *used, int *why, cub_p2_batch bt)
{
	cub_phase2_body<CUB_USER_T, CUB_KIND_USER>(n, fn, rule, g, cap, rem, vol_total, evals, hsz,
	                                           heap, est, err, axis, vol, used, why, bt);
}
#endif
