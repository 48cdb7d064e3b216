/* cubature_rules.c - the rules of problem `cubature` (see cubature_rules.h): generators and
 * weights from Genz and Malik (J. Comput. Appl. Math. 6, 1980: degree 7/5; SIAM J. Numer. Anal.
 * 20, 1983: degree 9 with null rules), expanded into explicit point lists. */
#include "cubature_rules.h"

#include <stdlib.h>
#include <string.h>

/* Points of rule `degree` in dim dimensions, 0 when the rule has none there (rule 7 and rule 9
 * need dim >= 2: their two-axis generators define the degree). */
long cub_rule_points(int degree, int dim)
{
	const long n = dim, corners = 1L << dim;
	if (dim == 1)
		return 15; /* Gauss-Kronrod 7/15, whatever the degree asked */
	if (dim < 2 || dim > CUB_MAX_DIM)
		return 0;
	if (degree == 7)
		return 1 + 6 * n + 2 * n * (n - 1) + corners;
	if (degree == 9)
		return 1 + 10 * n + 6 * n * (n - 1) + 4 * n * (n - 1) * (n - 2) / 3 + corners;
	return 0;
}

/* Appends the points of the fully symmetric generator (g[0..k) nonzero, the rest zero): every
 * choice of k distinct axes in increasing order with every permutation of g over them and every
 * sign; each point gets weights wk[0..nsums) in the columns of r->w. */
struct cub_builder {
	struct cub_rule *r;
	int np;
};

/* Writes one point x with generator index gen's weights. */
static void cub_put(struct cub_builder *b, const double *x, const double *wk)
{
	struct cub_rule *r = b->r;
	memcpy(r->pts + (size_t)b->np * r->dim, x, r->dim * sizeof *x);
	for (int k = 0; k < r->nsums; k++)
		r->w[(size_t)k * r->npts + b->np] = wk[k];
	b->np++;
}

/* Points with value +-g on the two axes i < j (both orders when g0 != g1). */
static void cub_two_axis(struct cub_builder *b, double g0, double g1, const double *wk)
{
	const int n = b->r->dim;
	double x[CUB_MAX_DIM] = {0};
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			for (int order = 0; order < (g0 == g1 ? 1 : 2); order++)
				for (int s = 0; s < 4; s++) {
					x[i] = (s & 1 ? -1 : 1) * (order ? g1 : g0);
					x[j] = (s & 2 ? -1 : 1) * (order ? g0 : g1);
					cub_put(b, x, wk);
					x[i] = x[j] = 0;
				}
}

/* Points with +-g on three axes i < j < k. */
static void cub_three_axis(struct cub_builder *b, double g, const double *wk)
{
	const int n = b->r->dim;
	double x[CUB_MAX_DIM] = {0};
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			for (int k = j + 1; k < n; k++)
				for (int s = 0; s < 8; s++) {
					x[i] = s & 1 ? -g : g;
					x[j] = s & 2 ? -g : g;
					x[k] = s & 4 ? -g : g;
					cub_put(b, x, wk);
					x[i] = x[j] = x[k] = 0;
				}
}

/* The 2^dim corners +-g. */
static void cub_corners(struct cub_builder *b, double g, const double *wk)
{
	const int n = b->r->dim;
	double x[CUB_MAX_DIM] = {0};
	for (long s = 0; s < 1L << n; s++) {
		for (int i = 0; i < n; i++)
			x[i] = (s >> i) & 1 ? -g : g;
		cub_put(b, x, wk);
	}
}

/* The axis block: per axis the pairs -g[j], +g[j] (weights wk[j]) of the ngen one-axis
 * generators, then the probes -p, +p with no weight, p = cub_face_probe (inside the slab
 * between the outermost pair and the face: no rule evaluates on a face, where an integrand
 * may be singular or a mapped infinite axis is infinite); sets naxis, the extrapolations to +p
 * (Lagrange weights over the centre and the pairs, with and without the outermost pair) and
 * the slab beyond the outermost point. */
