/* cubature_mc.c - the Monte Carlo tables of the `make bench` section of problem cubature (GPU
 * builds): vegas and qmc on the GPU beside m-Cubes (the GPU VEGAS of the two-phase adaptive
 * cubature study's group, built outside the project; $QUADX_MCUBES names its driver, see
 * shared/anchors) and beside breadth, on the m-Cubes demos' integrands; then vegas's
 * evaluations/s against a kernel that only draws the points and evaluates the integrand; then
 * the CPU's tables (src/bench/mc_cpu.c), in CPU-only builds too. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit.h"

#ifdef QX_HAVE_CUDA
#include "../problems/cubature/cubature_gpu.h"

/* The sample sizes each side may choose from: the fastest run that converged with a true
 * error no worse than the other side's stands for it (each with every size it offers). */
static const double cbm_mcubes_calls[] = {1e5, 1e6, 1e7};
static const double cbm_vegas_calls[] = {1e4, 1e5, 1e6, 1e7};
#define CBM_NCALLS(a) (sizeof(a) / sizeof((a)[0]))
#define CBM_MAXEVAL "1e9"

/* One run of either side: its median ms, true relative error, evaluations; ok = converged. */
struct cbm_run {
	double ms, true_rel, evals;
	int ok;
	char what[48]; /* the sample size, as the cell names it */
};

/* The integrands of m-Cubes' demos (integrands.h's ids), as quadx sets them, and their exact
 * values where quadx does not know them (typed integrands; closed forms evaluated with mpmath at
 * 30 and 50 digits, which agree). */
static const struct {
	const char *name;
	int id, dim;
	const char *words; /* quadx's integrand (and exact value) */
} cbm_rows[] = {
    {"f4", 4, 8, "integrand f4"},
    {"f5", 5, 8, "integrand f5"},
    {"Genz gaussian", 14, 8,
     "integrand exp(-625*((x1-0.5)^2+(x2-0.5)^2+(x3-0.5)^2+(x4-0.5)^2+(x5-0.5)^2+(x6-0.5)^2+"
     "(x7-0.5)^2+(x8-0.5)^2)) exact 6.3838021900043837e-10"},
    {"Genz product peak", 12, 6,
     "integrand 1/(0.0004+(x1-0.5)^2)/(0.0004+(x2-0.5)^2)/(0.0004+(x3-0.5)^2)/"
     "(0.0004+(x4-0.5)^2)/(0.0004+(x5-0.5)^2)/(0.0004+(x6-0.5)^2) exact 12868879901109.878"},
    {"Genz c0", 15, 8,
     "integrand exp(-10*(abs(x1-0.5)+abs(x2-0.5)+abs(x3-0.5)+abs(x4-0.5)+abs(x5-0.5)+"
     "abs(x6-0.5)+abs(x7-0.5)+abs(x8-0.5))) exact 2.4252176256418856e-6"},
    {"Genz discontinuous", 16, 6,
     "integrand (x1<=0.9)*(x2<=0.8)*(x3<=0.7)*(x4<=0.6)*(x5<=0.5)*(x6<=0.4)*"
     "exp(10*x1+9*x2+8*x3+7*x4+6*x5+5*x6) exact 154773678.85091207"},
};

/* m-Cubes on row i at rel with ncall samples an iteration: runs its driver (median of 3 after a
 * warm-up, its allocations included) into *r. Returns 0, or -1 with why when it gave no line. */
static int cbm_mcubes(const char *driver, int i, double rel, double ncall, struct cbm_run *r,
                      char *why, size_t len)
{
	char cmd[512], line[512], name[32];
	double tol, est, errest, chi2, iters, reps;
	int n, status;
	snprintf(cmd, sizeof cmd, "%s %d %d %g %g 100 2>&1", driver, cbm_rows[i].id,
	         cbm_rows[i].dim, rel, ncall);
	bench_peer_line(cmd, line, sizeof line);
	if (sscanf(line, "mcubes,%31[^,],%d,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%d", name, &n, &tol,
	           &r->ms, &reps, &est, &errest, &r->true_rel, &chi2, &iters, &r->evals,
	           &status) != 12) {
		snprintf(why, len, "%s", *line ? line : "no answer from the m-Cubes driver");
		return -1;
	}
	r->ok = status == 0;
	snprintf(r->what, sizeof r->what, "ncall %.0e", ncall);
	return 0;
}

