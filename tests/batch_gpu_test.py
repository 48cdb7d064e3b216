#!/usr/bin/env python3
"""GPU tests of a parameter batch on breadth and twophase (the CPU's are tests/batch_test.py):
every integral of a 1-D batch with a closed form converged within its estimate, double and
float; a 3-D batch's values equal the single-integral runs' within both estimates; an integral that has
converged costs nothing more (a batch's evaluations are its integrals' own, whatever else is
in it); a fault mid-batch under compute-sanitizer is one error, leaks nothing, and the next
batch runs.

Run from the repository root: `python3 tests/batch_gpu_test.py`. Without a usable GPU every
test is skipped, unless QUADX_REQUIRE_GPU=1, which makes that a failure."""
import math
import re
import shutil
import unittest

import qxtest
from qxtest import FAULTS_BIN, require_faults_bin

GPU = qxtest.gpu_or_exit("batch_gpu_test")
SANITIZER = shutil.which("compute-sanitizer") or "/usr/local/cuda/bin/compute-sanitizer"
GAUSS_COS = "exp(-k*(x^2+y^2+z^2))*cos(k*x)"


def records(case, cmds, kind):
    """The records of type kind (run, value) that quadx --json -e cmds printed."""
    rc, out, err = qxtest.json_commands(cmds, timeout=600)
    case.assertEqual(rc, 0, err)
    return [o for o in out if o.get("type") == kind]


def equal_to_singles(case, vals, singles, ks):
    """Each batch value (at k of ks) equals its single run's within both estimates, the single
    run converged."""
    case.assertEqual(len(vals), len(ks))
    for v, s, k in zip(vals, singles, ks):
        case.assertEqual(v["k"], k)
        case.assertEqual(s["error"]["converged"], 1, s["note"])
        case.assertLessEqual(abs(v["value"] - s["value"]),
                             v["error_estimate"] + s["error_estimate"], k)


