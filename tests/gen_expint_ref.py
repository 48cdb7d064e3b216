"""Generate reference values of the generalized exponential integral.

Makes tests/data/expint_ref.csv: reference values of

    E_n(x) = integral_1^inf exp(-x t) t^(-n) dt

from an independent arbitrary-precision source (Debian's python3-mpmath).
Rerun with Debian's interpreter (not a pyenv/venv python3):

    /usr/bin/python3 tests/gen_expint_ref.py > tests/data/expint_ref.csv

Output: CSV with a header line "n,x,value", then one line per point.
  n      integer order (n >= 0)
  x      the argument, written as repr() of an IEEE double; the value is
         computed at exactly that double (mp.mpf(float(x)))
  value  E_n(x) with 25 significant digits, always in exponent notation
         d.<24 digits>e<sign><exponent>; values may lie outside the double
         range (e.g. E_5(800) ~ 4.6e-351): they are kept, unmarked
Lines starting with '#' are comments.

The points (about 6800, sorted by (n, x)) cover every branch of
src/problems/expint/expint_math_tmpl.h and its boundaries: every order 1..64 and
orders up to the limit 1e6 on a log grid of x, x next to 1 and 1/2, tiny x
down to the smallest double and float, the float and double underflow edges,
the thresholds n = 20, 30, 250, and 2600 random points; nearly all x are
single-precision values, so one point checks float (at float(x)) and double.

Every value is verified:
  1. E_n(x) (mp.expint, or the continued fraction evaluated backward in
     mpmath where mp.expint fails: see methods_for) is computed at two
     working precisions (dps p and 2p,
     p = 80 first, i.e. 80 and 160 digits) and the two must agree to a
     relative 1e-30.  mpmath's
     expint silently returns wrong results (off by many orders of magnitude)
     for large n and x at some precisions -- not even monotonically: in
     mpmath 1.2.1, E_1000(700) is right at dps 80 and 320 but wrong at 160,
     E_250(700) is wrong up to dps 160.  So on disagreement the pair is
     escalated (160/320, 320/640, ... up to 2560/5120); the first agreeing
     pair is used (its higher-precision value is written);
  2. every 10th point (and every closed form) is cross-checked against an
     independent evaluation at dps 40:
     n = 0:          exp(-x)/x exactly
     x = 0, n >= 2:  1/(n-1) exactly
     otherwise       exp(-x) * integral_0^inf exp(-x u) (1+u)^(-n) du by
                     mp.quad, split at 0, 1/(x+n), 10/(x+n), then geometric
                     points up to the decay scale
     requiring relative agreement better than 1e-25.
If any check fails the script exits non-zero with a message on stderr.
The output is deterministic (points are sorted by (n, x); two worker
processes, results in order).  A summary
(number of points, max disagreements) goes to stderr.
"""

import math
import multiprocessing
import random
import struct
import sys
import time

import mpmath
from mpmath import mp

DPS_LADDER = [80, 160, 320, 640, 1280, 2560, 5120]
DPS_QUAD = 40
TOL_PREC = mpmath.mpf("1e-30")
TOL_QUAD = mpmath.mpf("1e-25")
DIGITS_OUT = 25
QUAD_EVERY = 10  # the numerical-integral cross-check on every 10th point
WORKERS = 2


def die(msg):
    sys.stderr.write("gen_expint_ref.py: FAILED: %s\n" % msg)
    sys.exit(1)


