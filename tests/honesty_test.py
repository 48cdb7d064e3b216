#!/usr/bin/env python3
"""Script tests that every answer of problem cubature on the CPU is honest where a typed
integrand is not finite somewhere: singular or infinite on an outer face of its box (a bound
where it is infinite, an infinite axis whose map is infinite there), NaN on a part of the box,
infinite at an interior point; that a float run never claims a tolerance its rounding breaks;
and that hcubature says its estimate is libcubature's own. Exact values:
tests/data/cubature_honest_ref.csv (tests/gen_cubature_honest_ref.py, mpmath at two
precisions).

Run from the repository root: `python3 tests/honesty_test.py`."""
import csv
import math
import os
import unittest

import qxtest

HERE = os.path.dirname(os.path.abspath(__file__))


def load_refs():
    """The reference file's rows by name."""
    with open(os.path.join(HERE, "data", "cubature_honest_ref.csv"), newline="") as f:
        return {row["name"]: row for row in csv.DictReader(f)}


REFS = load_refs()


def runs(cmds):
    """Runs quadx --json -e CMDS (exit code 0 asserted by the caller); returns the run records
    and the process."""
    p = qxtest.commands(cmds, "--json", timeout=600)
    return [o for o in qxtest.json_lines(p.stdout) if o.get("type") == "run"], p


def setup(name, extra=""):
    """The commands that set up reference integral `name` in double with a repeat of 1."""
    r = REFS[name]
    return (f'use cubature; set repeat 1 warmup 0 precision double dim {r["dim"]} '
            f'integrand "{r["expression"]}" bounds {r["bounds"]} exact {r["exact"]} {extra}; ')


class FaceTest(unittest.TestCase):
    def check_honest(self, r, exact, what):
        """r converged, with a finite value whose true error is within its estimate."""
        self.assertTrue(math.isfinite(r["value"]), what)
        self.assertEqual(r["error"]["converged"], 1, f'{what}: {r["note"]}')
        self.assertEqual(r["note"], "converged (tolerance met)", what)
        self.assertEqual(r["nonfinite"], 0, what)
        self.assertLessEqual(abs(r["value"] - exact), r["error_estimate"], what)

    def test_singular_or_infinite_faces_converge(self):
        """Integrands that are inf or NaN on an outer face (log(x) at x = 0; inf * 0 where an
        infinite axis is mapped) converge on breadth with 1 and 2 threads, within their
        estimates: no rule point lies on a face."""
        cases = [("log_face", "rel 1e-6"), ("quadratic_form_plane", "rel 1e-6"),
                 ("odd_gaussian_r3", "rel 1e-6 abs 1e-9"), ("sqrt_product_5d", "rel 1e-4")]
        for name, tol in cases:
            got, p = runs(setup(name, f"{tol} maxeval 2e7") +
                          "set threads 1; run cpu; set threads 2; run cpu")
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(len(got), 2, p.stdout)
            for r in got:
                self.check_honest(r, float(REFS[name]["exact"]), f"{name} threads {r['threads']}")

    def test_interior_infinity_splits_its_region(self):
        """1/sqrt|x - 1/4| + y is inf at rule points on x = 1/4 (the first regions' centres):
        those samples are dropped, their regions split until x = 1/4 is only a face, and the
        run converges within its estimate, counting the dropped samples."""
        got, p = runs(setup("interior_cusp_2d", "rel 1e-5 maxeval 1e6") + "run cpu")
        self.assertEqual(p.returncode, 0, p.stderr)
        r = got[0]
        self.check_honest(r, float(REFS["interior_cusp_2d"]["exact"]), "interior cusp")
        self.assertGreater(r["error"]["nonfinite_samples"], 0)

    def test_nan_on_part_of_the_box_never_converges(self):
        """sqrt(x - 1/2) + y is NaN on half the box: the run ends not converged, says why in
        words, and gives no finite error estimate, on every thread count and at any tolerance."""
        got, p = runs('use cubature; set repeat 1 warmup 0 precision double dim 2 '
                      'integrand "sqrt(x-0.5)+y" bounds 0:1 rel 1e-2 maxeval 1e5; '
                      'run cpu; set threads 2; run cpu')
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(len(got), 2, p.stdout)
        for r in got:
            self.assertEqual(r["error"]["converged"], 0)
            self.assertIn("NaN or inf", r["note"])
            self.assertIn("error estimate is infinite", r["note"])
            self.assertIsNone(r["error_estimate"])  # inf has no JSON number
            self.assertGreater(r["error"]["nonfinite_samples"], 0)

    def test_nan_run_text_shows_the_infinite_estimate(self):
        """The text output shows the estimate as inf rather than leaving it out."""
        p = qxtest.commands('use cubature; set repeat 1 warmup 0 precision double dim 2 '
                            'integrand "sqrt(x-0.5)+y" bounds 0:1 maxeval 1e5; run cpu')
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("± inf (estimate)", p.stdout)
        self.assertIn("not converged: the integrand was NaN or inf", p.stdout)


class FloatTest(unittest.TestCase):
    def test_tolerance_below_float_is_not_converged(self):
        """In float at rel 1e-9 (below float's reach) the rounding takes the estimate over the
        tolerance: the run says not converged and why; its estimate still covers the true
        error. At rel 1e-5 the same integral converges within its estimate."""
        exact = float(REFS["kink_exp_1d"]["exact"])
        for dim_cmd in ("", 'set dim 2 integrand "abs(x-0.3)*exp(x)*(y+0.5)" bounds 0:1; '):
            got, p = runs(setup("kink_exp_1d", "precision float") + dim_cmd +
                          "set rel 1e-9; run cpu; set rel 1e-5; run cpu")
            self.assertEqual(p.returncode, 0, p.stderr)
            tight, loose = got
            self.assertEqual(tight["error"]["converged"], 0, dim_cmd)
            self.assertIn("below what the precision reaches", tight["note"])
            self.assertGreater(tight["error_estimate"], 1e-9 * abs(tight["value"]))
            self.assertLessEqual(abs(tight["value"] - exact), tight["error_estimate"])
            self.assertEqual(loose["error"]["converged"], 1, loose["note"])
            self.assertLessEqual(abs(loose["value"] - exact), loose["error_estimate"])

    def test_double_at_its_own_reach(self):
        """In double at rel 1e-17 no run can meet the tolerance: it never says converged."""
        got, p = runs(setup("kink_exp_1d", "rel 1e-17 maxeval 1e6") + "run cpu")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(got[0]["error"]["converged"], 0, got[0]["note"])


class HcubatureTest(unittest.TestCase):
    def test_estimate_is_named_unverified(self):
        """hcubature's converged run says its estimate is libcubature's own, unverified."""
        got, p = runs(setup("kink_exp_1d", "rel 1e-6 variant hcubature") + "run cpu")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(got[0]["error"]["converged"], 1)
        self.assertIn("libcubature's own error estimate (unverified", got[0]["note"])


if __name__ == "__main__":
    unittest.main()
