#!/usr/bin/env python3
"""GPU tests for problem cubature: breadth and twophase, float and double, against the exact
values and the CPU on several integrands, dims and tolerances (error estimate >= true error on
every row), a budget too small to converge (clean stop, reason 2) and a budget larger than the
device (refused before the run).

Run from the repository root: `python3 tests/cubature_gpu_test.py`. Without a usable GPU every
test is skipped, unless QUADX_REQUIRE_GPU=1, which makes that a failure."""
import re
import unittest

import qxtest


quadx = qxtest.gpu_quadx


GPU = qxtest.gpu_or_exit("cubature_gpu_test")


@unittest.skipIf(GPU is None, "no usable GPU")
class CubatureGpuTest(unittest.TestCase):
    def runs(self, cmds):
        return qxtest.run_objects(self, "use cubature; set repeat 1 warmup 0; " + cmds)

    def test_variants_honest(self):
        """Every GPU variant and precision on f4, f5, gaussian, cornerpeak, oscillatory in dims
        4..6 at 1e-3 and 1e-5: converged, the error estimate covers the true error, and the
        double value agrees with the CPU's within both estimates."""
        for f, dim in (("f4", 5), ("f5", 6), ("gaussian", 5), ("cornerpeak", 4),
                       ("oscillatory", 6)):
            for rel in ("1e-3", "1e-5"):
                cpu = self.runs(f"set integrand {f} dim {dim} rel {rel} precision double "
                                "threads 4; run cpu")[0]
                for variant in ("breadth", "twophase"):
                    for prec in ("double", "float"):
                        if prec == "float" and rel == "1e-5":
                            continue
                        r = self.runs(f"set integrand {f} dim {dim} rel {rel} variant "
                                      f"{variant} precision {prec}; run gpu")[0]
                        e = r["error"]
                        print(f"\n  {f:11} {dim} {rel} {variant:8} {prec:6} "
                              f"{r['time_ms']['total']:.3f} ms rel {e['max_rel']:.2g} "
                              f"evals {e['evaluations']:.3g}", end="")
                        self.assertEqual(r["over_estimate"], 0, (f, dim, rel, variant, prec))
                        if variant == "twophase" and not e["converged"]:
                            # the seed's algorithm may spend maxeval in phase 2 (measured on
                            # an H200: f4 dim 5 at 1e-5); it must then say so
                            self.assertTrue(r["note"].startswith("not converged: "), r)
                        else:
                            self.assertEqual(e["converged"], 1, (f, dim, rel, variant, prec, e))
                        self.assertLess(e["max_rel"], float(rel), (f, variant, prec))
                        if prec == "double":
                            self.assertLess(abs(e["max_abs"] - cpu["error"]["max_abs"]),
                                            2 * float(rel) * dim)

    def test_budget_stop(self):
        """A 1 MiB budget on f4 dim 6 at 1e-9 stops cleanly: not converged, reason 2 (budget),
        peak list within the budget, the estimate still honest."""
        r = self.runs("set integrand f4 dim 6 rel 1e-9 budget 1 precision double; run gpu")[0]
        self.assertEqual(r["error"]["converged"], 0)
        self.assertEqual(r["error"]["reason"], 2)
        self.assertLessEqual(r["error"]["peak_MiB"], 1.0)
        self.assertEqual(r["over_estimate"], 0)

    def test_tiny_budget_first_partition(self):
        """A budget of 0.01 MiB on f4 dim 8 (room for 31 regions) is under the 2^8 halves
        breadth starts from, and maxeval 5e5 under their evaluations and their split's: it
        starts from the whole box instead (the first iteration's live count is 1; before, the
        256 halves were written past the list's end, or with the maxeval evaluated and never
        checked), stops at the budget (reason 2) or maxeval (1) and stays honest."""
        for limit, reason in (("budget 0.01", 2), ("maxeval 5e5", 1)):
            r = self.runs(f"set integrand f4 dim 8 rel 1e-9 {limit} variant breadth "
                          "precision double; run gpu")[0]
            e, regions = r["error"], r["chart"]["series"][1]
            self.assertAlmostEqual(10 ** regions["y"][0], 1, delta=1e-6)
            self.assertGreater(e["iterations"], 1, e)
            self.assertEqual(e["converged"], 0, e)
            self.assertEqual(e["reason"], reason, e)
            self.assertEqual(r["over_estimate"], 0, e)
            if reason == 2:
                self.assertLessEqual(e["peak_MiB"], 0.01, e)

    def test_budget_holds_running_ahead(self):
        """Budgets that breadth runs ahead in and then outgrows: 1 MiB in dim 5 (room for
        about 4400 regions) and 12 MiB in dim 8 (about 38000, past running ahead's 16384, so
        that the host's parents' array joins running ahead's): the run hands over to the host,
        which then retires leaves or stops at the budget, and its peak memory, running ahead's
        arrays included, stays within the budget (12 MiB in dim 8 did not with 64 bytes a region
        beside the lists)."""
        for dim, rel, budget in ((5, "1e-7", 1), (8, "1e-9", 12)):
            r = self.runs(f"set integrand f4 dim {dim} rel {rel} budget {budget} maxeval 1e10 "
                          "variant breadth precision double; run gpu")[0]
            e = r["error"]
            self.assertLessEqual(e["peak_MiB"], budget, e)
            # the budget was reached: leaves retired (regions over 2 live - 2^dim) or it stopped
            self.assertTrue(e["reason"] == 2 or e["regions"] > 2 * e["live"] - 2 ** dim, e)
            self.assertLess(r["phase_counts"]["copies"], e["iterations"], r["phase_counts"])
            self.assertEqual(r["over_estimate"], 0, e)

    def test_budget_larger_than_device(self):
        """budget 1e9 MiB is refused before the run with the session's GPU memory error (the
        budget is device memory: the host check does not count it)."""
        rc, out, err = quadx("use cubature; set budget 1e9; run gpu")
        errors = [o for o in out if o.get("type") == "error"]
        self.assertEqual(len(errors), 1, (out, err))
        self.assertIn("GPU memory", errors[0]["error"])
        self.assertEqual([o for o in out if o.get("type") == "run"], [])

    def test_breadth_evaluates_each_region_once(self):
        """breadth keeps its leaves and evaluates only new ones: with nothing retired, a run
        from the 2^dim halves of the box evaluates 2^dim + 2 per split regions and keeps
        2^dim + 1 per split, so regions = 2 live - 2^dim (a list evaluated whole every
        iteration, as before, evaluates many times more); and f4 dim 5 at 1e-6, which stopped
        unconverged at 1e8 evaluations that way, converges within its tolerance."""
        for f, dim, rel in (("f5", 5, "1e-9"), ("f4", 5, "1e-6"), ("f4", 6, "1e-4")):
            r = self.runs(f"set integrand {f} dim {dim} rel {rel} variant breadth "
                          "precision double maxeval 1e9; run gpu")[0]
            e = r["error"]
            self.assertEqual(e["converged"], 1, (f, dim, rel, e))
            self.assertEqual(e["regions"], 2 * e["live"] - 2 ** dim, (f, dim, rel, e))
            self.assertLess(e["max_rel"], float(rel), (f, dim, rel, e))
            self.assertEqual(r["over_estimate"], 0, (f, dim, rel))

    def test_breadth_init(self):
        """init sets breadth's first partition: f5 dim 8 at 1e-6 with init 3 evaluates the
        3^8 regions and their split once (regions = 3 * 3^8, evaluations = regions * 1121
        points, two iterations; the default's 2^8 halves need 11), converged and honest, the
        first chart point 3^8 regions; init 4 (4^8 regions, past running ahead's room, so
        the host's path from the start) converges with 3 * 4^8; init 1 starts from the whole
        box. An init whose regions
        and split would pass maxeval (init 4 in dim 8 with maxeval 1e8) or the budget (init 3
        with budget 1 MiB) is refused before the run with one error naming it, and the session
        goes on (the next run, from the default start in dim 5, converges)."""
        r = self.runs("set integrand f5 dim 8 rel 1e-6 variant breadth precision double "
                      "init 3; run gpu")[0]
        e = r["error"]
        self.assertEqual(e["converged"], 1, e)
        self.assertEqual(e["regions"], 3 * 3 ** 8, e)
        self.assertEqual(e["evaluations"], 3 * 3 ** 8 * 1121, e)
        self.assertEqual(e["iterations"], 2, e)
        self.assertAlmostEqual(10 ** r["chart"]["series"][1]["y"][0], 3 ** 8, delta=0.01)
        self.assertLess(e["max_rel"], 1e-6, e)
        self.assertEqual(r["over_estimate"], 0, e)
        # 4^8 regions: past running ahead's 16384, the host's path from the first iteration
        r = self.runs("set integrand f5 dim 8 rel 1e-6 variant breadth precision double "
                      "init 4 maxeval 3e8; run gpu")[0]
        self.assertEqual(r["error"]["converged"], 1, r["error"])
        self.assertEqual(r["error"]["regions"], 3 * 4 ** 8, r["error"])
        self.assertEqual(r["over_estimate"], 0, r["error"])
        r = self.runs("set integrand f4 dim 5 rel 1e-4 variant breadth precision double "
                      "init 1 maxeval 1e8; run gpu")[0]
        self.assertAlmostEqual(10 ** r["chart"]["series"][1]["y"][0], 1, delta=1e-6)
        self.assertEqual(r["error"]["converged"], 1, r["error"])
        for setting, word in (("init 4", "maxeval is 100000000"), ("init 3 budget 1", "budget")):
            p = qxtest.commands("use cubature; set repeat 1 warmup 0 integrand f5 dim 8 "
                                f"rel 1e-6 precision double {setting}; run gpu; "
                                "set init 0 budget 0 dim 5; run gpu",
                                "--json", "--keep-going")
            self.assertEqual(p.returncode, 1, p.stderr)
            out = qxtest.json_lines(p.stdout)
            errors = [o for o in out if o.get("type") == "error"]
            self.assertEqual(len(errors), 1, (out, p.stderr))
            self.assertIn(f"init {setting.split()[1]}: ", errors[0]["error"])
            self.assertIn(word, errors[0]["error"])
            runs = [o for o in out if o.get("type") == "run"]
            self.assertEqual(len(runs), 1, out)
            self.assertEqual(runs[0]["error"]["converged"], 1, runs[0])

    def test_breadth_runs_ahead(self):
        """While its list is small, breadth queues its iterations a batch at a time and the
        host waits once per batch (its copies), not once per iteration: f4 dim 5 at 1e-3
        (about 16 iterations, under 6000 live regions) converges with fewer copies than half
        its iterations, every iteration's rules, classification and split timed once; at
        1e-6 (2e5 live regions) the host goes on from where the device hands over, and the
        run still evaluates each region once and converges honestly."""
        r = self.runs("set integrand f4 dim 5 rel 1e-3 variant breadth precision double; "
                      "run gpu")[0]
        e, counts = r["error"], r["phase_counts"]
        self.assertEqual(e["converged"], 1, e)
        self.assertGreaterEqual(e["iterations"], 8, e)
        self.assertEqual(counts["rules"], e["iterations"], counts)
        self.assertEqual(counts["classify"], e["iterations"], counts)
        self.assertEqual(counts["split"], e["iterations"] - 1, counts)
        self.assertLess(counts["copies"], e["iterations"] / 2, counts)
        self.assertEqual(e["regions"], 2 * e["live"] - 2 ** 5, e)
        r = self.runs("set integrand f4 dim 5 rel 1e-6 variant breadth precision double "
                      "maxeval 1e9; "
                      "run gpu")[0]
        e, counts = r["error"], r["phase_counts"]
        self.assertEqual(counts["rules"], e["iterations"], counts)
        self.assertEqual(e["converged"], 1, e)
        self.assertLess(counts["copies"], e["iterations"], counts)
        self.assertGreater(e["live"], 16384, e)
        self.assertEqual(e["regions"], 2 * e["live"] - 2 ** 5, e)
        self.assertEqual(r["over_estimate"], 0, e)

    def test_f2_no_false_convergence(self):
        """f2 in dim 8 (cos of a product of cosines up to cos(4^8 x), which no rule resolves)
        at 1e-3, where a first region's estimate looks converged with a true error over both
        the tolerance and the estimate: breadth must not claim a convergence its true error
        does not meet, nor report an estimate under its true error."""
        r = self.runs("set integrand f2 dim 8 rel 1e-3 variant breadth precision double "
                      "maxeval 1e8; run gpu")[0]
        e = r["error"]
        if e["converged"]:
            self.assertLess(e["max_rel"], 1e-3, e)
        self.assertEqual(r["over_estimate"], 0, e)
        self.assertGreater(e["evaluations"], 1e4, e)

    def test_cos_range(self):
        """f5 on boxes either side of the launch's range check: cosine arguments up to 9.99e4
        (within CUB_COS_LIMIT: the kernels made for f5, no fallback) and 2e5 (past it: the
        general kernel, whose integrand keeps the fallback to the C library's cos), double,
        CPU and GPU: each converges at 1e-7 with the true error under the tolerance and the
        estimate. This covers both launch paths; it cannot tell a missing fallback from a
        working one (the reduction is still exact at 2e5, and past ~1e7 double's own rounding
        of the points swamps the tolerance): test_trig_reference checks the fallback's values."""
        for a, b in (("9990", "9991"), ("19999", "20000")):
            for backend in ("cpu", "gpu"):
                r = self.runs(f"set integrand f5 dim 6 a {a} b {b} rel 1e-7 variant breadth "
                              f"precision double threads 4; run {backend}")[0]
                e = r["error"]
                self.assertEqual(e["converged"], 1, (a, backend, e))
                self.assertLess(e["max_rel"], 1e-7, (a, backend, e))
                self.assertEqual(r["over_estimate"], 0, (a, backend, e))

    def test_twophase_phases(self):
        """twophase on f4 dim 5 at 1e-4 goes through phase 2 (its phase is timed), meets the
        tolerance and its estimate covers the true error (converged, or the note says why not:
        phase 2 can spend maxeval); with maxeval just above phase 1's work it stops with the
        note in text and JSON."""
        r = self.runs("set integrand f4 dim 5 rel 1e-4 variant twophase precision double; "
                      "run gpu")[0]
        self.assertTrue(r["error"]["converged"] == 1 or
                        r["note"].startswith("not converged: "), r)
        self.assertLess(r["error"]["max_rel"], 1e-4, r)
        self.assertEqual(r["over_estimate"], 0, r)
        self.assertIn("phase2", r["time_ms"])
        r = self.runs("set integrand f4 dim 6 rel 1e-9 variant twophase maxeval 3e6 "
                      "precision double; run gpu")[0]
        self.assertEqual(r["error"]["converged"], 0, r)
        self.assertEqual(r["note"], "not converged: maxeval reached")
        self.assertLessEqual(r["error"]["evaluations"], 3e6)
        self.assertEqual(r["over_estimate"], 0, r)
        p = qxtest.commands("use cubature; set repeat 1 warmup 0 integrand f4 dim 6 rel 1e-9 "
                            "variant breadth maxeval 1e6; run gpu")
        self.assertIn("note       not converged: maxeval reached", p.stdout)

    def test_convergence_chart(self):
        """A GPU run leaves its convergence as a chart: per iteration the digits its error
        estimate claims (a line, the last one those of the run's own estimate) and log10 of
        the live regions (bars; breadth's first the box's 2^dim halves, its last the run's live
        count), one point per iteration."""
        for variant in ("breadth", "twophase"):
            r = self.runs(f"set integrand f4 dim 5 rel 1e-4 precision double variant {variant}; "
                          "run gpu")[0]
            chart, e = r["chart"], r["error"]
            digits, regions = chart["series"]
            self.assertEqual((digits["kind"], regions["kind"]), ("line", "bars"))
            self.assertEqual(len(digits["x"]), e["iterations"], variant)
            self.assertEqual(digits["x"], list(range(1, len(digits["x"]) + 1)))
            self.assertEqual(digits["x"], regions["x"])
            if variant == "breadth":
                self.assertAlmostEqual(10 ** regions["y"][0], 2 ** 5, delta=1e-6)
                self.assertAlmostEqual(10 ** regions["y"][-1], e["live"], delta=0.5)
                if e["converged"]:  # its estimate within 1e-4 of the value: 4 digits
                    self.assertGreaterEqual(digits["y"][-1], 4 - 1e-9, digits)
            self.assertTrue(all(y >= 0 for y in digits["y"] + regions["y"]))

