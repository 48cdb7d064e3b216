#!/usr/bin/env python3
"""Script tests for sweeps, export and plot: whole sessions through quadx -e on the CPU.

Run from the repository root after `make`:  python3 tests/sweep_test.py
Standard library only; timings are never compared with fixed numbers, only with each other
(min <= median <= max, the median of the exported samples). GPU sweeps are in gpu_test.py.
"""

import csv
import io
import json
import math
import os
import re
import resource
import shutil
import signal
import statistics
import subprocess
import tempfile
import unittest

import qxtest
from qxtest import QUADX, ROOT, TIMEOUT

HAVE_GNUPLOT = shutil.which("gnuplot") is not None


def quadx(cmds, cwd=None, env=None, preexec_fn=None):
    """Runs quadx -e CMDS; returns the CompletedProcess (text)."""
    return qxtest.commands(cmds, cwd=cwd, env=env, preexec_fn=preexec_fn)


def read(path):
    """The text of the file at path."""
    with open(path) as f:
        return f.read()


def json_objects(stdout, kind):
    """The JSON Lines objects of stdout whose type is kind."""
    objs = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    return [o for o in objs if o.get("type") == kind]


class TmpDirTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="quadx-sweep-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def path(self, name):
        return os.path.join(self.dir, name)

    def assertNoTempFiles(self):
        """No temporary file of an atomic write is left in the directory."""
        self.assertEqual([f for f in os.listdir(self.dir) if ".tmp" in f], [])


