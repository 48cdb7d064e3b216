/* cubature.c - the `make bench` section of problem cubature (its "Speed and
 * accuracy"): the seed's Figure 2 in reduced form, and four Genz rows. For each row (integrand,
 * dim, tolerance, rule): breadth and twophase on the GPU (double), the CPU on every core, serial
 * and hcubature, each with its time, true relative error and evaluations; CPU runs are capped
 * (maxeval from a measured rate so that a run stops near CUB_CAP_MS) and a capped run that did not
 * converge is shown as '>cap'. A row whose true error exceeds its tolerance or its own estimate is
 * marked. Then breadth's rate against the rule-only floor kernel at the same region count.
 * Peers are the figures the two-phase adaptive cubature study quotes (H200, measured elsewhere),
 * for comparison. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../problems/cubature/cubature_rules.h"
#include "kit.h"

#ifdef QX_HAVE_CUDA
#include "../problems/cubature/cubature_gpu.h"
#endif

#define CUB_CAP_MS 1500.0

/* One cell "ms / true rel / evals", with '!' when the true error is over the tolerance and
 * 'E' when it is over the run's own estimate, '>cap' for a capped run that did not
 * converge, "nc" for another unconverged one; *bad counts the marked cells. */
static void cb_cell(const struct run_result *r, double rel, int capped, char *buf, size_t len,
                    int *bad)
{
	const int conv = bench_figure(r, "converged") == 1;
	if (!conv && capped) {
		snprintf(buf, len, ">cap");
		return;
	}
	const int over = r->err.max_rel > rel, under = r->est_under > 0;
	char true_rel[16] = "no exact";
	if (r->err.count > 0)
		snprintf(true_rel, sizeof true_rel, "%.1e", r->err.max_rel);
	*bad += over || under;
	snprintf(buf, len, "%.4g ms, %s, %.2g%s%s%s", r->summary.med.total, true_rel,
	         bench_figure(r, "evaluations"), conv ? "" : " nc", over ? " !" : "",
	         under ? " E" : "");
}

/* The rows: the two-phase adaptive cubature study's peer rows and f2 at 1e-3, small enough for
 * the time limit, with the default rule 9, and with rule 7 the two where it is the faster on an
 * H200 (f4 dim 8 at 1e-3: 51 ms against 75; f2 dim 5 at 1e-3: 0.93 s against 1.5; slower on the
 * other rows, up to 3x on f4 dim 6 at 1e-6, unconverged at 1e11 evaluations on f1 dim 6 at
 * 1e-9); then Genz's C0 and discontinuous families at 1e-5 in dim 5 (seeds where breadth without
 * its edge term and hcubature under-estimate, and seeds where they do not), counted in the
 * marked cells like the others. */
static const struct {
	const char *f; /* the integrand, with its seed for a Genz family */
	int dim;
	double rel;
	int rule;
	const char *peer; /* PAGANI on the H200 as the study quotes it, "-" where it quotes none */
} cb_rows[] = {
    {"f4", 5, 1e-3, 9, "-"},
    {"f4", 5, 1e-6, 9, "26.8 ms"},
    {"f4", 6, 1e-6, 9, "153 ms"},
    {"f4", 6, 1e-8, 9, "1391 ms"},
    {"f4", 8, 1e-3, 9, "120 ms"},
    {"f4", 8, 1e-3, 7, "120 ms"},
    {"f4", 8, 1e-4, 9, "4186 ms"},
    {"f5", 5, 1e-9, 9, "4.8 ms"},
    {"f5", 8, 1e-6, 9, "116 ms"},
    {"f5", 8, 1e-9, 9, "1316 ms"},
    {"f1", 6, 1e-9, 9, "441 ms"},
    {"f1", 8, 1e-4, 9, "167 ms"},
    {"f2", 5, 1e-3, 9, "gave up"},
    {"f2", 5, 1e-3, 7, "gave up"},
    {"f2", 6, 1e-3, 9, "gave up"},
    {"f2", 8, 1e-3, 9, "gave up"},
    {"f3", 5, 1e-4, 9, "-"},
    {"c0 seed 3", 5, 1e-5, 9, "-"},
    {"discontinuous seed 1", 5, 1e-5, 9, "-"},
    {"c0 seed 1", 5, 1e-5, 9, "-"},
    {"discontinuous seed 3", 5, 1e-5, 9, "-"},
};

