#!/usr/bin/env python3
"""Script tests of a run's convergence on the CPU, every script through quadx's stdin: the
--json chart of a breadth, vegas and qmc run (digits as a line, live regions or evaluations as
bars), `sweep variant breadth,vegas,qmc` as a comparison (value, estimate, true error,
evaluations and time a row; the fastest converged row best) and `plot convergence`'s data
(a block a run, its evaluations rising to the run's work, the reference slopes N^-1/2 and
N^-1), after a sweep, after a run, and its refusals.

Run from the repository root: `python3 tests/convergence_test.py`."""
import math
import os
import re
import shutil
import unittest

import qxtest

SETUP = ("use cubature; set integrand f4 dim 3 rel 1e-3 precision double repeat 1 warmup 0 "
         "calls 2000 adapt 2 iters 3\n")
HAVE_GNUPLOT = shutil.which("gnuplot") is not None


def script(text, *args, **kw):
    """quadx [args] with text on stdin; it must exit 0. Returns the CompletedProcess."""
    p = qxtest.script(text, *args, **kw)
    assert p.returncode == 0, p.stderr
    return p


def objects(text, kind):
    """The --json objects of type kind that the script printed."""
    return [o for o in qxtest.json_lines(script(text, "--json").stdout) if o["type"] == kind]


def blocks(dat):
    """A gnuplot data file's blocks as (name, rows of floats)."""
    out = []
    for block in dat.strip().split("\n\n\n"):
        lines = block.strip().splitlines()
        rows = [[float(w) for w in l.split()] for l in lines if not l.startswith("#")]
        out.append((lines[0][2:], rows))
    return out


class ChartTest(unittest.TestCase):
    def test_json_chart_of_each_cpu_variant(self):
        """breadth: a point an iteration, log10 live regions as bars, its last x the run's
        iterations; vegas (a point an iteration) and qmc (a point a doubling): log10
        evaluations as bars, rising to the run's work; the digits within 0..16. hcubature
        keeps its iterations to itself: no chart."""
        runs = objects(SETUP + "run cpu\nset variant vegas\nrun cpu\nset variant qmc rel 1e-6\n"
                       "run cpu\nset variant hcubature\nrun cpu\n", "run")
        self.assertGreaterEqual(len(runs[2]["chart"]["series"][0]["x"]), 3)  # doublings
        self.assertEqual([r["variant"] for r in runs], ["breadth", "vegas", "qmc", "hcubature"])
        for r, xlabel, bar in ((runs[0], "iteration", "log10 live regions"),
                               (runs[1], "iteration", "log10 evaluations so far"),
                               (runs[2], "doubling", "log10 evaluations so far")):
            with self.subTest(variant=r["variant"]):
                chart = r["chart"]
                self.assertEqual(chart["xlabel"], xlabel)
                digits, bars = chart["series"]
                self.assertEqual((digits["kind"], bars["kind"]), ("line", "bars"))
                self.assertEqual(bars["name"], bar)
                self.assertEqual(digits["x"], bars["x"])
                self.assertTrue(all(b > a for a, b in zip(bars["x"], bars["x"][1:])))
                self.assertTrue(all(0 <= d <= 16 for d in digits["y"]))
                self.assertEqual(bars["x"][-1], r["error"]["iterations"])
                if bar == "log10 evaluations so far":
                    self.assertTrue(all(b > a for a, b in zip(bars["y"], bars["y"][1:])))
                    self.assertAlmostEqual(10 ** bars["y"][-1], r["work"],
                                           delta=1e-9 * r["work"])
                    # the last point is the run's answer: its digits the run's estimate's
                    want = -math.log10(r["error_estimate"] / abs(r["value"]))
                    self.assertAlmostEqual(digits["y"][-1], want, places=6)
                else:  # the queue splits one region an iteration: one more live each
                    self.assertAlmostEqual(10 ** bars["y"][-1], r["error"]["live"], places=6)
        self.assertNotIn("chart", runs[3])
        self.assertIn("std error", runs[1]["chart"]["series"][0]["name"])
        self.assertIn("vegas", runs[1]["chart"]["title"])

    def test_long_run_keeps_its_start_and_end(self):
        """A queue run of thousands of iterations keeps at most 128 points: its first 32
        iterations, then points evenly spread, and its last iteration."""
        r = objects(SETUP + "set rel 1e-7\nrun cpu\n", "run")[0]
        x = r["chart"]["series"][0]["x"]
        self.assertGreater(r["error"]["iterations"], 256)
        self.assertLessEqual(len(x), 128)
        self.assertGreaterEqual(len(x), 64)
        self.assertEqual(x[:32], list(range(1, 33)))
        self.assertEqual(x[-1], r["error"]["iterations"])
        steps = {b - a for a, b in zip(x[32:-2], x[33:-1])}
        self.assertEqual(len(steps), 1, steps)  # one stride, the last point apart


