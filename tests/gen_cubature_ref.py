"""Generate the reference values of problem `cubature` that have no closed form in C.

Makes src/problems/cubature/cubature_ref.h (a C table: integrand, dim, value) for the unit cube [0,1]^dim:
  f1   = 1/(0.1 + cos^2(s))      s = sum x_i^2   dims 1..16
  f1p2 = 1/(0.1 + cos^2(s))^2                     dims 1..16
  f2   = cos(prod cos(2^(2i) x_i))                dims 1..2 (4..8: the study's 15 digits, in C)
  f3   = sin(prod i asin(x_i^i))                  dims 1..8
  f4   = sin(prod asin(x_i))                      dims 1..3 (4..8: the study's, in C)
"The study": the two-phase adaptive cubature study; f1..f5 are its benchmark integrands.
Rerun with Debian's interpreter (python3-mpmath):

    nice python3 tests/gen_cubature_ref.py > src/problems/cubature/cubature_ref.h

How each value is obtained and checked (the script exits non-zero on any disagreement):
  f1, f1p2: with A = 1.2, 1/(0.1 + cos^2 s) = 2/(A + cos 2s) and the Fourier series
    1/(A + cos t) = (1 + 2 sum_k (-r)^k cos kt)/sqrt(A^2-1), r = A - sqrt(A^2-1), so the
    integral is a series in Re(phi(2k)^dim), phi(w) = int_0^1 exp(i w x^2) dx (Fresnel
    integrals); f1p2 = -4 d/dA of the same series (mp.diff). Computed at dps 30 and dps 50
    (must agree to 1e-22 relative), and for dim 1 and 2 against direct mp.quad (1e-15).
  f3, f4: the first coordinate's factor is asin(x_1) (i = 1), and int_0^1 sin(y asin x) dx =
    h(y) = ((1 - cos((y+1) pi/2))/(y+1) + (1 - cos((y-1) pi/2))/(y-1))/2 in closed form, which
    leaves a (dim-1)-dimensional mp.quad (tanh-sinh) in x_2..x_dim; computed at dps 20 and
    dps 30 (must agree to 1e-15). f4 dim 4 is computed the same way as a check of the method
    against the study's 0.0999091341286321 (1e-13; not emitted: C has the study's value).
  f3 dims 4..8: tests/gen_cubature_f3.py, the density of log prod_i y_i (y_i = i asin(x_i^i))
    as a convolution of the factors' densities, tabulated by piecewise Chebyshev interpolants,
    then int sin(e^w) over it; at dps 20 and dps 30 with different degrees, tolerances and
    cut-offs (must agree to 1e-17; they agree to about 1e-20), and its dims 2 and 3 against
    the reduced quadrature above (1e-15). Its --check also compares dim 4 with a second,
    independent method (a chain of characteristic functions; 6e-20).
  f2: direct mp.quad at dps 20 and 30 (1e-15).
"""

import sys

import mpmath
from mpmath import mp, mpf

import gen_cubature_f3


def die(msg):
    sys.stderr.write("gen_cubature_ref.py: FAILED: %s\n" % msg)
    sys.exit(1)


def phi(w):
    """int_0^1 exp(i w x^2) dx through the Fresnel integrals."""
    if w == 0:
        return mp.mpc(1)
    z = mp.sqrt(2 * w / mp.pi)
    return mp.sqrt(mp.pi / (2 * w)) * mp.mpc(mp.fresnelc(z), mp.fresnels(z))


def f1_series(dim, A, terms):
    """int over [0,1]^dim of 2/(A + cos(2 s)), s = sum x_i^2, by the Fourier series."""
    q = mp.sqrt(A * A - 1)
    r = A - q
    total = mpf(1)
    for k in range(1, terms):
        total += 2 * (-r) ** k * (phi(2 * k) ** dim).real
    return 2 * total / q


def f1(dim, power, dps):
    mp.dps = dps
    terms = int(dps * 4.5) + 20  # r = 0.537: r^k < 10^-dps with margin
    A = mpf(12) / 10
    if power == 1:
        return f1_series(dim, A, terms)
    return -2 * mp.diff(lambda a: f1_series(dim, a, terms), A)


