"""Generate the constants of cubature's cos and sin (qx_cos_reduced and qx_sin_reduced in
src/expr/reduced_math.h) and the mpmath values their unit test checks them against.

    nice python3 tests/gen_cubature_cos.py --constants        # the C constants, to paste
    nice python3 tests/gen_cubature_cos.py > tests/data/cubature_cos_ref.csv

cub_cos_reduced(x) reduces x by the nearest multiple q pi (pi split in two parts, the first of
38 bits so that q times it is exact for |q| < 2^15) to r in [-pi/2, pi/2], and evaluates
cos(r) = P(r^2) with P of degree 8: mpmath's Chebyshev fit (mpmath.chebyfit) of cos(sqrt(s))
on s in [0, (pi/2)^2], whose error is 3.9e-18 there, far below double's rounding.
cub_sin_reduced(x) takes the same r and evaluates sin(r) = r + r s S(s), s = r^2, with S of
degree 7: the Chebyshev fit of (sin(sqrt(s)) - sqrt(s)) / s^1.5 on the same interval, error
3.4e-19 (degree 6's, 1.9e-16, times (pi/2)^3 would reach several units in the last place).

The reference file holds x (exactly a double, printed to round-trip), cos(x) and sin(x), computed at
dps 30 and dps 50 (the script exits non-zero unless they agree to 1e-25), at points that test
the reduction: random x in [-10, 10], [-1e3, 1e3] and [-1e5, 1e5], points next to multiples
of pi/2 (where r is near +-pi/2 and cos near 0), x near the reduction's limit 1e5, and beyond
it (where the C library's cos takes over).
"""

import math
import random
import sys

import mpmath
from mpmath import mp, mpf

SPLIT_BITS = 38  # bits of pi's first part: q pi_0 exact for |q| < 2^15
DEGREE = 8
SIN_DEGREE = 7


def die(msg):
    sys.stderr.write("gen_cubature_cos.py: FAILED: %s\n" % msg)
    sys.exit(1)


def to_bits(v, bits):
    """v rounded to a float of `bits` significant bits."""
    m, e = mp.frexp(v)
    return float(mp.ldexp(mp.nint(mp.ldexp(m, bits)), e - bits))


def constants():
    """pi's two parts and P's coefficients (c0 first), as floats."""
    mp.dps = 50
    hi = to_bits(mp.pi, SPLIT_BITS)
    lo = float(mp.pi - hi)
    poly, err = mpmath.chebyfit(
        lambda s: mp.cos(mp.sqrt(s)) if s > 0 else mpf(1), [0, (mp.pi / 2) ** 2], DEGREE + 1, error=True
    )
    if err > mpf(1e-17):
        die("the fit's error %s is over 1e-17" % mpmath.nstr(err, 5))
    coef = [float(c) for c in reversed(poly)]
    return hi, lo, coef, err


def sin_constants():
    """S's coefficients (c0 first), as floats, and the fit's error."""
    mp.dps = 50
    poly, err = mpmath.chebyfit(
        lambda s: (mp.sin(mp.sqrt(s)) - mp.sqrt(s)) / (s * mp.sqrt(s)) if s > 0 else mpf(-1) / 6,
        [0, (mp.pi / 2) ** 2],
        SIN_DEGREE + 1,
        error=True,
    )
    if err > mpf(1e-18):
        die("the sine fit's error %s is over 1e-18" % mpmath.nstr(err, 5))
    return [float(c) for c in reversed(poly)], err


def points():
    """The x of the reference file, each a float."""
    rnd = random.Random(20261126)
    xs = [0.0, 1.0, -1.0, 0.5, 1e-300, 2.0**-30, 10.0]
    for span, n in ((10.0, 400), (1e3, 300), (1e5, 300)):
        xs += [rnd.uniform(-span, span) for _ in range(n)]
    mp.dps = 50
    for k in list(range(-40, 41)) + [rnd.randrange(-66000, 66000) for _ in range(200)]:
        c = float(k * mp.pi / 2)  # the double nearest k pi/2, and its neighbours
        xs += [c, math.nextafter(c, math.inf), math.nextafter(c, -math.inf)]
    limit = 1e5
    xs += [limit * (1 - 1e-9), limit, limit * (1 + 1e-9), 2**15 * float(mp.pi), 3.2e6, 1e7, -1e9, 1e15, 1e300]
    return xs


def main():
    hi, lo, coef, err = constants()
    if "--constants" in sys.argv:
        print("/* pi = %r + %r (%d and 53 bits) */" % (hi, lo, SPLIT_BITS))
        print("/* cos(sqrt(s)) on [0, (pi/2)^2], chebyfit degree %d, error %s */" % (DEGREE, mpmath.nstr(err, 3)))
        print(", ".join(repr(c) for c in reversed(coef)))
        scoef, serr = sin_constants()
        print("/* (sin(sqrt(s)) - sqrt(s)) / s^1.5 on [0, (pi/2)^2], chebyfit degree %d, error %s */" % (SIN_DEGREE, mpmath.nstr(serr, 3)))
        print(", ".join(repr(c) for c in reversed(scoef)))
        return
    print("# cos(x) and sin(x) for the unit test of cub_cos_reduced and cub_sin_reduced, made by tests/gen_cubature_cos.py with mpmath %s:" % mpmath.__version__)
    print("# each value at dps 30 and dps 50, agreeing to 1e-25")
    print("x,cos,sin")
    for x in points():
        vals = []
        for fn in (mp.cos, mp.sin):
            mp.dps = 30
            a = fn(mpf(x))
            mp.dps = 50
            b = fn(mpf(x))
            if abs(a - b) > mpf(10) ** -25:
                die("%s(%r): dps 30 and 50 differ by %s" % (fn.__name__, x, mpmath.nstr(abs(a - b), 3)))
            vals.append(mpmath.nstr(b, 25))
        print("%r,%s,%s" % (x, vals[0], vals[1]))


if __name__ == "__main__":
    main()
