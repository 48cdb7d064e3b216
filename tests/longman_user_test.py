#!/usr/bin/env python3
"""Script tests of problem longman with the user's own amplitude on the CPU: `set integrand
"EXPR"` in x and lambda with the oscillator `trig`, compiled by the system C compiler and
cached in the session; 1/(1+x^2) with cos for a batch of omega, whose integral is
(pi/2) e^{-omega}, each value within its own remainder estimate and GSL's QAWF reference
within 1e-14 of it; e^{-lambda x} written out agrees with the built-in integrands; the user's
parameters; the settings that do not apply refused; no reference for trig j0 (never an error
of 0); every bad expression's one error, with the session keeping its integrand; amplitudes
that do not decay refused before the run, slowly decaying ones and one singular at a run
within their bounds of mpmath's values (tests/data/longman_amp_ref.csv), and a first part
QAGS cannot integrate says that its bound is unknown.

Run from the repository root: `python3 tests/longman_user_test.py`."""
import csv
import math
import os
import unittest

import qxtest


def quadx(cmds, timeout=300):
    """Runs quadx --json -e CMDS; returns (exit code, parsed stdout lines, stderr)."""
    p = qxtest.commands(cmds, "--json", timeout=timeout)
    return p.returncode, qxtest.json_lines(p.stdout), p.stderr


def of_type(out, kind):
    """The records of one type ("run", "eval", "params") of a script's output."""
    return [o for o in out if o.get("type") == kind]


# The batch: omega from 0.3 to 12, lambda unused by the amplitude.
BATCH = "M 60 lambda 0 omega 0.3:12 repeat 1 warmup 0"
OMEGAS = [0.3 + i * 0.35 for i in range(34)]


