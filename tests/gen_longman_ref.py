"""Generate reference values for problem `longman`.

Makes tests/data/longman_ref.csv: I = integral_a^inf exp(-lambda x) f(omega x) dx for
f = cos, sin, J0 at points chosen on both sides of q = exp(-lambda pi / omega) = 1/3.
Rerun with Debian's interpreter (python3-mpmath 1.2.1):

    /usr/bin/python3 tests/gen_longman_ref.py > tests/data/longman_ref.csv

Output: CSV with a header "integrand,lambda,omega,a,value"; lambda, omega and a are repr()
of IEEE doubles (computed at exactly those doubles); value has 25 significant digits.

Every value is computed twice at dps 40 and must agree to a relative 1e-25 (absolute 1e-28
near zero):
  1. the closed form: exp(-l a)(l cos wa - w sin wa)/(l^2+w^2) (cos),
     exp(-l a)(l sin wa + w cos wa)/(l^2+w^2) (sin), 1/sqrt(l^2+w^2) (J0, a = 0);
  2. mp.quadosc over [a, inf) with the oscillation's period (cos, sin: omega = w;
     J0: zeros = j_{0,k}/w via mp.besseljzero).
If a check fails the script exits non-zero with a message on stderr.
"""

import sys

from mpmath import mp

POINTS = [
    # (integrand, lambda, omega, a): q > 1/3 (Euler helps) and q < 1/3 (direct is better)
    ("cos", 0.5, 10.0, 0.0), ("cos", 0.05, 15.0, 0.0), ("cos", 0.05, 5.0, 0.0),
    ("cos", 1.0, 1.0, 0.0), ("cos", 3.0, 2.0, 0.0), ("cos", 0.2, 3.0, 1.3),
    ("cos", 2.5, 1.5, 0.75), ("cos", 0.01, 40.0, 2.0),
    ("sin", 0.5, 10.0, 0.0), ("sin", 0.05, 5.0, 0.0), ("sin", 1.0, 1.0, 0.0),
    ("sin", 3.0, 2.0, 0.0), ("sin", 0.3, 7.0, 1.3), ("sin", 2.0, 0.8, 2.5),
    ("j0", 0.0, 1.0, 0.0), ("j0", 0.0, 7.5, 0.0), ("j0", 0.5, 10.0, 0.0),
    ("j0", 0.1, 2.0, 0.0), ("j0", 2.0, 1.0, 0.0), ("j0", 4.0, 3.0, 0.0),
]


def die(msg):
    sys.stderr.write("gen_longman_ref.py: FAILED: %s\n" % msg)
    sys.exit(1)


def closed(f, l, w, a):
    d = l * l + w * w
    if f == "j0":
        return 1 / mp.sqrt(d)
    if f == "sin":
        return mp.exp(-l * a) * (l * mp.sin(w * a) + w * mp.cos(w * a)) / d
    return mp.exp(-l * a) * (l * mp.cos(w * a) - w * mp.sin(w * a)) / d


def numeric(f, l, w, a):
    if f == "j0":
        return mp.quadosc(lambda x: mp.exp(-l * x) * mp.besselj(0, w * x), [a, mp.inf],
                          zeros=lambda n: mp.besseljzero(0, int(n)) / w)
    trig = mp.cos if f == "cos" else mp.sin
    return mp.quadosc(lambda x: mp.exp(-l * x) * trig(w * x), [a, mp.inf], omega=w)


def main():
    mp.dps = 40
    print("# integral_a^inf exp(-lambda x) f(omega x) dx, f = cos | sin | j0 (J0)")
    print("# made by tests/gen_longman_ref.py with mpmath %s: closed form checked against "
          "mp.quadosc at dps 40" % __import__("mpmath").__version__)
    print("integrand,lambda,omega,a,value")
    worst = 0
    for f, l, w, a in POINTS:
        L, W, A = mp.mpf(l), mp.mpf(w), mp.mpf(a)
        c, n = closed(f, L, W, A), numeric(f, L, W, A)
        diff = abs(c - n)
        if diff > max(mp.mpf("1e-25") * abs(c), mp.mpf("1e-28")):
            die("%s lambda=%r omega=%r a=%r: closed %s, quadosc %s" % (f, l, w, a, c, n))
        worst = max(worst, diff / abs(c))
        print("%s,%r,%r,%r,%s" % (f, l, w, a, mp.nstr(c, 25, min_fixed=1, max_fixed=0)))
    sys.stderr.write("gen_longman_ref.py: %d points, max rel closed-vs-quadosc %s\n"
                     % (len(POINTS), mp.nstr(worst, 3)))


if __name__ == "__main__":
    main()