def f32(x):
    """x rounded to the nearest IEEE single, as a Python float."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def points():
    """Return the sorted, de-duplicated list of (n, x) with x a Python float.

    Most x are single-precision values (so that the same point checks float
    against E_n at float(x)); a few are doubles only (tiny, 0.1, ...)."""
    pts = set()

    def add(n, x):
        pts.add((int(n), float(x)))

    nset = [1, 2, 3, 4, 5, 7, 10, 15, 20, 29, 30, 31, 50]
    # x <= 1: series region
    for x in ["1e-6", "1e-3", "0.01", "0.1", "0.25", "0.5", "0.75", "0.999",
              "1.0"]:
        for n in nset:
            add(n, float(x))
    # x > 1: continued-fraction region
    for x in ["1.0001", "1.5", "2", "3", "5", "7.5", "10", "20", "50", "87",
              "100", "300", "700"]:
        for n in nset:
            add(n, float(x))
    # n = 0: E_0(x) = exp(-x)/x
    for x in ["1e-300", "1e-20", "1e-6", "1e-3", "0.1", "0.5", "1", "2", "10",
              "100", "700", "745", "800"]:
        add(0, float(x))
    # x = 0: E_n(0) = 1/(n-1)
    for n in [2, 3, 10, 1000]:
        add(n, 0.0)
    # large n: asymptotic-expansion region
    for n in [24, 31, 50, 100, 250, 251, 300, 500, 1000, 5000, 20000, 100000]:
        for x in ["1e-3", "0.1", "1", "2", "5", "10", "50", "100", "700"]:
            add(n, float(x))
    # coursework grid corners: x = 10*j/m computed in double
    for n in [1, 10, 5000, 20000]:
        for m in [5000, 20000]:
            for j in [1, 2, m // 2, m]:
                add(n, 10.0 * j / m)
    # values that underflow double
    for n, x in [(1, 745), (1, 750), (2, 745), (5, 800), (10, 800),
                 (1, 1000), (50, 900), (200, 1000)]:
        add(n, float(x))
    # hard float points: large orders and arguments, x just above 1 and x = 2, where a less
    # exact E_n is farthest off
    for n, x in [(3697, 178.872), (32, 133.308), (5, 74.2588), (92, 107.79),
                 (1, 1.000001), (2, 1.000001), (2, 2.0)]:
        add(n, f32(x))
    # every order 1..64 (series, continued fraction and the switch to the
    # expansion) on a log grid of x from 1e-3 to 300, single-precision values
    xgrid = [f32(10 ** (-3 + 5.5 * k / 30)) for k in range(31)]
    for n in range(1, 65):
        for x in xgrid:
            add(n, x)
    # larger orders, through the expansion's thresholds, up to the limit 1e6
    for n in [70, 80, 90, 100, 120, 150, 200, 240, 245, 249, 250, 251, 255,
              260, 300, 500, 1000, 3000, 10000, 100000, 999999, 1000000]:
        for x in xgrid:
            add(n, x)
    # x near 1 (where series and continued fraction meet): 1 +- k float ulps
    # and a few doubles next to 1
    near1 = [f32(1 + k * 2.0 ** -23) for k in range(-8, 9)]
    near1 += [f32(v) for v in (0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.05, 1.1, 1.25,
                               1.5, 1.75, 2.0, 2.5, 3.0)]
    near1 += [1 - 2.0 ** -53, 1 + 2.0 ** -52]
    for n in list(range(1, 13)) + [15, 20, 29, 30, 31, 40, 60, 100, 250]:
        for x in near1:
            add(n, x)
    # tiny x, down to the smallest positive double and float
    tiny = [5e-324, 1e-310, 2.2250738585072014e-308, 1e-300, 1e-200, 1e-100,
            f32(1.401298464324817e-45), f32(1.1754943508222875e-38), f32(1e-30),
            f32(1e-20), f32(1e-10), f32(1e-7)]
    for n in [1, 2, 3, 4, 5, 10, 30, 31, 100, 249, 250, 1000, 1000000]:
        for x in tiny:
            add(n, x)
    # the underflow edges: float results turn subnormal near x = 87 and
    # vanish past 104, double ones near x = 708 and past 745
    edge = [80, 83, 85, 86, 87, 87.5, 88, 89, 90, 95, 100, 103, 103.9, 700,
            705, 706, 707, 708, 708.5, 709, 710, 720, 730, 740, 744, 744.9]
    for n in [1, 2, 3, 5, 10, 29, 30, 31, 100, 249, 250, 251, 1000, 1000000]:
        for x in edge:
            add(n, f32(x))
    # random points: n log-uniform in 1..1e6 or uniform in 1..300, x
    # log-uniform in 1e-6..745, all single-precision values
    rng = random.Random(20261121)
    for i in range(2600):
        if i % 2:
            n = int(round(10 ** rng.uniform(0, 6)))
        else:
            n = rng.randint(1, 300)
        add(n, f32(10 ** rng.uniform(-6, math.log10(745))))
    return sorted(pts)


def cfrac_at(n, xm, dps):
    """E_n(x) for x >= 1 by its continued fraction
    e^-x / (b_0 + a_1 / (b_1 + a_2 / ...)), b_i = x + n + 2i,
    a_i = -i (n - 1 + i), evaluated backward at dps digits, the depth
    doubled until two depths agree to 10^(5 - dps)."""
    with mp.workdps(dps):
        x = mp.mpf(xm)
        tol = mp.mpf(10) ** (5 - dps)
        prev = None
        depth = 16
        while True:
            f = x + n + 2 * depth
            for i in range(depth, 0, -1):
                f = x + n + 2 * (i - 1) - i * (n - 1 + i) / f
            if prev is not None and abs(f - prev) <= tol * abs(f):
                return mp.exp(-x) / f
            prev = f
            depth *= 2


def expint_at(n, xm, dps, method):
    """E_n(x) at dps digits by mp.expint (method "mp") or the continued
    fraction (method "cf", x >= 1)."""
    if method == "cf":
        return cfrac_at(n, xm, dps)
    with mp.workdps(dps):
        return mp.expint(n, mp.mpf(xm))


def methods_for(n, xm):
    """The methods tried in turn: mp.expint of mpmath 1.2/1.3 is wrong for
    some large n and x (E_132(427.02) at dps 80 and 160 differ by 30 orders
    of magnitude) or takes minutes (E_132(728.76) at dps 160), so for n >= 50
    and x >= 10 the continued fraction is used instead, and for other x >= 1
    it is the fallback where mp.expint's two precisions disagree."""
    if n >= 50 and xm >= 10:
        return ["cf"]
    if n >= 1 and xm >= 1:
        return ["mp", "cf"]
    return ["mp"]


