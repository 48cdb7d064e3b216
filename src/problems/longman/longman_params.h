/* longman_params.h - problem longman's parameters: the enum that every part of longman.c
 * reads them by, and their definitions (longman_params.c). */
#ifndef QX_LONGMAN_PARAMS_H
#define QX_LONGMAN_PARAMS_H

#include "../../param.h"

enum {
	P_M,
	P_N,
	P_G,
	P_LAMBDA,
	P_OMEGA,
	P_SPREAD,
	P_SEED,
	P_A,
	P_INTEGRAND,
	P_TRIG,
	P_METHOD,
	P_MATH,
	P_LANES,
	P_COUNT
};

/* The built-in integrands' names, in enum longman_integrand's order (longman_math.h). */
extern const char *const longman_integrand_names[];

/* The parameters' definitions, in the enum's order. */
extern const struct param_def longman_params_def[P_COUNT];

/* The arguments of eval: LAMBDA and OMEGA. */
#define LONGMAN_NEVAL_ARGS 2
extern const struct param_def longman_eval_args[LONGMAN_NEVAL_ARGS];

#endif