/* The GPU runs' maxeval: the study's PAGANI times at the 3-6e10 evaluations/s it states mean
 * more than the 1e8 it names (f4 dim 6 at 1e-6: 153 ms, some 5e9 evaluations). */
#define CB_GPU_MAXEVAL "1e11"

/* The evaluations per ms of serial on f4 dim 5 (a short calibration run), for the caps. */
static double cb_serial_rate(struct session *s, struct qx_err *e)
{
	const struct run_result *r =
	    bench_run(s,
	              "integrand f4 dim 5 rel 1e-5 maxeval 1e8 variant breadth precision double "
	              "threads 1 repeat 1 warmup 0",
	              QX_CPU, e);
	return r ? bench_figure(r, "evaluations") / fmax(r->summary.med.total, 1e-3) : -1;
}

/* The Figure 2 table. */
static int cb_table(struct session *s, struct qx_err *e)
{
	const int nproc = omp_get_num_procs();
	const double rate = cb_serial_rate(s, e);
	int bad_quadx = 0, bad_hcub = 0;
	if (rate < 0)
		return -1;
	printf("\n### The seed's Figure 2, reduced, and four Genz rows (double, rule 9 where the "
	       "row names no rule; cells: median ms, "
	       "true rel error, "
	       "evaluations; '!' true error over the tolerance, 'E' over the run's own estimate, "
	       "'nc' not converged, '>cap' a CPU run stopped at about %.1f s; GPU runs maxeval "
	       "%s, CPU runs the cap)\n\n",
	       CUB_CAP_MS / 1000, CB_GPU_MAXEVAL);
#ifdef QX_HAVE_CUDA
	printf("| integrand | dim | rel | breadth | twophase | cpu %d threads | serial | "
	       "hcubature | breadth vs serial | PAGANI (for comparison) |\n"
	       "|---|---|---|---|---|---|---|---|---|---|\n",
	       nproc);
#else
	printf("| integrand | dim | rel | cpu %d threads | serial | hcubature |\n"
	       "|---|---|---|---|---|---|\n",
	       nproc);
#endif
	fflush(stdout);
	for (size_t i = 0; i < sizeof cb_rows / sizeof cb_rows[0]; i++) {
		char words[256], cell[5][96], label[64];
		const double rel = cb_rows[i].rel;
		const long long cap_evals = (long long)(rate * CUB_CAP_MS);
		const struct run_result *r;
		double serial_ms = NAN, breadth_ms = NAN, breadth_evals = NAN;
		int serial_done = 0;
		snprintf(words, sizeof words,
		         "integrand %s dim %d rel %g rule %d maxeval 1e8 precision double",
		         cb_rows[i].f, cb_rows[i].dim, rel, cb_rows[i].rule);
		snprintf(label, sizeof label, "%s%s", cb_rows[i].f,
		         cb_rows[i].rule == 7 ? ", rule 7" : "");
		if (bench_set(s, words, e))
			return -1;
#ifdef QX_HAVE_CUDA
		if (!(r = bench_run(s,
		                    "variant breadth maxeval " CB_GPU_MAXEVAL " repeat 3 warmup 1",
		                    QX_GPU, e)))
			return -1;
		cb_cell(r, rel, 0, cell[0], sizeof cell[0], &bad_quadx);
		breadth_ms = r->summary.med.total;
		breadth_evals = bench_figure(r, "evaluations");
		if (!(r = bench_run(s, "variant twophase repeat 1 warmup 1", QX_GPU, e)))
			return -1;
		cb_cell(r, rel, 0, cell[1], sizeof cell[1], &bad_quadx);
#endif
		snprintf(words, sizeof words,
		         "variant breadth threads %d maxeval %lld repeat 1 warmup 0", nproc,
		         cap_evals * nproc);
		if (!(r = bench_run(s, words, QX_CPU, e)))
			return -1;
		cb_cell(r, rel, 1, cell[2], sizeof cell[2], &bad_quadx);
		snprintf(words, sizeof words, "threads 1 maxeval %lld", cap_evals);
		if (!(r = bench_run(s, words, QX_CPU, e)))
			return -1;
		cb_cell(r, rel, 1, cell[3], sizeof cell[3], &bad_quadx);
		serial_done = bench_figure(r, "converged") == 1;
		serial_ms = r->summary.med.total;
		if (!(r = bench_run(s, "variant hcubature", QX_CPU, e)))
			return -1;
		cb_cell(r, rel, 1, cell[4], sizeof cell[4], &bad_hcub);
#ifdef QX_HAVE_CUDA
		char speed[32];
		if (serial_done)
			snprintf(speed, sizeof speed, "%.0fx", serial_ms / breadth_ms);
		else /* serial capped: its time extrapolated from its rate */
			snprintf(speed, sizeof speed, "~%.0fx *",
			         breadth_evals / rate / breadth_ms);
		printf("| %s | %d | %.0e | %s | %s | %s | %s | %s | %s | %s |\n", label,
		       cb_rows[i].dim, rel, cell[0], cell[1], cell[2], cell[3], cell[4], speed,
		       cb_rows[i].peer);
#else
		(void)serial_done;
		(void)serial_ms;
		(void)breadth_ms;
		(void)breadth_evals;
		printf("| %s | %d | %.0e | %s | %s | %s |\n", label, cb_rows[i].dim, rel, cell[2],
		       cell[3], cell[4]);
#endif
		fflush(stdout);
	}
	printf("\nMarked cells ('!' or 'E'): quadx %d, hcubature %d. Serial rate for the caps: "
	       "%.3g evaluations/s; '*': serial stopped at its cap, its time extrapolated as "
	       "breadth's evaluations at that rate (the sequential queue needs about as many: "
	       "compare the cpu column's where it converged). Peers (quoted by the two-phase "
	       "adaptive cubature study: H200 and its 16-core host): serial CUBA "
	       "Cuhre f4 dim 5 at 1e-6 2676 ms, f5 dim 5 at 1e-9 916 ms; PAGANI 3-6e10 "
	       "evaluations/s.\n",
	       bad_quadx, bad_hcub, rate * 1e3);
	fflush(stdout);
	return 0;
}

