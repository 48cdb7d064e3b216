/* mc_user_f.lto.cu - the Monte Carlo variants' kernels for the user's integrand in float, in
 * LTO-IR (mc_user.cuh), embedded as qx_lto_mc_user_f. */
#define MC_USER_T float
#define MC_USER_S f
#include "mc_user.cuh"
