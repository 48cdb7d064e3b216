/* test_mc.c - cubature's Monte Carlo pieces (cubature_mc.h): Philox4x32-10 gives Random123's
 * known-answer vectors and the uniforms are its words in (0, 1), on the host as Random123
 * computes them (the GPU's); VEGAS's refinement keeps the edges increasing from 0 to 1 and
 * moves its bins towards a peak; the Korobov vector starts at 1 and is odd; vegas and qmc give
 * the same answer whatever the threads, and a seed reproduces. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "gpu_fixture.h"
#include "mc_fixture.h"

#include "../../src/problems/cubature/cubature_cpu.h"
#include "../../src/problems/cubature/cubature_gpu.h"
#include "../../src/problems/cubature/cubature_integrands.h"
#include "../../src/problems/cubature/cubature_mc.h"

/* Random123's kat_vectors for philox4x32_10: counter, key, the four words out. */
static void test_philox_known_answers(void **state)
{
	(void)state;
	static const uint32_t kat[3][10] = {
	    {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
	    {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x408f276d,
	     0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
	    {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09,
	     0x94fdcceb, 0x5001e420, 0x24126ea1}};
	for (int t = 0; t < 3; t++) {
		const philox4x32_ctr_t c = {{kat[t][0], kat[t][1], kat[t][2], kat[t][3]}};
		const philox4x32_key_t k = {{kat[t][4], kat[t][5]}};
		const philox4x32_ctr_t r = philox4x32_R(10, c, k);
		for (int i = 0; i < 4; i++)
			assert_int_equal(r.v[i], kat[t][6 + i]);
	}
	/* cub_mc_uniforms: counter (index, 0, block, stream), key the seed */
	double u[6];
	cub_mc_uniforms(0, 0, 0, 6, u);
	assert_true(u[0] == (0x6627e8d5 + 0.5) * 0x1p-32);
	assert_true(u[3] == (0x9b00dbd8 + 0.5) * 0x1p-32);
	const philox4x32_ctr_t c1 = {{0, 0, 1, 0}};
	const philox4x32_ctr_t r1 = philox4x32_R(10, c1, (philox4x32_key_t){{0, 0}});
	assert_true(u[4] == (r1.v[0] + 0.5) * 0x1p-32);
	double sum = 0;
	for (unsigned long long i = 0; i < 100000; i++) {
		cub_mc_uniforms(7, 3, i, 1, u);
		assert_true(u[0] > 0 && u[0] < 1);
		sum += u[0];
	}
	assert_true(fabs(sum / 100000 - 0.5) < 5 * sqrt(1.0 / 12 / 100000));
}

/* cub_mc_uniforms (the host's SSE2 Philox where it has one) against Random123's philox4x32_R,
 * the GPU's: every dim 1..64, counters and keys with their high words set, the same doubles,
 * and nothing written past u[dim). */
static void test_uniforms_are_random123s(void **state)
{
	(void)state;
	static const unsigned long long seeds[] = {0, 1, 0xdeadbeefcafef00dULL, ~0ULL};
	static const unsigned long long index[] = {0, 12345, 0x1234567890abcdefULL, ~0ULL};
	static const unsigned stream[] = {0, 7, CUB_MC_QMC_STREAM + 3, 0xffffffffu};
	for (int t = 0; t < 4; t++)
		for (int dim = 1; dim <= CUB_FN_MAX_DIM; dim++) {
			double u[CUB_FN_MAX_DIM + 4];
			for (int i = 0; i < CUB_FN_MAX_DIM + 4; i++)
				u[i] = -1;
			cub_mc_uniforms(seeds[t], stream[t], index[t], dim, u);
			const philox4x32_key_t k = {
			    {(uint32_t)seeds[t], (uint32_t)(seeds[t] >> 32)}};
			for (int i = 0; i < dim; i++) {
				const philox4x32_ctr_t c = {{(uint32_t)index[t],
				                             (uint32_t)(index[t] >> 32),
				                             (uint32_t)(i / 4), stream[t]}};
				const philox4x32_ctr_t r = philox4x32_R(10, c, k);
				assert_true(u[i] == ((double)r.v[i % 4] + 0.5) * 0x1p-32);
			}
			for (int i = dim; i < CUB_FN_MAX_DIM + 4; i++)
				assert_true(u[i] == -1);
		}
}

/* Edges 0 = e[0] < e[1] < ... < e[nb] = 1. */
static void assert_grid(const double *e, int nb)
{
	assert_true(e[0] == 0 && e[nb] == 1);
	for (int k = 0; k < nb; k++)
		assert_true(e[k] < e[k + 1]);
}

/* Refinement on a peak at 0.3 (the squared weights of a narrow Gaussian by bin, as VEGAS sums
 * them): the bins stay a grid, and after a few refinements most of them lie near the peak;
 * zero sums leave the grid alone. */
static void test_vegas_refine(void **state)
{
	(void)state;
	const int nb = CUB_VEGAS_BINS;
	double e[CUB_VEGAS_BINS + 1], d[CUB_VEGAS_BINS], before[CUB_VEGAS_BINS + 1];
	for (int k = 0; k <= nb; k++)
		e[k] = (double)k / nb;
	for (int pass = 0; pass < 10; pass++) {
		for (int k = 0; k < nb; k++) { /* the integral of f^2 J over the bin, J = nb w */
			const double m = (e[k] + e[k + 1]) / 2, w = e[k + 1] - e[k];
			const double f = exp(-(m - 0.3) * (m - 0.3) / (2 * 0.02 * 0.02));
			d[k] = f * f * nb * w * w;
		}
		cub_vegas_refine(e, d, nb, CUB_VEGAS_ALPHA);
		assert_grid(e, nb);
	}
	int near = 0;
	for (int k = 0; k < nb; k++)
		near += fabs((e[k] + e[k + 1]) / 2 - 0.3) < 0.1;
	assert_true(near >= nb / 2); /* the uniform grid has 10 of 50 there */
	memcpy(before, e, sizeof e);
	memset(d, 0, sizeof d);
	cub_vegas_refine(e, d, nb, CUB_VEGAS_ALPHA);
	assert_memory_equal(before, e, sizeof e);
	/* equal sums keep the uniform grid uniform */
	for (int k = 0; k <= nb; k++)
		e[k] = (double)k / nb;
	for (int k = 0; k < nb; k++)
		d[k] = 1;
	cub_vegas_refine(e, d, nb, CUB_VEGAS_ALPHA);
	for (int k = 0; k <= nb; k++)
		assert_true(fabs(e[k] - (double)k / nb) < 1e-12);
}

/* The GPU's refinement (a thread a bin, the importance's running sums by a scan) against the
 * CPU's, the same edges to 1e-12: a peaked axis on a grid already refined, a flat one, one of
 * zeros (left alone), one with empty bins; at the most bins an axis and at 50. */
static void test_vegas_refine_on_gpu(void **state)
{
	(void)state;
#ifdef QX_HAVE_CUDA
	if (!fixture_have_gpu)
		skip();
	enum { dim = 4 };
	static double grid[dim * (CUB_VEGAS_BINS + 1)], cpu[dim * (CUB_VEGAS_BINS + 1)],
	    d[dim * CUB_VEGAS_BINS];
	const int sizes[2] = {CUB_VEGAS_BINS, 50};
	for (int n = 0; n < 2; n++) {
		const int nb = sizes[n];
		for (int a = 0; a < dim; a++)
			for (int k = 0; k <= nb; k++)
				grid[a * (nb + 1) + k] = (double)k / nb;
		for (int pass = 0; pass < 2; pass++) {
			for (int k = 0; k < nb; k++) {
				const double *e0 = grid, m = (e0[k] + e0[k + 1]) / 2;
				d[k] = exp(-(m - 0.3) * (m - 0.3) / 8e-4) * (e0[k + 1] - e0[k]);
				d[nb + k] = 1;
				d[2 * nb + k] = 0;
				d[3 * nb + k] = k % 7 == 0 ? 0 : 1 + 1e3 * sin(k) * sin(k);
			}
			memcpy(cpu, grid, sizeof grid);
			cub_vegas_refine_grid(cpu, d, dim, nb, CUB_VEGAS_ALPHA, 1);
			struct qx_err e;
			assert_int_equal(cub_gpu_vegas_refine(grid, d, dim, nb, &e), 0);
			double worst = 0;
			for (int j = 0; j < dim * (nb + 1); j++)
				worst = fmax(worst, fabs(grid[j] - cpu[j]));
			print_message("nb %d pass %d: largest difference %.3g\n", nb, pass, worst);
			assert_true(worst < 1e-12);
			for (int k = 0; k <= nb; k++) /* the zeros' axis as it was */
				assert_true(grid[2 * (nb + 1) + k] == (double)k / nb);
			assert_grid(grid, nb);
			assert_grid(grid + 3 * (nb + 1), nb);
		}
	}
#else
	skip();
#endif
}

/* The GPU's next fixed-point scale: this iteration's total to 2^52; doubles (0) after a sum
 * wrapped, for a total of 0, or one too small (or not a number) for a finite scale. */
static void test_vegas_next_scale(void **state)
{
	(void)state;
	assert_true(cub_vegas_next_scale(4, 0) == 0x1p52 / 4);
	assert_true(cub_vegas_next_scale(4, 1) == 0);
	assert_true(cub_vegas_next_scale(0, 0) == 0);
	assert_true(cub_vegas_next_scale(1e-300, 0) == 0); /* 2^52 / 1e-300 is inf */
	assert_true(cub_vegas_next_scale(NAN, 0) == 0);
}

/* An iteration's step, the CPU's and the GPU's: a warm-up reports its own estimate and joins
 * nothing; the rest join the weighted mean, converged once iters of them have and its error is
 * within max(abs, rel |I|). */
static void test_vegas_step(void **state)
{
	(void)state;
	struct cub_vegas_acc acc = {0};
	double v, e, chi2 = NAN;
	assert_false(cub_vegas_step(&acc, 1, 2, 0.1, 0, 5, 4, &v, &e, &chi2));
	assert_true(v == 5 && e == 2 && acc.used == 0 && isnan(chi2));
	/* within the tolerance, but one iteration of the two asked for */
	assert_false(cub_vegas_step(&acc, 0, 2, 0.1, 0, 1, 1e-6, &v, &e, &chi2));
	assert_true(acc.used == 1 && v == 1 && fabs(e - 1e-3) < 1e-15 && isnan(chi2));
	assert_true(cub_vegas_step(&acc, 0, 2, 0.1, 0, 1, 1e-6, &v, &e, &chi2));
	/* weights 1/4 (the warm-up's variance) and 1e6 (the first's) */
	const double w1 = 0.25, w2 = 1e6;
	assert_true(acc.used == 2 && v == 1 && chi2 == 0 &&
	            fabs(e - sqrt(w1 * w1 * 1e-6 + w2 * w2 * 1e-6) / (w1 + w2)) < 1e-15);
	/* an error over rel |I| converges only within abs */
	struct cub_vegas_acc wide = {0};
	assert_false(cub_vegas_step(&wide, 0, 1, 1e-3, 0, 2, 1, &v, &e, &chi2));
	assert_false(cub_vegas_step(&wide, 0, 1, 1e-3, 0.5, 2, 1, &v, &e, &chi2));
	assert_true(fabs(e - sqrt(0.5)) < 1e-15);
	assert_true(cub_vegas_step(&wide, 0, 1, 1e-3, 0.6, 2, 1, &v, &e, &chi2));
}

/* An iteration's weight in the mean is 1 over the previous iteration's variance, not its own:
 * an iteration of variance 100 after one of variance 1 counts as much as that one, and its
 * own variance still counts in the error and chi^2. */
static void test_vegas_weights_from_the_previous(void **state)
{
	(void)state;
	struct cub_vegas_acc acc = {0};
	double v, e, chi2;
	assert_false(cub_vegas_step(&acc, 1, 5, 1e-9, 0, 7, 1, &v, &e, &chi2));
	assert_false(cub_vegas_step(&acc, 0, 5, 1e-9, 0, 1, 1, &v, &e, &chi2));
	assert_true(v == 1 && e == 1);
	assert_false(cub_vegas_step(&acc, 0, 5, 1e-9, 0, 3, 100, &v, &e, &chi2));
	assert_true(v == 2 && fabs(e - sqrt(101) / 2) < 1e-15);
	assert_true(fabs(chi2 - (1 + 1 / 100.0)) < 1e-12);
	/* the next one weighs 1/100 */
	assert_false(cub_vegas_step(&acc, 0, 5, 1e-9, 0, 2, 1, &v, &e, &chi2));
	assert_true(fabs(v - (1 + 3 + 0.02) / 2.01) < 1e-15);
	assert_true(fabs(e - sqrt(1 + 100 + 1e-4) / 2.01) < 1e-15);
}

/* The Korobov vector: z_0 = 1, every entry odd (a unit mod 2^m), the same every call. */
static void test_qmc_vector(void **state)
{
	(void)state;
	uint64_t z[CUB_FN_MAX_DIM], again[CUB_FN_MAX_DIM];
	cub_qmc_vector(12, z);
	cub_qmc_vector(12, again);
	assert_true(z[0] == 1);
	for (int i = 0; i < 12; i++) {
		assert_true(z[i] & 1);
		assert_true(z[i] == again[i]);
	}
}

/* The table behind cub_qmc_vector holds, for every dim, the multiplier the search chooses: a
 * change to the search, the candidates or the criterion fails here, naming the dim. */
static void test_qmc_table(void **state)
{
	(void)state;
	for (int dim = 2; dim <= CUB_FN_MAX_DIM; dim++) {
		uint64_t z[CUB_FN_MAX_DIM];
		cub_qmc_vector(dim, z);
		const int best = cub_qmc_search(dim);
		if (z[1] != cub_qmc_multiplier(best))
			fail_msg("dim %d: the table's multiplier is not the search's, candidate %d",
			         dim, best);
		for (int i = 2; i < dim; i++)
			assert_true(z[i] == z[i - 1] * z[1]);
	}
}

/* A job of integrand kind on the unit cube in dim for a Monte Carlo run. */
static struct cub_job mc_job(int kind, int dim, int threads, unsigned long long seed)
{
	return mc_fixture_job(kind, dim, threads, seed, 1e-3, 2000000, 5000, 3);
}

/* vegas and qmc on Genz's gaussian in dim 10: the same bits with 1 and 2 threads, the same
 * again for the same seed, another value for another seed, and within 6 standard errors. */
static void test_mc_threads_and_seed(void **state)
{
	(void)state;
	int (*run[2])(const struct cub_job *, struct cub_result *,
	              struct qx_err *) = {cub_cpu_vegas, cub_cpu_qmc};
	for (int v = 0; v < 2; v++) {
		struct cub_result r1, r2, r3, r4;
		struct qx_err e = {""};
		struct cub_job j1 = mc_job(CUB_GAUSSIAN, 10, 1, 5),
		               j2 = mc_job(CUB_GAUSSIAN, 10, 2, 5);
		struct cub_job j3 = mc_job(CUB_GAUSSIAN, 10, 2, 6);
		j3.fn = j1.fn; /* the same integrand, other random numbers */
		assert_int_equal(run[v](&j1, &r1, &e), 0);
		assert_int_equal(run[v](&j2, &r2, &e), 0);
		assert_int_equal(run[v](&j1, &r3, &e), 0);
		assert_int_equal(run[v](&j3, &r4, &e), 0);
		assert_true(r1.value == r2.value && r1.err == r2.err && r1.evals == r2.evals);
		assert_true(r1.value == r3.value);
		assert_true(r1.value != r4.value);
		const double exact = cub_exact(&j1.fn, 0, 1);
		assert_true(fabs(r1.value - exact) < 6 * r1.err);
		assert_true(fabs(r4.value - exact) < 6 * r4.err);
		assert_int_equal(r1.mc, v + 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_philox_known_answers),
	                                   cmocka_unit_test(test_uniforms_are_random123s),
	                                   cmocka_unit_test(test_vegas_refine),
	                                   cmocka_unit_test(test_vegas_refine_on_gpu),
	                                   cmocka_unit_test(test_vegas_next_scale),
	                                   cmocka_unit_test(test_vegas_step),
	                                   cmocka_unit_test(test_vegas_weights_from_the_previous),
	                                   cmocka_unit_test(test_qmc_vector),
	                                   cmocka_unit_test(test_qmc_table),
	                                   cmocka_unit_test(test_mc_threads_and_seed)};
	return cmocka_run_group_tests(tests, fixture_open_gpu, NULL);
}
