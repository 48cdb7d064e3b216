/* cubature_rules.h - the cubature rules of problem `cubature` on the cube [-1,1]^dim, as
 * explicit point lists the CPU and the GPU both walk: rule 7 (Genz-Malik degree 7 with its
 * embedded degree-5 rule, the rule of hcubature) and rule 9 (Genz-Malik degree 9 with four null
 * rules of degrees 7, 7, 5, 3 and the error estimate of DCUHRE/CUHRE). Point 0 is the centre;
 * points 1 + naxis i .. naxis (i + 1) lie on axis i: the rule's one-axis generators as pairs
 * -g, +g (the first two pairs, -a, +a, -b, +b, give the fourth difference that picks the split
 * axis), then two probes -p, +p near the faces (cub_face_probe), which weigh nothing in the sums
 * and feed the edge term (cub_axis_edge). In one dimension both are Gauss-Kronrod 7/15
 * (QUADPACK's QAG rule): the centre and seven pairs. Every point lies inside the open cube, so
 * that no rule evaluates an integrand on the closed box's boundary. */
#ifndef QX_CUBATURE_RULES_H
#define QX_CUBATURE_RULES_H

#include "../../qx.h"
#include "cubature_math.h"

#define CUB_MAX_SUMS 5 /* the basic rule and up to four null or embedded rules */
#define CUB_MAX_GENS 9
#define CUB_MAX_AXIS 10 /* points per axis: rule 9's four generator pairs and the two faces */
#define CUB_MAX_RUNS 4  /* runs of equal weights after the axis block: rule 9 has four */
/* The edge term discounts the part of a face's deviation that CUB_EDGE_SMOOTH times the gap
 * between two extrapolations explains as smooth (see cub_edge_error). */
#define CUB_EDGE_SMOOTH 2

/* Where the edge term's probe sits on an axis whose outermost rule point is at g: 1/64 of the
 * slab between g and the face in from the face (0.99931 for rule 9, 0.99920 for rule 7): so
 * near the face that the probe sees the slab as a face centre would (a smooth integrand's
 * deviation from the extrapolation is the same to a few parts in 10^4), yet a region at a
 * singular face (log(x) at x = 0) or at a mapped infinite end is sampled at a finite point,
 * (1 - p) h in from it. */
CUB_HD double cub_face_probe(double g)
{
	return 1 - (1 - g) / 64;
}

struct cub_rule {
	int dim, degree, npts, nsums, ngen;
	int naxis;                      /* points per axis, faces included */
	double ratio;                   /* (b/a)^2 of the fourth difference */
	double edge_slab;               /* 2^dim (1 - outermost axis point) / 2 */
	double probe;                   /* the edge probes' coordinate (cub_face_probe) */
	double extrap[2][CUB_MAX_AXIS]; /* f(+probe) from the centre and the axis pairs: row 0
	                                   all pairs, row 1 without the outermost pair */
	double scales[3][CUB_MAX_GENS]; /* rule 9: the null-rule pair search (DCUHRE) */
	double norms[3][CUB_MAX_GENS];
	double errcof[4];
	/* the points after the axis block (1 + naxis dim ..) in runs of equal weights, the
	 * multi-axis generators: run j ends before point run_end[j] and weighs run_w[j] */
	int nruns;
	int run_end[CUB_MAX_RUNS];
	double run_w[CUB_MAX_RUNS][CUB_MAX_SUMS];
	double *pts; /* npts * dim coordinates in [-1, 1] */
	double *w;   /* nsums * npts weights: sum k of point p is w[k * npts + p] */
};

/* Points of rule `degree` (7 or 9) in dim dimensions, 0 when the rule has none there. */
long cub_rule_points(int degree, int dim);

/* Builds the rule into r (allocating pts and w); returns 0, or -1 with e when the rule does
 * not exist for dim or memory runs out. */
int cub_rule_build(int degree, int dim, struct cub_rule *r, struct qx_err *e);
void cub_rule_free(struct cub_rule *r);

