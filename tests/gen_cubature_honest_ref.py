"""Generate the exact values of tests/honesty_test.py: typed integrands that are singular or not
finite on an outer face of their box (a bound where the integrand is infinite, or an infinite
axis, where the map's Jacobian is), or at an interior point, and a kinked one for float.

    nice python3 tests/gen_cubature_honest_ref.py > tests/data/cubature_honest_ref.csv

Each value is integrated by mpmath (nested quad, the singular points as interval ends) at
dps 20 and dps 40, and checked against its closed form at dps 40; the script exits non-zero
unless the three agree to 1e-15 relative (1e-15 absolute for the integral that is 0). The
file holds name, expression, dim, bounds (quadx's `set bounds`), the closed form in words and
its value, printed to round-trip as a double.
"""

import sys

import mpmath
from mpmath import mp, mpf

INF = mpmath.inf


def closed(name):
    """The closed form of integral `name` at the current precision."""
    return {
        "log_face": mpf(-1) / 2,
        "quadratic_form_plane": 2 * mp.pi / mp.sqrt(3),
        "odd_gaussian_r3": mpf(0),
        "sqrt_product_5d": (mp.sqrt(mp.pi) / 2) ** 5,
        "interior_cusp_2d": 1 + mp.sqrt(3) + mpf(1) / 2,
        "kink_exp_1d": 2 * mp.exp(mpf(3) / 10) - mpf(13) / 10 - mpf(3) / 10 * mp.e,
    }[name]


def integral(name):
    """The integral by quadrature at the current precision."""
    q = mp.quad
    if name == "log_face":  # log(x) + y on [0, 1]^2
        return q(lambda x, y: mp.log(x) + y, [0, 1], [0, 1])
    if name == "quadratic_form_plane":  # exp(-(x^2 + x y + y^2)) over the plane
        return q(lambda x, y: mp.exp(-(x * x + x * y + y * y)), [-INF, 0, INF], [-INF, 0, INF])
    if name == "odd_gaussian_r3":  # x exp(-x^2-y^2-z^2) over R^3: odd in x
        gx = q(lambda x: x * mp.exp(-x * x), [-INF, 0, INF])
        g = q(lambda t: mp.exp(-t * t), [-INF, 0, INF])
        return gx * g * g
    if name == "sqrt_product_5d":  # prod sqrt(x_i) exp(-sum x_i) on [0, inf)^5: a product
        return q(lambda x: mp.sqrt(x) * mp.exp(-x), [0, 1, INF]) ** 5
    if name == "interior_cusp_2d":  # 1/sqrt|x - 1/4| + y on [0, 1]^2
        # x = 1/4 -+ t^2 on each side takes the cusp out: dx / sqrt|x - 1/4| = 2 dt
        left = q(lambda t: 2 * t / mp.sqrt(t * t), [0, mp.sqrt(mpf(1) / 4)])
        right = q(lambda t: 2 * t / mp.sqrt(t * t), [0, mp.sqrt(mpf(3) / 4)])
        return left + right + q(lambda y: y, [0, 1])
    if name == "kink_exp_1d":  # |x - 0.3| exp(x) on [0, 1]
        return q(lambda x: abs(x - mpf(3) / 10) * mp.exp(x), [0, mpf(3) / 10, 1])
    raise KeyError(name)


ROWS = [
    ("log_face", "log(x)+y", 2, "0:1", "-1/2"),
    ("quadratic_form_plane", "exp(-(x^2+x*y+y^2))", 2, "-inf:inf", "2 pi/sqrt(3)"),
    ("odd_gaussian_r3", "x*exp(-x^2-y^2-z^2)", 3, "-inf:inf", "0 (odd in x)"),
    ("sqrt_product_5d", "prod(i, sqrt(x[i]))*exp(-sum(i, x[i]))", 5, "0:inf", "(sqrt(pi)/2)^5"),
    ("interior_cusp_2d", "1/sqrt(abs(x-0.25))+y", 2, "0:1", "1 + sqrt(3) + 1/2"),
    ("kink_exp_1d", "abs(x-0.3)*exp(x)", 1, "0:1", "2 e^0.3 - 1.3 - 0.3 e"),
]


def main():
    print("name,expression,dim,bounds,closed_form,exact")
    for name, expr, dim, bounds, words in ROWS:
        vals = []
        for dps in (20, 40):
            mp.dps = dps
            vals.append(integral(name))
        mp.dps = 40
        exact = closed(name)
        ref = vals[1]
        tol = mpf("1e-15") * max(1, abs(ref))
        if abs(vals[0] - vals[1]) > tol:
            sys.exit("gen_cubature_honest_ref.py: FAILED: %s: dps 20 and 40 differ" % name)
        if abs(exact - ref) > tol:
            sys.exit("gen_cubature_honest_ref.py: FAILED: %s: closed form %s, quad %s"
                     % (name, mpmath.nstr(exact, 20), mpmath.nstr(ref, 20)))
        print('%s,"%s",%d,%s,%s,%r' % (name, expr, dim, bounds, words, float(ref)))


if __name__ == "__main__":
    main()
