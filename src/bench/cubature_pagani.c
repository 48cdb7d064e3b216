/* cubature_pagani.c - the PAGANI table of the `make bench` section of problem cubature (GPU
 * builds): breadth beside PAGANI (the GPU CUHRE of the two-phase adaptive cubature study's
 * group, built outside the project; $QUADX_PAGANI names its driver, see shared/anchors) on the
 * study's ten peer rows, in the same process and on the same GPU: both times, evaluations,
 * true errors and estimates, and PAGANI's time over breadth's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit.h"

#ifdef QX_HAVE_CUDA

/* The rows: integrand (its id in shared/anchors' integrands.h), dim, tolerance. */
static const struct {
	const char *f;
	int id, dim;
	double rel;
} cbp_rows[] = {
    {"f4", 4, 5, 1e-6}, {"f4", 4, 6, 1e-6}, {"f4", 4, 6, 1e-8}, {"f4", 4, 8, 1e-3},
    {"f4", 4, 8, 1e-4}, {"f5", 5, 5, 1e-9}, {"f5", 5, 8, 1e-6}, {"f5", 5, 8, 1e-9},
    {"f1", 1, 6, 1e-9}, {"f1", 1, 8, 1e-4},
};

/* One run of either side: median ms, evaluations, true and estimated relative error; ok:
 * converged. */
struct cbp_run {
	double ms, evals, true_rel, est_rel;
	int ok;
};

/* PAGANI on row i (its driver: median of 3 after a warm-up, one run where the first took
 * over 1.5 s) into *r. Returns 0, or -1 with why when the driver gave no line. */
static int cbp_pagani(const char *driver, int i, struct cbp_run *r, char *why, size_t len)
{
	char cmd[512], line[512], name[32];
	double tol, reps, est, leaves, iters;
	int n, status;
	snprintf(cmd, sizeof cmd, "%s %d %d %g 2>&1", driver, cbp_rows[i].id, cbp_rows[i].dim,
	         cbp_rows[i].rel);
	bench_peer_line(cmd, line, sizeof line);
	if (sscanf(line, "pagani,%31[^,],%d,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%d", name, &n, &tol,
	           &r->ms, &reps, &est, &r->est_rel, &r->true_rel, &leaves, &r->evals, &iters,
	           &status) != 12) {
		snprintf(why, len, "%s", *line ? line : "no answer from the PAGANI driver");
		return -1;
	}
	r->est_rel /= fabs(est); /* the driver prints the absolute estimate */
	r->ok = status == 0;
	return 0;
}

/* breadth (double, rule 9, maxeval 1e11, median of 5 after a warm-up) on row i into *r. */
static int cbp_quadx(struct session *s, int i, struct cbp_run *r, struct qx_err *e)
{
	char words[256];
	snprintf(words, sizeof words,
	         "integrand %s dim %d rel %g abs 0 rule 9 init 0 variant breadth precision double "
	         "maxeval 1e11 repeat 5 warmup 1",
	         cbp_rows[i].f, cbp_rows[i].dim, cbp_rows[i].rel);
	const struct run_result *res = bench_run(s, words, QX_GPU, e);
	if (!res)
		return -1;
	r->ms = res->summary.med.total;
	r->evals = bench_figure(res, "evaluations");
	r->true_rel = res->err.count > 0 ? res->err.max_rel : NAN;
	r->est_rel = res->estimate / fabs(res->value);
	r->ok = bench_figure(res, "converged") == 1;
	return 0;
}

/* A cell "ms, evaluations, true rel, estimate rel" with 'nc' where it did not converge and 'E'
 * where the true error is over the estimate; *bad counts the marked cells. */
static void cbp_cell(const struct cbp_run *r, char *buf, size_t len, int *bad)
{
	const int under = r->true_rel > r->est_rel;
	*bad += under || !r->ok;
	snprintf(buf, len, "%.4g ms, %.3g, %.1e, %.1e%s%s", r->ms, r->evals, r->true_rel,
	         r->est_rel, r->ok ? "" : " nc", under ? " E" : "");
}

/* The table (kit.h); without $QUADX_PAGANI, breadth's column alone and a line saying why. */
int bench_cubature_pagani(struct session *s, struct qx_err *e)
{
	const char *driver = getenv("QUADX_PAGANI");
	char why[256] = "";
	int bad_quadx = 0, bad_pagani = 0, under3 = 0;
	printf("\n### breadth beside PAGANI, same GPU, same process (double; cells: median ms, "
	       "evaluations, true rel error, estimated rel error; 'nc' not converged, 'E' true "
	       "error over the estimate)\n\n");
	printf("| integrand | dim | rel | breadth | PAGANI | PAGANI / breadth |\n"
	       "|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < sizeof cbp_rows / sizeof cbp_rows[0]; i++) {
		struct cbp_run q, p;
		char qcell[128], pcell[128] = "not run", ratio[32] = "-";
		if (cbp_quadx(s, (int)i, &q, e))
			return -1;
		cbp_cell(&q, qcell, sizeof qcell, &bad_quadx);
		if (driver && !*why) {
			if (cbp_pagani(driver, (int)i, &p, why, sizeof why) == 0) {
				cbp_cell(&p, pcell, sizeof pcell, &bad_pagani);
				snprintf(ratio, sizeof ratio, "%.2fx", p.ms / q.ms);
				under3 += p.ms / q.ms < 3;
			} else {
				snprintf(pcell, sizeof pcell, "failed");
			}
		}
		printf("| %s | %d | %.0e | %s | %s | %s |\n", cbp_rows[i].f, cbp_rows[i].dim,
		       cbp_rows[i].rel, qcell, pcell, ratio);
		fflush(stdout);
	}
	if (!driver)
		printf("\nPAGANI not run: set QUADX_PAGANI to its driver (shared/anchors' "
		       "pagani_driver, built from marcpaterno/gpuintegration).\n");
	else if (*why)
		printf("\nPAGANI's driver failed: %s\n", why);
	else
		printf("\nMarked cells: breadth %d, PAGANI %d. Rows where PAGANI takes under 3x "
		       "breadth's time: %d of %zu.\n",
		       bad_quadx, bad_pagani, under3, sizeof cbp_rows / sizeof cbp_rows[0]);
	fflush(stdout);
	return 0;
}

#else

int bench_cubature_pagani(struct session *s, struct qx_err *e)
{
	(void)s;
	(void)e;
	printf("\nPAGANI's table needs a GPU build.\n");
	return 0;
}

#endif