static void cub_axis_block(struct cub_builder *b, int ngen, const double *g,
                           const double *const *wk)
{
	struct cub_rule *r = b->r;
	const double none[CUB_MAX_SUMS] = {0};
	double x[CUB_MAX_DIM] = {0}, t[CUB_MAX_AXIS - 1] = {0};
	int out = 0;
	for (int j = 0; j < ngen; j++)
		if (g[j] > g[out])
			out = j;
	const double probe = cub_face_probe(g[out]);
	for (int i = 0; i < r->dim; i++) {
		for (int j = 0; j < ngen; j++)
			for (int s = -1; s <= 1; s += 2) {
				x[i] = s * g[j];
				cub_put(b, x, wk[j]);
			}
		for (int s = -1; s <= 1; s += 2) {
			x[i] = s * probe;
			cub_put(b, x, none);
		}
		x[i] = 0;
	}
	for (int j = 0; j < ngen; j++) {
		t[1 + 2 * j] = -g[j];
		t[2 + 2 * j] = g[j];
	}
	r->naxis = 2 * ngen + 2;
	r->probe = probe;
	r->edge_slab = (double)(1L << r->dim) * (1 - g[out]) / 2;
	for (int row = 0; row < 2; row++)
		for (int k = 0; k < 1 + 2 * ngen; k++) {
			const int skip = row && (k - 1) / 2 == out && k > 0;
			double l = 1;
			for (int m = 0; m < 1 + 2 * ngen && !skip; m++)
				if (m != k && !(row && m > 0 && (m - 1) / 2 == out))
					l *= (probe - t[m]) / (t[k] - t[m]);
			r->extrap[row][k] = skip ? 0 : l;
		}
}

/* Rule 7: the Genz-Malik degree-7 rule and its embedded degree-5 rule, weights scaled to sum
 * to 2^dim (the convention of rule 9). */
static void cub_build7(struct cub_builder *b)
{
	const double n = b->r->dim, two_n = (double)(1L << b->r->dim);
	const double l2 = sqrt(9.0 / 70), l4 = sqrt(9.0 / 10), l5 = sqrt(9.0 / 19);
	const double w[5][2] = {
	    {(12824 - 9120 * n + 400 * n * n) / 19683, (729 - 950 * n + 50 * n * n) / 729},
	    {980.0 / 6561, 245.0 / 486},
	    {(1820 - 400 * n) / 19683, (265 - 100 * n) / 1458},
	    {200.0 / 19683, 25.0 / 729},
	    {6859.0 / 19683 / two_n, 0},
	};
	double s[5][2];
	for (int g = 0; g < 5; g++)
		for (int k = 0; k < 2; k++)
			s[g][k] = w[g][k] * two_n;
	b->r->ratio = (l4 / l2) * (l4 / l2);
	b->r->errcof[3] = 5;
	cub_put(b, (double[CUB_MAX_DIM]){0}, s[0]);
	cub_axis_block(b, 2, (const double[]){l2, l4}, (const double *const[]){s[1], s[2]});
	cub_two_axis(b, l4, l4, s[3]);
	cub_corners(b, l5, s[4]);
}

/* Rule 9: generators and weights of Genz and Malik (1983) as DCUHRE's D09HRE sets them up:
 * the basic rule in row 0 and four null rules in rows 1..4 (differences of lower-degree rules
 * from the basic one), generator j counted rulpts[j] times; scales and norms for the search over
 * pairs of null rules. */