@unittest.skipIf(GPU is None, "no usable GPU")
class CubatureGpuPromptTest(qxtest.TmuxTestCase):
    TMUX_NAME = "cubature-gpu-prompt"

    def test_gpu_run_shows_its_error_and_cancel_key(self):
        """At the prompt a long adaptive GPU run shows, as the CPU's does, its error estimate
        against where it stops, its evaluations so far and the cancel key, from the host loop's
        iterations; Ctrl-C cancels it and the line goes. f3 in dim 8 to 1e-14 does not converge
        before breadth's lists reach their limit: seconds of iterations on any GPU."""
        self.start_quadx()
        self.tmux.screen("quadx expint/float> ")
        self.tmux.keys("use cubature; set integrand f3 dim 8 rel 1e-14 precision double "
                       "maxeval 1e15 warmup 0 repeat 1 variant breadth; run gpu", "Enter")
        line = re.compile(r"(?m)^gpu error ([0-9.e+-]+), stops at ([0-9.e+-]+)  (\d+) "
                          r"evaluations  Ctrl-C cancels")
        m = line.search(self.tmux.screen(line, timeout=120).string)
        self.assertGreater(float(m.group(1)), float(m.group(2)))  # not converged yet
        self.assertGreater(int(m.group(3)), 0)
        self.tmux.keys("C-c")
        text = self.tmux.screen(re.compile(r"(?m)^quadx: run cancelled\nquadx cubature/double>"
                                           r"\s*\Z"), timeout=120).string
        self.assertNotIn("Ctrl-C cancels", text)  # the progress line was erased


if __name__ == "__main__":
    unittest.main()