class SweepVariantsTest(unittest.TestCase):
    def test_sweep_compares_variants(self):
        """sweep variant breadth,vegas,qmc on cpu: a row a variant with value, error estimate,
        true error, work (evaluations) and time; the best row is the fastest that converged
        (its true error within the tolerance); the table has an evaluations column."""
        text = SETUP + "sweep variant breadth,vegas,qmc on cpu\n"
        rows = objects(text, "sweep")
        self.assertEqual([r["config"]["variant"] for r in rows], ["breadth", "vegas", "qmc"])
        for r in rows:
            self.assertTrue(r["ok"])
            for key in ("value", "error_estimate", "true_error", "work", "exact"):
                self.assertIsInstance(r[key], float if key != "work" else (int, float), key)
            self.assertGreater(r["work"], 0)
            self.assertGreater(r["time_ms"]["total"], 0)
        self.assertEqual(sum(r["best"] for r in rows), 1)
        # the fastest that converged with its true error within the tolerance (a standard
        # error may have a true error past it), else the fastest
        conv = [r for r in rows if r["converged"] and r["over_threshold"] == 0] or rows
        best = min(conv, key=lambda r: r["time_ms"]["total"])
        self.assertTrue(best["best"])
        out = script(text).stdout
        header = next(l for l in out.splitlines() if "variant" in l and "value" in l)
        self.assertIn("evaluations", header.split())
        csv = script("format csv\n" + text).stdout.splitlines()
        self.assertIn("work", csv[0].split(","))

    def test_sweep_of_words_without_answers_keeps_throughput(self):
        """A sweep of runs of many values (expint) still marks the highest throughput."""
        rows = objects("set n 20 m 100 repeat 1 warmup 0\nsweep variant fast,coursework on "
                       "cpu\n", "sweep")
        best = max((r for r in rows if r["ok"]), key=lambda r: r["work_per_s"])
        self.assertTrue(best["best"])
        self.assertNotIn("work", rows[0])