static void cub_build9(struct cub_builder *b)
{
	struct cub_rule *r = b->r;
	const int nd = r->dim, ng = CUB_MAX_GENS;
	const double n = nd, two_n = (double)(1L << nd);
	double w[5][CUB_MAX_GENS] = {{0}}, rulpts[CUB_MAX_GENS];
	for (int j = 0; j < ng; j++)
		rulpts[j] = 2 * n;
	rulpts[0] = 1;
	rulpts[5] = 2 * n * (n - 1);
	rulpts[6] = 4 * n * (n - 1);
	rulpts[7] = nd > 2 ? 4 * n * (n - 1) * (n - 2) / 3 : 0;
	rulpts[8] = two_n;
	const double l0 = 0.4707, l1 = 4 / (15 - 5 / l0);
	double ratio = (1 - l1 / l0) / 27;
	const double l2 = (5 - 7 * l1 - 35 * ratio) / (7 - 35 * l1 / 3 - 35 * ratio / l0);
	ratio = ratio * (1 - l2 / l0) / 3;
	const double l3 = (7 - 9 * (l2 + l1) + 63 * l2 * l1 / 5 - 63 * ratio) /
	                  (9 - 63 * (l2 + l1) / 5 + 21 * l2 * l1 - 63 * ratio / l0);
	const double lp = 0.0625;
	/* the degree-9 rule (0-based generator indices: DCUHRE's minus one) */
	w[0][8] = 1 / pow(3 * l0, 4) / two_n;
	if (nd > 2)
		w[0][7] = (1 - 1 / (3 * l0)) / pow(6 * l1, 3);
	w[0][6] =
	    (1 - 7 * (l0 + l1) / 5 + 7 * l0 * l1 / 3) / (84 * l1 * l2 * (l2 - l0) * (l2 - l1));
	w[0][5] =
	    (1 - 7 * (l0 + l2) / 5 + 7 * l0 * l2 / 3) / (84 * l1 * l1 * (l1 - l0) * (l1 - l2)) -
	    w[0][6] * l2 / l1 - 2 * (n - 2) * w[0][7];
	w[0][3] =
	    (1 - 9 * ((l0 + l1 + l2) / 7 - (l0 * l1 + l0 * l2 + l1 * l2) / 5) - 3 * l0 * l1 * l2) /
	    (18 * l3 * (l3 - l0) * (l3 - l1) * (l3 - l2));
	w[0][2] =
	    (1 - 9 * ((l0 + l1 + l3) / 7 - (l0 * l1 + l0 * l3 + l1 * l3) / 5) - 3 * l0 * l1 * l3) /
	        (18 * l2 * (l2 - l0) * (l2 - l1) * (l2 - l3)) -
	    2 * (n - 1) * w[0][6];
	w[0][1] =
	    (1 - 9 * ((l0 + l2 + l3) / 7 - (l0 * l2 + l0 * l3 + l2 * l3) / 5) - 3 * l0 * l2 * l3) /
	        (18 * l1 * (l1 - l0) * (l1 - l2) * (l1 - l3)) -
	    2 * (n - 1) * (w[0][6] + w[0][5] + (n - 2) * w[0][7]);
	/* two degree-7 rules, one of degree 5 and one of degree 3 */
	const double num8[3] = {1, 1, 2}, den9[3] = {108, 324.0 / 5, 81.0 / 2};
	for (int k = 1; k <= 3; k++) {
		const double top = num8[k - 1];
		const double lq = k == 2 ? lp : l3; /* the degree-7 rule 2 uses p instead of l3 */
		double *wk = w[k];
		wk[8] = 1 / (den9[k - 1] * pow(l0, 4)) / two_n;
		if (nd > 2)
			wk[7] = (top - 27 * two_n * wk[8] * l0 * l0 * l0) / pow(6 * l1, 3);
		if (k == 3)
			wk[6] = (2 - 15 * l1 / 9 - 15 * two_n * wk[8] * l0 * (l0 - l1)) /
			        (60 * l1 * l2 * (l2 - l1));
		else
			wk[6] = (1 - 5 * l1 / 3 - 15 * two_n * wk[8] * l0 * l0 * (l0 - l1)) /
			        (60 * l1 * l2 * (l2 - l1));
		wk[5] = (1 - 9 * (8 * l1 * l2 * wk[6] + two_n * wk[8] * l0 * l0)) / (36 * l1 * l1) -
		        2 * wk[7] * (n - 2);
		const int gq = k == 2 ? 4 : 3; /* generator of lq */
		wk[gq] = (top - 7 * ((l1 + l2) / 5 - l1 * l2 / 3 +
		                     two_n * wk[8] * l0 * (l0 - l1) * (l0 - l2))) /
		         (14 * lq * (lq - l1) * (lq - l2));
		wk[2] = (top - 7 * ((l1 + lq) / 5 - l1 * lq / 3 +
		                    two_n * wk[8] * l0 * (l0 - l1) * (l0 - lq))) /
		            (14 * l2 * (l2 - l1) * (l2 - lq)) -
		        2 * (n - 1) * wk[6];
		wk[1] = (top - 7 * ((l2 + lq) / 5 - l2 * lq / 3 +
		                    two_n * wk[8] * l0 * (l0 - l2) * (l0 - lq))) /
		            (14 * l1 * (l1 - l2) * (l1 - lq)) -
		        2 * (n - 1) * (wk[6] + wk[5] + (n - 2) * wk[7]);
	}
	w[4][1] = 1 / (6 * l1);
	/* null rules as differences from the basic rule; the basic rule scaled to sum 2^dim */
	w[0][0] = two_n;
	for (int k = 1; k < 5; k++)
		for (int j = 1; j < ng; j++) {
			w[k][j] -= w[0][j];
			w[k][0] -= rulpts[j] * w[k][j];
		}
	for (int j = 1; j < ng; j++) {
		w[0][j] *= two_n;
		w[0][0] -= rulpts[j] * w[0][j];
	}
	for (int i = 0; i < 3; i++)
		for (int k = 0; k < ng; k++) {
			double norm = 0;
			r->scales[i][k] = w[i + 1][k] != 0 ? -w[i + 2][k] / w[i + 1][k] : 100;
			for (int j = 0; j < ng; j++)
				norm +=
				    rulpts[j] * fabs(w[i + 2][j] + r->scales[i][k] * w[i + 1][j]);
			r->norms[i][k] = two_n / norm;
		}
	r->errcof[0] = 5;
	r->errcof[1] = 5;
	r->errcof[2] = 1;
	r->errcof[3] = 5;
	const double g1 = sqrt(l1), g2 = sqrt(l2), g3 = sqrt(l3), gp = sqrt(lp), g0 = sqrt(l0);
	double col[CUB_MAX_GENS][CUB_MAX_SUMS];
	for (int j = 0; j < ng; j++)
		for (int k = 0; k < 5; k++)
			col[j][k] = w[k][j];
	r->ratio = (g2 / g1) * (g2 / g1);
	cub_put(b, (double[CUB_MAX_DIM]){0}, col[0]);
	cub_axis_block(b, 4, (const double[]){g1, g2, g3, gp},
	               (const double *const[]){col[1], col[2], col[3], col[4]});
	cub_two_axis(b, g1, g1, col[5]);
	cub_two_axis(b, g1, g2, col[6]);
	if (nd > 2)
		cub_three_axis(b, g1, col[7]);
	cub_corners(b, g0, col[8]);
}

