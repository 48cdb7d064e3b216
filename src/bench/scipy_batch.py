#!/usr/bin/env python3
"""SciPy's side of the bench's CPU batch table (src/bench/cubature_batch.c): times
scipy.integrate.cubature (SciPy >= 1.15) on the array-valued integrand
exp(-k*(x^2+y^2+z^2))*cos(k*x) over [0, 1]^3 for k = 1..N, every k one component of one call,
with the tolerances the bench gives, and prints one line the bench reads:

    scipy VERSION ms MS converged C of N regions R rule RULE

MS is the median of REPEAT calls. When SciPy or its cubature cannot be imported it prints
`unavailable: WHY` and exits 3; the bench then says so in one line.

Usage: scipy_batch.py N REL ABS REPEAT"""
import statistics
import sys
import time

RULE = "genz-malik"  # the embedded degree-7/5 rule, as quadx's Genz-Malik rules


def main(argv):
    n, rel, abs_tol, repeat = int(argv[1]), float(argv[2]), float(argv[3]), int(argv[4])
    try:
        import numpy as np
        import scipy
        from scipy.integrate import cubature
    except ImportError as e:  # no SciPy, or one older than 1.15 (no cubature)
        print(f"unavailable: {e}")
        return 3
    k = np.arange(1, n + 1, dtype=float)

    def f(x):
        """x: (npoints, 3); returns (npoints, n), one column per k."""
        r2 = np.sum(x * x, axis=1)[:, None]
        return np.exp(-k * r2) * np.cos(k * x[:, :1])

    times, res = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        res = cubature(f, [0.0, 0.0, 0.0], [1.0, 1.0, 1.0], rule=RULE, rtol=rel, atol=abs_tol,
                       max_subdivisions=10**6)
        times.append(1e3 * (time.perf_counter() - t0))
    tol = np.maximum(abs_tol, rel * np.abs(res.estimate))
    converged = int(np.sum(res.error <= tol))
    print(f"scipy {scipy.__version__} ms {statistics.median(times):.6g} converged {converged} "
          f"of {n} regions {len(res.regions)} rule {RULE}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
