"""Generate the constants of cubature's asin (qx_asin_reduced in src/expr/reduced_math.h)
and the mpmath values its unit test checks it against.

    nice python3 tests/gen_cubature_asin.py --constants        # the C constants, to paste
    nice python3 tests/gen_cubature_asin.py > tests/data/cubature_asin_ref.csv

qx_asin_reduced(x) takes t = |x| to s in [0, 1/2] with z = s^2 in [0, 1/4]: s = t for
t <= 1/2, else s = sqrt((1 - t) / 2), where asin(t) = pi/2 - 2 asin(s). It evaluates
asin(s) = s + s z P(z) with P of degree 12: mpmath's Chebyshev fit (mpmath.chebyfit) of
(asin(sqrt(z)) - sqrt(z)) / (z sqrt(z)) on [0, 1/4] (1/6 at z = 0), whose error is 1.5e-17
there; that moves asin(s) by at most 3.8e-18 of it (z <= 1/4 times as much) and pi/2 - 2 asin(s)
by under 7.2e-18 of it. Degree 11's error, 2.3e-16, would move the latter by up to half a unit
in the last place near |x| = 1/2. pi/2 is split into the double nearest it and the rest.

The reference file holds x (exactly a double, printed to round-trip) and asin(x), computed at
dps 30 and dps 50 (the script exits non-zero unless they agree to 1e-25), at points that test
both halves: random x in [-1, 1], points dense near 0, either side of +-1/2 (where the two
halves meet, with the doubles next to it), 1 - 2^-k up to k = 53 and +-1, and tiny x. The
arguments past [-1, 1] (where the result is NaN) are the unit test's own.
"""

import math
import random
import sys

import mpmath
from mpmath import mp, mpf

DEGREE = 12


def die(msg):
    sys.stderr.write("gen_cubature_asin.py: FAILED: %s\n" % msg)
    sys.exit(1)


def ratio(z):
    """(asin(sqrt(z)) - sqrt(z)) / (z sqrt(z)), 1/6 at z = 0."""
    if z == 0:
        return mpf(1) / 6
    s = mp.sqrt(z)
    return (mp.asin(s) - s) / (z * s)


def constants():
    """pi/2's two parts and P's coefficients (the highest degree's first), as floats."""
    mp.dps = 50
    hi = float(mp.pi / 2)
    lo = float(mp.pi / 2 - hi)
    poly, err = mpmath.chebyfit(ratio, [0, mpf(1) / 4], DEGREE + 1, error=True)
    if err > mpf(2e-17):
        die("the fit's error %s is over 2e-17" % mpmath.nstr(err, 5))
    return hi, lo, [float(c) for c in poly], err


def points():
    """The x of the reference file, each a float in [-1, 1]."""
    rnd = random.Random(20261127)
    xs = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1e-300, -1e-300, 2.0**-30, -(2.0**-30), 5e-324, 1e-8, 0.25]
    # the largest absolute and relative errors of qx_asin_reduced over 5e7 random points in
    # [0, 1] against the C library's long double asinl
    xs += [0.85130580017829693, 0.84179287598845065]
    xs += [rnd.uniform(-1, 1) for _ in range(1000)]
    xs += [rnd.uniform(-1e-3, 1e-3) for _ in range(100)]
    xs += [math.ldexp(rnd.uniform(-1, 1), -rnd.randrange(1, 60)) for _ in range(100)]
    for c in (0.5, -0.5):
        v = c
        for _ in range(8):  # the doubles next to the switch on both sides
            v = math.nextafter(v, math.inf)
            xs.append(v)
        v = c
        for _ in range(8):
            v = math.nextafter(v, -math.inf)
            xs.append(v)
        xs += [c + rnd.uniform(-1e-3, 1e-3) for _ in range(100)]
    for k in range(1, 54):
        xs += [1 - 2.0**-k, -(1 - 2.0**-k)]
    xs += [rnd.uniform(0.99, 1) * rnd.choice((1, -1)) for _ in range(100)]
    return xs


def main():
    hi, lo, coef, err = constants()
    if "--constants" in sys.argv:
        print("/* pi/2 = %r + %r */" % (hi, lo))
        print(
            "/* (asin(sqrt(z)) - sqrt(z)) / z^1.5 on [0, 1/4], chebyfit degree %d, error %s */"
            % (DEGREE, mpmath.nstr(err, 3))
        )
        print(", ".join(repr(c) for c in coef))
        return
    print("# asin(x) for the unit test of qx_asin_reduced, made by tests/gen_cubature_asin.py with mpmath %s:" % mpmath.__version__)
    print("# each value at dps 30 and dps 50, agreeing to 1e-25")
    print("x,asin")
    for x in points():
        if not -1 <= x <= 1:
            die("%r is outside [-1, 1]" % x)
        mp.dps = 30
        a = mp.asin(mpf(x))
        mp.dps = 50
        b = mp.asin(mpf(x))
        if abs(a - b) > mpf(10) ** -25:
            die("asin(%r): dps 30 and 50 differ by %s" % (x, mpmath.nstr(abs(a - b), 3)))
        print("%r,%s" % (x, mpmath.nstr(b, 25)))


if __name__ == "__main__":
    main()