class PlotConvergenceTest(qxtest.TempDirCase):
    def plot_data(self, text):
        """Runs text then `plot convergence DIR/c.png` without gnuplot on the PATH; returns
        the data file's blocks and the script's text."""
        png = os.path.join(self.tmp, "c.png")
        p = script(text + f"plot convergence {png}\n", env={"PATH": self.tmp})
        self.assertIn("gnuplot is not installed", p.stdout)
        with open(os.path.join(self.tmp, "c.dat")) as f:
            dat = f.read()
        with open(os.path.join(self.tmp, "c.gp")) as f:
            gp = f.read()
        return blocks(dat), gp

    def check_references(self, bl, lines):
        """The two reference blocks after the lines: slopes -1/2 and -1 on log-log axes, from
        the fewest evaluations at the largest first error estimate."""
        self.assertEqual([b[0] for b in bl[lines:]], ["reference N^-1/2", "reference N^-1"])
        first = min(r[0] for _, rows in bl[:lines] for r in rows)
        last = max(r[0] for _, rows in bl[:lines] for r in rows)
        for (name, rows), slope in zip(bl[lines:], (-0.5, -1)):
            (n0, e0), (n1, e1) = rows
            self.assertEqual((n0, n1), (first, last), name)
            self.assertAlmostEqual(math.log(e1 / e0) / math.log(n1 / n0), slope, places=6)

    def test_after_a_sweep_of_variants(self):
        """A line a variant, its evaluations rising to the row's work, its error estimate
        and true error beside; the script draws log-log against evaluations."""
        text = SETUP + "sweep variant breadth,vegas,qmc on cpu\n"
        rows = objects(text, "sweep")
        bl, gp = self.plot_data(text)
        self.assertEqual([b[0] for b in bl[:3]], ["breadth cpu", "vegas cpu", "qmc cpu"])
        for (name, pts), row in zip(bl, rows):
            with self.subTest(line=name):
                evals = [p[0] for p in pts]
                self.assertGreaterEqual(len(pts), 1 if name == "qmc cpu" else 2)
                self.assertTrue(all(b > a for a, b in zip(evals, evals[1:])))
                self.assertEqual(evals[-1], row["work"])
                self.assertAlmostEqual(pts[-1][1], row["error_estimate"],
                                       delta=0.01 * row["error_estimate"])
                self.assertTrue(any(math.isfinite(p[2]) for p in pts))  # true error known
        self.check_references(bl, 3)
        self.assertIn("set logscale xy", gp)
        self.assertIn("set xlabel 'evaluations'", gp)
        self.assertIn('title "vegas cpu est"', gp)
        self.assertIn('title "vegas cpu true"', gp)
        self.assertIn('title "N^-1/2"', gp)

    def test_after_a_sweep_over_a_number(self):
        """sweep rel ... variant vegas,qmc: a line a variant through each run's end."""
        text = SETUP + "sweep rel 1e-2,1e-3 variant vegas,qmc on cpu\n"
        rows = objects(text, "sweep")
        bl, _ = self.plot_data(text)
        self.assertEqual([b[0] for b in bl[:2]], ["vegas cpu", "qmc cpu"])
        for name, pts in bl[:2]:
            mine = sorted((r["work"], r["error_estimate"]) for r in rows
                          if r["config"]["variant"] == name.split()[0])
            self.assertEqual([p[0] for p in pts], [w for w, _ in mine])
        self.check_references(bl, 2)

    def test_after_a_run_and_a_run_after_a_sweep(self):
        """After a run: its history, one line named by its variant; a run after a sweep is the
        newer, so it is drawn, not the sweep."""
        text = SETUP + "set variant vegas\nrun cpu\n"
        bl, _ = self.plot_data(text)
        self.assertEqual([b[0] for b in bl], ["vegas cpu", "reference N^-1/2",
                                              "reference N^-1"])
        r = objects(text, "run")[0]
        self.assertEqual(len(bl[0][1]), r["error"]["iterations"])  # a point an iteration
        self.assertEqual(bl[0][1][-1][0], r["work"])
        bl, _ = self.plot_data(SETUP + "sweep variant breadth,vegas on cpu\nset variant qmc\n"
                               "run cpu\n")
        self.assertEqual([b[0] for b in bl][:1], ["qmc cpu"])
        self.assertEqual(len(bl), 3)

    def test_refusals(self):
        """No run yet, a run of many values, a bad word: one error each."""
        for text, want in (
                ("plot convergence\n", "plot convergence: no run or sweep yet"),
                ("set n 10 m 10 repeat 1\nrun cpu\nplot convergence\n",
                 "plot convergence: the last run (expint) has no answer of one value"),
                ("set n 10 m 10 repeat 1\nsweep threads 1,2 on cpu\nplot convergence\n",
                 "plot convergence: the last sweep has no run with an error estimate"),
                (SETUP + "run cpu\nplot convergence x.jpg\n", "must end in .png or .svg"),
                (SETUP + "run cpu\nplot foo x.png\n", "plot: bad word 'foo'")):
            with self.subTest(text=text):
                p = qxtest.script(text)
                self.assertEqual(p.returncode, 1, p.stderr)
                self.assertIn(want, p.stderr)

    @unittest.skipUnless(HAVE_GNUPLOT, "gnuplot is not installed")
    def test_gnuplot_draws_it(self):
        """With gnuplot: a PNG, and the same plot in the terminal as text (format json: one
        plot object)."""
        png = os.path.join(self.tmp, "c.png")
        text = SETUP + "sweep variant breadth,vegas,qmc on cpu\n"
        p = script(text + f"plot convergence {png}\nplot convergence\n")
        self.assertIn(f"plotted the convergence into {png}", p.stdout)
        with open(png, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        self.assertIn("evaluations", p.stdout[p.stdout.index("plotted the convergence"):])
        plots = [o for o in qxtest.json_lines(
            script("format json\n" + text + "plot convergence -\n").stdout)
            if o["type"] == "plot"]
        self.assertEqual(len(plots), 1)
        self.assertRegex(plots[0]["text"], re.compile(r"N\^-1/2"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