/* quadx's GPU run of row i at rel with words (the variant and its sizes) into *r. */
static int cbm_quadx(struct session *s, int i, double rel, const char *words, struct cbm_run *r,
                     struct qx_err *e)
{
	char set[1024];
	snprintf(set, sizeof set,
	         "%s dim %d rel %g abs 0 precision double maxeval " CBM_MAXEVAL
	         " repeat 3 warmup 1 %s",
	         cbm_rows[i].words, cbm_rows[i].dim, rel, words);
	const struct run_result *res = bench_run(s, set, QX_GPU, e);
	if (!res)
		return -1;
	r->ms = res->summary.med.total;
	r->true_rel = res->err.count > 0 ? res->err.max_rel : NAN;
	r->evals = bench_figure(res, "evaluations");
	r->ok = bench_figure(res, "converged") == 1;
	return 0;
}

/* Of runs[0..n), the fastest converged one whose true error is at most bound (NaN: any); NULL
 * when none is. */
static const struct cbm_run *cbm_best(const struct cbm_run *runs, size_t n, double bound)
{
	const struct cbm_run *best = NULL;
	for (size_t k = 0; k < n; k++)
		if (runs[k].ok && !(runs[k].true_rel > bound) && (!best || runs[k].ms < best->ms))
			best = &runs[k];
	return best;
}

/* A cell "ms (true rel, evals, sizes)" of run r, or what failed. */
static void cbm_cell(const struct cbm_run *r, const char *none, char *buf, size_t len)
{
	if (!r)
		snprintf(buf, len, "%s", none);
	else
		snprintf(buf, len, "%.3g ms (%.1e, %.2g evals, %s)", r->ms, r->true_rel, r->evals,
		         r->what);
}

/* The table against m-Cubes and breadth. */
static int cbm_table(struct session *s, struct qx_err *e)
{
	const char *driver = getenv("QUADX_MCUBES");
	char why[256] = "";
	printf(
	    "\n### Monte Carlo on the GPU: vegas and qmc beside m-Cubes and breadth (double)\n\n"
	    "Each cell: median ms of 3 after a warm-up (allocations included on both sides), "
	    "(true relative error, evaluations, sample size). m-Cubes runs its demos' driver at "
	    "ncall 1e5, 1e6, 1e7 samples an iteration and its fastest converged run stands for "
	    "it; quadx vegas at calls 1e4..1e7 an iteration, its fastest converged run whose true "
	    "error is no worse than m-Cubes' (else its fastest converged, marked `worse`); qmc "
	    "as it is set; breadth at the same tolerance (maxeval " CBM_MAXEVAL
	    "). x m-Cubes and x breadth: their time / quadx's faster Monte Carlo run that "
	    "qualifies.\n\n"
	    "| integrand | dim | rel | m-Cubes | quadx vegas | quadx qmc | breadth | x m-Cubes "
	    "| x breadth |\n|---|---|---|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < sizeof cbm_rows / sizeof cbm_rows[0]; i++) {
		for (int t = 0; t < 2; t++) {
			const double rel = t ? 1e-4 : 1e-3;
			struct cbm_run mc[CBM_NCALLS(cbm_mcubes_calls)] = {0},
			               vg[CBM_NCALLS(cbm_vegas_calls)], qm, br;
			size_t nmc = 0;
			for (size_t k = 0; driver && k < CBM_NCALLS(cbm_mcubes_calls); k++)
				if (cbm_mcubes(driver, (int)i, rel, cbm_mcubes_calls[k], &mc[nmc],
				               why, sizeof why) == 0)
					nmc++;
			for (size_t k = 0; k < CBM_NCALLS(cbm_vegas_calls); k++) {
				char words[64];
				snprintf(words, sizeof words, "variant vegas calls %.0f",
				         cbm_vegas_calls[k]);
				if (cbm_quadx(s, (int)i, rel, words, &vg[k], e))
					return -1;
				snprintf(vg[k].what, sizeof vg[k].what, "calls %.0e",
				         cbm_vegas_calls[k]);
			}
			if (cbm_quadx(s, (int)i, rel, "variant qmc", &qm, e) ||
			    cbm_quadx(s, (int)i, rel, "variant breadth", &br, e))
				return -1;
			snprintf(qm.what, sizeof qm.what, "qmc");
			snprintf(br.what, sizeof br.what, "rule 9");
			const struct cbm_run *peer = cbm_best(mc, nmc, NAN);
			const double bound = peer ? peer->true_rel : NAN;
			const struct cbm_run *v = cbm_best(vg, CBM_NCALLS(vg), bound), *vany = NULL;
			int worse = 0;
			if (!v && (vany = cbm_best(vg, CBM_NCALLS(vg), NAN)))
				worse = 1;
			const struct cbm_run *q = qm.ok && !(qm.true_rel > bound) ? &qm : NULL;
			const struct cbm_run *ours = v;
			if (q && (!ours || q->ms < ours->ms))
				ours = q;
			char cp[96], cv[112], cq[96], cb[96], xm[24] = "-", xb[24] = "-";
			cbm_cell(peer, driver ? "none converged" : "not run", cp, sizeof cp);
			cbm_cell(v ? v : vany, "none converged", cv, sizeof cv);
			if (worse)
				strcat(cv, " worse");
			cbm_cell(qm.ok ? &qm : NULL, "not converged", cq, sizeof cq);
			cbm_cell(br.ok ? &br : NULL, "not converged", cb, sizeof cb);
			if (ours && peer)
				snprintf(xm, sizeof xm, "%.2fx", peer->ms / ours->ms);
			if (ours && br.ok)
				snprintf(xb, sizeof xb, "%.2fx", br.ms / ours->ms);
			printf("| %s | %d | %.0e | %s | %s | %s | %s | %s | %s |\n",
			       cbm_rows[i].name, cbm_rows[i].dim, rel, cp, cv, cq, cb, xm, xb);
			fflush(stdout);
		}
	}
	if (!driver)
		printf("\nm-Cubes not run: set QUADX_MCUBES to its driver (shared/anchors' "
		       "mcubes_driver, built from marcpaterno/gpuintegration).\n");
	else if (*why)
		printf("\nm-Cubes failed on some runs: %s\n", why);
	return 0;
}

