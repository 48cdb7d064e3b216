"""Generate reference values for longman's user amplitudes that decay slowly or are singular.

Makes tests/data/longman_amp_ref.csv, the true integrals tests/longman_user_test.py compares
the values and error bounds of `set integrand "EXPR"` with:
  exp(-x)/sqrt(x) cos, a = 0   sqrt(pi) cos(atan(w)/2) / (1+w^2)^(1/4)
  exp(-x)/sqrt(x) sin, a = 0   sqrt(pi) sin(atan(w)/2) / (1+w^2)^(1/4)
                               (Re and Im of Gamma(1/2) (1 - i w)^(-1/2))
  1/x sin, a = 1               pi/2 - Si(w)
  1/sqrt(x) sin, a = 1         w^(-1/2) (sqrt(pi/2) - sqrt(2 pi) S(sqrt(2 w / pi))), S
                               mpmath's fresnels (int_0^z sin(pi t^2 / 2) dt)
Each value is computed as mp.quad over [a, a + pi/w] in x = a + t^2 (which makes the
singularity 1/sqrt(x) at 0 smooth: mp.quadosc alone is off by 0.7% at dps 20, mp.quad on x
by 2e-12) plus mp.quadosc over the rest with the oscillation's period, at dps 20 and at dps
40, and
both must agree with the closed form at dps 40 to a relative 1e-17 (dps 20) and 1e-35 (dps
40). Rerun with a python3 that has mpmath (about 40 seconds):

    python3 tests/gen_longman_amp_ref.py > tests/data/longman_amp_ref.csv

Output: CSV with a header "case,omega,a,value"; omega and a are repr() of IEEE doubles
(computed at exactly those doubles); value has 25 significant digits. On a failed check the
script exits non-zero with a message on stderr.
"""

import sys

import mpmath
from mpmath import mp

OMEGAS = [0.5, 1.0, 2.0, 3.5, 7.0, 10.0]


def cases():
    """(case, a, oscillator, amplitude(x), closed form(w)) of every reference."""
    return [
        ("exp(-x)/sqrt(x) cos", 0.0, mp.cos, lambda x: mp.exp(-x) / mp.sqrt(x),
         lambda w: mp.sqrt(mp.pi) * mp.cos(mp.atan(w) / 2) / (1 + w * w) ** mp.mpf(0.25)),
        ("exp(-x)/sqrt(x) sin", 0.0, mp.sin, lambda x: mp.exp(-x) / mp.sqrt(x),
         lambda w: mp.sqrt(mp.pi) * mp.sin(mp.atan(w) / 2) / (1 + w * w) ** mp.mpf(0.25)),
        ("1/x sin", 1.0, mp.sin, lambda x: 1 / x, lambda w: mp.pi / 2 - mp.si(w)),
        ("1/sqrt(x) sin", 1.0, mp.sin, lambda x: 1 / mp.sqrt(x),
         lambda w: (mp.sqrt(mp.pi / 2) - mp.sqrt(2 * mp.pi) * mp.fresnels(mp.sqrt(2 * w / mp.pi)))
         / mp.sqrt(w)),
    ]


def die(msg):
    sys.stderr.write("gen_longman_amp_ref.py: FAILED: %s\n" % msg)
    sys.exit(1)


def main():
    rows = []
    for name, a, osc, amp, exact in cases():
        for w0 in OMEGAS:
            got = {}
            for dps in (20, 40):
                mp.dps = dps
                w = mp.mpf(w0)
                f = lambda x: amp(x) * osc(w * x)  # noqa: E731
                cut = mp.pi / w  # [a, a + cut] apart, in x = a + t^2
                head = mp.quad(lambda t: 2 * t * f(a + t * t), [0, mp.sqrt(cut)])
                got[dps] = head + mp.quadosc(f, [a + cut, mp.inf], omega=w)
            mp.dps = 40
            want = exact(mp.mpf(w0))
            for dps, tol in ((20, mp.mpf("1e-17")), (40, mp.mpf("1e-35"))):
                rel = abs(got[dps] - want) / abs(want)
                if rel > tol:
                    die(f"{name} at omega {w0!r}: quadosc at dps {dps} differs from the "
                        f"closed form by a relative {mp.nstr(rel, 3)}")
            rows.append((name, w0, a, mp.nstr(want, 25)))
    print("# int_a^inf g(x) trig(omega x) dx for longman's user amplitude tests")
    print("# made by tests/gen_longman_amp_ref.py with mpmath %s: closed form checked against "
          "mp.quad + mp.quadosc at dps 20 and 40" % mpmath.__version__)
    print("case,omega,a,value")
    for name, w0, a, v in rows:
        print(f"{name},{w0!r},{a!r},{v}")


if __name__ == "__main__":
    main()
