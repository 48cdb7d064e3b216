#!/usr/bin/env python3
"""GPU tests for problem longman: both GPU variants against the exact values and the CPU, in
float and double, fast and precise math, all integrands, method auto on both sides of q = 1/3,
eval, and the device-limit errors.

Run from the repository root: `python3 tests/longman_gpu_test.py`. Without a usable GPU every
test is skipped, unless QUADX_REQUIRE_GPU=1, which makes that a failure."""
import unittest

import qxtest


quadx = qxtest.gpu_quadx


GPU = qxtest.gpu_or_exit("longman_gpu_test")


@unittest.skipIf(GPU is None, "no usable GPU")
class LongmanGpuTest(unittest.TestCase):
    def runs(self, cmds):
        return qxtest.run_objects(self, "use longman; " + cmds)

    def test_variants_match_exact(self):
        """packed and block, float and double, every integrand: error within the largest
        estimate plus rounding; in double no integral over its own estimate."""
        for f, ranges in (("cos", "lambda 0.05:3 omega 3:15 a 0.4"),
                          ("sin", "lambda 0.05:3 omega 3:15 a 1.1"),
                          ("j0", "lambda 0:2 omega 1:10 a 0")):
            for variant in ("packed", "block"):
                for prec, math, tol in (("double", "precise", 1e-12), ("float", "precise", 2e-5),
                                        ("float", "fast", 5e-4)):
                    r = self.runs(f"set integrand {f} {ranges} M 20000 variant {variant} "
                                  f"precision {prec} math {math} repeat 2 warmup 1; run gpu")[0]
                    print(f"\n  {f:3} {variant:6} {prec:6} {math:7} total "
                          f"{r['time_ms']['total']:.4f} ms max_abs {r['error']['max_abs']:.3g}",
                          end="")
                    self.assertLess(r["error"]["max_abs"], r["error"]["bound_max"] + tol,
                                    (f, variant, prec, math))
                    if prec == "double":
                        self.assertEqual(r["error"]["over_bound"], 0, r["error"])

    def test_gpu_equals_cpu(self):
        """GPU double agrees with the CPU double to 1e-13 on a random batch with method auto."""
        rc, out, err = quadx("use longman; set M 3000 spread random seed 5 lambda 0.01:4 "
                             "omega 0.5:20 precision double threads 4; eval 0.7 2.5")
        self.assertEqual(rc, 0, err)
        v = {(o["backend"], o["precision"]): o for o in out if o.get("type") == "eval"}
        self.assertLess(abs(v[("gpu", "double")]["value"] - v[("cpu", "double")]["value"]), 1e-14)
        self.assertLess(abs(v[("gpu", "float")]["value"] - v[("cpu", "float")]["value"]), 1e-6)
        r = self.runs("set M 3000 spread random seed 5 lambda 0.01:4 omega 0.5:20 "
                      "precision double threads 4; run cpu; run gpu")
        self.assertEqual(r[0]["error"]["euler"], r[1]["error"]["euler"])
        self.assertGreater(r[1]["error"]["direct"], 0)
        self.assertLess(abs(r[0]["error"]["max_abs"] - r[1]["error"]["max_abs"]), 1e-13)

    def test_lanes(self):
        """Every work split of the packed layout (lanes 1..32, shares that cut areas in the
        middle: N 8 g 13, N 16 g 10) agrees with the CPU: in double the same largest error
        to 1e-13 and the same count over the estimate; in float within the estimate."""
        for n, g in ((8, 13), (16, 10)):
            common = f"set M 5000 N {n} g {g} lambda 0.05:3 omega 3:15 a 0.4 repeat 1 warmup 0"
            cpu = self.runs(f"{common} precision double threads 4; run cpu")[0]["error"]
            for lanes in (1, 2, 4, 8, 16, 32):
                r = self.runs(f"{common} lanes {lanes} precision double; run gpu")[0]["error"]
                self.assertLess(abs(r["max_abs"] - cpu["max_abs"]), 1e-13, (n, g, lanes))
                self.assertEqual(r["over_bound"], cpu["over_bound"], (n, g, lanes))
                r = self.runs(f"{common} lanes {lanes} precision float; run gpu")[0]["error"]
                self.assertLess(r["max_abs"], r["bound_max"] + 2e-5, (n, g, lanes))

    def test_block_limit(self):
        """Variant block with an N whose table does not fit in shared memory is refused."""
        p = qxtest.commands("use longman; set variant block N 1000 precision double M 10; "
                            "run gpu", timeout=60)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("shared memory", p.stderr)

    def test_sweep_records_the_block_launched(self):
        """sweep variant block: packed rows launch and record the swept block, block-layout
        rows the N+1 threads rounded up to a warp that they launch (64 at N = 40, whatever
        the setting); set block best takes the best row's block."""
        rc, out, err = quadx("use longman; set M 3000 N 40 repeat 1 warmup 0; "
                             "sweep variant block 32,96,256; set block best; show params")
        self.assertEqual(rc, 0, err)
        rows = [o for o in out if o.get("type") == "sweep"]
        self.assertEqual(len(rows), 6, out)
        for r in rows:
            self.assertTrue(r["ok"], r)
            want = int(r["config"]["block"]) if r["config"]["variant"] == "packed" else 64
            self.assertEqual(r["block"], want, r)
        best = [r for r in rows if r["best"]][0]
        params = [o for o in out if o.get("type") == "params"][0]
        self.assertEqual(int(params["block"]), best["block"])

    def test_sizes(self):
        """The sizes of the Longman's-method study: M = 5e4 and 1e6 at N = 16 (timings printed,
        not asserted)."""
        for m, prec, math in ((50000, "float", "fast"), (50000, "float", "precise"),
                              (1000000, "float", "fast"), (1000000, "float", "precise"),
                              (1000000, "double", "precise")):
            for variant in ("packed", "block"):
                r = self.runs(f"set M {m} precision {prec} math {math} variant {variant} "
                              f"repeat 10 warmup 2; run gpu")[0]
                t = r["time_ms"]
                print(f"\n  M {m:8} {prec:6} {math:7} {variant:6} total {t['total']:.4f} "
                      f"(alloc {t['alloc']:.4f} kernel {t['kernel']:.4f} d2h {t['d2h']:.4f} "
                      f"free {t['free']:.4f}) max_abs {r['error']['max_abs']:.3g}", end="")


if __name__ == "__main__":
    unittest.main(verbosity=2)
