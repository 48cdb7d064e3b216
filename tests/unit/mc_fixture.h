/* mc_fixture.h - the unit tests' Monte Carlo job: integrand kind (its Genz vectors from seed)
 * on the unit cube in dim, double, a batch's member (no progress published). */
#ifndef QX_TEST_MC_FIXTURE_H
#define QX_TEST_MC_FIXTURE_H

#include "../../src/problems/cubature/cubature_integrands.h"
#include "../../src/problems/cubature/cubature_job.h"

/* The job: the tolerance rel and maxeval, threads, vegas's calls and adapt (iters 3), qmc's 8
 * shifts, the random numbers' seed the Genz vectors' seed. */
static inline struct cub_job mc_fixture_job(int kind, int dim, int threads, unsigned long long seed,
                                            double rel, long long maxeval, long long calls,
                                            int adapt)
{
	/* clang-format off */
	struct cub_job job = {.fn = cub_fn_make(kind, dim, seed), .a = 0, .b = 1, .rel = rel,
	                      .maxeval = maxeval, .threads = threads, .prec = QX_DOUBLE,
	                      .seed = seed, .calls = calls, .iters = 3, .adapt = adapt,
	                      .shifts = 8, .in_batch = 1};
	/* clang-format on */
	for (int i = 0; i < dim; i++)
		job.hi[i] = 1;
	return job;
}

#endif