def h(y):
    """int_0^1 sin(y asin x) dx = int_0^{pi/2} sin(y u) cos u du."""
    hp = mp.pi / 2
    if abs(y - 1) < mpf(10) ** (-mp.dps // 2):
        return (1 - mp.cos(2 * hp)) / 4 + mp.quad(lambda u: mp.sin((y - 1) * u), [0, hp]) / 2
    return ((1 - mp.cos((y + 1) * hp)) / (y + 1) + (1 - mp.cos((y - 1) * hp)) / (y - 1)) / 2


def reduced(dim, factor, dps):
    """int over [0,1]^dim of sin(asin(x_1) prod_{i>=2} factor(i, x_i)) by h and mp.quad."""
    mp.dps = dps
    if dim == 1:
        return h(mpf(1))
    if dim == 2:
        return mp.quad(lambda x2: h(factor(2, x2)), [0, 1])
    if dim == 3:
        return mp.quad(lambda x2, x3: h(factor(2, x2) * factor(3, x3)), [0, 1], [0, 1])
    return mp.quad(lambda x2, x3, x4: h(factor(2, x2) * factor(3, x3) * factor(4, x4)),
                   [0, 1], [0, 1], [0, 1], maxdegree=5)


def f3_factor(i, x):
    return i * mp.asin(x ** i)


def f4_factor(i, x):
    return mp.asin(x)


def f2(dim, dps):
    mp.dps = dps
    if dim == 1:
        return mp.quad(lambda x: mp.cos(mp.cos(4 * x)), mp.linspace(0, 1, 9))
    return mp.quad(lambda x, y: mp.cos(mp.cos(4 * x) * mp.cos(16 * y)), mp.linspace(0, 1, 5),
                   mp.linspace(0, 1, 17))


def agree(name, dim, a, b, tol):
    if abs(a - b) > tol * abs(b):
        die("%s dim %d: %s vs %s" % (name, dim, mp.nstr(a, 25), mp.nstr(b, 25)))


def f3_density(rows):
    """f3 in dims 4..8 by gen_cubature_f3.py's density convolution, at dps 20 and 30 (must
    agree to 1e-17, past a double's digits); its dims 2 and 3 must agree with the reduced
    quadrature's rows (1e-15)."""
    lo, hi = [gen_cubature_f3.compute_all(dict(c, dmax=8, gl_check_dmax=0))
              for c in gen_cubature_f3.CONFIGS]
    if not (lo["converged"] and hi["converged"]):
        die("f3 density: a Chebyshev panel missed its tolerance")
    mp.dps = 30
    for name, dim, v in rows:
        if name == "f3" and dim in (2, 3):
            agree("f3 density vs reduced", dim, mpf(hi["I"][dim]), v, mpf("1e-15"))
    out = []
    for dim in range(4, 9):
        a, b = mpf(lo["I"][dim]), mpf(hi["I"][dim])
        agree("f3", dim, a, b, mpf("1e-17"))
        out.append(("f3", dim, b))
        sys.stderr.write("f3 dim %d %s\n" % (dim, mp.nstr(b, 20)))
    return out


def main():
    rows = []
    for power, name in ((1, "f1"), (2, "f1p2")):
        for dim in range(1, 17):
            lo, hi = f1(dim, power, 30), f1(dim, power, 50)
            agree(name, dim, lo, hi, mpf("1e-22"))
            if dim <= 2:
                mp.dps = 20
                g = (lambda s: 1 / (mpf("0.1") + mp.cos(s) ** 2) ** power)
                if dim == 1:
                    direct = mp.quad(lambda x: g(x * x), [0, 1])
                else:
                    direct = mp.quad(lambda x, y: g(x * x + y * y), [0, 1], [0, 1])
                agree(name + " direct", dim, direct, hi, mpf("1e-15"))
            rows.append((name, dim, hi))
            sys.stderr.write("%s dim %d %s\n" % (name, dim, mp.nstr(hi, 20)))
    for dim in (1, 2):
        lo, hi = f2(dim, 20), f2(dim, 30)
        agree("f2", dim, lo, hi, mpf("1e-15"))
        rows.append(("f2", dim, hi))
    for name, factor in (("f3", f3_factor), ("f4", f4_factor)):
        for dim in (1, 2, 3):
            lo, hi = reduced(dim, factor, 20), reduced(dim, factor, 30)
            agree(name, dim, lo, hi, mpf("1e-15"))
            rows.append((name, dim, hi))
            sys.stderr.write("%s dim %d %s\n" % (name, dim, mp.nstr(hi, 20)))
        if name == "f3":
            rows += f3_density(rows)
    check = reduced(4, f4_factor, 20)
    agree("f4 dim 4 vs the study", 4, check, mpf("0.0999091341286321"), mpf("1e-13"))
    print("/* cubature_ref.h - generated by tests/gen_cubature_ref.py (python3-mpmath %s): the" %
          mpmath.__version__)
    print(" * values of problem cubature's integrands on [0,1]^dim that have no closed form in C,")
    print(" * each computed at two working precisions that agree (see the script). Do not edit. */")
    print("static const struct cub_ref_row {\n\tconst char *integrand;\n\tint dim;\n"
          "\tdouble value;\n} cub_ref_table[] = {")
    for name, dim, v in rows:
        print('    {"%s", %d, %s},' % (name, dim, mp.nstr(v, 20, min_fixed=-3, max_fixed=3)))
    print("};")


if __name__ == "__main__":
    main()