/* vegas's evaluations/s on two built-ins against the floor kernel at the same calls: ten
 * iterations (maxeval 10 calls, a tolerance no run meets), the run's total and its samples
 * kernels, and the floor's median launch. */
static int cbm_floor(struct session *s, struct qx_err *e)
{
	static const char *fns[] = {"f4", "f5"};
	static const enum cub_integrand kinds[] = {CUB_F4, CUB_F5};
	static const double calls[] = {1e6, 1e7};
	printf("\n### vegas against the Monte Carlo floor (dim 8, double, 10 iterations)\n\n"
	       "The floor draws the same Philox points uniformly and evaluates the integrand, "
	       "nothing else (no grid, no bins, no copies). Ratio = floor evaluations/s / vegas "
	       "evaluations/s (total).\n\n"
	       "| integrand | calls | vegas total ms | vegas evaluations/s (total) | vegas "
	       "iterations' kernels ms (samples and steps) | floor ms a launch | floor "
	       "evaluations/s | ratio |\n"
	       "|---|---|---|---|---|---|---|---|\n");
	for (int f = 0; f < 2; f++)
		for (int c = 0; c < 2; c++) {
			char words[256];
			snprintf(
			    words, sizeof words,
			    "integrand %s dim 8 variant vegas precision double calls %.0f adapt "
			    "5 iters 5 rel 1e-15 abs 0 maxeval %.0f repeat 3 warmup 1",
			    fns[f], calls[c], 10 * calls[c]);
			const struct run_result *r = bench_run(s, words, QX_GPU, e);
			if (!r)
				return -1;
			const double evals = bench_figure(r, "evaluations"),
			             ms = r->summary.med.total,
			             samples = qx_timing_ms(&r->summary.med, "samples");
			struct cub_job job = {.fn = {.kind = kinds[f], .dim = 8},
			                      .a = 0,
			                      .b = 1,
			                      .prec = QX_DOUBLE,
			                      .seed = 1};
			double floor_ms;
			if (cub_gpu_mc_floor(&job, (long long)calls[c], 10, &floor_ms, e))
				return -1;
			const double vrate = evals / (ms * 1e-3),
			             frate = calls[c] / (floor_ms * 1e-3);
			printf("| %s | %.0e | %.4g | %.3g | %.4g | %.4g | %.3g | %.2f |\n", fns[f],
			       calls[c], ms, vrate, samples, floor_ms, frate, frate / vrate);
			fflush(stdout);
		}
	return 0;
}
#endif

int bench_cubature_mc(struct session *s, struct qx_err *e)
{
#ifdef QX_HAVE_CUDA
	if (cbm_table(s, e) || cbm_floor(s, e))
		return -1;
#endif
	return bench_mc_cpu(s, e);
}
