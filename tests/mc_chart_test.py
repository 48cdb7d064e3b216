#!/usr/bin/env python3
"""The convergence history of cubature's Monte Carlo variants on the CPU: a vegas or qmc run
leaves its chart in --json (the dashboard's Chart panel reads the same), a point an iteration
(vegas's warm-up ones included, qmc's levels): the digits its standard error claims, and the
evaluations spent so far, rising, ending at the run's own figures. A rule variant on the CPU
(the queue) leaves its chart too, with its live regions as bars.

Run from the repository root: `python3 tests/mc_chart_test.py`."""
import math
import unittest

import qxtest


class McChartTest(unittest.TestCase):
    def test_vegas_and_qmc_charts(self):
        runs = qxtest.run_objects(self, "use cubature; set repeat 1 warmup 0 precision double "
                                  "integrand f4 dim 8 rel 1e-3 variant vegas calls 10000 "
                                  "adapt 3; run cpu; set variant qmc; run cpu")
        self.assertEqual(len(runs), 2)
        for r in runs:
            digits, evals = r["chart"]["series"]
            self.assertIn("evaluations", evals["name"])
            n = len(digits["y"])
            self.assertEqual(n, len(evals["y"]))
            self.assertEqual(n, r["error"]["iterations"], r["variant"])
            counts = [10 ** y for y in evals["y"]]
            self.assertTrue(all(b > a for a, b in zip(counts, counts[1:])), counts)
            self.assertAlmostEqual(counts[-1], r["error"]["evaluations"],
                                   delta=1e-6 * counts[-1])
            last = -math.log10(r["error_estimate"] / abs(r["value"]))
            self.assertAlmostEqual(digits["y"][-1], last, places=6, msg=r["variant"])
        vegas = runs[0]
        self.assertAlmostEqual(10 ** vegas["chart"]["series"][1]["y"][0],
                               vegas["work"] / vegas["error"]["iterations"], delta=1)

    def test_rules_on_the_cpu_chart_live_regions(self):
        (r,) = qxtest.run_objects(self, "use cubature; set repeat 1 warmup 0 integrand f4 dim 3 "
                                  "rel 1e-4 variant breadth; run cpu")
        digits, regions = r["chart"]["series"]
        self.assertEqual(regions["name"], "log10 live regions")
        self.assertEqual(digits["x"][-1], r["error"]["iterations"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