class LongmanUserTest(unittest.TestCase):
    def test_known_value_batch(self):
        """1/(1+x^2) cos for 60 omegas in double (1 and 2 threads) and float: no integral
        over its estimate against QAWF, QAWF obtained them all; through eval each omega's value
        within its bound of (pi/2) e^{-omega}, and QAWF's value within 1e-14 of it."""
        rc, out, err = quadx(f'use longman; set {BATCH} integrand "1/(1+x^2)"; '
                             'set precision double threads 1; run cpu; set threads 2; run cpu; '
                             'set precision float; run cpu')
        self.assertEqual(rc, 0, err)
        runs = of_type(out, "run")
        self.assertEqual(len(runs), 3, out)
        for r in runs:
            what = (r["precision"], r["threads"])
            self.assertEqual(r["against"], "GSL QAWF", what)
            self.assertEqual(r["compared"], 60, what)
            self.assertEqual(r["error"]["over_bound"], 0, what)
            self.assertEqual(r["error"]["qawf_failed"], 0, what)
            self.assertLess(r["error"]["qawf_err_max"], 1e-12, what)
            self.assertLess(r["error"]["max_abs"], r["error"]["bound_max"], what)
            self.assertEqual(r["error"]["euler"], 60, what)  # auto: euler for an expression
        self.assertEqual(runs[0]["error"]["max_abs"], runs[1]["error"]["max_abs"])
        for n in (8, 16):
            evals = " ".join(f"; eval 0 {w!r}" for w in OMEGAS)
            rc, out, err = quadx(f'use longman; set integrand "1/(1+x^2)" N {n}{evals}')
            self.assertEqual(rc, 0, err)
            got = [o for o in of_type(out, "eval") if o["backend"] == "cpu"]
            self.assertEqual(len(got), 2 * len(OMEGAS))
            for o in got:
                w = o["args"][1]
                exact = math.pi / 2 * math.exp(-w)
                what = (n, w, o["precision"])
                self.assertAlmostEqual(o["reference"], exact, delta=1e-14, msg=what)
                self.assertLess(o["reference_err"], 1e-12, what)
                if o["precision"] == "double":
                    self.assertLessEqual(abs(o["value"] - exact), o["bound"], what)
                else:  # float's rounding besides
                    self.assertLessEqual(abs(o["value"] - exact), o["bound"] + 2e-6, what)

    def test_exponential_matches_builtin(self):
        """exp(-lambda*x) with trig cos, sin and j0 (a = 0.4 for cos and sin) gives the
        built-in integrands' values to 1e-15 in double; a batch of cos compared with QAWF stays
        within its estimates (method auto is euler for an expression, so the large lambda /
        omega the built-in sums directly converge more slowly here)."""
        for f, a in (("cos", "0.4"), ("sin", "0.4"), ("j0", "0")):
            rc, out, err = quadx(f'use longman; set a {a} integrand {f}; eval 0.7 2.5; '
                                 f'set integrand "exp(-lambda*x)" trig {f}; eval 0.7 2.5')
            self.assertEqual(rc, 0, err)
            ev = [o for o in of_type(out, "eval")
                  if o["backend"] == "cpu" and o["precision"] == "double"]
            self.assertEqual(len(ev), 2, out)
            self.assertLess(abs(ev[0]["value"] - ev[1]["value"]), 1e-15, f)
            if f != "j0":
                self.assertLess(abs(ev[1]["reference"] - ev[0]["exact"]), 1e-14, f)
        rc, out, err = quadx('use longman; set M 400 lambda 0.05:3 omega 3:15 a 0.4 '
                             'precision double repeat 1 warmup 0 integrand "exp(-lambda*x)"; '
                             'run cpu')
        self.assertEqual(rc, 0, err)
        r = of_type(out, "run")[0]
        self.assertEqual(r["error"]["over_bound"], 0)
        self.assertLess(r["error"]["max_abs"], r["error"]["bound_max"])

    def test_parameters_and_cache(self):
        """k/(k^2+x^2) cos: (pi/2) e^{-k omega}. The first run compiles, the second finds the
        code; a new k compiles nothing and changes the value; a sweep over k runs."""
        rc, out, err = quadx('use longman; set param k 2; set M 1 lambda 0 omega 1.5 '
                             'precision double repeat 1 warmup 0 integrand "k/(k^2+x^2)"; '
                             'run cpu; run cpu; set k 3; run cpu; sweep k 1,2 on cpu')
        self.assertEqual(rc, 0, err)
        runs = of_type(out, "run")
        self.assertGreaterEqual(len(runs), 3, out)
        self.assertEqual(runs[0]["error"]["compile_cached"], 0)
        self.assertGreater(runs[0]["error"]["compile_ms"], 0)
        self.assertEqual(runs[1]["error"]["compile_cached"], 1)
        self.assertEqual(runs[2]["error"]["compile_cached"], 1)
        for r, k in zip(runs[:3], (2, 2, 3)):
            exact = math.pi / 2 * math.exp(-k * 1.5)
            self.assertLess(abs(r["value"] - exact), r["error"]["bound_max"], k)
            self.assertAlmostEqual(r["exact"], exact, delta=1e-14, msg=k)

    def test_settings_that_do_not_apply(self):
        """trig with a built-in integrand and math with an expression are refused naming why;
        variants block and qawf refuse an expression; trig j0 needs a = 0; show params lists
        trig only for an expression; the built-in words keep working."""
        for cmds, msg in (("set trig sin", "trig has no effect"),
                          ('set integrand "exp(-x)" math fast', "math has no effect"),
                          ('set integrand "exp(-x)" variant block', "variant packed"),
                          ('set integrand "exp(-x)" trig j0 a 1', "trig j0 needs a = 0")):
            p = qxtest.commands("use longman; " + cmds)
            self.assertEqual(p.returncode, 1, cmds)
            self.assertIn(msg, p.stderr, cmds)
            self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        p = qxtest.commands('use longman; set integrand "exp(-x)" variant qawf precision double '
                            'M 10; run cpu')
        self.assertEqual(p.returncode, 1)
        self.assertIn("variant qawf is the reference of an expression amplitude", p.stderr)
        rc, out, err = quadx('use longman; show params; set integrand "exp(-x)" trig sin; '
                             'show params; set integrand sin; show params')
        self.assertEqual(rc, 0, err)
        shown = of_type(out, "params")
        self.assertNotIn("trig", shown[0])
        self.assertEqual((shown[1]["integrand"], shown[1]["trig"]), ("exp(-x)", "sin"))
        self.assertNotIn("trig", shown[2])
        self.assertEqual(shown[2]["integrand"], "sin")

    def test_j0_has_no_reference(self):
        """trig j0: nothing compared, said in the run's note; eval's reference and error are
        null (never 0); the value still within its estimate of the true 1/sqrt(1+omega^2)
        (g = e^{-x}, lambda unused)."""
        rc, out, err = quadx('use longman; set M 20 lambda 0 omega 1:10 repeat 1 warmup 0 '
                             'precision double integrand "exp(-x)" trig j0; run cpu; eval 0 2')
        self.assertEqual(rc, 0, err)
        r = of_type(out, "run")[0]
        self.assertEqual(r["compared"], 0)
        self.assertIn("no reference", r["note"])
        self.assertIsNone(r["error"]["max_abs"])
        for o in of_type(out, "eval"):
            if o["backend"] != "cpu":
                continue
            self.assertIsNone(o["reference"])
            self.assertIsNone(o["error"])
            self.assertLessEqual(abs(o["value"] - 1 / math.sqrt(5)),
                                 o["bound"] + (0 if o["precision"] == "double" else 1e-6))
        # and in text: no "max_rel 0 ... 0 of 0", which would read as a perfect answer
        p = qxtest.commands('use longman; set M 20 lambda 0 omega 1:10 repeat 1 warmup 0 '
                            'precision double integrand "exp(-x)" trig j0; run cpu')
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("error      not measured: no value had a reference", p.stdout)
        self.assertNotIn("max_rel 0", p.stdout)

    def test_bad_expressions(self):
        """Each bad expression: exit 1, one line naming the column and what was expected,
        prefixed as cubature's; the session keeps its integrand."""
        for text, msg in (("q*x", "integrand: unknown name 'q' at column 1: the variables are "
                                  "x1, lambda, parameters k"),
                          ("exp(-x", "integrand: ')' expected at column 7"),
                          ("asin(x, 2)", "integrand: asin takes 1 argument, got 2"),
                          ("x2", "integrand: unknown name 'x2' at column 1")):
            p = qxtest.commands(f'use longman; set param k 1; set integrand "exp(-k*x)"; '
                                f'set integrand "{text}"')
            self.assertEqual(p.returncode, 1, text)
            self.assertIn(msg, p.stderr, text)
            self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
            p = qxtest.commands(f'use longman; set param k 1; set integrand "exp(-k*x)"; '
                                f'set integrand "{text}"; show params', "--json",
                                "--keep-going")
            self.assertEqual(p.returncode, 1, text)
            shown = of_type(qxtest.json_lines(p.stdout), "params")
            self.assertEqual(shown[0]["integrand"], "exp(-k*x)", text)