#ifdef QX_HAVE_CUDA
/* breadth's evaluations/s on f4 dim 8 at 1e-3 against the rule alone on the mean region
 * count of its iterations (the floor, median of 10 launches). */
static int cb_floor(struct session *s, struct qx_err *e)
{
	const struct run_result *r = bench_run(
	    s,
	    "integrand f4 dim 8 rel 1e-3 variant breadth precision double maxeval " CB_GPU_MAXEVAL
	    " repeat 3 warmup 1",
	    QX_GPU, e);
	if (!r)
		return -1;
	const double evals = bench_figure(r, "evaluations"), regions = bench_figure(r, "regions"),
	             iters = bench_figure(r, "iterations"),
	             rule_ms = qx_timing_ms(&r->summary.med, "rules");
	const long long per_iter = (long long)fmax(1, regions / fmax(iters, 1));
	struct cub_rule rule = {0};
	double floor_ms;
	if (cub_rule_build(9, 8, &rule, e))
		return -1;
	struct cub_job job = {
	    .fn = {.kind = CUB_F4, .dim = 8}, .a = 0, .b = 1, .prec = QX_DOUBLE, .rule = &rule};
	const int rc = cub_gpu_rule_floor(&job, per_iter, 10, &floor_ms, e);
	const double floor_rate = (double)per_iter * rule.npts / (floor_ms * 1e-3);
	cub_rule_free(&rule);
	if (rc)
		return -1;
	printf("\n### breadth against the rule-only floor (f4 dim 8, 1e-3, double)\n\n"
	       "| breadth total ms | evaluations/s (total) | rule kernels ms | floor: %lld "
	       "regions, ms | floor evaluations/s | breadth total / floor per evaluation |\n"
	       "|---|---|---|---|---|---|\n| %.4g | %.3g | %.4g | %.4g | %.3g | %.2f |\n",
	       per_iter, r->summary.med.total, evals / (r->summary.med.total * 1e-3), rule_ms,
	       floor_ms, floor_rate, floor_rate / (evals / (r->summary.med.total * 1e-3)));
	fflush(stdout);
	return 0;
}