/* Gauss-Kronrod 7/15 on [-1, 1] (QUADPACK's qk15): the Kronrod nodes from the outermost in,
 * the centre last, with their weights, and the 7-point Gauss rule's weights on every other
 * node (its nodes are Kronrod nodes 1, 3, 5 and the centre). */
static const double gk15_x[8] = {
    0.991455371120812639206854697526329, 0.949107912342758524526189684047851,
    0.864864423359769072789712788640926, 0.741531185599394439863864773280788,
    0.586087235467691130294144845693013, 0.405845151377397166906606412076961,
    0.207784955007898467600689403773245, 0};
static const double gk15_wk[8] = {
    0.022935322010529224963732008058970, 0.063092092629978553290700663189204,
    0.104790010322250183839876322541518, 0.140653259715525918745189590510238,
    0.169004726639267902826583426598550, 0.190350578064785409913256402421014,
    0.204432940075298892414161999234649, 0.209482141084727828012999174891714};
static const double gk15_wg[8] = {
    0, 0.129484966168869693270611432679082, 0, 0.279705391489276667901467771423780,
    0, 0.381830050505118944950369775488975, 0, 0.417959183673469387755102040816327};

/* The one-dimensional rule: the centre, then the 7 pairs -x, +x as the axis block (naxis 14,
 * no face points: a face is where an integrand may be singular), sums 0 (Kronrod) and 1
 * (Gauss); the error |Kronrod - Gauss| (errcof[3] 1), which bounds the Kronrod estimate's own
 * error for the integrands the rule resolves, and no edge term (cub_axis_edge). */