def amp_refs():
    """{(case, omega): exact} from tests/data/longman_amp_ref.csv (tests/gen_longman_amp_ref.py,
    mpmath at dps 20 and 40 against the closed forms)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                        "longman_amp_ref.csv")
    with open(path) as fh:
        rows = csv.DictReader(line for line in fh if not line.startswith("#"))
        return {(r["case"], float(r["omega"])): float(r["value"]) for r in rows}


class LongmanAmplitudeDecayTest(unittest.TestCase):
    def test_no_decay_refused(self):
        """1 with sin, x and exp(x) with cos, 1 + exp(-x) and exp(-lambda*x) at lambda = 0
        (of a range): run and eval refused with one line naming the sampled |g| before
        anything runs; the session keeps its settings and its last run."""
        for g, trig, lam, where in (("1", "sin", "0", "1 at x = 1e+28"),
                                    ("x", "cos", "0", "1e+30 at x = 1e+30"),
                                    ("exp(x)", "cos", "0", "inf at x = 1e+28"),
                                    ("1+exp(-x)", "cos", "0", "1 at x = 1e+28"),
                                    ("exp(-lambda*x)", "cos", "0:1", "at lambda = 0")):
            for act in ("run cpu", "eval 0 2"):
                cmds = (f'use longman; set M 20 lambda {lam} omega 0.5:10 repeat 1 warmup 0 '
                        f'integrand "{g}" trig {trig}; {act}')
                p = qxtest.commands(cmds)
                self.assertEqual(p.returncode, 1, (g, act, p.stdout))
                self.assertIn("not integrable: g does not decay (|g(x)| = ", p.stderr, g)
                if act.startswith("run") or lam == "0":  # eval's lambda is its argument
                    self.assertIn(where, p.stderr, g)
                self.assertIn("1/sqrt(x)", p.stderr, g)  # what is allowed
                self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
                self.assertNotIn("total", p.stdout, g)
        p = qxtest.commands('use longman; set M 4 lambda 0 omega 1:2 repeat 1 warmup 0 '
                            'integrand "1/(1+x^2)"; run cpu; set integrand "1" trig sin; '
                            'run cpu; show params; errors 1', "--json", "--keep-going")
        self.assertEqual(p.returncode, 1)
        out = qxtest.json_lines(p.stdout)
        self.assertEqual(len(of_type(out, "run")), 1, out)
        self.assertEqual(of_type(out, "params")[0]["integrand"], "1")
        self.assertAlmostEqual(of_type(out, "worst")[0]["omega"], 5 / 3, delta=1e-12)

    def check_evals(self, case, setup, slack=0):
        """eval at every omega of case in longman_amp_ref.csv: each double value within its
        bound of the exact value (float's within bound + slack); returns the (error, bound)
        pairs in double."""
        refs = {w: v for (c, w), v in amp_refs().items() if c == case}
        self.assertEqual(len(refs), 6, case)
        evals = " ".join(f"; eval 0 {w!r}" for w in sorted(refs))
        rc, out, err = quadx(f"use longman; {setup}{evals}")
        self.assertEqual(rc, 0, err)
        got = [o for o in of_type(out, "eval") if o["backend"] == "cpu"]
        self.assertEqual(len(got), 2 * len(refs), out)
        pairs = []
        for o in got:
            w = o["args"][1]
            error = abs(o["value"] - refs[w])
            what = (case, w, o["precision"], error, o["bound"])
            self.assertIsNotNone(o["bound"], what)
            if o["precision"] == "double":
                self.assertLessEqual(error, o["bound"], what)
                pairs.append((error, o["bound"]))
            else:
                self.assertLessEqual(error, o["bound"] + slack, what)
        return pairs

    def test_slow_decay_runs(self):
        """1/x and 1/sqrt(x) with sin from a = 1 (integrable by Dirichlet's test though not
        absolutely): they run, every value within its bound of mpmath's, and a batch has
        none over its bound against QAWF."""
        for g in ("1/x", "1/sqrt(x)"):
            self.check_evals(f"{g} sin", f'set a 1 integrand "{g}" trig sin', slack=1e-6)
            rc, out, err = quadx(f'use longman; set M 20 a 1 lambda 0 omega 0.5:10 repeat 1 '
                                 f'warmup 0 precision double integrand "{g}" trig sin; run cpu')
            self.assertEqual(rc, 0, err)
            r = of_type(out, "run")[0]["error"]
            self.assertEqual((r["over_bound"], r["bound_unknown"], r["qawf_failed"]), (0, 0, 0))
            self.assertLessEqual(r["max_abs"], r["bound_max"], g)

    def test_singular_at_a_within_bound(self):
        """exp(-x)/sqrt(x) with cos and sin from a = 0: Gauss-Legendre over the first part
        misses the singularity by up to 10%, and the bound (the first part's error measured
        by QAGS) covers it on every omega; a batch has none over its bound."""
        for trig in ("cos", "sin"):
            pairs = self.check_evals(f"exp(-x)/sqrt(x) {trig}",
                                     f'set integrand "exp(-x)/sqrt(x)" trig {trig}', slack=1e-6)
            self.assertGreater(max(e for e, _ in pairs), 1e-4, trig)  # the case is hard
            rc, out, err = quadx('use longman; set M 20 lambda 0 omega 0.5:10 repeat 1 '
                                 f'warmup 0 precision double integrand "exp(-x)/sqrt(x)" '
                                 f'trig {trig}; run cpu')
            self.assertEqual(rc, 0, err)
            r = of_type(out, "run")[0]["error"]
            self.assertEqual((r["over_bound"], r["bound_unknown"]), (0, 0), trig)
            self.assertLessEqual(r["max_abs"], r["bound_max"], trig)

    def test_bound_unknown_when_first_part_fails(self):
        """exp(-x)/x with cos from a = 0 diverges at 0: QAGS cannot integrate the first part,
        so no integral has a bound (bound_max null, bound_unknown all), the run says so in
        words, and eval's bound is null, never a number."""
        rc, out, err = quadx('use longman; set M 20 lambda 0 omega 0.5:10 repeat 1 warmup 0 '
                             'precision double integrand "exp(-x)/x"; run cpu; eval 0 2')
        self.assertEqual(rc, 0, err)
        r = of_type(out, "run")[0]
        self.assertEqual(r["error"]["bound_unknown"], 20)
        self.assertIsNone(r["error"]["bound_max"])
        self.assertEqual(r["error"]["over_bound"], 0)
        self.assertIn("error bound unknown", r["note"])
        self.assertIn("singular at a", r["note"])
        for o in of_type(out, "eval"):
            if o["backend"] == "cpu":
                self.assertIsNone(o["bound"], o)


if __name__ == "__main__":
    unittest.main(verbosity=2)