/* Rule 9's error over a unit volume from null[i], the largest value of the null rules in the
 * span of pair i (degrees 7, 5, 3 in turn). Where the three decrease fast enough (each at
 * most 1/5 of the next: DCUHRE's test that the region is in the rule's asymptotic range), the
 * basic rule's error lies one more step down the same decrease, about q null[0] with q the
 * slower of the two ratios; the estimate stops half a step short of that, at sqrt(q) null[0],
 * a margin of 1/sqrt(q) >= 2.2 over the extrapolation (DCUHRE stops at null[0] itself, 60x to
 * 900x over the true error in the median region of f5 in dims 5 and 6, and a run paid for
 * that margin in regions). Else 5 times the largest. */
CUB_HD double cub_rule_error_null(const struct cub_rule *r, const double *null)
{
	if (r->errcof[0] * null[0] <= null[1] && r->errcof[1] * null[1] <= null[2]) {
		if (!(null[0] > 0)) /* then null[1] and null[2] are > 0 below */
			return 0;
		const double q =
		    null[0] / null[1] > null[1] / null[2] ? null[0] / null[1] : null[1] / null[2];
		return r->errcof[2] * null[0] * sqrt(q);
	}
	const double err = null[0] > null[1] ? null[0] : null[1];
	return r->errcof[3] * (err > null[2] ? err : null[2]);
}

/* The rule's error estimate from its sums (sums[0] the basic rule, then the null or embedded
 * rules, all times the half-widths' product vol): rule 7 5 |basic - embedded| (hcubature's
 * estimate times DCUHRE's factor 5 for estimates it cannot trust; without it the discontinuous
 * family misses its estimate), rule 9 DCUHRE's search over pairs of null rules with its
 * heuristic coefficients (cub_rule_error_null). */
CUB_HD double cub_rule_error(const struct cub_rule *r, const double *sums, double vol)
{
	if (r->nsums == 2)
		return r->errcof[3] * fabs(sums[0] - sums[1]) * vol;
	double null[3];
	for (int i = 0; i < 3; i++) {
		double best = 0;
		for (int k = 0; k < r->ngen; k++) {
			const double v =
			    fabs(sums[i + 2] + r->scales[i][k] * sums[i + 1]) * r->norms[i][k];
			best = v > best ? v : best;
		}
		null[i] = best;
	}
	return cub_rule_error_null(r, null) * vol;
}

/* |2(1-r) f0 - (f(-b)+f(+b)) + r (f(-a)+f(+a))|, the fourth difference along axis i (values f
 * of points 0 .. naxis dim), or 0 where it is below rounding. */
CUB_HD double cub_axis_fourth(const struct cub_rule *r, const double *f, int i)
{
	const double *q = f + 1 + r->naxis * i;
	const double d = 2 * (1 - r->ratio) * f[0] - (q[2] + q[3]) + r->ratio * (q[0] + q[1]);
	return f[0] + d / 4 != f[0] ? fabs(d) : 0;
}

/* What no rule point can see on axis i: a kink or jump in the slab between the outermost
 * axis point (0.956 for rule 9) and a face. On each side the probe's value is compared with
 * its extrapolation from the axis points (values f of points 0 .. naxis dim); the part of
 * that deviation that CUB_EDGE_SMOOTH times the gap between the extrapolations with and without
 * the outermost pair does not explain as smooth counts. Returns the sum over both sides. */
CUB_HD double cub_axis_edge(const struct cub_rule *r, const double *f, int i)
{
	if (r->dim == 1) /* Gauss-Kronrod: no probes */
		return 0;
	const int pairs = r->naxis - 2;
	const double *q = f + 1 + r->naxis * i;
	double dev = 0;
	for (int s = 0; s < 2; s++) { /* s = 0: the face at -1, mirrored onto +1's weights */
		double all = r->extrap[0][0] * f[0], inner = r->extrap[1][0] * f[0];
		for (int j = 0; j < pairs; j++) {
			all += r->extrap[0][1 + j] * q[j ^ !s];
			inner += r->extrap[1][1 + j] * q[j ^ !s];
		}
		const double d = fabs(q[pairs + s] - all) - CUB_EDGE_SMOOTH * fabs(all - inner);
		dev += d > 0 ? d : 0;
	}
	return dev;
}

