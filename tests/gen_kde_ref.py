"""Generate reference values for problem `kde`.

Makes tests/data/kde_ref.csv. Rerun with Debian's interpreter (python3-mpmath 1.2.1):

    /usr/bin/python3 tests/gen_kde_ref.py > tests/data/kde_ref.csv

The sample sets are made here (a fixed LCG, no library generator) and written out with repr(),
so the C test reads exactly these doubles. Rows (first field says the kind):

  S,set,dim,x0,x1,x2           one sample of a set (unused coordinates 0)
  B,set,rule,h0,h1,h2          the bandwidth by rule (silverman | scott), kde_math.h's formulas:
                               sigma with divisor n-1, IQR from type-7 quantiles
  Y,set,h0,h1,h2,p0,p1,p2,value  the density at p with bandwidth h (the sum of kde_math.h)

Points: every sample of each set (the seed's `at samples`) and, per axis, points at fractions
-0.25 .. 1.25 of the grid [min - 3h, max + 3h] (the other axes at a sample), into the tails. Every value is computed at dps 30 and at
dps 60 and the two must agree to a relative 1e-25; values carry 25 significant digits. If a
check fails the script exits non-zero with a message on stderr.
"""

import math
import sys

from mpmath import mp, mpf

RULES = ("silverman", "scott")


def die(msg):
    sys.stderr.write("gen_kde_ref.py: FAILED: %s\n" % msg)
    sys.exit(1)


class Lcg:
    """Knuth's MMIX LCG; uniform doubles from the top 53 bits."""

    def __init__(self, seed):
        self.s = seed

    def uniform(self):
        self.s = (6364136223846793005 * self.s + 1442695040888963407) % 2 ** 64
        return (self.s >> 11) / 2.0 ** 53

    def normal(self):
        u1, u2 = 1 - self.uniform(), self.uniform()
        return math.sqrt(-2 * math.log(u1)) * math.cos(2 * math.pi * u2)


def make_sets():
    """(name, dim, samples, bandwidths to evaluate with): small sets, 1-D to 3-D."""
    r = Lcg(2024)
    sets = []
    a = [round(r.normal(), 6) for _ in range(20)]
    sets.append(("n20", 1, [(v,) for v in a], [(0.4,), (0.05,)]))
    b = [(-2 + r.normal()) if r.uniform() < 0.5 else (2 + 0.5 * r.normal()) for _ in range(200)]
    b[7] = 1.0  # exact integers and a duplicate, as data files have them
    b[8] = -2.0
    b[9] = b[10]
    sets.append(("mix200", 1, [(v,) for v in b], [(0.3,), (1.7,)]))
    c = [-math.log(1 - r.uniform()) for _ in range(64)]
    sets.append(("exp64", 1, [(v,) for v in c], [(0.25,)]))
    d = [(r.normal(), 3 + 2 * r.normal()) for _ in range(50)]
    sets.append(("n50d2", 2, d, [(0.5, 0.9)]))
    e = [(r.normal(), r.uniform(), 10 + r.normal()) for _ in range(30)]
    sets.append(("n30d3", 3, e, [(0.6, 0.2, 0.7)]))
    return sets


def stddev(v):
    n = len(v)
    mean = sum(v) / n
    return mp.sqrt(sum((x - mean) ** 2 for x in v) / (n - 1))


def quantile7(v, p):
    s = sorted(v)
    pos = (len(s) - 1) * mpf(p)
    i = int(mp.floor(pos))
    if i + 1 >= len(s):
        return s[i]
    return s[i] + (pos - i) * (s[i + 1] - s[i])


def bandwidth(samples, dim, rule):
    n = mpf(len(samples))
    h = []
    for k in range(dim):
        v = [mpf(x[k]) for x in samples]
        scale, factor = stddev(v), n ** (-mpf(1) / (dim + 4))
        if rule == "silverman" and dim == 1:
            iqr = quantile7(v, 0.75) - quantile7(v, 0.25)
            if iqr > 0 and iqr / mpf("1.34") < scale:
                scale = iqr / mpf("1.34")
            factor *= mpf("0.9")
        elif rule == "silverman":
            factor *= (mpf(4) / (dim + 2)) ** (mpf(1) / (dim + 4))
        h.append(factor * scale)
    return h


def density(samples, dim, h, p):
    norm = 1 / (len(samples) * mp.sqrt(2 * mp.pi) ** dim)
    for k in range(dim):
        norm /= mpf(h[k])
    total = mpf(0)
    for x in samples:
        q = sum(((mpf(p[k]) - mpf(x[k])) / mpf(h[k])) ** 2 for k in range(dim))
        total += mp.exp(-q / 2)
    return norm * total


def both(f, *args):
    """f at dps 30 and dps 60; dies unless they agree to 1e-25 relative."""
    mp.dps = 30
    lo = f(*args)
    mp.dps = 60
    hi = f(*args)
    if isinstance(hi, list):
        pairs = list(zip(lo, hi))
    else:
        pairs = [(lo, hi)]
    for a, b in pairs:
        if abs(a - b) > mpf("1e-25") * abs(b):
            die("%s: dps 30 gives %s, dps 60 gives %s" % (f.__name__, a, b))
    return hi


def fmt(v):
    return mp.nstr(v, 25, min_fixed=1, max_fixed=0)


def main():
    print("# Gaussian KDE reference: S samples, B bandwidth rules, Y densities (kde_math.h)")
    print("# made by tests/gen_kde_ref.py with mpmath %s at dps 30 and 60 (agree to 1e-25)"
          % __import__("mpmath").__version__)
    nvals = 0
    for name, dim, samples, hs in make_sets():
        pad = (0.0,) * (3 - dim)
        for x in samples:
            print("S,%s,%d,%s" % (name, dim, ",".join(repr(float(v)) for v in x + pad)))
        for rule in RULES:
            h = both(bandwidth, samples, dim, rule)
            print("B,%s,%s,%s" % (name, rule, ",".join(fmt(v) for v in h + [0] * (3 - dim))))
        for h in hs:
            points = list(samples)
            for k in range(dim):
                lo = min(x[k] for x in samples) - 3 * h[k]
                hi = max(x[k] for x in samples) + 3 * h[k]
                for i, t in enumerate((-0.25, 0.0, 0.13, 0.5, 0.77, 1.0, 1.25)):
                    p = list(samples[(5 * i) % len(samples)])  # other axes at a sample
                    p[k] = lo + (hi - lo) * t
                    points.append(tuple(p))
            for p in points:
                v = both(density, samples, dim, h, p)
                nvals += 1
                print("Y,%s,%s,%s,%s" % (name, ",".join(repr(float(a)) for a in h + pad),
                                         ",".join(repr(float(a)) for a in tuple(p) + pad),
                                         fmt(v)))
    sys.stderr.write("gen_kde_ref.py: %d densities, dps 30 and 60 agree to 1e-25\n" % nvals)


if __name__ == "__main__":
    main()
