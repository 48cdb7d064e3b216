#!/usr/bin/env python3
"""Script tests of cubature's batch of integrals on the CPU (`set param k RANGE|LIST`, `set exact
"EXPR"`): sessions piped through quadx's stdin. 1000 values of a 1-D closed form each within its
estimate and converged, on both CPU variants; a 3-D batch and one over an infinite box with exact
expressions; a 2-parameter grid's coordinates and order; every refusal; a batch too large for
the memory available (an address-space limit) refused before it runs; a sweep of another
setting running the whole batch at each value, and of the batch parameter refused; values,
export (CSV and JSON) and plot. The closed forms are checked against mpmath by tests/gen_cubature_batch_ref.py,
whose rows (tests/data/cubature_batch_ref.csv) quadx's references are compared with here.

Run from the repository root: python3 tests/batch_test.py"""
import csv
import math
import json
import os
import re
import shutil
import tempfile
import unittest

import qxtest

REF = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "cubature_batch_ref.csv")
HAVE_GNUPLOT = shutil.which("gnuplot") is not None

ONE_D = ("use cubature\nset dim 1\nset precision double\nset rel 1e-9\nset repeat 1\n"
         "set warmup 0\nset param k 1\nset integrand \"exp(-k*x)\"\n")


def session(text, *args):
    """Runs the script text through quadx's stdin (--json); returns (rc, objects, stderr)."""
    p = qxtest.script(text, "--json", *args)
    return p.returncode, qxtest.json_lines(p.stdout), p.stderr


def refs(case):
    """The mpmath rows of case: {(k, q): integral}."""
    with open(REF) as f:
        return {(float(r["k"]), float(r["q"])): float(r["integral"])
                for r in csv.DictReader(f) if r["case"] == case}


def of_type(objs, kind):
    return [o for o in objs if o.get("type") == kind]


class BatchTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="quadx-batch-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def check_values(self, values, ref, key):
        """Every value converged within its estimate of the reference, and the reference equal
        to mpmath's where the committed rows have one."""
        for v in values:
            self.assertLessEqual(abs(v["value"] - v["reference"]), v["error_estimate"], v)
            want = ref.get(key(v))
            if want is not None:
                self.assertAlmostEqual(v["reference"], want, delta=1e-14 * abs(want), msg=v)

    def test_thousand_1d_closed_forms(self):
        """k = 1..1000:1 of exp(-k x) on [0, 1], exact (1-exp(-k))/k, breadth (4 threads) and
        hcubature: 1000 integrals, all converged, each within its estimate; the run says so."""
        ref = refs("exp1d")
        for variant in ("breadth", "hcubature"):
            rc, objs, err = session(ONE_D + f"set variant {variant}\nset threads 4\n"
                                    "set param k 1..1000:1\nset exact \"(1-exp(-k))/k\"\n"
                                    "show params\nrun cpu\nvalues 1000\n")
            self.assertEqual(rc, 0, err)
            params = of_type(objs, "params")[0]
            self.assertEqual(params["integrals"], 1000)
            self.assertEqual(params["k"], "1..1000:1")
            run = of_type(objs, "run")[0]
            self.assertEqual(run["error"]["integrals"], 1000, run)
            self.assertEqual(run["error"]["converged"], 1000, run)
            self.assertEqual(run["over_estimate"], 0, run)
            self.assertIn("converged: 1000 of 1000 integrals", run["note"])
            self.assertGreater(run["error"]["integrals_per_s"], 0)
            values = of_type(objs, "value")
            self.assertEqual([v["index"] for v in values], list(range(1000)))
            self.assertEqual([v["k"] for v in values], list(range(1, 1001)))
            self.check_values(values, ref, lambda v: (v["k"], 0))

    def test_monte_carlo_batch(self):
        """vegas and qmc take a CPU batch: exp(-k (x + y)) on [0, 1]^2 at k = 1, 2, 4, 8, rel
        1e-3: every integral converged and within 6 of its standard errors of the exact
        ((1 - exp(-k))/k)^2 (the seed is fixed, so the check is deterministic), the run's
        error_kind says standard error, and each value is the single run's at the same k and
        seed (a run gives the same answer on any threads: the batch runs each on one)."""
        base = ("use cubature\nset dim 2\nset precision double\nset rel 1e-3\nset repeat 1\n"
                "set warmup 0\nset param k 1\nset integrand \"exp(-k*(x+y))\"\n"
                "set exact \"((1-exp(-k))/k)^2\"\nset seed 7\n")
        ks = [1, 2, 4, 8]
        for variant in ("vegas", "qmc"):
            rc, objs, err = session(base + f"set variant {variant}\nset threads 2\n"
                                    "set param k 1,2,4,8\nrun cpu\nvalues 4\n")
            self.assertEqual(rc, 0, err)
            run = of_type(objs, "run")[0]
            self.assertEqual(run["error"]["integrals"], 4, run)
            self.assertEqual(run["error"]["converged"], 4, run["note"])
            self.assertEqual(run.get("error_kind"), "standard error", run)
            self.assertIn("the errors are standard errors", run["note"])
            values = of_type(objs, "value")
            self.assertEqual([v["k"] for v in values], ks)
            rc, objs, err = session(base + f"set variant {variant}\nset threads 4\n" +
                                    "".join(f"set param k {k}\nrun cpu\n" for k in ks))
            self.assertEqual(rc, 0, err)
            singles = of_type(objs, "run")
            for v, one, k in zip(values, singles, ks):
                exact = (-math.expm1(-k) / k) ** 2
                self.assertAlmostEqual(v["reference"], exact, delta=1e-15 * exact)
                self.assertGreater(v["error_estimate"], 0, v)
                self.assertLessEqual(abs(v["value"] - exact), 6 * v["error_estimate"],
                                     (variant, v))
                self.assertAlmostEqual(v["value"], one["value"], delta=1e-12 * exact,
                                       msg=(variant, k))

    def test_3d_and_infinite_box(self):
        """A 3-D batch with an exact expression, and one over [0, inf): within estimates."""
        rc, objs, err = session(
            "use cubature\nset dim 3\nset precision double\nset rel 1e-8\nset repeat 1\n"
            "set warmup 0\nset param k 1\nset integrand \"exp(-k*(x+y+z))\"\n"
            "set param k 0.5,3,8\nset exact \"((1-exp(-k))/k)^3\"\nrun cpu\nvalues 3\n")
        self.assertEqual(rc, 0, err)
        self.assertEqual(of_type(objs, "run")[0]["error"]["converged"], 3)
        values = of_type(objs, "value")
        self.assertEqual(len(values), 3)
        self.check_values(values, refs("exp3d"), lambda v: (v["k"], 0))
        rc, objs, err = session(ONE_D + "set bounds 0:inf\nset param k 0.5,1,2\n"
                                "set exact \"1/k\"\nrun cpu\nvalues 3\n")
        self.assertEqual(rc, 0, err)
        values = of_type(objs, "value")
        self.assertEqual([v["k"] for v in values], [0.5, 1, 2])
        self.check_values(values, refs("exp1d_inf"), lambda v: (v["k"], 0))

    def test_float_batch(self):
        """A float batch: every value within its estimate (the float rounding in it)."""
        rc, objs, err = session(ONE_D.replace("double", "float").replace("1e-9", "1e-5") +
                                "set param k 1..50:1\nset exact \"(1-exp(-k))/k\"\n"
                                "run cpu\nvalues 50\n")
        self.assertEqual(rc, 0, err)
        values = of_type(objs, "value")
        self.assertEqual(len(values), 50)
        self.check_values(values, {}, lambda v: None)

    def test_two_parameter_grid(self):
        """k 1..3:1 and q 0.5,2: six integrals, k varying fastest, each with both coordinates;
        set param q 2 makes q one value again (three integrals)."""
        rc, objs, err = session(
            "use cubature\nset dim 2\nset precision double\nset rel 1e-9\nset repeat 1\n"
            "set warmup 0\nset param k 1\nset param q 1\nset integrand \"exp(-k*x-q*y)\"\n"
            "set param k 1..3:1\nset param q 0.5,2\n"
            "set exact \"(1-exp(-k))/k*(1-exp(-q))/q\"\nrun cpu\nvalues 6\n"
            "set param q 2\nshow params\n")
        self.assertEqual(rc, 0, err)
        values = of_type(objs, "value")
        self.assertEqual([(v["k"], v["q"]) for v in values],
                         [(1, 0.5), (2, 0.5), (3, 0.5), (1, 2), (2, 2), (3, 2)])
        self.check_values(values, refs("exp2d_grid"), lambda v: (v["k"], v["q"]))
        params = of_type(objs, "params")[0]
        self.assertEqual(params["integrals"], 3)
        self.assertEqual(params["q"], 2)

    def test_not_converged_note(self):
        """A maxeval too small for the hardest integrals: the note counts those that did not
        converge and says why; their estimates still cover their errors."""
        rc, objs, err = session(ONE_D + "set maxeval 200\nset rel 1e-12\n"
                                "set param k 1..200:1\nset exact \"(1-exp(-k))/k\"\n"
                                "run cpu\nvalues 200\n")
        self.assertEqual(rc, 0, err)
        run = of_type(objs, "run")[0]
        self.assertLess(run["error"]["converged"], 200, run)
        n = 200 - run["error"]["converged"]
        self.assertIn(f"not converged: {n} of 200 integrals (maxeval reached", run["note"])
        self.check_values(of_type(objs, "value"), {}, lambda v: None)

    def test_refusals(self):
        """Each bad batch is one error naming the problem and what is allowed, and changes
        nothing (show params after it)."""
        cases = [
            (ONE_D + "set param k 5..1\n", "A = 5 is above B = 1"),
            (ONE_D + "set param k 1..1e5:1\nset param q 1..1e4:1\n", "at most 100000000"),
            ("use cubature\nset dim 1\nset param p1 1\nset param p2 1\nset param p3 1\nset param p4 1\nset param k 1\n"
             "set integrand \"exp(-(p1+p2+p3+p4+k)*x)\"\nset param p1 1,2\nset param p2 1,2\n"
             "set param p3 1,2\nset param p4 1,2\nset param k 1,2\n",
             "at most 4 batch parameters"),
            (ONE_D + "set param q 1..3:1\n", "batch parameter q (3 values) is not in the"),
            (ONE_D + "set param k 1,2\nset integrand f5\nrun cpu\n", "needs your own integrand"),
            (ONE_D + "set param k 1,2\nset exact \"k+x\"\n", "uses x, an axis"),
            (ONE_D + "set param k 1,2\nset exact \"k+zz\"\n", "exact:"),
            (ONE_D + "set param k 1,a\n", "bad value 'a' in the list for parameter k"),
            ("use longman\nset param k 1,2\n", "longman: a batch (k has 2 values) needs an "
             "expression amplitude"),
        ]
        for text, want in cases:
            rc, objs, err = session(text)
            self.assertNotEqual(rc, 0, text)
            self.assertIn(want, err, text)
            self.assertEqual(err.count("quadx: "), 1, err)
        # nothing changed: each refused set leaves k one value and one integral
        for bad in ("set param k 5..1", "set param k 1..1e5:1 q 1..1e4:1", "set param k 1,a"):
            rc, objs, err = session(ONE_D + bad + "\nshow params\n", "--keep-going")
            params = of_type(objs, "params")
            self.assertEqual(params[-1]["integrals"], 1, (objs, err))
            self.assertEqual(params[-1]["k"], 1)

    LIMIT = 1200 << 20  # an address space (ulimit -v) far below 1e8 integrals' arrays

    def limited(self, text):
        """Runs the script text under an address-space limit of LIMIT (what quadx counts as
        available); returns (rc, stderr), or skips when this build cannot start under it."""
        import resource

        def limit():
            resource.setrlimit(resource.RLIMIT_AS, (self.LIMIT, self.LIMIT))
        if qxtest.run(["-e", "show params"], preexec_fn=limit).returncode != 0:
            self.skipTest("this build cannot start under the address-space limit (a "
                          "sanitizer's shadow memory)")
        p = qxtest.script(text, preexec_fn=limit)
        return p.returncode, p.stderr

    def test_memory_refused(self):
        """A batch whose results do not fit the memory available is refused before it runs,
        naming what it needs and what is available: 10^8 integrals (about 5.6 GiB of arrays);
        and a batch whose results fit but not beside a region-list budget set larger than what
        they leave, naming both parts."""
        rc, err = self.limited(ONE_D + "set param q 1\nset integrand \"exp(-k*q*x)\"\n"
                               "set param k 1..1e4:1\nset param q 1..1e4:1\nrun cpu\n")
        self.assertEqual(rc, 1, err)
        m = re.search(r"run refused: it needs 5\.\d GiB of host memory and ([\d.]+) ([MG]iB) "
                      r"is available\n$", err)
        self.assertIsNotNone(m, err)
        # a budget of all that is available (what the build's own mappings leave of the
        # limit), so that the results do not fit beside it
        budget = math.ceil(float(m.group(1)) * (1024 if m.group(2) == "GiB" else 1))
        rc, err = self.limited(ONE_D + f"set param k 1..1e6:1\nset budget {budget}\nrun cpu\n")
        self.assertEqual(rc, 1, err)
        self.assertRegex(err, r"run refused: the batch of 1000000 integrals needs [\d.]+ [MG]iB "
                         r"\(4\d\.\d MiB for its results, [\d.]+ [MG]iB for the region lists: "
                         rf"budget {budget} MiB\) and [\d.]+ [MG]iB is available\n$")

    def test_sweep_runs_the_batch(self):
        """sweep of another setting runs the whole batch at each value, each row with the
        batch's integrals, how many converged and the worst estimate (JSON, CSV, the table);
        the batch is still set afterwards. A sweep of the batch parameter itself is refused,
        saying what to do instead, and changes nothing."""
        csv_path = os.path.join(self.dir, "s.csv")
        rc, objs, err = session(ONE_D + "set param k 1..200:1\nset exact \"(1-exp(-k))/k\"\n"
                                f"sweep rel 1e-4,1e-10 on cpu\nexport last {csv_path}\n"
                                "show params\n")
        self.assertEqual(rc, 0, err)
        rows = of_type(objs, "sweep")
        self.assertEqual([r["config"]["rel"] for r in rows], [1e-4, 1e-10])
        for r in rows:
            self.assertEqual(r["integrals"], 200, r)
            self.assertEqual(r["integrals_converged"], 200, r)
            self.assertIn("converged: 200 of 200 integrals", r["note"])
        self.assertGreater(rows[0]["worst_error_estimate"], rows[1]["worst_error_estimate"])
        self.assertLess(rows[1]["worst_error_estimate"], 1e-10)
        self.assertIn("integrals 200/200 converged", err)  # the progress lines
        with open(csv_path) as f:
            table = list(csv.DictReader(f))
        self.assertEqual([int(r["integrals_converged"]) for r in table], [200, 200])
        params = of_type(objs, "params")[0]
        self.assertEqual((params["k"], params["integrals"]), ("1..200:1", 200))
        p = qxtest.script(ONE_D + "set param k 1..200:1\nset maxeval 200\nset rel 1e-12\n"
                          "sweep rel 1e-12 on cpu\n")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stdout, r"converged +worst est")
        self.assertRegex(p.stdout, r"1e-12 cpu +\d+/200 +\d")
        rc, objs, err = session(ONE_D + "set param k 1..1000:1\nsweep k 1,2 on cpu\n"
                                "show params\n", "--keep-going")
        self.assertNotEqual(rc, 0)
        self.assertIn("sweep: k is a batch parameter (1000 values): set param k VALUE to sweep "
                      "it, or run the batch", err)
        self.assertEqual(of_type(objs, "sweep"), [])
        self.assertEqual(of_type(objs, "params")[0]["integrals"], 1000)

    def test_export_and_plot(self):
        """export values writes every integral as CSV and JSON with its parameter; plot draws
        value against k into a PNG (with gnuplot) or writes its script and data."""
        csv_path = os.path.join(self.dir, "v.csv")
        json_path = os.path.join(self.dir, "v.json")
        png = os.path.join(self.dir, "b.png")
        rc, objs, err = session(ONE_D + "set param k 1..30:1\nset exact \"(1-exp(-k))/k\"\n"
                                f"run cpu\nexport values {csv_path}\nexport values {json_path}\n"
                                f"plot {png}\n")
        self.assertEqual(rc, 0, err)
        with open(csv_path) as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(len(rows), 30)
        self.assertEqual([float(r["k"]) for r in rows], list(range(1, 31)))
        for r in rows:
            self.assertLessEqual(abs(float(r["value"]) - float(r["reference"])),
                                 float(r["error_estimate"]))
        with open(json_path) as f:
            text = f.read()
        try:
            doc = json.loads(text)
        except ValueError:
            doc = [json.loads(l) for l in text.splitlines() if l.strip()]
        values = doc if isinstance(doc, list) else doc.get("values", [])
        self.assertEqual([v["k"] for v in values], list(range(1, 31)), text[:300])
        if HAVE_GNUPLOT:
            self.assertTrue(os.path.getsize(png) > 0)
        else:
            with open(png[:-4] + ".dat") as f:
                self.assertEqual(len([l for l in f if l.strip()]), 30)


if __name__ == "__main__":
    unittest.main(verbosity=2)
