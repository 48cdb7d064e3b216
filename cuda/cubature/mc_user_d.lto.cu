/* mc_user_d.lto.cu - the Monte Carlo variants' kernels for the user's integrand in double, in
 * LTO-IR (mc_user.cuh), embedded as qx_lto_mc_user_d. */
#define MC_USER_T double
#define MC_USER_S d
#include "mc_user.cuh"
