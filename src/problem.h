/* problem.h - the interface every problem implements: its parameters, variants, CPU and GPU
 * runs, reference values and single evaluations. Adding a problem means one file in
 * src/problems/, one in cuda/ and one page in help/, plus its line in problems/registry.c. */
#ifndef QX_PROBLEM_H
#define QX_PROBLEM_H

#include "param.h"

#define QX_MAX_PARAMS 16
#define QX_MAX_EXTRA 6

/* One implementation the user can pick with `set variant NAME`. */
struct variant_def {
	const char *name;
	unsigned backends; /* QX_ON_CPU | QX_ON_GPU */
	const char *help;
};

/* Everything a run needs, fixed before it starts. */
struct run_request {
	const struct param_value *params; /* the problem's parameters, in its table's order */
	enum qx_precision prec;
	int variant; /* index into the problem's variants */
	int block;   /* GPU threads per block */
	int threads; /* CPU threads */
	int streams; /* GPU streams of a streamed variant */
};

struct gpu_occupancy; /* cuda/quadx_cuda.h */

/* A named number a problem adds to an evaluation or a result (an exact value, a bound...). */
struct qx_extra {
	const char *name;
	double value;
};

/* The answer of one single evaluation (`eval ARGS`). */
struct eval_result {
	double value;
	size_t nextra;
	struct qx_extra extra[QX_MAX_EXTRA];
};

struct problem {
	const char *name;
	const char *summary;
	const struct param_def *params;
	size_t nparams;
	const struct variant_def *variants; /* the first is the default: the best one */
	size_t nvariants;
	const struct param_def *eval_args; /* what `eval` takes */
	size_t neval_args;

	/* Checks relations between parameters (a < b...); returns 0 or -1 with e filled. */
	int (*check)(const struct param_value *p, struct qx_err *e);
	/* Number of result values a run produces. */
	size_t (*count)(const struct param_value *p);
	/* Host bytes a run needs besides the result and reference arrays (inputs, tables). */
	size_t (*host_bytes)(const struct run_request *rq);
	/* Device bytes a GPU run needs at once. */
	size_t (*device_bytes)(const struct run_request *rq);
	/* Names and values of the coordinates of result i ("n", 3, "x", 1.5); returns how many. */
	int (*point)(const struct param_value *p, size_t i, const char **names, double *vals);
	/* Computes all results on the CPU into out (count values of rq->prec). */
	int (*run_cpu)(const struct run_request *rq, void *out, struct qx_err *e);
	/* Computes all results on the GPU into the host array out; NULL in builds without CUDA. */
	int (*run_gpu)(const struct run_request *rq, void *out, struct qx_phases *t,
	               struct qx_err *e);
	/* The reference values in double (the CPU double result, or exact values). */
	int (*reference)(const struct param_value *p, int threads, double *ref, struct qx_err *e);
	/* Whether the run of (backend, prec, variant) is itself the reference. */
	int (*is_reference)(enum qx_backend b, enum qx_precision prec, int variant);
	/* Optional: figures about a finished run beside its error (a remainder bound, how many
	 * instances exceed it, how many took each method...), from its values vals (count of
	 * rq->prec) and the reference ref; returns how many it stored in out (<= QX_MAX_EXTRA). */
	size_t (*run_extras)(const struct run_request *rq, const void *vals, const double *ref,
	                     struct qx_extra *out);
	/* Optional: the threads per block a GPU run of rq launches (rq->block, or the size the
	 * variant picks itself), or -1 with e naming the limit when the variant cannot launch
	 * rq->block. Without it a GPU run launches rq->block. */
	int (*gpu_block)(const struct run_request *rq, struct qx_err *e);
	/* Optional, GPU builds: fills o with the registers, resident blocks per SM, theoretical
	 * occupancy and suggested block size of the kernel that rq would launch; 0 or -1. */
	int (*occupancy)(const struct run_request *rq, struct gpu_occupancy *o, struct qx_err *e);
	/* Evaluates one instance given the eval args (each representable in prec); returns 0, 1
	 * when backend b has no evaluation (NULL run_gpu), QX_EVAL_UNREPRESENTABLE with e saying
	 * why when the result overflows or underflows prec, or -1 with e filled. */
	int (*eval)(const double *args, const struct param_value *p, enum qx_backend b,
	            enum qx_precision prec, struct eval_result *out, struct qx_err *e);
};

#define QX_EVAL_UNREPRESENTABLE 2

/* All problems, NULL-terminated; the first is the one a session starts with. */
extern const struct problem *const qx_problems[];

/* Returns the problem named name (a unique prefix is accepted), or NULL. */
const struct problem *problem_find(const char *name);

#endif