def quad_ref(n, xf):
    """Independent evaluation of E_n(x) at DPS_QUAD digits."""
    with mp.workdps(DPS_QUAD):
        x = mp.mpf(xf)
        if n == 0:
            return mp.exp(-x) / x
        if x == 0:
            if n < 2:
                die("E_%d(0) is infinite" % n)
            return mp.mpf(1) / (n - 1)
        s = mp.mpf(1) / (x + n)
        pts = [mp.mpf(0), s, 10 * s]
        # the integrand exp(-x u - n log(1+u)) decays on the scale 1/(x+n)
        # near 0 and slower further out (algebraically for small x), so add
        # points growing by 10x up to 200/x, where exp(-x u) < 1e-86.
        end = 200 / x
        p = 10 * s
        while p * 10 < end:
            p *= 10
            pts.append(p)
        if end > pts[-1]:
            pts.append(end)
        pts.append(mp.inf)
        f = lambda u: mp.exp(-x * u) * (1 + u) ** (-n)
        return mp.exp(-x) * mp.quad(f, pts)


def reldiff(a, b):
    if a == b:
        return mp.mpf(0)
    return abs(a - b) / abs(b)


def compute(item):
    """Checks one point; returns (n, x, dps pair, two-dps diff, quad diff or
    None, the value's text) or dies."""
    idx, n, xf = item
    used = None
    tried = []
    for method in methods_for(n, xf):
        vals = {}
        # the continued fraction is checked at the first pair only
        ladder = DPS_LADDER if method == "mp" else DPS_LADDER[:2]
        for i in range(len(ladder) - 1):
            plo, phi = ladder[i], ladder[i + 1]
            for p in (plo, phi):
                if p not in vals:
                    vals[p] = expint_at(n, xf, p, method)
            lo, hi = vals[plo], vals[phi]
            with mp.workdps(phi):
                ok = (mp.isfinite(hi) and hi > 0 and mp.isfinite(lo)
                      and lo > 0)
                d1 = reldiff(lo, hi) if ok else mp.inf
            if d1 <= TOL_PREC:
                used = (plo, phi, method)
                break
        if used is not None:
            break
        tried.append("%s: %s" % (method, [mp.nstr(vals[p], 10) for p in
                                          sorted(vals)]))
    if used is None:
        die("n=%d x=%r: no method agrees between two consecutive "
            "precisions: %s" % (n, xf, tried))
    d2 = None
    if idx % QUAD_EVERY == 0 or n == 0 or xf == 0:
        q = quad_ref(n, xf)
        with mp.workdps(used[1]):
            d2 = reldiff(q, hi)
        if not d2 < TOL_QUAD:
            die("n=%d x=%r: expint %s vs quad %s, rel %s"
                % (n, xf, mp.nstr(hi, 20), mp.nstr(q, 20), mp.nstr(d2, 3)))
    with mp.workdps(used[1]):
        # always d.ddd...e+NN, exactly DIGITS_OUT digits
        vs = mp.nstr(hi, DIGITS_OUT, min_fixed=mp.inf, max_fixed=-mp.inf,
                     strip_zeros=False, show_zero_exponent=True)
    return n, xf, used, d1, d2, vs


