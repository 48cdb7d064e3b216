/* longman_tables.c - the host tables of Longman's method (longman_tables.h). */
#include "longman_tables.h"

#include <math.h>

/* Gauss-Legendre nodes t and weights w of order g on [-1, 1], by Newton on P_g. */
static void longman_gauss(int g, double *t, double *w)
{
	for (int i = 0; i < (g + 1) / 2; i++) {
		double z = cos(LM_PI * (i + 0.75) / (g + 0.5)), dp = 1;
		for (int it = 0; it < 100; it++) {
			double p1 = 1, p2 = 0;
			for (int j = 1; j <= g; j++) {
				const double p3 = p2;
				p2 = p1;
				p1 = ((2 * j - 1) * z * p2 - (j - 1) * p3) / j;
			}
			dp = g * (z * p1 - p2) / (z * z - 1);
			const double dz = p1 / dp;
			z -= dz;
			if (fabs(dz) < 1e-16)
				break;
		}
		t[i] = -z;
		t[g - 1 - i] = z;
		w[i] = w[g - 1 - i] = 2 / ((1 - z * z) * dp * dp);
	}
}

/* The first n zeros of J0: McMahon's expansion refined by Newton (J0' = -J1). */
static void longman_j0_zeros(int n, double *z)
{
	for (int k = 1; k <= n; k++) {
		const double b = (k - 0.25) * LM_PI, r = 1 / (8 * b);
		double x = b + r - 124.0 / 3 * r * r * r + 120928.0 / 15 * pow(r, 5);
		for (int it = 0; it < 20; it++) {
			const double dx = j0(x) / j1(x);
			x += dx;
			if (fabs(dx) < 1e-15 * x)
				break;
		}
		z[k - 1] = x;
	}
}

/* Euler weights c_j = sum_{r=j}^{n-1} C(r,j)/2^{r+1} (the transform as a linear combination
 * of the signed areas) and bc_j = C(n,j)/2^n (2^{-n} Delta^n V_0 = sum bc_j A_j up to sign). */
static void longman_euler_weights(int n, double *c, double *bc)
{
	double row[LM_NMAX + 1] = {0.5}; /* C(r,j) / 2^{r+1} */
	for (int j = 0; j < n; j++)
		c[j] = 0;
	for (int r = 0; r < n; r++) {
		for (int j = 0; j <= r; j++)
			c[j] += row[j];
		for (int j = r + 1; j > 0; j--)
			row[j] = (row[j] + row[j - 1]) / 2;
		row[0] /= 2;
	}
	for (int j = 0; j <= n; j++)
		bc[j] = 2 * row[j];
}

/* Returns the tables for (g, n), recomputed only when they change. */
const struct longman_tables *longman_tables(int g, int n)
{
	static struct longman_tables tab;
	if (!tab.g) {
		longman_j0_zeros(LM_NMAX + 1, tab.z);
		for (int i = 0; i <= LM_NMAX; i++)
			tab.zf[i] = (float)tab.z[i];
	}
	if (tab.g != g) {
		longman_gauss(g, tab.t, tab.w);
		for (int i = 0; i < g; i++) {
			tab.tf[i] = (float)tab.t[i];
			tab.wf[i] = (float)tab.w[i];
		}
		tab.g = g;
	}
	if (tab.n != n) {
		longman_euler_weights(n, tab.c, tab.bc);
		for (int j = 0; j < n; j++)
			tab.cf[j] = (float)tab.c[j];
		tab.n = n;
	}
	return &tab;
}
