/* lm_user_d.lto.cu - problem longman's kernel for the user's amplitude in double, in LTO-IR
 * (user_kernel.cuh), embedded as qx_lto_lm_user_d. */
#define LM_USER_T double
#define LM_USER_S d
#include "user_kernel.cuh"