@unittest.skipIf(GPU is None, "no usable GPU")
class BatchGpuTest(unittest.TestCase):
    def test_closed_form_1d(self):
        """exp(-k x) on [0, 1], k = 1..1000: every integral converged, its true error against
        (1 - exp(-k))/k within its estimate, in double at 1e-10 and float at 1e-5."""
        for prec, rel in (("double", "1e-10"), ("float", "1e-5")):
            cmds = ('use cubature; set repeat 1 warmup 0 dim 1 integrand "exp(-k*x)" '
                    'param k 1 bounds 0:1 exact "(1-exp(-k))/k"; set param k 1..1000:1; '
                    f'set precision {prec} rel {rel}; run gpu; values 1000')
            run = records(self, cmds, "run")[0]
            vals = records(self, cmds, "value")
            print(f"\n  1000 x exp(-k x) {prec}: {run['time_ms']['total']:.2f} ms, "
                  f"{run['error']['integrals_per_s']:.3g} integrals/s, "
                  f"{run['error']['evaluations']:.3g} evaluations", end="")
            self.assertEqual(run["error"]["integrals"], 1000)
            self.assertEqual(run["error"]["converged"], 1000, run["note"])
            self.assertEqual(len(vals), 1000)
            for v in vals:
                k = v["k"]
                exact = -math.expm1(-k) / k
                self.assertAlmostEqual(v["reference"], exact, delta=1e-15 * exact)
                self.assertLessEqual(abs(v["value"] - exact), v["error_estimate"], (prec, k))

    def test_batch_equals_single_runs(self):
        """A 3-D batch at rel 1e-8: each value equals the single run's at the same k within
        both estimates, and both converged."""
        ks = [1, 2, 5, 10, 20]
        base = (f'use cubature; set repeat 1 warmup 0 precision double rel 1e-8 dim 3 '
                f'integrand "{GAUSS_COS}" param k 1 bounds 0:1; ')
        vals = records(self, base + "set param k " + ",".join(map(str, ks)) +
                       "; run gpu; values 5", "value")
        singles = records(self, base + "; ".join(f"set param k {k}; run gpu" for k in ks),
                          "run")
        equal_to_singles(self, vals, singles, ks)

    def test_finished_integrals_cost_nothing(self):
        """Each integral of a batch splits by its own sums alone: a batch of an easy and a hard
        integral takes half the evaluations of the batch of two easy ones and the batch of two
        hard ones together (to rounding in the order the GPU sums errors), so the easy one
        stops splitting when it converges, whatever the hard one still needs."""
        base = (f'use cubature; set repeat 1 warmup 0 precision double rel 1e-8 dim 3 '
                f'integrand "{GAUSS_COS}" param k 1 bounds 0:1; ')
        evals = {}
        for spec in ("1,1", "40,40", "1,40"):
            run = records(self, base + f"set param k {spec}; run gpu", "run")[0]
            self.assertEqual(run["error"]["converged"], 2, (spec, run["note"]))
            evals[spec] = run["error"]["evaluations"]
        print(f"\n  evaluations: k=1,1 {evals['1,1']:.4g}, k=40,40 {evals['40,40']:.4g}, "
              f"k=1,40 {evals['1,40']:.4g}", end="")
        self.assertLess(evals["1,1"], evals["40,40"])
        self.assertLessEqual(abs(evals["1,40"] - (evals["1,1"] + evals["40,40"]) / 2),
                             0.01 * evals["1,40"])

    def test_twophase_batch(self):
        """twophase's batch, lmax small enough that phase 2 runs (its time is in the run's
        phases): every integral of the 1-D closed form converged within its estimate, double
        at 1e-10 and float at 1e-5; and a 3-D batch's values equal the single twophase runs'
        at the same k within both estimates, both converged."""
        for prec, rel in (("double", "1e-10"), ("float", "1e-5")):
            cmds = ('use cubature; set variant twophase lmax 4096 repeat 1 warmup 0 dim 1 '
                    'integrand "exp(-k*x)" param k 1 bounds 0:1 exact "(1-exp(-k))/k"; '
                    f'set param k 1..1000:1; set precision {prec} rel {rel}; run gpu; '
                    'values 1000')
            run = records(self, cmds, "run")[0]
            vals = records(self, cmds, "value")
            print(f"\n  twophase 1000 x exp(-k x) {prec}: {run['time_ms']['total']:.2f} ms, "
                  f"{run['error']['evaluations']:.3g} evaluations", end="")
            self.assertIn("phase2", run["time_ms"], run["time_ms"])
            self.assertEqual(run["error"]["converged"], 1000, run["note"])
            self.assertEqual(len(vals), 1000)
            for v in vals:
                exact = -math.expm1(-v["k"]) / v["k"]
                self.assertLessEqual(abs(v["value"] - exact), v["error_estimate"],
                                     (prec, v["k"]))
        ks = [1, 2, 5, 10, 20]
        base = (f'use cubature; set variant twophase repeat 1 warmup 0 precision double '
                f'rel 1e-8 dim 3 integrand "{GAUSS_COS}" param k 1 bounds 0:1; ')
        # the batch's lmax is its list's, shared by its integrals: 4096 for the five, each
        # single run 2048. Phase 1 alone meets 1e-8 within 8192 (the CPU's queue ends with
        # 5224 leaves for the five), and from 2048 phase 2 filled a region's heap on k = 20
        cmds = (base + "set lmax 4096; set param k " + ",".join(map(str, ks)) +
                "; run gpu; values 5")
        run = records(self, cmds, "run")[0]
        vals = records(self, cmds, "value")
        singles = records(self, base + "set lmax 2048; " +
                          "; ".join(f"set param k {k}; run gpu" for k in ks), "run")
        self.assertIn("phase2", run["time_ms"], run["time_ms"])
        self.assertEqual(run["error"]["converged"], len(ks), run["note"])
        equal_to_singles(self, vals, singles, ks)

    def test_monte_carlo_batch_refused(self):
        """vegas and qmc take no batch on the GPU: one error naming the variant that does, and
        the session goes on (the same batch then runs on breadth)."""
        for variant in ("vegas", "qmc"):
            p = qxtest.script(f'use cubature\nset dim 2\nset param k 1\n'
                              f'set integrand "exp(-k*(x+y))"\nset param k 1,2\n'
                              f'set variant {variant}\nrun gpu\n'
                              'set variant breadth\nrun gpu\n', "--json", "--keep-going")
            self.assertIn(f"variant {variant} takes no batch on the gpu (k has 2 values): "
                          "set variant breadth", p.stderr)
            self.assertEqual(p.stderr.count("quadx: "), 1, p.stderr)
            runs = [o for o in qxtest.json_lines(p.stdout) if o.get("type") == "run"]
            self.assertEqual(len(runs), 1, p.stdout[-2000:])
            self.assertEqual(runs[0]["error"]["integrals"], 2)

    def test_fault_mid_batch_leaks_nothing(self):
        """The fifth kernel launch of a batch fails: one error, compute-sanitizer's memcheck
        finds no leak and no error, and the batch after it runs."""
        require_faults_bin(self)
        cmds = ('use cubature; set repeat 1 warmup 0 dim 3 rel 1e-6 '
                f'integrand "{GAUSS_COS}" param k 1 bounds 0:1; set param k 1..50:1; '
                'run gpu; run gpu')
        p = qxtest.run(["--tool", "memcheck", "--leak-check", "full", "--error-exitcode", "99",
                        FAULTS_BIN, "--keep-going", "-e", cmds], program=[SANITIZER],
                       timeout=600, env={"QUADX_FAULT": "launch:5"})
        rc, out, err = p.returncode, p.stdout, p.stderr
        print(f"\n  memcheck with QUADX_FAULT=launch:5: rc {rc}; " + " | ".join(
            l for l in (out + err).splitlines() if "SUMMARY" in l), end="")
        self.assertEqual(err.count("injected fault"), 1, err[-4000:])
        self.assertEqual(len(re.findall(r"^gpu cubature ", out, re.M)), 1, out[-4000:])
        self.assertEqual(rc, 1, out[-4000:] + err[-2000:])
        self.assertRegex(out + err, r"ERROR SUMMARY: 0 errors")


if __name__ == "__main__":
    unittest.main()
