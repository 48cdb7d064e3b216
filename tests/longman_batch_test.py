#!/usr/bin/env python3
"""Script tests of longman's batch of the amplitude's parameters on the CPU (`set param k
RANGE|LIST` with an expression amplitude): sessions piped through quadx's stdin. g = exp(-k x)
with cos and sin from a = 0.5 has the closed form int_a^inf e^{-kx} cos(wx) dx = e^{-ka}
(k cos wa - w sin wa)/(k^2 + w^2) (sin: (k sin wa + w cos wa)); every (lambda, omega) at every
k, each value within the run's bound of it and GSL's QAWF reference equal to it; the same
integral by eval (k one value) gives the batch's value bit for bit and a bound that covers its
error; a two-parameter grid (q exp(-k x)) in its order; the QAWF sample spread over a batch
larger than it; values, errors and export values naming the parameters; every refusal (a
batch parameter the amplitude does not use, a built-in integrand, more than 10^9 integrals, an
amplitude that does not decay at one value of k, a batch too large for the memory) one error,
changing nothing.

Run from the repository root: python3 tests/longman_batch_test.py"""
import csv
import json
import math
import os
import shutil
import tempfile
import unittest

import qxtest

A = 0.5
OMEGAS = [1 + i for i in range(8)]  # omega 1:8 over M = 8 (lambda 0: one row)
KS = [0.5 * (i + 1) for i in range(6)]  # k 0.5..3:0.5

ONE = ("use longman\nset precision double\nset repeat 1\nset warmup 0\nset param k 1\n"
       f"set integrand \"exp(-k*x)\"\nset M 8 lambda 0 omega 1:8 a {A}\n")


def exact(k, w, trig="cos", a=A):
    """int_a^inf e^{-k x} trig(w x) dx."""
    d = k * k + w * w
    if trig == "sin":
        return math.exp(-k * a) * (k * math.sin(w * a) + w * math.cos(w * a)) / d
    return math.exp(-k * a) * (k * math.cos(w * a) - w * math.sin(w * a)) / d


def session(text, *args):
    """Runs the script text through quadx's stdin (--json); returns (rc, objects, stderr)."""
    p = qxtest.script(text, "--json", *args)
    return p.returncode, qxtest.json_lines(p.stdout), p.stderr


def of_type(objs, kind):
    return [o for o in objs if o.get("type") == kind]


class LongmanBatchTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="quadx-lmbatch-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def check_closed_form(self, run, values, key, trig="cos", scale=lambda v: 1):
        """Every value within the run's bound_max of the closed form (plus float's rounding),
        its QAWF reference equal to it; none over its own estimate; QAWF obtained them all."""
        err = run["error"]
        self.assertEqual(err["over_bound"], 0, err)
        self.assertEqual(err["qawf_failed"], 0, err)
        self.assertEqual(err["bound_unknown"], 0, err)
        slack = 0 if run["precision"] == "double" else 1e-6
        for v in values:
            k, w = key(v)
            want = scale(v) * exact(k, w, trig)
            self.assertAlmostEqual(v["reference"], want, delta=1e-12, msg=v)
            self.assertLessEqual(abs(v["value"] - want), err["bound_max"] + slack, v)

    def test_one_parameter_closed_form(self):
        """k = 0.5..3:0.5 at 8 omegas: 48 integrals, the omegas fastest, each with k, lambda
        and omega; in double on 1 and 2 threads (the same values) and in float, with cos and
        sin, every value within its bound of the closed form and QAWF equal to it."""
        for trig in ("cos", "sin"):
            rc, objs, err = session(ONE + f"set trig {trig}\nset param k 0.5..3:0.5\n"
                                    "show params\nset threads 1\nrun cpu\nvalues 48\n"
                                    "set threads 2\nrun cpu\nvalues 48\n"
                                    "set precision float\nrun cpu\nvalues 48\n")
            self.assertEqual(rc, 0, err)
            params = of_type(objs, "params")[0]
            self.assertEqual((params["k"], params["integrals"]), ("0.5..3:0.5", 48))
            runs = of_type(objs, "run")
            values = of_type(objs, "value")
            self.assertEqual(len(runs), 3, objs)
            self.assertEqual(len(values), 3 * 48)
            for r in runs:
                self.assertEqual(r["against"], "GSL QAWF")
                self.assertEqual(r["compared"], 48, r)
            rows = [values[i * 48:(i + 1) * 48] for i in range(3)]
            for i, v in enumerate(rows[0]):
                self.assertEqual(v["index"], i)
                self.assertEqual((v["k"], v["lambda"], v["omega"]),
                                 (KS[i // 8], 0, OMEGAS[i % 8]), v)
                self.assertEqual(list(v).index("k") < list(v).index("lambda"), True, v)
            self.assertEqual([v["value"] for v in rows[0]], [v["value"] for v in rows[1]])
            for r, vals in zip(runs, rows):
                self.check_closed_form(r, vals, lambda v: (v["k"], v["omega"]), trig)

    def test_batch_equals_eval(self):
        """Each integral of the batch is the one eval computes with k one value: the same
        double bit for bit, and eval's own bound covers its error against the closed form."""
        rc, objs, err = session(ONE + "set param k 0.5,1.5,3\nrun cpu\nvalues 24\n")
        self.assertEqual(rc, 0, err)
        batch = {(v["k"], v["omega"]): v["value"] for v in of_type(objs, "value")}
        self.assertEqual(len(batch), 24)
        for k in (0.5, 1.5, 3):
            evals = "".join(f"eval 0 {w}\n" for w in OMEGAS)
            rc, objs, err = session(ONE + f"set param k {k}\n" + evals)
            self.assertEqual(rc, 0, err)
            got = [o for o in of_type(objs, "eval")
                   if o["backend"] == "cpu" and o["precision"] == "double"]
            self.assertEqual(len(got), 8, objs)
            for o in got:
                w = o["args"][1]
                self.assertEqual(o["value"], batch[(k, w)], (k, w))
                self.assertLessEqual(abs(o["value"] - exact(k, w)), o["bound"], (k, w))

    def test_two_parameter_grid(self):
        """q exp(-k x) with k 1,2 and q 0.5..1.5:0.5 at 3 omegas: 18 integrals, the omegas
        fastest, then k, then q; each within its bound of q times the closed form; set param
        q 1 makes it 6 integrals again."""
        rc, objs, err = session(
            ONE.replace("\"exp(-k*x)\"", "\"q*exp(-k*x)\"").replace("set param k 1\n",
                                                                   "set param k 1\nset param q 1\n")
            .replace("set M 8", "set M 3").replace("omega 1:8", "omega 1:3") +
            "set param k 1,2\nset param q 0.5..1.5:0.5\nshow params\nrun cpu\nvalues 18\n"
            "set param q 1\nshow params\n")
        self.assertEqual(rc, 0, err)
        shown = of_type(objs, "params")
        self.assertEqual([p["integrals"] for p in shown], [18, 6])
        values = of_type(objs, "value")
        self.assertEqual([(v["k"], v["q"], v["omega"]) for v in values],
                         [(k, q, w) for q in (0.5, 1, 1.5) for k in (1, 2) for w in (1, 2, 3)])
        self.check_closed_form(of_type(objs, "run")[0], values, lambda v: (v["k"], v["omega"]),
                               scale=lambda v: v["q"])

    def test_reference_sample_spans_the_batch(self):
        """M 500 at 5 values of k: 2500 integrals, of which QAWF's sample of 2000 is compared,
        none over its estimate; the worst integrals name their k."""
        rc, objs, err = session(ONE.replace("set M 8", "set M 500").replace("omega 1:8",
                                                                            "omega 1:20") +
                                "set param k 1..5:1\nrun cpu\nerrors 3\n")
        self.assertEqual(rc, 0, err)
        r = of_type(objs, "run")[0]
        self.assertEqual(r["compared"], 2000, r)
        self.assertEqual(r["error"]["over_bound"], 0, r["error"])
        worst = of_type(objs, "worst")
        self.assertEqual(len(worst), 3, objs)
        for w in worst:
            self.assertIn(w["k"], (1, 2, 3, 4, 5), w)
            self.assertIn("omega", w)

    def test_export_values(self):
        """export values writes every integral, CSV and JSON, with k, lambda and omega."""
        csv_path = os.path.join(self.dir, "v.csv")
        json_path = os.path.join(self.dir, "v.json")
        rc, objs, err = session(ONE + "set param k 0.5..3:0.5\nrun cpu\n"
                                f"export values {csv_path}\nexport values {json_path}\n")
        self.assertEqual(rc, 0, err)
        with open(csv_path) as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(len(rows), 48)
        self.assertEqual([(float(r["k"]), float(r["omega"])) for r in rows],
                         [(k, w) for k in KS for w in OMEGAS])
        for r in rows:
            want = exact(float(r["k"]), float(r["omega"]))
            self.assertAlmostEqual(float(r["reference"]), want, delta=1e-12)
        with open(json_path) as f:
            doc = json.load(f)
        self.assertEqual([(v["k"], v["lambda"], v["omega"]) for v in doc["values"]],
                         [(k, 0, w) for k in KS for w in OMEGAS])

    def test_refusals(self):
        """Each bad batch is one error naming the problem and what is allowed, and changes
        nothing (show params after it)."""
        two = ONE.replace("set param k 1\n", "set param k 1\nset param q 1\n")
        cases = [
            (two + "set param q 1..3:1\n",
             "longman: batch parameter q (3 values) is not in the amplitude: use it there, "
             "or make it one value (set param q VALUE)"),
            (ONE + "set param k 1..3:1\nset integrand \"exp(-x)\"\n",
             "batch parameter k (3 values) is not in the amplitude"),
            (ONE + "set param k 1..3:1\nset integrand cos lambda 0.5\n",
             "longman: a batch (k has 3 values) needs an expression amplitude in its "
             "parameters"),
            ("use longman\nset param k 1,2\n", "needs an expression amplitude"),
            (ONE + "set M 20000\nset param k 1..1e5:1\n",
             "make 2e+09 integrals: at most 1000000000 (10^9)"),
            (ONE + "set param k 1..1e4:1\nset M 200000\n", "at most 1000000000 (10^9)"),
            (ONE + "set param k 1..4:1\nsweep k 1,2 on cpu\n", "sweep: k is a batch parameter"),
        ]
        for text, want in cases:
            rc, objs, err = session(text)
            self.assertNotEqual(rc, 0, text)
            self.assertIn(want, err, text)
            self.assertEqual(err.count("quadx: "), 1, err)
        for bad, integrals in (("set param q 1..3:1", 8), ("set param k 1..1e5:1 M 20000", 8),
                               ("set param k 1..3:1\nset integrand cos lambda 0.5", 24)):
            rc, objs, err = session(two + bad + "\nshow params\n", "--keep-going")
            self.assertNotEqual(rc, 0)
            params = of_type(objs, "params")[-1]
            self.assertEqual(params["integrals"], integrals, (bad, params, err))
            self.assertEqual(params["M"], 8)
            self.assertEqual(params["integrand"], "exp(-k*x)")

    def test_no_decay_at_one_value_refused(self):
        """exp(-k*x) at k = 0 does not decay: a batch over k = 0..2:1 is refused before
        anything runs, naming k; the session keeps its last run."""
        rc, objs, err = session(ONE + "run cpu\nset param k 0..2:1\nrun cpu\nshow params\n",
                                "--keep-going")
        self.assertEqual(rc, 1, err)
        self.assertIn("not integrable: g does not decay", err)
        self.assertIn("at k = 0)", err)
        self.assertEqual(err.count("quadx: "), 1, err)
        self.assertEqual(len(of_type(objs, "run")), 1, objs)
        self.assertEqual(of_type(objs, "params")[0]["integrals"], 24)
        # the ends of a range and points between: k = 1..101:1 fails only at its last value
        rc, objs, err = session(ONE + "set integrand \"exp(-(101-k)*x)\"\n"
                                "set param k 1..101:1\nrun cpu\n")
        self.assertEqual(rc, 1, err)
        self.assertIn("at k = 101)", err)

    LIMIT = 1200 << 20  # an address space (ulimit -v) far below 10^9 integrals' arrays

    def test_memory_refused(self):
        """10^9 integrals (M 100000 at 10^4 values of k: 11.2 GiB of values and reference in
        float) under a 1.2 GiB address space: refused before the run, naming both figures."""
        import resource

        def limit():
            resource.setrlimit(resource.RLIMIT_AS, (self.LIMIT, self.LIMIT))
        if qxtest.run(["-e", "show params"], preexec_fn=limit).returncode != 0:
            self.skipTest("this build cannot start under the address-space limit (a "
                          "sanitizer's shadow memory)")
        p = qxtest.script(ONE.replace("double", "float") +
                          "set M 100000\nset param k 1..1e4:1\nrun cpu\n", preexec_fn=limit)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertRegex(p.stderr, r"run refused: it needs 11\.2 GiB of host memory and "
                         r"[\d.]+ MiB is available\n$")


if __name__ == "__main__":
    unittest.main(verbosity=2)
