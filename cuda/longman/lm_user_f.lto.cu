/* lm_user_f.lto.cu - problem longman's kernel for the user's amplitude in float, in LTO-IR
 * (user_kernel.cuh), embedded as qx_lto_lm_user_f. */
#define LM_USER_T float
#define LM_USER_S f
#include "user_kernel.cuh"
