#!/usr/bin/env python3
"""GPU tests of longman's batch of the amplitude's parameters (`set param k RANGE|LIST` with an
expression amplitude): the kernel linked with the amplitude reads each integral's parameters
from its index. For g = exp(-k x) with cos and sin from a = 0.5 (closed form e^{-ka}
(k cos wa - w sin wa)/(k^2 + w^2), sin: (k sin wa + w cos wa)) every GPU value, in double and
float, equals the CPU's within both runs' estimates (bound_max) and lies within its own of the
closed form, in the same order with the same parameters; a two-parameter grid (q exp(-k x));
every lanes split; a batch of 160000 integrals (4 chunks on 4 streams) equal to the CPU's.

Run from the repository root: `python3 tests/longman_batch_gpu_test.py`. Without a usable GPU
every test is skipped, unless QUADX_REQUIRE_GPU=1, which makes that a failure."""
import csv
import math
import os
import shutil
import tempfile
import unittest

import qxtest

GPU = qxtest.gpu_or_exit("longman_batch_gpu_test")

A = 0.5
COMMON = ('set param k 1; set param q 1; set integrand "q*exp(-k*x)"; '
          f'set M 8 lambda 0 omega 1:8 a {A} repeat 1 warmup 0')


def exact(k, w, trig="cos", a=A):
    """int_a^inf e^{-k x} trig(w x) dx."""
    d = k * k + w * w
    if trig == "sin":
        return math.exp(-k * a) * (k * math.sin(w * a) + w * math.cos(w * a)) / d
    return math.exp(-k * a) * (k * math.cos(w * a) - w * math.sin(w * a)) / d


def objects(cmds, timeout=600):
    """The records of quadx --json -e 'use longman; CMDS' (which must succeed)."""
    rc, out, err = qxtest.json_commands("use longman; " + cmds, timeout=timeout)
    assert rc == 0, err
    return out


def of_type(objs, kind):
    return [o for o in objs if o.get("type") == kind]


@unittest.skipIf(GPU is None, "no usable GPU")
class LongmanBatchGpuTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="quadx-lmbatch-gpu-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def compare(self, cpu_run, cpu_vals, gpu_run, gpu_vals, trig, names):
        """The GPU's values: the CPU's integrals in the same order with the same parameters,
        each within both runs' estimates of the CPU's value (float: plus its rounding) and
        within the GPU run's own of q times the closed form; none over its estimate."""
        self.assertEqual(len(gpu_vals), len(cpu_vals))
        self.assertGreater(len(gpu_vals), 0)
        self.assertEqual(gpu_run["error"]["over_bound"], 0, gpu_run["error"])
        self.assertEqual(gpu_run["error"]["qawf_failed"], 0, gpu_run["error"])
        slack = 0 if gpu_run["precision"] == "double" else 1e-6
        both = cpu_run["error"]["bound_max"] + gpu_run["error"]["bound_max"] + slack
        for c, g in zip(cpu_vals, gpu_vals):
            what = (gpu_run["precision"], g)
            self.assertEqual([g[n] for n in names], [c[n] for n in names], what)
            self.assertLessEqual(abs(g["value"] - c["value"]), both, what)
            want = g.get("q", 1) * exact(g["k"], g["omega"], trig)
            self.assertLessEqual(abs(g["value"] - want),
                                 gpu_run["error"]["bound_max"] + slack, what)

    def test_gpu_equals_cpu(self):
        """k = 0.5..3:0.5 at 8 omegas (48 integrals) with cos and sin: the GPU in double and
        float against the CPU in double."""
        for trig in ("cos", "sin"):
            out = objects(f"{COMMON} trig {trig} precision double; set param k 0.5..3:0.5; "
                          "run cpu; values 48; run gpu; values 48; set precision float; "
                          "run gpu; values 48")
            runs = of_type(out, "run")
            vals = of_type(out, "value")
            self.assertEqual([r["backend"] for r in runs], ["cpu", "gpu", "gpu"])
            self.assertEqual(len(vals), 3 * 48)
            for r in runs:
                self.assertEqual(r["compared"], 48, r)
            for i in (1, 2):
                self.compare(runs[0], vals[:48], runs[i], vals[48 * i:48 * (i + 1)], trig,
                             ("index", "k", "lambda", "omega"))

    def test_two_parameter_grid(self):
        """k 1,2 and q 0.5..1.5:0.5 at 8 omegas: 48 integrals, the GPU's equal to the CPU's."""
        out = objects(f"{COMMON} precision double; set param k 1,2; set param q 0.5..1.5:0.5; "
                      "run cpu; values 48; run gpu; values 48")
        runs = of_type(out, "run")
        vals = of_type(out, "value")
        self.compare(runs[0], vals[:48], runs[1], vals[48:], "cos",
                     ("index", "k", "q", "lambda", "omega"))
        self.assertEqual([(v["k"], v["q"]) for v in vals[48:56]], [(1, 0.5)] * 8)
        self.assertEqual([(v["k"], v["q"]) for v in vals[56:64]], [(2, 0.5)] * 8)

    def test_lanes(self):
        """Every lanes split (1..32) gives the CPU's values within both estimates."""
        for lanes in (1, 2, 4, 8, 16, 32):
            out = objects(f"{COMMON} precision double N 12 g 13 lanes {lanes}; "
                          "set param k 0.5..3:0.5; run cpu; values 48; run gpu; values 48")
            runs = of_type(out, "run")
            vals = of_type(out, "value")
            self.compare(runs[0], vals[:48], runs[1], vals[48:], "cos",
                         ("index", "k", "lambda", "omega"))

    def test_chunked_batch(self):
        """M 20000 at 8 values of k: 160000 integrals, past the one-chunk limit (4 chunks on 4
        streams), every GPU value equal to the CPU's within both estimates."""
        paths = {b: os.path.join(self.dir, f"{b}.csv") for b in ("cpu", "gpu")}
        out = objects(f"{COMMON} precision double M 20000 omega 1:20 threads 4; "
                      "set param k 1..8:1; "
                      f"run cpu; export values {paths['cpu']}; run gpu; "
                      f"export values {paths['gpu']}", timeout=1200)
        runs = of_type(out, "run")
        self.assertEqual(len(runs), 2)
        rows = {}
        for b, path in paths.items():
            with open(path) as f:
                rows[b] = [{k: float(v) for k, v in r.items() if k != "type" and v != ""}
                           for r in csv.DictReader(f)]  # a reference only where sampled
        self.assertEqual(len(rows["gpu"]), 160000)
        self.compare(runs[0], rows["cpu"], runs[1], rows["gpu"], "cos",
                     ("index", "k", "lambda", "omega"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
