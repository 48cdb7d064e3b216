#!/usr/bin/env python3
"""Checks the closed forms that tests/batch_test.py gives quadx as exact expressions (`set exact
"EXPR"`) against mpmath's quadrature at two precisions that must agree, at a few parameter
values each, and writes tests/data/cubature_batch_ref.csv: case, parameters, the integral by
mpmath at 40 digits. batch_test.py checks quadx's reference (its exact expression evaluated)
against these rows.

Run from the repository root: python3 tests/gen_cubature_batch_ref.py"""
import csv
import os

import mpmath

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "cubature_batch_ref.csv")

# name: (integrand of (k, q) over its box by mpmath, the closed form, parameter points)
CASES = {
    "exp1d": (lambda k, q: mpmath.quad(lambda x: mpmath.exp(-k * x), [0, 1]),
              lambda k, q: (1 - mpmath.exp(-k)) / k, [(1, 0), (2.5, 0), (77, 0), (1000, 0)]),
    "exp1d_inf": (lambda k, q: mpmath.quad(lambda x: mpmath.exp(-k * x), [0, mpmath.inf]),
                  lambda k, q: 1 / k, [(0.5, 0), (1, 0), (2, 0)]),
    "exp3d": (lambda k, q: mpmath.quad(lambda x, y, z: mpmath.exp(-k * (x + y + z)),
                                       [0, 1], [0, 1], [0, 1]),
              lambda k, q: ((1 - mpmath.exp(-k)) / k) ** 3, [(0.5, 0), (3, 0), (8, 0)]),
    "exp2d_grid": (lambda k, q: mpmath.quad(lambda x, y: mpmath.exp(-k * x - q * y),
                                            [0, 1], [0, 1]),
                   lambda k, q: (1 - mpmath.exp(-k)) / k * (1 - mpmath.exp(-q)) / q,
                   [(1, 0.5), (3, 2), (2, 0.5)]),
}


def main():
    rows = []
    for name, (integral, closed, points) in CASES.items():
        for k, q in points:
            vals = []
            for dps in (20, 40):
                with mpmath.workdps(dps):
                    vals.append((integral(mpmath.mpf(k), mpmath.mpf(q)),
                                 closed(mpmath.mpf(k), mpmath.mpf(q))))
            (i20, c20), (i40, c40) = vals
            with mpmath.workdps(40):
                for a, b, what in ((i20, i40, "quadrature at 20 and 40 digits"),
                                   (c20, c40, "closed form at 20 and 40 digits"),
                                   (i40, c40, "quadrature and closed form")):
                    if abs(a - b) > mpmath.mpf(10) ** -18 * abs(b):
                        raise SystemExit(f"{name} k={k} q={q}: {what} disagree: {a} {b}")
                rows.append([name, k, q, mpmath.nstr(c40, 25)])
    with open(OUT, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["case", "k", "q", "integral"])
        w.writerows(rows)
    print(f"wrote {len(rows)} rows to {OUT}")


if __name__ == "__main__":
    main()
