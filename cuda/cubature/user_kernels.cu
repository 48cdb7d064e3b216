/* user_kernels.cu - one kernel of problem cubature for the user's integrand, in LTO-IR: the
 * Makefile builds it once per precision (CUB_USER_T, CUB_USER_S) and kernel (CUB_USER_RULE_DN,
 * or none for phase 2); see user_kernels.cuh. */
#include "user_kernels.cuh"