/* breadth from first partitions of init^dim regions, against twophase (whose 3^8 start
 * converges on f5 dim 8 at 1e-6 with no split): median ms, evaluations, iterations. */
static int cb_init(struct session *s, struct qx_err *e)
{
	static const struct {
		const char *row;
		int inits[2];
	} rows[] = {{"f5 dim 8 rel 1e-6", {2, 3}},
	            {"f5 dim 5 rel 1e-9", {2, 4}},
	            {"f4 dim 8 rel 1e-3", {2, 3}},
	            {"f1 dim 8 rel 1e-4", {2, 3}}};
	printf("\n### breadth's first partition (`init`; double, rule 9; cells: median ms, "
	       "evaluations, iterations)\n\n"
	       "| row | init 2 (the default) | larger init | twophase |\n|---|---|---|---|\n");
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		char words[160], cell[3][96];
		for (int k = 0; k < 3; k++) {
			const struct run_result *r;
			if (k < 2)
				snprintf(
				    words, sizeof words,
				    "integrand %s variant breadth init %d rule 9 precision double "
				    "maxeval " CB_GPU_MAXEVAL " repeat 3 warmup 1",
				    rows[i].row, rows[i].inits[k]);
			else
				snprintf(words, sizeof words, "variant twophase");
			if (!(r = bench_run(s, words, QX_GPU, e)))
				return -1;
			char init[16] = "";
			if (k == 1)
				snprintf(init, sizeof init, "init %d: ", rows[i].inits[1]);
			snprintf(cell[k], sizeof cell[k], "%s%.4g ms, %.3g, %.0f%s", init,
			         r->summary.med.total, bench_figure(r, "evaluations"),
			         bench_figure(r, "iterations"),
			         bench_figure(r, "converged") == 1 ? "" : " nc");
		}
		printf("| %s | %s | %s | %s |\n", rows[i].row, cell[0], cell[1], cell[2]);
		fflush(stdout);
	}
	return 0;
}
#endif

#ifdef QX_HAVE_CUDA
/* breadth over 1, 2, ..., all GPUs (`gpus`): per row and count the median ms (5 runs after a
 * warm-up), speedup and efficiency against 1 GPU, iterations, the error estimate and the true
 * error; counts the host lacks are left out. The bar: 3x on 4 GPUs with the tolerance met
 * (the true error within rel) and the 1-GPU run's iterations. */
static int cb_scaling(struct session *s, struct qx_err *e)
{
	static const struct {
		const char *row;
		double rel;
	} rows[] = {{"f4 dim 8", 1e-4}, {"f5 dim 8", 1e-9}};
	int ngpus = 1, bar = -1;
	if (gpu_count(&ngpus, e))
		return -1;
	printf("\n### breadth over several GPUs (double, rule 9, maxeval " CB_GPU_MAXEVAL
	       "; median of 5 after a warm-up; %d GPUs here)\n\n"
	       "| row | rel | GPUs | median ms | speedup | efficiency | iterations | estimate | "
	       "true error | tolerance met |\n|---|---|---|---|---|---|---|---|---|---|\n",
	       ngpus);
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		double one_ms = NAN, one_iters = NAN;
		for (int g = 1; g <= ngpus; g++) {
			char words[256];
			snprintf(
			    words, sizeof words,
			    "integrand %s rel %g variant breadth rule 9 precision double init 0 "
			    "maxeval " CB_GPU_MAXEVAL " gpus %d repeat 5 warmup 1",
			    rows[i].row, rows[i].rel, g);
			const struct run_result *r = bench_run(s, words, QX_GPU, e);
			if (!r)
				return -1;
			const double ms = r->summary.med.total,
			             iters = bench_figure(r, "iterations");
			const double est = s->estimates ? s->estimates[0] : NAN;
			const int met = bench_figure(r, "converged") == 1 && r->err.count > 0 &&
			                r->err.max_rel <= rows[i].rel && r->err.max_abs <= est;
			if (g == 1) {
				one_ms = ms;
				one_iters = iters;
			}
			if (g == 4)
				bar = (bar != 0) && met && iters == one_iters && one_ms / ms >= 3;
			printf("| %s | %g | %d | %.4g | %.2fx | %.0f%% | %.0f | %.2e | %.2e | %s%s "
			       "|\n",
			       rows[i].row, rows[i].rel, g, ms, one_ms / ms, 100 * one_ms / ms / g,
			       iters, est, r->err.max_abs, met ? "yes" : "NO",
			       iters == one_iters ? "" : " (iterations differ)");
		}
	}
	if (bench_set(s, "gpus 1", e))
		return -1;
	printf("\nBar: 3x faster on 4 GPUs than on 1, the tolerance met and the 1-GPU run's "
	       "iterations: %s.\n",
	       bar < 0 ? "not measured (fewer than 4 GPUs)"
	       : bar   ? "met"
	               : "NOT met");
	fflush(stdout);
	return 0;
}
#endif