/* The error of a region where the integrand was NaN or inf at one of its points (which then
 * count 0 in its sums and axis values): above any error of a finite integrand, so that such a
 * region splits before every other (a point on a face of its children is never evaluated
 * again) and no run meets its tolerance while one is live; finite, so that sums of up to 2^60
 * of them stay finite and breadth's histogram and threshold still order the regions. A run
 * whose error is at or over it ends not converged for that reason (CUB_NONFINITE), its error
 * estimate infinite. */
#define CUB_ERR_NONFINITE 0x1p900

/* A region's error and split axis from the per-axis figures: rule_err the rule's estimate
 * (cub_rule_error), edge the sum of cub_axis_edge over the axes and edge_axis the first axis
 * with the largest, fourth the largest cub_axis_fourth and fourth_axis the first axis with it.
 * The edge deviation counts as a jump over the whole slab: the error is rule_err plus
 * edge_slab edge vol. *axis gets edge_axis when that term is the larger, else fourth_axis, or
 * the first widest axis (half-widths hw) when every fourth difference is 0. */
CUB_HD double cub_region_combine(const struct cub_rule *r, double rule_err, double edge,
                                 int edge_axis, double fourth, int fourth_axis, const double *hw,
                                 double vol, int *axis)
{
	const double edge_err = r->edge_slab * edge * vol;
	if (edge_err > rule_err)
		*axis = edge_axis;
	else if (fourth > 0)
		*axis = fourth_axis;
	else {
		*axis = 0;
		for (int i = 1; i < r->dim; i++)
			if (hw[i] > hw[*axis])
				*axis = i;
	}
	return rule_err + edge_err;
}

/* A region's error (the rule's estimate from sums, as for cub_rule_error, plus the edge term)
 * and split axis (see cub_region_combine), one axis after another; f the axis points' values;
 * CUB_ERR_NONFINITE where nonfinite of its samples were NaN or inf. */
CUB_HD double cub_region_error(const struct cub_rule *r, const double *sums, const double *f,
                               const double *hw, double vol, int nonfinite, int *axis)
{
	double edge = 0, edge_best = 0, fourth = 0;
	int edge_axis = 0, fourth_axis = 0;
	for (int i = 0; i < r->dim; i++) {
		const double e = cub_axis_edge(r, f, i), d = cub_axis_fourth(r, f, i);
		edge += e;
		if (e > edge_best) {
			edge_best = e;
			edge_axis = i;
		}
		if (d > fourth) {
			fourth = d;
			fourth_axis = i;
		}
	}
	const double err = cub_region_combine(r, cub_rule_error(r, sums, vol), edge, edge_axis,
	                                      fourth, fourth_axis, hw, vol, axis);
	return nonfinite ? CUB_ERR_NONFINITE : err;
}

/* Units of float's last place a float sample of the integrand may be off by (its arguments'
 * rounding and its functions' own): the rules' estimates do not see the rounding of a float
 * integrand, which sums over the regions instead of falling with them. */
#define CUB_FLOAT_SAMPLE_ULPS 8

/* What float's samples may have cost a region whose basic rule applied to |f| gave abs_f (times
 * its volume: the region's integral of |f|): CUB_FLOAT_SAMPLE_ULPS half-units of float's last
 * place of it. (The worst case, |w| times |f| summed, is the same where the weights are
 * positive, and many times more where rule 9's are of both signs: it made f5 dim 5 in float
 * on an H200 claim an error of 9e-4 where the true one was 2.4e-7; the samples' rounding
 * errors do not line up with the weights' signs.) */
CUB_HD double cub_float_rounding(double abs_f)
{
	return CUB_FLOAT_SAMPLE_ULPS * 0.5 * 0x1p-23 * abs_f;
}

/* f, or 0 with *nonfinite counted where f is NaN or inf (the sample a rule drops). */
CUB_HD double cub_sample(double f, int *nonfinite)
{
	const int bad = !isfinite(f);
	*nonfinite += bad;
	return bad ? 0 : f;
}

#endif