class SweepTest(TmpDirTest):
    def test_table_progress_and_best(self):
        """A CPU sweep prints a table with one row per value and one best row, and one progress
        line per configuration on stderr."""
        p = quadx("set n 40 m 300 repeat 3; sweep threads 1,2 on cpu")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stderr.splitlines(), [l for l in p.stderr.splitlines()
                                                 if l.startswith("sweep ")])
        self.assertRegex(p.stderr, r"sweep 1/2: threads=1 cpu [0-9.e+-]+ ms\n"
                                   r"sweep 2/2: threads=2 cpu [0-9.e+-]+ ms\n")
        rows = [l for l in p.stdout.splitlines() if l[:2] in ("* ", "  ") and " cpu " in l]
        self.assertEqual([r[2:].split()[0] for r in rows], ["1", "2"])
        self.assertEqual(sum(r.startswith("* ") for r in rows), 1)
        self.assertRegex(p.stdout, r"\nbest: threads=[12] on cpu, [0-9.e+-]+ ms\n")
        title = [l for l in p.stdout.splitlines() if l.startswith("sweep expint over")]
        self.assertEqual(len(title), 1, p.stdout)
        self.assertTrue(title[0].endswith("each configuration's repeats"),
                        "a CPU sweep has no speedup to explain: " + title[0])

    def test_two_axes_json_and_restore(self):
        """sweep n RANGE precision: every pair in order (first axis outermost), statistics that
        hold together, float rows checked against the reference, and the session's values back
        afterwards."""
        p = quadx("format json; set n 7 m 200 repeat 3; sweep size n 10..30:10 size precision "
                  "float,double on cpu; show params")
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = json_objects(p.stdout, "sweep")
        self.assertEqual([(r["config"]["n"], r["config"]["precision"]) for r in rows],
                         [(n, prec) for n in (10, 20, 30) for prec in ("float", "double")])
        self.assertEqual(sum(r["best"] for r in rows), 0)  # n sets the size: no best
        for r in rows:
            self.assertTrue(r["ok"])
            self.assertEqual(r["repeat"], 3)
            t = (r["time_ms_min"]["total"], r["time_ms"]["total"], r["time_ms_max"]["total"])
            self.assertTrue(0 < t[0] <= t[1] <= t[2], t)
            if r["precision"] == "float":
                self.assertLess(r["max_rel"], 1e-5)
                self.assertEqual(r["over_threshold"], 0)
            else:
                self.assertNotIn("max_rel", r)  # the reference itself
        params = json_objects(p.stdout, "params")[0]
        self.assertEqual((params["n"], params["precision"]), (7, "float"))

    def test_range_forms(self):
        """A..B:xF, A..B:STEP, A..B (powers of two) and lists give the documented values."""
        for spec, want in (("1000..16000:x2", [1000, 2000, 4000, 8000, 16000]),
                           ("3..12:3", [3, 6, 9, 12]), ("5..40", [8, 16, 32]),
                           ("7,3,5", [7, 3, 5])):  # numbers as numbers
            p = quadx(f"format json; set m 1 repeat 1 warmup 0; sweep n {spec} on cpu")
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual([r["config"]["n"] for r in json_objects(p.stdout, "sweep")], want)

    def test_bad_sweeps_change_nothing(self):
        """Each bad sweep is one error naming the word and what is allowed; nothing ran and the
        parameters are unchanged."""
        cases = [("sweep frob 1,2 on cpu", "unknown axis 'frob'"),
                 ("sweep n 0,5 on cpu", "bad value '0' for n"),
                 ("sweep n 10..1 on cpu", "A = 10 is above B = 1"),
                 ("sweep n 1..9:0 on cpu", "step must be above 0"),
                 ("sweep n on cpu", "axis 'n' needs values"),
                 ("sweep block 32..64 on cpu", "block only changes GPU runs"),
                 ("sweep variant shared on cpu", "variant shared has no cpu implementation"),
                 ("sweep n 1,2 on tpu", "bad backend 'tpu'"),
                 ("sweep n 1..50:1 m 1..50:1 on cpu", "2500 configurations; at most 256"),
                 ("sweep a 20,5 on cpu", "a must be less than b"),
                 ("sweep threads 1,2 on gpu", "threads only changes CPU runs"),
                 ("sweep block 32,64 threads 1,2", "block and threads change runs of "
                  "different backends: add on both")]
        for cmd, message in cases:
            with self.subTest(cmd=cmd):
                p = quadx(f"set n 9; {cmd}; export {self.path('x.csv')}")
                self.assertNotEqual(p.returncode, 0)
                self.assertEqual(len(p.stderr.splitlines()), 1, p.stderr)
                self.assertIn(message, p.stderr)
                self.assertEqual(p.stdout, "")
                self.assertFalse(os.path.exists(self.path("x.csv")))

    def test_gpus_sweep_without_a_gpu_is_refused_before_any_run(self):
        """`sweep gpus 2`, `sweep gpus 1,2` and `sweep gpus all` on a host without a GPU (CI)
        are one error each naming the count and why, before anything runs: no progress line,
        no table, the last sweep and the gpus setting unchanged."""
        ngpus = qxtest.device().get("gpus", 0) if qxtest.gpu_name() else 0
        if ngpus >= 2:
            self.skipTest(f"this host has {ngpus} GPUs: sweep_multigpu_gpu_test.py runs them")
        cases = [("sweep gpus 2", "sweep: gpus 2 refused: "),
                 ("sweep gpus 1,2", "sweep: gpus 2 refused: "),
                 ("sweep gpus 1..4", "sweep: gpus 2 refused: "),
                 ("sweep gpus 1,2 on both", "sweep: gpus 2 refused: ")]
        if not ngpus:
            cases.append(("sweep gpus all", "sweep: gpus all refused: there is no GPU"))
        for cmd, message in cases:
            with self.subTest(cmd=cmd):
                p = quadx(f"use longman; set M 10 repeat 1; sweep M 10,20 on cpu; {cmd}; "
                          f"export last {self.path('x.csv')}")
                self.assertNotEqual(p.returncode, 0)
                errors = [l for l in p.stderr.splitlines() if not l.startswith("sweep ")]
                self.assertEqual(len(errors), 1, p.stderr)
                self.assertIn(message, errors[0])
                self.assertNotIn("gpus=", p.stderr)  # no configuration of it ran
                self.assertNotIn("GPU scaling", p.stdout)
                p = qxtest.commands(f"use longman; set M 10 repeat 1; sweep M 10,20 on cpu; "
                                    f"{cmd}; export last {self.path('x.csv')}; show params",
                                    "--keep-going", "--json")
                self.assertIn(message, p.stderr)
                rows = list(csv.DictReader(io.StringIO(read(self.path("x.csv")))))
                self.assertEqual([r["config_M"] for r in rows], ["10", "20"])  # the last sweep
                params = json_objects(p.stdout, "params")
                self.assertEqual(len(params), 1, p.stdout)
                self.assertEqual(params[0]["gpus"], 1)

    def test_cpu_only_axis_makes_a_cpu_sweep(self):
        """An axis only CPU runs use (threads, marked in the parameter table) makes a sweep
        without `on` a CPU sweep: it runs without a GPU and every row is a CPU row."""
        p = quadx("format json; set n 20 m 100 repeat 1 warmup 0; sweep threads 1,2")
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = json_objects(p.stdout, "sweep")
        self.assertEqual([(r["config"]["threads"], r["backend"], r["ok"]) for r in rows],
                         [(1, "cpu", True), (2, "cpu", True)])

    def test_failed_configuration_is_listed(self):
        """A configuration that fails is a row with its error; the sweep goes on and succeeds."""
        p = quadx("format json; set n 3 m 50 repeat 1; sweep iters 3,1000 on cpu")
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = json_objects(p.stdout, "sweep")
        self.assertFalse(rows[0]["ok"])
        self.assertIn("did not converge within iters = 3", rows[0]["error"])
        self.assertTrue(rows[1]["ok"] and rows[1]["best"])
        self.assertIn("sweep 1/2: iters=3 cpu failed: ", p.stderr)

    def test_every_configuration_failed_is_an_error(self):
        """A sweep whose every configuration fails prints its table and fails, naming the
        first failure, so a script stops there."""
        p = quadx("set n 3 m 50 repeat 1; sweep iters 2,3 on cpu; show params")
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("sweep: every one of the 2 runs failed (the first: ", p.stderr)
        self.assertIn("did not converge within iters = 2", p.stderr)
        self.assertIn("best: none (no configuration succeeded)", p.stdout)
        self.assertEqual(p.stdout.count(" cpu  failed: "), 2)
        self.assertNotIn("precision", p.stdout)  # show params did not run

    def test_block_best_needs_a_gpu_sweep(self):
        """set block best after a CPU sweep is refused and leaves the block as it was."""
        p = quadx("format json; set m 10 repeat 1; sweep threads 1,2; set block best")
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("block best: the best run of the last sweep was on the cpu", p.stderr)
        p = quadx("format json; set m 10 repeat 1; sweep n 1,2 on cpu; set block best")
        self.assertIn("block best: the last sweep changed the problem's size", p.stderr)
        p = quadx("set block best")
        self.assertIn("block best: no sweep with a successful GPU run yet", p.stderr)

    def test_cancel_keeps_the_configurations_done(self):
        """SIGINT during a sweep stops it; the rows done are printed and kept for export."""
        out = self.path("kept.json")
        proc = subprocess.Popen(
            [QUADX, "--keep-going", "-e",
             f"set m 3000 repeat 1 warmup 0; sweep n 100..6400:100 on cpu; export last {out}"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
        seen = []
        for line in proc.stderr:
            seen.append(line)
            if line.startswith("sweep 2/"):
                proc.send_signal(signal.SIGINT)
                break
        stdout, stderr = proc.communicate(timeout=TIMEOUT)
        stderr = "".join(seen) + stderr
        self.assertNotEqual(proc.returncode, 0)
        self.assertRegex(stderr, r"sweep cancelled after \d+ runs; those are kept")
        rows = [l for l in stdout.splitlines() if " cpu " in l]
        self.assertGreaterEqual(len(rows), 2)
        self.assertLess(len(rows), 64)
        self.assertIn("cancelled: the table holds the runs done before the cancel", stdout)
        kept = json.loads(read(out))
        self.assertTrue(kept["cancelled"])
        self.assertEqual(len(kept["rows"]), len(rows))
        self.assertEqual(kept["configs"], 64)
        self.assertIn(kept["configs_done"], range(2, 64))


    def test_no_exact_value_is_not_an_error_of_zero(self):
        """A sweep of an integrand with no exact value says so in the table, gives null in its
        JSON rows and empty fields in its CSV rows, never max_rel 0; with `set exact` the same
        sweep compares."""
        setup = 'use cubature; set integrand "x*y"; set dim 2; set repeat 1 warmup 0; '
        csv_out, json_out = self.path("ne.csv"), self.path("ne.json")
        p = quadx(setup + f"sweep rel 1e-4,1e-6 on cpu; export last {csv_out}; "
                  f"export last {json_out}")
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = [l for l in p.stdout.splitlines() if " cpu " in l]
        # both rows say it twice, as their true error and as their max_rel
        self.assertEqual(sum(r.count("no exact") for r in rows), 4, p.stdout)
        self.assertIn("no exact value is known for these parameters", p.stdout)
        with open(csv_out) as f:
            table = list(csv.DictReader(f))
        self.assertEqual([(r["max_rel"], r["over_threshold"]) for r in table], [("", "")] * 2)
        for row in json.loads(read(json_out))["rows"]:
            self.assertIsNone(row["max_rel"], row)
            self.assertIsNone(row["over_threshold"], row)
        p = qxtest.commands(setup + "sweep rel 1e-4,1e-6 on cpu", "--json")
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = json_objects(p.stdout, "sweep")
        self.assertEqual(len(rows), 2)
        self.assertEqual([(r["max_rel"], r["over_threshold"]) for r in rows], [(None, None)] * 2)
        p = qxtest.commands(setup + "set exact 0.25; sweep rel 1e-4,1e-6 on cpu", "--json")
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = json_objects(p.stdout, "sweep")
        self.assertEqual([r["over_threshold"] for r in rows], [0, 0])
        for r in rows:
            self.assertLess(r["max_rel"], 1e-4)


    def sweep_rows(self, setup, sweep):
        """The answer of each configuration of `sweep` after setup, as every output carries
        it: (stdout JSON rows, `format csv` rows, export last JSON rows, export last CSV rows,
        the text table); each must hold the same rows."""
        csv_out, json_out = self.path("a.csv"), self.path("a.json")
        p = qxtest.commands(setup + sweep, "--json")
        self.assertEqual(p.returncode, 0, p.stderr)
        json_rows = json_objects(p.stdout, "sweep")
        p = quadx(setup + "format csv; " + sweep)
        self.assertEqual(p.returncode, 0, p.stderr)
        stdout_csv = list(csv.DictReader(io.StringIO(p.stdout)))
        p = quadx(setup + sweep + f"; export last {csv_out}; export last {json_out}")
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(csv_out) as f:
            export_csv = list(csv.DictReader(f))
        export_json = json.loads(read(json_out))["rows"]
        for rows in (json_rows, stdout_csv, export_json, export_csv):
            self.assertEqual(len(rows), len(json_rows), rows)
        return json_rows, stdout_csv, export_json, export_csv, p.stdout

    def single_runs(self, setup, axis, values):
        """The JSON record of one run at each value of axis after setup."""
        cmds = setup + "; ".join(f"set {axis} {v}; run cpu" for v in values)
        p = qxtest.commands(cmds, "--json")
        self.assertEqual(p.returncode, 0, p.stderr)
        got = json_objects(p.stdout, "run")
        self.assertEqual(len(got), len(values), p.stdout)
        return got

    def test_rows_carry_the_answer_of_a_typed_integrand(self):
        """A sweep over a parameter of a typed integrand carries in every row, in its JSON,
        CSV and export rows and its table, the value, its error estimate, no true error (no
        exact value is known: null and empty, never 0) and the converged words; each value
        is the single run's at the same k, within their estimates."""
        setup = ('use cubature; set repeat 1 warmup 0 precision double rel 1e-10; '
                 'set param k 1; set dim 1 integrand "exp(-k*x)" bounds 0:1; ')
        single = self.single_runs(setup, "k", (1, 2, 3))
        jrows, scsv, ejson, ecsv, text = self.sweep_rows(setup, "sweep k 1,2,3 on cpu")
        for run, j, sc, ej, ec in zip(single, jrows, scsv, ejson, ecsv):
            with self.subTest(k=j["config"]["k"]):
                for row in (j, ej):
                    self.assertLessEqual(abs(row["value"] - run["value"]),
                                         row["error_estimate"] + run["error_estimate"], row)
                    self.assertGreater(row["error_estimate"], 0, row)
                    self.assertIsNone(row["exact"], row)
                    self.assertIsNone(row["true_error"], row)
                    self.assertIs(row["converged"], True, row)
                    self.assertEqual(row["note"], "converged (tolerance met)", row)
                for row in (sc, ec):
                    self.assertLessEqual(abs(float(row["value"]) - run["value"]),
                                         float(row["error_estimate"]) + run["error_estimate"])
                    self.assertEqual((row["exact"], row["true_error"]), ("", ""), row)
                    self.assertEqual(row["converged"], "1", row)
                    self.assertEqual(row["note"], "converged (tolerance met)", row)
        header = [l for l in text.splitlines() if l.split()[:2] == ["k", "on"]]
        self.assertIn("value estimate true err converged", " ".join(header[0].split()), text)
        cells = [l.split() for l in text.splitlines() if re.match(r"[* ] [123] +cpu ", l)]
        first = [c[1:] if c[0] == "*" else c for c in cells][:3]  # the table's first block
        self.assertEqual([c[0] for c in first], ["1", "2", "3"], text)
        for c, run in zip(first, single):  # k, on, value (10 digits), estimate, true err...
            self.assertLessEqual(abs(float(c[2]) - run["value"]),
                                 2 * run["error_estimate"] + 5e-10 * abs(run["value"]), c)
            self.assertEqual(c[4:7], ["no", "exact", "yes"], c)

    def test_rows_carry_the_true_error_of_a_built_in(self):
        """A sweep of a built-in integrand whose exact value is known carries in every row its
        exact value and true error |value - exact|, never above the row's error estimate, and
        the single run's exact value and answer at the same dim."""
        setup = "use cubature; set integrand f5 repeat 1 warmup 0 precision double; "
        single = self.single_runs(setup, "dim", (2, 3))
        jrows, scsv, ejson, ecsv, text = self.sweep_rows(setup, "sweep dim 2,3 on cpu")
        for run, j, sc, ej, ec in zip(single, jrows, scsv, ejson, ecsv):
            with self.subTest(dim=j["config"]["dim"]):
                self.assertIsNotNone(run["exact"], run)
                for row in (j, ej):
                    self.assertEqual(row["exact"], run["exact"], row)
                    self.assertAlmostEqual(row["true_error"], abs(row["value"] - row["exact"]),
                                           delta=1e-15 * abs(row["exact"]))
                    self.assertLessEqual(row["true_error"], row["error_estimate"], row)
                    self.assertLessEqual(abs(row["value"] - run["value"]),
                                         row["error_estimate"] + run["error_estimate"])
                    self.assertIs(row["converged"], True, row)
                for row in (sc, ec):
                    self.assertEqual(float(row["exact"]), run["exact"], row)
                    self.assertLessEqual(float(row["true_error"]), float(row["error_estimate"]))
                    self.assertEqual(row["converged"], "1", row)
        self.assertNotIn("no exact", text)
        cells = [l.split() for l in text.splitlines() if re.match(r"[* ] [23] +cpu ", l)]
        first = [c[1:] if c[0] == "*" else c for c in cells][:2]
        for c, j in zip(first, jrows):
            self.assertEqual(float(c[4]), float("%.2g" % j["true_error"]), c)

    def test_rows_of_many_values_carry_no_answer_columns(self):
        """A sweep of runs of many values (expint) keeps its rows: no value columns, its
        error as max_rel."""
        jrows, scsv, ejson, ecsv, text = self.sweep_rows("set n 10 m 10 repeat 1 warmup 0; ",
                                                         "sweep threads 1,2 on cpu")
        for row in jrows + scsv + ejson + ecsv:
            for key in ("value", "error_estimate", "true_error", "converged"):
                self.assertNotIn(key, row)
            self.assertIn("max_rel", row)
        self.assertNotIn("true err", text)


class ExportTest(TmpDirTest):
    SESSION = ("set n 20 m 100 repeat 3; run cpu; set threads 2; run cpu; "
               "sweep precision on cpu; ")

    def test_csv_and_json_parse_back(self):
        """export writes every run (2 runs + 2 sweep configurations) with its samples, in CSV
        and JSON; export last writes the sweep's rows."""
        files = {k: self.path("runs." + k) for k in ("csv", "json")}
        last = {k: self.path("last." + k) for k in ("csv", "json")}
        p = quadx(self.SESSION + "; ".join(f"export {f}" for f in files.values()) + "; "
                  + "; ".join(f"export last {f}" for f in last.values()))
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(read(files["json"]))
        self.assertEqual(doc["quadx_export"], "runs")
        self.assertIsNone(doc["device"])
        runs = doc["runs"]
        self.assertEqual([(r["threads"], r["precision"]) for r in runs],
                         [(1, "float"), (2, "float"), (2, "float"), (2, "double")])
        for r in runs:
            totals = [s["total"] for s in r["samples_ms"]]
            self.assertEqual(len(totals), 3)
            self.assertAlmostEqual(statistics.median(totals), r["time_ms"]["total"])
            self.assertEqual(r["params"]["n"], 20)
        rows = list(csv.DictReader(io.StringIO(read(files["csv"]))))
        self.assertEqual(len(rows), 4)
        for row, r in zip(rows, runs):
            samples = [float(x) for x in row["samples_total_ms"].split(";")]
            # cJSON prints 15 significant digits, CSV every digit: equal to 1e-12
            for a, b in zip(samples, [s["total"] for s in r["samples_ms"]]):
                self.assertTrue(math.isclose(a, b, rel_tol=1e-12), (a, b))
            self.assertEqual(len(samples), 3)
            self.assertTrue(math.isclose(float(row["total_ms"]), r["time_ms"]["total"],
                                         rel_tol=1e-12))
            self.assertEqual((row["n"], row["m"], row["threads"]), ("20", "100", str(r["threads"])))
        sweep = json.loads(read(last["json"]))
        self.assertEqual(sweep["axes"], [{"name": "precision", "values": ["float", "double"]}])
        self.assertEqual((sweep["configs"], sweep["configs_done"], sweep["cancelled"]),
                         (2, 2, False))
        self.assertEqual(sweep["params"]["n"], 20)
        self.assertEqual([r["config"]["precision"] for r in sweep["rows"]], ["float", "double"])
        lrows = list(csv.DictReader(io.StringIO(read(last["csv"]))))
        self.assertEqual([r["config_precision"] for r in lrows], ["float", "double"])
        for a, b in zip(lrows, sweep["rows"]):
            self.assertTrue(math.isclose(float(a["total_ms"]), b["time_ms"]["total"],
                                         rel_tol=1e-12))
        self.assertNoTempFiles()

    def test_every_sample_in_csv(self):
        """The CSV export holds every one of 1000 samples, each a whole number, equal to the
        JSON export's."""
        p = quadx(f"set n 1 m 1 repeat 1000; run cpu; export {self.path('s.csv')}; "
                  f"export {self.path('s.json')}")
        self.assertEqual(p.returncode, 0, p.stderr)
        row = list(csv.DictReader(io.StringIO(read(self.path("s.csv")))))[0]
        samples = [float(x) for x in row["samples_total_ms"].split(";")]
        want = [s["total"] for s in json.loads(read(self.path("s.json")))["runs"][0]["samples_ms"]]
        self.assertEqual(len(samples), 1000)
        for a, b in zip(samples, want):
            self.assertTrue(math.isclose(a, b, rel_tol=1e-12), (a, b))

    def test_csv_columns_promised_by_help(self):
        """The run CSV has warmup and every phase's min and max; `export last` CSV has the
        problem, device, base parameters and warmup (help export promises them)."""
        p = quadx(f"set n 20 m 100 repeat 2 warmup 3; run cpu; sweep m 50,60 on cpu; "
                  f"export {self.path('r.csv')}; export last {self.path('l.csv')}")
        self.assertEqual(p.returncode, 0, p.stderr)
        runs = list(csv.DictReader(io.StringIO(read(self.path("r.csv")))))
        self.assertEqual([r["warmup"] for r in runs], ["3"] * 3)
        for phase in ("alloc", "h2d", "kernel", "d2h", "free"):
            self.assertEqual({r[f"{phase}_min_ms"] for r in runs}, {""})  # the CPU has none
            self.assertEqual({r[f"{phase}_max_ms"] for r in runs}, {""})
        rows = list(csv.DictReader(io.StringIO(read(self.path("l.csv")))))
        self.assertEqual([r["config_m"] for r in rows], ["50", "60"])
        for r in rows:
            self.assertEqual((r["problem"], r["device"], r["warmup"]), ("expint", "", "3"))
            self.assertEqual((r["base_n"], r["base_m"], r["base_b"]), ("20", "100", "10"))
            self.assertIn("kernel_max_ms", r)

    def test_help_export_names_every_column(self):
        """help export lists the CSV columns of `export` and `export last` in the order they
        are written: a column added, dropped or moved, or a listed one missing, fails here.
        Its placeholders stand for what each problem has: PARAM, SETTING and FIGURE are
        read from the JSON export of the same runs, PHASE from the problem's phases."""
        p = quadx(f"set n 20 m 10 repeat 2; run cpu; sweep m 10,20 on cpu; "
                  f"export last {self.path('l.csv')}; use longman; set M 10; run cpu; "
                  f"export {self.path('r.csv')}; export {self.path('r.json')}")
        self.assertEqual(p.returncode, 0, p.stderr)
        page = qxtest.commands("help export").stdout
        blocks = [b.split() for b in re.findall(r"(?m)((?:^        \S.*\n)+)", page)]
        self.assertEqual(len(blocks), 2, page)
        phases = ["alloc", "h2d", "kernel", "d2h", "free"]

        def expand(cols, params, settings, figures, axes):
            out = []
            for c in cols:
                if c == "PHASE_min_ms":
                    continue  # with PHASE_max_ms...: a min and a max per phase
                out += {"PARAM...": params,
                        "base_PARAM...": ["base_" + n for n in params],
                        "SETTING...": settings,
                        "FIGURE...": figures,
                        "config_AXIS...": ["config_" + a for a in axes],
                        "PHASE_ms...": [f + "_ms" for f in phases],
                        "PHASE_max_ms...": [f"{f}_{m}_ms" for f in phases for m in ("min", "max")],
                        }.get(c, [c])
            return out

        runs = json.loads(read(self.path("r.json")))["runs"]
        headers = [l for l in read(self.path("r.csv")).splitlines() if l.startswith("type,")]
        self.assertEqual(len(headers), 2)  # expint's runs, then longman's
        for run, header in ((runs[0], headers[0]), (runs[-1], headers[1])):
            with self.subTest(problem=run["problem"]):
                keys = list(run)
                settings = keys[keys.index("block") + 1:keys.index("variant")]
                figures = list(run["error"])[6:]  # after threshold
                self.assertEqual(expand(blocks[0], list(run["params"]), settings, figures, []),
                                 header.split(","))
        self.assertIn("bound_max", headers[1])  # longman has figures, expint streams
        self.assertIn("streams", headers[0])
        last = read(self.path("l.csv")).splitlines()[0]
        self.assertEqual(expand(blocks[1], list(runs[0]["params"]), ["streams"], [], ["m"]),
                         last.split(","))

    def test_no_space_is_reported(self):
        """Writing to a full device (/dev/full through a link) fails naming the path and the
        reason."""
        link = self.path("full.csv")
        os.symlink("/dev/full", link)
        p = quadx(f"set m 10 repeat 1; run cpu; export {link}")
        self.assertNotEqual(p.returncode, 0)
        self.assertIn(f"cannot write {link}: No space left on device", p.stderr)
        self.assertNoTempFiles()

    def test_failed_write_keeps_old_file_whole(self):
        """A write that fails half-way (file size limit) leaves the old file as it was and no
        temporary file."""
        target = self.path("runs.json")
        with open(target, "w") as f:
            f.write("OLD CONTENT\n")

        def small_files():
            resource.setrlimit(resource.RLIMIT_FSIZE, (200, 200))
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)

        p = quadx(f"set m 10 repeat 5; run cpu; run cpu; export {target}", preexec_fn=small_files)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn(f"cannot write {target}: File too large", p.stderr)
        self.assertIn("the old file, if any, is unchanged", p.stderr)
        self.assertEqual(read(target), "OLD CONTENT\n")
        self.assertNoTempFiles()

    def test_export_errors(self):
        """Bad extensions, a missing directory and nothing to export are errors naming why."""
        cases = [("export x.txt", "must end in .csv or .json"),
                 ("export .csv", "the file name before '.csv' is empty"),
                 (f"export {self.path('.json')}", "the file name before '.json' is empty"),
                 ("export last x.csv", "export last: no sweep yet"),
                 ("export first x.csv", "bad word 'first'"),
                 (f"export {self.path('none/x.csv')}", "No such file or directory")]
        for cmd, message in cases:
            with self.subTest(cmd=cmd):
                p = quadx(("set m 10 repeat 1; run cpu; " if "none" in cmd else "") + cmd)
                self.assertNotEqual(p.returncode, 0)
                self.assertIn(message, p.stderr)
        p = quadx("export x.csv")
        self.assertIn("export: no run yet", p.stderr)


class PlotTest(TmpDirTest):
    SWEEP = "set n 30 m 200 repeat 2; sweep threads 1,2 variant fast,coursework on cpu; "

    @unittest.skipUnless(HAVE_GNUPLOT, "gnuplot is not installed")
    def test_png_and_svg(self):
        """With gnuplot, plot writes a PNG and an SVG and no temporary file."""
        p = quadx(self.SWEEP + f"plot {self.path('s.png')}; plot {self.path('s.svg')}")
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(self.path("s.png"), "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        self.assertIn("<svg", read(self.path("s.svg")))
        self.assertNoTempFiles()

    @unittest.skipUnless(HAVE_GNUPLOT, "gnuplot is not installed")
    def test_plot_in_the_terminal(self):
        """plot with no file (or plot -) draws the last sweep as text with gnuplot's dumb
        terminal on stdout, 80 x 24 a panel when stdout is no terminal (here: time and the
        threads axis's efficiency), and writes no file; format json gives it as one object."""
        for cmd in ("plot", "plot -"):
            with self.subTest(cmd=cmd):
                p = quadx(self.SWEEP + cmd, cwd=self.dir)
                self.assertEqual(p.returncode, 0, p.stderr)
                drawing = p.stdout[p.stdout.index("\nbest: ") + 1:].split("\n", 1)[1]
                lines = drawing.splitlines()
                self.assertEqual(len(lines), 2 * 23, drawing)
                self.assertTrue(all(len(l) <= 80 for l in lines), drawing)
                self.assertIn("expint: total time (median, bars min..max)", drawing)
                self.assertIn("parallel efficiency", drawing)
                self.assertRegex(drawing, r"\n +threads +\n")
                self.assertIn("variant=fast cpu", drawing)
                self.assertTrue(p.stdout.endswith("\n"), p.stdout[-80:])  # the prompt below
                self.assertEqual(os.listdir(self.dir), [])
        p = quadx("format json; " + self.SWEEP + "plot")
        self.assertEqual(p.returncode, 0, p.stderr)
        plot = json_objects(p.stdout, "plot")
        self.assertEqual(len(plot), 1)
        self.assertIn("parallel efficiency", plot[0]["text"])

    def test_plot_in_the_terminal_without_gnuplot(self):
        """Without gnuplot, plot to the terminal is one error saying what to install."""
        p = quadx(self.SWEEP + "plot", env=dict(os.environ, PATH=self.dir))
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("plot: gnuplot is not installed, so the terminal gets no plot", p.stderr)

    def test_without_gnuplot_writes_script_and_data(self):
        """Without gnuplot on the PATH, plot writes STEM.gp and STEM.dat and says how to render
        them; the data hold one block per series; gnuplot (when present) renders them."""
        env = dict(os.environ, PATH=self.dir)
        p = quadx(self.SWEEP + f"plot {self.path('s.png')}", env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(f"Render them with: gnuplot {self.path('s.gp')}", p.stdout)
        self.assertFalse(os.path.exists(self.path("s.png")))
        blocks = read(self.path("s.dat")).split("\n\n\n")
        self.assertEqual([b.splitlines()[0] for b in blocks],
                         ["# variant=fast cpu", "# variant=coursework cpu"])
        for b in blocks:
            points = [l.split() for l in b.splitlines() if not l.startswith("#")]
            self.assertEqual([pt[0] for pt in points], ["1", "2"])
            self.assertEqual(points[0][6], "1")  # efficiency of the first point
        script = read(self.path("s.gp"))
        self.assertIn(f"set output '{self.path('s.png')}'", script)
        if HAVE_GNUPLOT:
            subprocess.run(["gnuplot", self.path("s.gp")], check=True, timeout=TIMEOUT)
            self.assertGreater(os.path.getsize(self.path("s.png")), 1000)

    def test_plot_errors(self):
        """plot needs a sweep and a .png or .svg name."""
        self.assertIn("plot: no sweep yet", quadx("plot x.png").stderr)
        p = quadx("set m 10 repeat 1; sweep n 1,2 on cpu; plot x.jpg")
        self.assertIn("must end in .png or .svg", p.stderr)
        p = quadx("set m 10 repeat 1; sweep n 1,2 on cpu; plot .svg")
        self.assertIn("plot: the file name before '.svg' is empty", p.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