#ifdef QX_HAVE_CUDA
/* The built-in integrands written as the user's expressions, against the built-ins. */
static const struct {
	const char *f, *expr; /* the built-in and its expression (no spaces), or NULL: the
	                       * problem's own (as_expression: a Genz family with its c and w) */
	int dim;
	double rel, cpu_rel; /* the GPU runs' tolerance, the CPU runs' */
} cb_user_rows[] = {
    {"f4", "sin(prod(i,asin(x[i])))", 8, 1e-3, 1e-2},
    {"f5", "sum(i,cos(10*x[i]))/(0.2*sin(10))", 8, 1e-9, 1e-6},
    {"f5", "sum(i,cos(10*x[i]))/(0.2*sin(10))", 5, 1e-6, 1e-6},
    {"f1", "1/(0.1+cos(sum(i,x[i]^2))^2)", 8, 1e-4, 1e-3},
    {"gaussian", NULL, 8, 1e-8, 1e-6},
};

/* Sets the integrand to text and the exact value (one argument each: the text may be longer
 * than a line of set's words); returns 0 or -1 with e. */
static int cb_set_expression(struct session *s, const char *text, double exact, struct qx_err *e)
{
	char value[32];
	snprintf(value, sizeof value, "%.17g", exact);
	char *argv[] = {"integrand", (char *)text, "exact", value};
	fprintf(stderr, "bench %s: integrand %.60s... exact %s\n", s->prob->name, text, value);
	return session_set(s, 4, argv, e);
}

/* Runs the current settings on b and returns the result with its value and estimate in *v,
 * *est (double runs); NULL with e on failure. */
static const struct run_result *cb_user_run(struct session *s, const char *words, enum qx_backend b,
                                            double *v, double *est, struct qx_err *e)
{
	const struct run_result *r = bench_run(s, words, b, e);
	if (!r)
		return NULL;
	*v = ((const double *)s->last_values)[0];
	*est = s->estimates ? s->estimates[0] : NAN;
	return r;
}

/* One table: per row the built-in and the expression on the GPU (breadth, double; median of 15
 * after a warm-up) and on every core of the CPU, their times, evaluations and the ratio, the
 * expression's value against the exact one within its estimate, and what compiling the
 * expression took (NVRTC and nvJitLink, done once: the timed runs find it cached). */
