#!/usr/bin/env python3
"""GPU tests of cubature's Monte Carlo variants vegas and qmc (the CPU's are tests/mc_test.py):
the GPU draws the CPU's Philox points, so its runs agree with the CPU's within their standard
errors, in double and float, on built-in and typed integrands; a fixed seed reproduces a GPU
run; dim 64 runs.

Run from the repository root: `python3 tests/mc_gpu_test.py`. Without a usable GPU every test
is skipped, unless QUADX_REQUIRE_GPU=1, which makes that a failure."""
import math
import unittest

import qxtest

GPU = qxtest.gpu_or_exit("mc_gpu_test")

CASES = ["set integrand gaussian dim 8", "set integrand oscillatory dim 20",
         "set integrand f4 dim 8", 'set integrand "exp(-(x1^2+x2^2+x3^2))" dim 3 '
         "bounds -inf:inf exact 5.568327996831708"]


@unittest.skipIf(GPU is None, "no usable GPU")
class McGpuTest(unittest.TestCase):
    def runs(self, cmds):
        return qxtest.run_objects(self, cmds)

    def test_cpu_and_gpu_agree(self):
        """Each case on vegas and qmc, double and float: the GPU's value within 6 combined
        standard errors of the CPU's (double: the same points, so far closer in practice), both
        with error_kind "standard error"."""
        for case in CASES:
            for variant in ("vegas", "qmc"):
                for prec in ("double", "float"):
                    cpu, gpu = self.runs(f"use cubature; set repeat 1 warmup 0 rel 1e-3 "
                                         f"maxeval 1e7 precision {prec} variant {variant}; "
                                         f"{case}; run cpu; run gpu")
                    what = (case, variant, prec)
                    sigma = math.hypot(cpu["error_estimate"], gpu["error_estimate"])
                    print(f"\n  {case[:40]:40} {variant:5} {prec:6} cpu {cpu['value']:.10g} "
                          f"gpu {gpu['value']:.10g} ± {sigma:.2g}", end="")
                    self.assertEqual(gpu["error_kind"], "standard error", what)
                    # the run is timed: its total holds its phases
                    phases = sum(v for k, v in gpu["time_ms"].items() if k != "total")
                    self.assertGreater(gpu["time_ms"]["total"], 0, what)
                    self.assertGreaterEqual(gpu["time_ms"]["total"], 0.999 * phases, what)
                    # its history: a chart point an iteration, the evaluations rising
                    digits, evals = gpu["chart"]["series"]
                    self.assertEqual(len(evals["y"]), min(gpu["error"]["iterations"], 128), what)
                    self.assertEqual(evals["y"], sorted(set(evals["y"])), what)
                    self.assertEqual(len(digits["y"]), len(evals["y"]), what)
                    self.assertLess(abs(cpu["value"] - gpu["value"]), 6 * sigma, what)
                    if math.isfinite(gpu.get("exact") or math.nan):
                        self.assertLess(abs(gpu["value"] - gpu["exact"]),
                                        6 * gpu["error_estimate"], what)

    def test_growing_runs_keep_their_values(self):
        """vegas runs of 1e4, 1e5 and 1e6 calls an iteration in one process, the host buffers
        growing between them, each followed by `values`: every run ends and its listed value
        is its own (a run that freed the buffer the session keeps its values in crashed
        here)."""
        cmds = "use cubature; set variant vegas repeat 2 warmup 1 rel 1e-12 integrand f4 dim 8"
        for calls in ("1e4", "1e5", "1e6"):
            cmds += f"; set calls {calls} maxeval {10 * float(calls):g}; run gpu; values"
        rc, out, err = qxtest.gpu_quadx(cmds)
        self.assertEqual(rc, 0, err)
        runs = [o for o in out if o.get("type") == "run"]
        values = [o for o in out if o.get("type") == "value"]
        self.assertEqual(len(runs), 3, out)
        self.assertEqual(len(values), 3, out)
        for run, value in zip(runs, values):
            self.assertEqual(value["value"], run["value"], run["params"]["calls"])
            self.assertTrue(math.isfinite(run["value"]), run)

    def test_seed_reproduces(self):
        """The same seed twice gives the same GPU value (to 1e-12: vegas's first iteration sums
        its bins with doubles' atomics, in any order); another seed another value."""
        for variant in ("vegas", "qmc"):
            a, b, c = self.runs("use cubature; set repeat 1 warmup 0 rel 1e-3 precision double "
                                f"integrand gaussian dim 10 variant {variant}; set seed 3; "
                                "run gpu; run gpu; set seed 4; run gpu")
            self.assertLessEqual(abs(a["value"] - b["value"]), 1e-12 * abs(a["value"]),
                                 variant)
            self.assertNotEqual(a["value"], c["value"], variant)

    def test_chart_has_evaluations_rising(self):
        """A GPU vegas and qmc run leave their convergence as the CPU's do: a chart (--json
        "chart") of a point per iteration (qmc: per doubling), the digits of the standard error
        as a line and log10 of the evaluations so far as bars, rising to the run's own work,
        and the digits within 0..16."""
        for variant, xlabel in (("vegas", "iteration"), ("qmc", "doubling")):
            r = self.runs("use cubature; set repeat 1 warmup 0 rel 1e-4 precision double "
                          f"integrand gaussian dim 8 variant {variant}; run gpu")[0]
            self.assertIn("chart", r, variant)
            chart = r["chart"]
            self.assertEqual(chart["xlabel"], xlabel, variant)
            digits, bars = chart["series"]
            self.assertEqual((digits["kind"], bars["kind"]), ("line", "bars"), variant)
            self.assertEqual(bars["name"], "log10 evaluations so far", variant)
            self.assertIn("std error", digits["name"], variant)
            self.assertGreaterEqual(len(bars["y"]), 2, variant)
            self.assertEqual(bars["x"], digits["x"], variant)
            self.assertTrue(all(b > a for a, b in zip(bars["y"], bars["y"][1:])), bars["y"])
            self.assertAlmostEqual(10 ** bars["y"][-1], r["work"], delta=1e-6 * r["work"])
            self.assertTrue(all(0 <= d <= 16 for d in digits["y"]), digits["y"])

    def test_dim_64(self):
        """dim 64 on the GPU, both variants, within 6 standard errors of the exact value."""
        for variant in ("vegas", "qmc"):
            r = self.runs("use cubature; set repeat 1 warmup 0 rel 1e-2 integrand gaussian "
                          f"dim 64 variant {variant}; run gpu")[0]
            self.assertLess(abs(r["value"] - r["exact"]), 6 * r["error_estimate"], variant)


if __name__ == "__main__":
    unittest.main(verbosity=2)
