#!/usr/bin/env python3
"""GPU tests of honest answers on typed integrands that are not finite somewhere (the CPU's are
tests/honesty_test.py): the integrals singular or infinite on an outer face converge on breadth
and twophase, double and float, within their estimates; NaN on part of the box never converges
and says why; a float run never claims a tolerance below what float reaches, and its estimate
covers its true error on built-in families with exact values.

Run from the repository root: `python3 tests/honesty_gpu_test.py`. Without a usable GPU every
test is skipped, unless QUADX_REQUIRE_GPU=1, which makes that a failure."""
import math
import unittest

import qxtest
from honesty_test import REFS, setup

GPU = qxtest.gpu_or_exit("honesty_gpu_test")


@unittest.skipIf(GPU is None, "no usable GPU")
class HonestyGpuTest(unittest.TestCase):
    def runs(self, cmds):
        return qxtest.run_objects(self, cmds)

    def test_faces_converge(self):
        """The face cases on breadth and twophase, double and float: converged, finite, the
        true error within the estimate, no sample NaN."""
        # the integral that is 0 needs an absolute tolerance; float's samples round to
        # about 1e-7 of the integral of |f| (pi here)
        cases = [("log_face", "1e-6", "1e-4", ("", "")),
                 ("quadratic_form_plane", "1e-6", "1e-4", ("", "")),
                 ("odd_gaussian_r3", "1e-6", "1e-4", ("abs 1e-8", "abs 1e-4")),
                 ("sqrt_product_5d", "1e-4", "1e-3", ("", ""))]
        for name, rel_d, rel_f, extra in cases:
            exact = float(REFS[name]["exact"])
            for variant in ("breadth", "twophase"):
                for prec, rel, abs_tol in (("double", rel_d, extra[0]),
                                           ("float", rel_f, extra[1])):
                    what = (name, variant, prec)
                    r = self.runs(setup(name, f"maxeval 2e8 {abs_tol}") +
                                  f"set variant {variant} precision {prec} rel {rel}; "
                                  "run gpu")[0]
                    print(f"\n  {name:22} {variant:8} {prec:6} {r['value']:.12g} "
                          f"± {r['error_estimate']} (true {r['true_error']:.2g}) {r['note']}",
                          end="")
                    self.assertTrue(math.isfinite(r["value"]), what)
                    self.assertEqual(r["error"]["converged"], 1, (what, r["note"]))
                    self.assertEqual(r["nonfinite"], 0, what)
                    self.assertLessEqual(abs(r["value"] - exact), r["error_estimate"], what)

    def test_nan_never_converges(self):
        """NaN on half the box: breadth and twophase, double and float, end not converged with
        the reason in words, never with a finite error estimate."""
        for variant in ("breadth", "twophase"):
            for prec in ("double", "float"):
                r = self.runs('use cubature; set repeat 1 warmup 0 dim 2 '
                              'integrand "sqrt(x-0.5)+y" bounds 0:1 rel 1e-2 maxeval 1e6 '
                              f'variant {variant} precision {prec}; run gpu')[0]
                what = (variant, prec, r["note"])
                self.assertEqual(r["error"]["converged"], 0, what)
                self.assertIn("NaN or inf", r["note"], what)
                self.assertIsNone(r["error_estimate"], what)

    def test_float_below_its_reach(self):
        """Float at rel 1e-9 on the GPU: not converged, the note says the tolerance is below the
        precision's reach, the estimate covers the true error; at 1e-5 converged and within."""
        exact = float(REFS["kink_exp_1d"]["exact"])
        for variant in ("breadth", "twophase"):
            tight, loose = self.runs(setup("kink_exp_1d", f"precision float variant {variant}")
                                     + "set rel 1e-9; run gpu; set rel 1e-5; run gpu")
            self.assertEqual(tight["error"]["converged"], 0, (variant, tight["note"]))
            self.assertLessEqual(abs(tight["value"] - exact), tight["error_estimate"], variant)
            self.assertEqual(loose["error"]["converged"], 1, (variant, loose["note"]))
            self.assertLessEqual(abs(loose["value"] - exact), loose["error_estimate"], variant)

    def test_float_estimates_cover_known_integrals(self):
        """Float on the GPU over built-in families with exact values, at tolerances near float's
        reach: every estimate at or over its true error, converged or not."""
        for name, dim in (("f5", 5), ("gaussian", 4), ("c0", 3), ("productpeak", 3)):
            for variant in ("breadth", "twophase"):
                for rel in ("1e-5", "1e-6", "1e-7"):
                    r = self.runs(f"use cubature; set repeat 1 warmup 0 integrand {name} "
                                  f"dim {dim} precision float variant {variant} rel {rel} "
                                  "maxeval 1e8; run gpu")[0]
                    what = (name, dim, variant, rel, r["note"])
                    print(f"\n  {name:13} {variant:8} {rel} true {r['true_error']:.2g} "
                          f"est {r['error_estimate']:.2g} {r['note'][:30]}", end="")
                    self.assertLessEqual(r["true_error"], r["error_estimate"], what)


if __name__ == "__main__":
    unittest.main()