static int cb_user(struct session *s, struct qx_err *e)
{
	const int nproc = omp_get_num_procs();
	printf("\n### Your own integrand: the built-ins written as expressions\n\n");
	printf("GPU: breadth, double, median of 15 after a warm-up; CPU: breadth on %d threads, "
	       "median of 5. Ratio: the expression's time over the built-in's. 'within est': "
	       "|expression - exact| <= its error estimate.\n\n",
	       nproc);
	printf("| integrand | dim | rel | GPU built-in | GPU expression | ratio | within est | "
	       "NVRTC + link | CPU rel | CPU built-in | CPU expression | ratio |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < sizeof cb_user_rows / sizeof cb_user_rows[0]; i++) {
		char words[512];
		double vb, eb, vu, eu, cvb, ceb, cvu, ceu;
		const struct run_result *r;
		snprintf(words, sizeof words,
		         "integrand %s dim %d rel %g maxeval " CB_GPU_MAXEVAL
		         " variant breadth precision double repeat 15 warmup 1",
		         cb_user_rows[i].f, cb_user_rows[i].dim, cb_user_rows[i].rel);
		if (!(r = cb_user_run(s, words, QX_GPU, &vb, &eb, e)))
			return -1;
		const double tb = r->summary.med.total, nb = bench_figure(r, "evaluations");
		const double *ref = session_reference(s, s->prob, s->params[s->prob_index], e);
		if (!ref)
			return -1;
		const double exact = ref[0];
		char text[PARAM_TEXT_LEN];
		if (cb_user_rows[i].expr)
			snprintf(text, sizeof text, "%s", cb_user_rows[i].expr);
		else if (!s->prob->as_expression ||
		         s->prob->as_expression(s->params[s->prob_index], text, sizeof text))
			return qx_fail(e, "%s has no expression", cb_user_rows[i].f);
		if (cb_set_expression(s, text, exact, e) ||
		    !(r = cb_user_run(s, NULL, QX_GPU, &vu, &eu, e)))
			return -1;
		const double tu = r->summary.med.total, nu = bench_figure(r, "evaluations");
		const double nvrtc = bench_figure(r, "compile_ms"),
		             link = bench_figure(r, "link_ms");
		snprintf(words, sizeof words,
		         "integrand %s rel %g maxeval 1e10 threads %d repeat 5 warmup 1",
		         cb_user_rows[i].f, cb_user_rows[i].cpu_rel, nproc);
		if (!(r = cb_user_run(s, words, QX_CPU, &cvb, &ceb, e)))
			return -1;
		const double ctb = r->summary.med.total;
		if (cb_set_expression(s, text, exact, e) ||
		    !(r = cb_user_run(s, NULL, QX_CPU, &cvu, &ceu, e)))
			return -1;
		const double ctu = r->summary.med.total;
		printf("| %s | %d | %g | %.4g ms, %.3g evals | %.4g ms, %.3g evals | %.2f | %s "
		       "(%.1e <= %.1e) | %.0f + %.0f ms | %g | %.4g ms | %.4g ms | %.2f |\n",
		       cb_user_rows[i].f, cb_user_rows[i].dim, cb_user_rows[i].rel, tb, nb, tu, nu,
		       tu / tb, fabs(vu - exact) <= eu ? "yes" : "NO", fabs(vu - exact), eu, nvrtc,
		       link, cb_user_rows[i].cpu_rel, ctb, ctu, ctu / ctb);
	}
	return 0;
}

#endif

/* The cubature section: the Figure 2 table and, with a GPU, the floor, the first partitions,
 * the user's integrand and breadth's scaling over GPUs. */
int bench_cubature(struct session *s, struct qx_err *e)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("\n## cubature: adaptive multidimensional integration\n");
#ifdef QX_HAVE_CUDA
	struct gpu_info info;
	if (gpu_init(&info, e))
		return -1;
	printf("\nDevice: %s\n", info.name);
	if (getenv("QUADX_BENCH_USER")) /* the expressions' table alone */
		return cb_user(s, e);
	if (getenv("QUADX_BENCH_BATCH")) /* the batch's table alone */
		return bench_cubature_batch(s, e);
	if (getenv("QUADX_BENCH_MC")) /* the Monte Carlo tables alone */
		return bench_cubature_mc(s, e);
	if (getenv("QUADX_BENCH_PAGANI")) /* the PAGANI table alone */
		return bench_cubature_pagani(s, e);
	if (bench_only_gpus())
		return cb_scaling(s, e);
	return cb_table(s, e) || bench_cubature_pagani(s, e) || cb_floor(s, e) || cb_init(s, e) ||
	               cb_user(s, e) || bench_cubature_batch(s, e) || bench_cubature_mc(s, e) ||
	               cb_scaling(s, e)
	           ? -1
	           : 0;
#else
	if (getenv("QUADX_BENCH_PAGANI")) /* says it needs a GPU build */
		return bench_cubature_pagani(s, e);
	if (getenv("QUADX_BENCH_BATCH")) /* the batch's table alone */
		return bench_cubature_batch(s, e);
	if (getenv("QUADX_BENCH_MC")) /* the Monte Carlo tables alone */
		return bench_cubature_mc(s, e);
	return cb_table(s, e) || bench_cubature_batch(s, e) || bench_cubature_mc(s, e) ? -1 : 0;
#endif
}