def main():
    t0 = time.time()
    pts = points()
    out = sys.stdout
    out.write("# E_n(x) = int_1^inf exp(-x t) t^-n dt, reference values\n")
    out.write("# made by tests/gen_expint_ref.py with mpmath %s "
              "(expint at two dps, p and 2p with p >= %d, agreeing to %s; "
              "every %dth point checked vs mp.quad at dps %d)\n"
              % (mpmath.__version__, DPS_LADDER[0], mp.nstr(TOL_PREC, 1),
                 QUAD_EVERY, DPS_QUAD))
    out.write("# x is repr() of an IEEE double; value has %d significant "
              "digits\n" % DIGITS_OUT)
    out.write("n,x,value\n")
    max_prec = mp.mpf(0)
    max_quad = mp.mpf(0)
    worst_prec = worst_quad = None
    n_quad = 0
    escalated = []
    items = [(i, n, xf) for i, (n, xf) in enumerate(pts)]
    with multiprocessing.Pool(WORKERS) as pool:
        for n, xf, used, d1, d2, vs in pool.imap(compute, items, 16):
            if used[:2] != (DPS_LADDER[0], DPS_LADDER[1]) or (
                    used[2] != methods_for(n, xf)[0]):
                escalated.append("n=%d x=%r -> %s at dps %d/%d"
                                 % (n, xf, used[2], used[0], used[1]))
            if d1 > max_prec or worst_prec is None:
                max_prec, worst_prec = d1, (n, xf)
            if d2 is not None:
                n_quad += 1
                if d2 > max_quad or worst_quad is None:
                    max_quad, worst_quad = d2, (n, xf)
            out.write("%d,%r,%s\n" % (n, xf, vs))
    for e in escalated:
        sys.stderr.write("gen_expint_ref.py: escalated precision: %s\n" % e)
    sys.stderr.write(
        "gen_expint_ref.py: %d points OK in %.1f s (%d needed dps > %d/%d); "
        "max rel diff between the two dps: "
        "%s (n=%d x=%r); %d points vs quad, max rel diff: %s (n=%d x=%r)\n"
        % (len(pts), time.time() - t0, len(escalated), DPS_LADDER[0],
           DPS_LADDER[1], mp.nstr(max_prec, 3), worst_prec[0], worst_prec[1],
           n_quad, mp.nstr(max_quad, 3), worst_quad[0], worst_quad[1]))


if __name__ == "__main__":
    main()