static void cub_build_gk15(struct cub_builder *b)
{
	struct cub_rule *r = b->r;
	r->naxis = 14;
	r->errcof[3] = 1;
	r->ratio = (gk15_x[1] / gk15_x[0]) * (gk15_x[1] / gk15_x[0]);
	cub_put(b, (double[CUB_MAX_DIM]){0}, (const double[]){gk15_wk[7], gk15_wg[7]});
	for (int j = 0; j < 7; j++)
		for (int s = -1; s <= 1; s += 2)
			cub_put(b, (double[CUB_MAX_DIM]){s * gk15_x[j]},
			        (const double[]){gk15_wk[j], gk15_wg[j]});
}

/* Groups the points after the axis block into runs of equal weights (r->nruns, run_end,
 * run_w); returns 0, or -1 with e when there are more than CUB_MAX_RUNS. */
static int cub_rule_runs(struct cub_rule *r, struct qx_err *e)
{
	for (int p = 1 + r->naxis * r->dim; p < r->npts; p++) {
		int same = r->nruns > 0;
		for (int k = 0; k < r->nsums && same; k++)
			same = r->w[(size_t)k * r->npts + p] == r->run_w[r->nruns - 1][k];
		if (!same) {
			if (r->nruns == CUB_MAX_RUNS)
				return qx_fail(
				    e, "rule %d in dim %d has over %d runs of equal weights",
				    r->degree, r->dim, CUB_MAX_RUNS);
			for (int k = 0; k < r->nsums; k++)
				r->run_w[r->nruns][k] = r->w[(size_t)k * r->npts + p];
			r->nruns++;
		}
		r->run_end[r->nruns - 1] = p + 1;
	}
	return 0;
}

/* Builds rule `degree` for dim into r; returns 0 or -1 with e. */
int cub_rule_build(int degree, int dim, struct cub_rule *r, struct qx_err *e)
{
	const long npts = cub_rule_points(degree, dim);
	memset(r, 0, sizeof *r);
	if (!npts)
		return qx_fail(e, "rule %d needs dim 2..%d (its two-axis generators); got dim %d",
		               degree, CUB_MAX_DIM, dim);
	r->dim = dim;
	r->degree = degree;
	r->npts = (int)npts;
	r->nsums = degree == 7 || dim == 1 ? 2 : 5;
	r->ngen = CUB_MAX_GENS;
	r->pts = malloc((size_t)npts * dim * sizeof *r->pts);
	r->w = malloc((size_t)npts * r->nsums * sizeof *r->w);
	if (!r->pts || !r->w) {
		cub_rule_free(r);
		return qx_fail(e, "cannot allocate rule %d for dim %d (%ld points)", degree, dim,
		               npts);
	}
	struct cub_builder b = {r, 0};
	if (dim == 1)
		cub_build_gk15(&b);
	else if (degree == 7)
		cub_build7(&b);
	else
		cub_build9(&b);
	if (cub_rule_runs(r, e)) {
		cub_rule_free(r);
		return -1;
	}
	return 0;
}

/* Frees what cub_rule_build allocated. */
void cub_rule_free(struct cub_rule *r)
{
	free(r->pts);
	free(r->w);
	r->pts = r->w = NULL;
}
