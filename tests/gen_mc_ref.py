#!/usr/bin/env python3
"""Writes tests/data/mc_ref.json: the exact values tests/mc_test.py checks cubature's Monte Carlo
variants against, each computed in mpmath at 30 and at 60 digits, the two required to agree to
1e-25 relative (else the script fails and writes nothing).

- gaussian_r4: exp(-(x1^2+..+x4^2)) over R^4, pi^2;
- cos_product_10: prod cos(x_i) over [0,1]^10, sin(1)^10;
- Genz's oscillatory (dim 8, 20), productpeak (dim 10) and gaussian (dim 8, 30) for seeds
  1..20, their c and w drawn as quadx draws them (cub_fn_make: splitmix64's finalizer of
  (seed, i), c scaled to Genz's difficulty), in closed form on the unit cube.

Run from the repository root: `python3 tests/gen_mc_ref.py`."""
import json
import os

import mpmath

MASK = (1 << 64) - 1
SEEDS = range(1, 21)
GENZ = {"oscillatory": (0, 110, 1.5), "productpeak": (1, 600, 2), "gaussian": (3, 100, 1)}
CASES = [("oscillatory", 8), ("oscillatory", 20), ("productpeak", 10), ("gaussian", 8),
         ("gaussian", 30)]


def cub_hash(seed, k):
    """cub_hash (cubature_math.h): splitmix64's finalizer of (seed, k)."""
    z = (seed * 0x9E3779B97F4A7C15 + (k + 1) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def genz_vectors(family, dim, seed):
    """c and w of quadx's cub_fn_make, exactly as it rounds them (doubles)."""
    _, h, expo = GENZ[family]
    c = [float(cub_hash(seed, i) >> 11) * 2.0 ** -53 for i in range(dim)]
    w = [float(cub_hash(seed, 64 + i) >> 11) * 2.0 ** -53 for i in range(dim)]
    total = 0.0
    for v in c:
        total += v
    target = h / float(dim) ** expo
    return [v * (target / total) for v in c], w


def genz_exact(family, c, w):
    """The integral over [0,1]^dim in closed form, at mpmath's current precision."""
    c = [mpmath.mpf(v) for v in c]
    w = [mpmath.mpf(v) for v in w]
    if family == "oscillatory":
        z = mpmath.expj(2 * mpmath.pi * w[0])
        for ci in c:
            z *= (mpmath.expj(ci) - 1) / (1j * ci)
        return mpmath.re(z)
    prod = mpmath.mpf(1)
    for ci, wi in zip(c, w):
        if family == "productpeak":
            prod *= ci * (mpmath.atan(ci * (1 - wi)) + mpmath.atan(ci * wi))
        else:
            prod *= mpmath.sqrt(mpmath.pi) / (2 * ci) * (mpmath.erf(ci * (1 - wi)) +
                                                       mpmath.erf(ci * wi))
    return prod


def values(dps):
    """Every reference at dps digits, as mpf."""
    mpmath.mp.dps = dps
    out = {"gaussian_r4": mpmath.pi ** 2, "cos_product_10": mpmath.sin(1) ** 10}
    for family, dim in CASES:
        for seed in SEEDS:
            c, w = genz_vectors(family, dim, seed)
            out[f"{family}_{dim}_{seed}"] = genz_exact(family, c, w)
    return out


def main():
    low, high = values(30), values(60)
    for k in low:
        assert abs(low[k] - high[k]) <= mpmath.mpf("1e-25") * abs(high[k]), k
    mpmath.mp.dps = 60
    data = {k: mpmath.nstr(v, 20) for k, v in high.items()}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "mc_ref.json")
    with open(path, "w") as f:
        json.dump(data, f, indent=0, sort_keys=True)
        f.write("\n")
    print(f"{path}: {len(data)} values")


if __name__ == "__main__":
    main()
