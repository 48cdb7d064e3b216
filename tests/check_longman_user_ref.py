"""Check the known values the tests of longman's user amplitudes rely on, by mpmath.

tests/longman_user_test.py, tests/longman_user_gpu_test.py and tests/unit/test_longman.c take
these closed forms as the true integrals (no table is generated):
  int_0^inf cos(w x) / (1 + x^2) dx   = (pi/2) e^{-w}
  int_0^inf k cos(w x) / (k^2 + x^2) dx = (pi/2) e^{-k w}
  int_0^inf x sin(w x) / (1 + x^2) dx = (pi/2) e^{-w}
  int_0^inf e^{-x} J0(w x) dx         = 1 / sqrt(1 + w^2)
Each is computed by mp.quadosc (the oscillation's period 2 pi / w; J0: its zeros j_{0,n}/w)
at dps 20 and at dps 40, at the doubles the tests use, and must agree with the closed form to
a relative 1e-15 at dps 20 and 1e-30 at dps 40. Run with a python3 that has mpmath (about a
minute):

    python3 tests/check_longman_user_ref.py

It prints the largest relative difference per form and precision, and exits non-zero with a
message on stderr when a check fails. Last run (mpmath 1.3.0): at most 1.4e-19 at dps 20 and
2.6e-39 at dps 40.
"""

import sys

from mpmath import mp

# The omegas of the tests: the script test's and the unit test's batch 0.3, 0.65, .. < 12, and
# single values.
BATCH = [0.3 + i * 0.35 for i in range(34)]


def forms():
    """(name, integrand(x, w), closed form(w), omegas, kind) for each known value."""
    return [
        ("cos/(1+x^2)", lambda x, w: mp.cos(w * x) / (1 + x * x),
         lambda w: mp.pi / 2 * mp.exp(-w), BATCH + [3.0], "trig"),
        ("k cos/(k^2+x^2), k=2", lambda x, w: 2 * mp.cos(w * x) / (4 + x * x),
         lambda w: mp.pi / 2 * mp.exp(-2 * w), [1.5], "trig"),
        ("k cos/(k^2+x^2), k=3", lambda x, w: 3 * mp.cos(w * x) / (9 + x * x),
         lambda w: mp.pi / 2 * mp.exp(-3 * w), [1.5], "trig"),
        ("x sin/(1+x^2)", lambda x, w: x * mp.sin(w * x) / (1 + x * x),
         lambda w: mp.pi / 2 * mp.exp(-w), [0.5, 2.0, 7.0], "trig"),
        ("e^-x J0", lambda x, w: mp.exp(-x) * mp.besselj(0, w * x),
         lambda w: 1 / mp.sqrt(1 + w * w), [1.0, 2.0, 10.0], "j0"),
    ]


def check(dps, tol):
    """Every form at precision dps against its closed form; returns the worst differences."""
    mp.dps = dps
    worst = {}
    for name, f, exact, omegas, kind in forms():
        for w0 in omegas:
            w = mp.mpf(w0)  # exactly the double the tests use
            if kind == "j0":
                got = mp.quadosc(lambda x: f(x, w), [0, mp.inf],
                                 zeros=lambda n: mp.besseljzero(0, n) / w)
            else:
                got = mp.quadosc(lambda x: f(x, w), [0, mp.inf], omega=w)
            want = exact(w)
            rel = abs(got - want) / abs(want)
            worst[name] = max(worst.get(name, 0), rel)
            if rel > tol:
                sys.stderr.write("check_longman_user_ref.py: FAILED: %s at w = %r, dps %d: "
                                 "quadosc %s, closed form %s\n" % (name, w0, dps, got, want))
                sys.exit(1)
    return worst


def main():
    for dps, tol in ((20, 1e-15), (40, 1e-30)):
        for name, rel in check(dps, tol).items():
            print("dps %d  %-22s largest relative difference %s" % (dps, name, mp.nstr(rel, 3)))


if __name__ == "__main__":
    main()
