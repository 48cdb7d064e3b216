#!/usr/bin/env python3
"""Script tests for problem cubature (CPU): a run reports estimate, honest error estimate and
the figures; each bad input gets one clear error; a run that
cannot converge within maxeval reports converged 0 and reason 1.

Run from the repository root: `python3 tests/cubature_test.py`."""
import unittest

import qxtest


def quadx(cmds, timeout=300):
    """Runs quadx --json -e CMDS; returns (exit code, parsed stdout lines, stderr)."""
    p = qxtest.commands(cmds, "--json", timeout=timeout)
    return p.returncode, qxtest.json_lines(p.stdout), p.stderr


class CubatureTest(unittest.TestCase):
    def test_run_honest(self):
        """f5 dim 6 and a Gaussian: converged, true error under the estimate, figures there."""
        for f in ("f5", "gaussian"):
            rc, out, err = quadx(f"use cubature; set integrand {f} dim 6 rel 1e-6 precision "
                                 "double repeat 1 warmup 0 threads 1; run cpu")
            self.assertEqual(rc, 0, err)
            r = [o for o in out if o.get("type") == "run"][0]
            self.assertEqual(r["over_estimate"], 0, r)
            self.assertEqual(r["error"]["converged"], 1)
            self.assertEqual(r["error"]["reason"], 0)
            self.assertLess(r["error"]["max_rel"], 1e-6)
            self.assertGreater(r["work"], 0)
            self.assertEqual(r["work"], r["error"]["evaluations"])

    def test_maxeval_stops(self):
        """maxeval 5000 on f4 dim 6 at 1e-9: not converged, reason maxeval, estimate honest."""
        rc, out, err = quadx("use cubature; set integrand f4 dim 6 rel 1e-9 maxeval 5000 "
                             "precision double repeat 1 warmup 0; run cpu")
        self.assertEqual(rc, 0, err)
        r = [o for o in out if o.get("type") == "run"][0]
        self.assertEqual(r["error"]["converged"], 0)
        self.assertEqual(r["error"]["reason"], 1)
        self.assertLessEqual(r["error"]["evaluations"], 5000)
        self.assertEqual(r["over_estimate"], 0)

    def test_aliasing_not_converged(self):
        """f2 dim 8 at 1e-3 on the CPU (serial and 4 threads): the whole box's rule aliases f2's
        factor cos(2^16 x_8) to a tiny error; the run must not claim a convergence its true
        error does not meet, nor report an estimate under it (it claimed convergence after
        1.1e3 evaluations with a true error of 1.4e-3, over its estimate)."""
        for threads in (1, 4):
            rc, out, err = quadx("use cubature; set integrand f2 dim 8 rel 1e-3 maxeval 2e6 "
                                 f"precision double repeat 1 warmup 0 threads {threads}; run cpu")
            self.assertEqual(rc, 0, err)
            r = [o for o in out if o.get("type") == "run"][0]
            self.assertEqual(r["over_estimate"], 0, r)
            if r["error"]["converged"]:
                self.assertLess(r["error"]["max_rel"], 1e-3, r)
            self.assertGreater(r["error"]["evaluations"], 1e4, r)

    def test_tiny_budget_starts_whole(self):
        """A budget of 0.01 MiB (37 regions) is under the split 2^8 halves the queue starts
        from in dim 8, and maxeval 5e5 under their evaluations and their split's (3 x 2.7e5):
        the run starts from the whole box instead (the budget was refused; with the maxeval it
        stopped before any split, its estimates unchecked), one region and two children per
        iteration on one thread, stays honest, and stops at the budget (reason 2) with its peak
        within it; a budget under what one split needs is still one clear error."""
        for threads, limit in ((1, "budget 0.01"), (2, "budget 0.01"), (1, "maxeval 5e5")):
            rc, out, err = quadx("use cubature; set integrand f4 dim 8 rel 1e-9 "
                                 f"{limit} precision double repeat 1 warmup 0 "
                                 f"threads {threads}; run cpu")
            self.assertEqual(rc, 0, err)
            r = [o for o in out if o.get("type") == "run"][0]
            e = r["error"]
            self.assertEqual(r["over_estimate"], 0, r)
            self.assertGreater(e["iterations"], 1, r)
            if threads == 1:
                self.assertEqual(e["regions"], 1 + 2 * e["iterations"], r)
            if limit.startswith("budget"):
                self.assertEqual(e["reason"], 2, r)
                self.assertLessEqual(e["peak_MiB"], 0.01, r)
            else:
                self.assertEqual(e["reason"], 1, r)
        rc, out, err = quadx("use cubature; set integrand f4 dim 8 budget 0.0001 repeat 1 "
                             "warmup 0; run cpu")
        errors = [o for o in out if o.get("type") == "error"]
        self.assertEqual(len(errors), 1, (out, err))
        self.assertIn("budget 0.0001 MiB holds fewer than", errors[0]["error"])
        self.assertEqual([o for o in out if o.get("type") == "run"], [])

    def test_bad_input(self):
        """Each bad value: one error naming what is allowed (a script stops there)."""
        for cmd, words in (("set dim 0", "dim"), ("set dim 65", "dim"),
                           ("set dim 17\nrun cpu", "vegas and qmc take dim 1..64"),
                           ("set rel 0", "rel"), ("set rel 1", "rel"),
                           ("set maxeval 0", "maxeval"), ("set integrand f9", "integrand"),
                           ("set a 2", "a < b")):
            p = qxtest.script(f"use cubature\n{cmd}\nshow params\n", "--json")
            out = qxtest.json_lines(p.stdout)
            errors = [o for o in out if o.get("type") == "error"]
            self.assertEqual(len(errors), 1, (cmd, out, p.stderr))
            self.assertIn(words, errors[0]["error"], cmd)

    def test_eval(self):
        """eval of f5 at the origin in dim 2: (1/(2 beta)) * 2 = 1/beta; the exact integral."""
        rc, out, err = quadx("use cubature; set integrand f5 dim 2; eval 0 0")
        self.assertEqual(rc, 0, err)
        ev = [o for o in out if o.get("type") == "eval" and o["precision"] == "double"][0]
        self.assertAlmostEqual(ev["value"], 10 / -0.5440211108893698, places=12)
        self.assertAlmostEqual(ev["integral"], 1.0, places=13)

    def test_eval_counts_coordinates(self):
        """eval takes exactly dim coordinates: 1 or 3 of them in dim 2 is one error naming
        dim; a run that fails to converge prints its note in text output."""
        for args in ("0.5", "0.5 0.5 0.5"):
            p = qxtest.script(f"use cubature\nset dim 2\neval {args}\n", "--json")
            errors = [o for o in qxtest.json_lines(p.stdout) if o.get("type") == "error"]
            self.assertEqual(len(errors), 1, (args, p.stdout, p.stderr))
            self.assertIn("dim = 2 coordinates", errors[0]["error"])
        p = qxtest.commands("use cubature; set integrand f4 dim 6 rel 1e-9 maxeval 5000 "
                            "repeat 1 warmup 0; run cpu")
        self.assertIn("note       not converged: maxeval reached", p.stdout)
        rc, out, err = quadx("use cubature; set integrand f4 dim 6 rel 1e-9 maxeval 5000 "
                             "repeat 1 warmup 0; run cpu")
        r = [o for o in out if o.get("type") == "run"][0]
        self.assertEqual(r["note"], "not converged: maxeval reached")

    def test_sweep_cpu(self):
        """A CPU sweep over dim and integrand runs every point, each within its tolerance."""
        rc, out, err = quadx("use cubature; set rel 1e-4 repeat 1 warmup 0 threads 2; "
                             "sweep dim 3,4 integrand f5,gaussian on cpu")
        self.assertEqual(rc, 0, err)
        rows = [o for o in out if o.get("type") == "sweep"]
        self.assertEqual(sorted((r["config"]["dim"], r["config"]["integrand"]) for r in rows),
                         [(3, "f5"), (3, "gaussian"), (4, "f5"), (4, "gaussian")])
        for r in rows:
            self.assertTrue(r["ok"], r)
            self.assertLess(r["max_rel"], 1e-4, r)

    def test_answer_shown(self):
        """Every run shows its value and its own estimate; with an exact value its true error
        against the run's tolerance, without one "no exact value" and no error of 0."""
        base = ("use cubature; set integrand f4 dim 4 rel 1e-3 precision double repeat 1 "
                "warmup 0 threads 1; ")
        rc, out, err = quadx(base + "run cpu; set a 0 b 0.5; run cpu; errors")
        self.assertEqual(rc, 0, err)
        exact, boxed = [o for o in out if o.get("type") == "run"]
        self.assertAlmostEqual(exact["value"], 0.0999091341286321, delta=1e-4)
        self.assertEqual(exact["exact"], 0.0999091341286321)
        self.assertGreater(exact["error_estimate"], 0)
        self.assertLessEqual(exact["true_error"], exact["error_estimate"])
        self.assertEqual(exact["tolerance"], 1e-3)
        self.assertEqual(exact["error"]["threshold"], 1e-3)  # the run's own, not 1e-5
        self.assertEqual(exact["error"]["over_threshold"], 0)
        self.assertIsNone(boxed["exact"])
        self.assertIsNone(boxed["error"]["max_rel"])  # nothing compared: no error of 0
        self.assertIsNone(boxed["error"]["over_threshold"])  # nor 0 values over
        self.assertEqual(boxed["compared"], 0)
        self.assertGreater(boxed["value"], 0)
        note = [o for o in out if o.get("type") == "errors"]
        self.assertEqual(len(note), 1, out)
        self.assertEqual(note[0]["compared"], 0)
        self.assertIn("no exact value", note[0]["note"])
        p = qxtest.commands(base + "run cpu; set a 0 b 0.5; run cpu; set variant hcubature; run cpu")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stdout, r"value +0\.0999\d+ ± [0-9.e+-]+ \(estimate\)")
        self.assertRegex(p.stdout, r"error +true [0-9.e+-]+ \(rel [0-9.e+-]+\) vs exact value")
        self.assertIn("within the tolerance rel 0.001", p.stdout)
        self.assertIn("no exact value for these parameters", p.stdout)
        self.assertIn("converged (tolerance met)", p.stdout)
        self.assertNotIn("0 of 0", p.stdout)
        self.assertNotIn("reason", p.stdout)
        self.assertRegex(p.stdout, r"evaluations \d+\b")  # a count, every digit
        hc = p.stdout[p.stdout.rindex("variant hcubature"):]
        self.assertNotIn("regions", hc)  # hcubature does not say: nothing shown, not 0
        self.assertNotIn("peak", hc)

    def test_answer_csv(self):
        """CSV rows have the value and the estimate as columns."""
        p = qxtest.commands("use cubature; set integrand f5 dim 3 rel 1e-4 repeat 1 warmup 0; "
                            "format csv; run cpu")
        self.assertEqual(p.returncode, 0, p.stderr)
        header, row = p.stdout.splitlines()[:2]
        fields = dict(zip(header.split(","), row.split(",")))
        self.assertGreater(float(fields["value"]), 0)
        self.assertGreater(float(fields["error_estimate"]), 0)


if __name__ == "__main__":
    unittest.main()
