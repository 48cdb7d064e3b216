#!/usr/bin/env python3
"""The vegas package's side of the bench's CPU Monte Carlo table (src/bench/mc_cpu.c): times
G. P. Lepage's `vegas` (PyPI, Cython) on one thread, its integrand a numpy batch function
(@vegas.lbatchintegrand: a whole batch of points a call, its fastest use from Python), on the
integrals quadx's vegas runs, with the same samples an iteration and iterations, and prints one
line per integrand and mode that the bench reads:

    vegas VERSION integrand NAME mode MODE ms MS evals N value V err E

MS is the median of REPEAT runs, each a new Integrator on a flat grid (as each quadx run); N
the evaluations of a run (vegas's sum_neval; VEGAS+ takes about NEVAL an iteration, not
exactly). The modes: `vegas+`, the package's defaults (VEGAS+: the adaptive map and adaptive
stratified sampling), and `classic` (nstrat 1 on every axis, beta 0: the adaptive map alone,
quadx's algorithm). When vegas or numpy cannot be imported it prints `unavailable: WHY` and
exits 3; the bench then says so in one line.

Usage: vegas_py.py NEVAL NITN REPEAT INTEGRAND...
    INTEGRAND  f4:DIM            sin(prod asin(x_i)) on [0, 1]^DIM
               expsum:DIM        exp(-sum x_i^2) on [0, 1]^DIM
               gaussian:C:W      Genz's gaussian exp(-sum (c_i (x_i - w_i))^2) on [0, 1]^d,
                                 C and W its d coefficients, comma-separated"""
import os
import statistics
import sys
import time

# one thread: numpy's ufuncs use one anyway; no BLAS pool to start
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

MODES = ("vegas+", "classic")


def integrand(spec, np, vegas):
    """The integrand of spec, its name and dimension."""
    name, _, rest = spec.partition(":")
    if name == "f4":
        dim = int(rest)

        @vegas.lbatchintegrand
        def f(x):
            return np.sin(np.prod(np.arcsin(x), axis=1))

    elif name == "expsum":
        dim = int(rest)

        @vegas.lbatchintegrand
        def f(x):
            return np.exp(-np.sum(x * x, axis=1))

    elif name == "gaussian":
        cs, _, ws = rest.partition(":")
        c = np.array([float(v) for v in cs.split(",")])
        w = np.array([float(v) for v in ws.split(",")])
        if len(c) != len(w):
            raise ValueError(f"gaussian: {len(c)} c but {len(w)} w")
        dim = len(c)

        @vegas.lbatchintegrand
        def f(x):
            d = c * (x - w)
            return np.exp(-np.sum(d * d, axis=1))

    else:
        raise ValueError(f"unknown integrand {spec!r}")
    return f, name, dim


def run(f, dim, mode, neval, nitn, vegas):
    """One run from a flat grid: its result and seconds."""
    kw = {} if mode == "vegas+" else {"nstrat": [1] * dim, "beta": 0}
    t0 = time.perf_counter()
    integ = vegas.Integrator([[0.0, 1.0]] * dim)
    res = integ(f, nitn=nitn, neval=neval, **kw)
    return res, time.perf_counter() - t0


def main(argv):
    if len(argv) < 5:
        print(__doc__.rsplit("Usage: ", 1)[1].split("\n")[0], file=sys.stderr)
        return 2
    neval, nitn, repeat = int(float(argv[1])), int(argv[2]), int(argv[3])
    try:
        import numpy as np
        import vegas
    except ImportError as e:
        print(f"unavailable: {e}")
        return 3
    for spec in argv[4:]:
        f, name, dim = integrand(spec, np, vegas)
        for mode in MODES:
            run(f, dim, mode, min(neval, 10000), 2, vegas)  # a warm-up: imports, caches
            times, res = [], None
            for _ in range(repeat):
                res, dt = run(f, dim, mode, neval, nitn, vegas)
                times.append(1e3 * dt)
            print(f"vegas {vegas.__version__} integrand {name} mode {mode} ms "
                  f"{statistics.median(times):.6g} evals {int(res.sum_neval)} value "
                  f"{res.mean:.17g} err {res.sdev:.6g}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
