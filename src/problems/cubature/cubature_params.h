/* cubature_params.h - problem cubature's parameters: their indices and their table
 * (cubature_params.c), read by cubature.c. */
#ifndef QX_CUBATURE_PARAMS_H
#define QX_CUBATURE_PARAMS_H

#include "../../param.h"

enum {
	P_INTEGRAND,
	P_DIM,
	P_REL,
	P_ABS,
	P_MAXEVAL,
	P_BUDGET,
	P_RULE,
	P_INIT,
	P_D,
	P_LMAX,
	P_CALLS,
	P_ITERS,
	P_ADAPT,
	P_SHIFTS,
	P_SEED,
	P_A,
	P_B,
	P_COUNT
};

enum { RULE_7, RULE_9 };

/* The parameters (cubature_params.c), in the order of the enum. */
extern const struct param_def cub_params_def[P_COUNT];

#endif
