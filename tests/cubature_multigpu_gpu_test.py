#!/usr/bin/env python3
"""cubature breadth over several GPUs (`set gpus`), on a host with 2 or more: f4, f5, a Genz
family, float and the user's own integrand on 2 (and 4) GPUs take the 1-GPU run's iterations,
meet the tolerance with an error estimate over the true error, and give a value within the
estimates of the 1-GPU value (not bit for bit: the sums are added in another order); the JSON
has each GPU's phases, GPU 0's rules always (a run starts there) and every GPU's in the runs
large enough to divide (f4 and f5 in dim 8); twophase and a budget larger than a GPU's free
memory are refused with one error; an injected fault on one GPU mid-run is one error naming
the GPU, nothing leaked (compute-sanitizer's leak check), and the next run works.

Skipped with fewer than 2 GPUs (and without one, unless QUADX_REQUIRE_GPU=1, which makes no
GPU a failure). Run from the repository root: `python3 tests/cubature_multigpu_gpu_test.py`."""
import re
import shutil
import unittest

import qxtest
from qxtest import FAULTS_BIN, QUADX, require_faults_bin

SANITIZER = shutil.which("compute-sanitizer") or "/usr/local/cuda/bin/compute-sanitizer"
SMALL = "repeat 1 warmup 0 variant breadth maxeval 1e11"

GPU = qxtest.gpu_or_exit("cubature_multigpu_gpu_test")
NGPUS = qxtest.device().get("gpus", 1) if GPU else 0
COUNTS = [g for g in (2, 4) if g <= NGPUS]


def quadx(cmds, timeout=600, program=None, env=None, args=("--json",)):
    """Runs quadx args -e cmds (program: another binary's argv); returns (rc, objects or
    stdout, stderr)."""
    p = qxtest.run([*args, "-e", cmds], timeout=timeout, env=env, program=program or [QUADX])
    return p.returncode, (qxtest.json_lines(p.stdout) if "--json" in args else p.stdout), \
        p.stderr


@unittest.skipIf(NGPUS < 2, f"needs 2 or more GPUs (this host has {NGPUS})")
class CubatureMultiGpuTest(unittest.TestCase):
    def run_on(self, config, gpus):
        rc, out, err = quadx(f"use cubature; set {config} {SMALL} gpus {gpus}; run gpu")
        self.assertEqual(rc, 0, err)
        runs = [o for o in out if o.get("type") == "run"]
        self.assertEqual(len(runs), 1, out)
        return runs[0]

    def check_same_decisions(self, config, rel, divided=False):
        """config on 1 GPU and on COUNTS GPUs: the same decisions; divided: the run is large
        enough to reach every GPU (each has its own rules phase)."""
        one = self.run_on(config, 1)
        e1 = one["error"]
        self.assertEqual(e1["converged"], 1, (config, e1))
        for g in COUNTS:
            with self.subTest(config=config, gpus=g):
                r = self.run_on(config, g)
                e = r["error"]
                print(f"\n  {config[:44]:44} {g} GPUs: {r['time_ms']['total']:9.2f} ms, "
                      f"{e['iterations']} iterations (1 GPU: {one['time_ms']['total']:.2f} "
                      f"ms, {e1['iterations']}), estimate {r['error_estimate']:.2e}, "
                      f"true {r['true_error']:.2e}, |v - v1| "
                      f"{abs(r['value'] - one['value']):.1e}", end="")
                self.assertEqual(r["gpus"], g)
                self.assertEqual(len(r["per_gpu"]), g)
                self.assertIn("rules", r["per_gpu"][0])
                for ph in r["per_gpu"]:
                    self.assertIn("total", ph)
                    if divided:
                        self.assertIn("rules", ph)
                self.assertEqual(e["converged"], 1, e)
                self.assertEqual(e["iterations"], e1["iterations"])
                self.assertLess(e["max_rel"], rel)
                self.assertLessEqual(r["true_error"], r["error_estimate"])
                self.assertLessEqual(abs(r["value"] - one["value"]),
                                     r["error_estimate"] + one["error_estimate"])

    def test_f4_f5_genz_same_iterations(self):
        for config, rel, divided in (
                ("integrand f4 dim 8 rel 1e-4 precision double", 1e-4, True),
                ("integrand f5 dim 8 rel 1e-9 precision double", 1e-9, True),
                ("integrand gaussian dim 6 rel 1e-8 precision double", 1e-8, False),
                ("integrand f4 dim 6 rel 1e-6 precision double rule 7", 1e-6, False),
                ("integrand f5 dim 6 rel 1e-4 precision float", 1e-4, False)):
            self.check_same_decisions(config, rel, divided)

    def test_user_integrand(self):
        """The user's expression (f5 written out): its kernels run on every GPU."""
        self.check_same_decisions(
            'integrand "sum(i,cos(10*x[i]))/(0.2*sin(10))" exact 3 dim 6 rel 1e-8 '
            "precision double", 1e-8)

    def test_refusals(self):
        """twophase on 2 GPUs and a budget over a GPU's free memory: one error each, and the
        session goes on (the run after `set gpus 1` works)."""
        rc, out, err = quadx("use cubature; set integrand f5 dim 5 rel 1e-6 repeat 1 warmup 0 "
                             "variant twophase gpus 2; run gpu; set gpus 1; run gpu",
                             args=("--keep-going",))
        self.assertEqual(rc, 1)
        self.assertRegex(err, r"variant twophase runs on one GPU \(gpus is 2\): set gpus 1, "
                              r"or variant breadth, which divides its work over GPUs")
        self.assertEqual(len(err.splitlines()), 1, err)
        self.assertEqual(len(re.findall(r"(?m)^gpu cubature ", out)), 1, out)
        rc, out, err = quadx("use cubature; set integrand f5 dim 5 rel 1e-6 repeat 1 warmup 0 "
                             "budget 100000000 gpus 2; run gpu", args=())
        self.assertEqual(rc, 1)
        # refused before the run: against device 0 by the run's memory check, against each
        # GPU (the budget is every GPU's) by breadth's own
        self.assertRegex(err, r"needs .* of GPU memory|does not fit on GPU")
        self.assertEqual(len(err.splitlines()), 1, err)


@unittest.skipIf(NGPUS < 2, f"needs 2 or more GPUs (this host has {NGPUS})")
class CubatureMultiGpuFaultTest(unittest.TestCase):
    """A failure on one GPU mid-run: one error naming the GPU, the next run works and gives the
    clean run's value; under compute-sanitizer nothing leaks on any device."""

    def setUp(self):
        require_faults_bin(self)

    # f4 piles its work up near the corner (1, ..., 1): the GPU holding it hands regions over
    CONFIG = f"use cubature; set integrand f4 dim 6 rel 1e-6 precision double {SMALL} gpus 2"
    VALUE = r"(?m)^  value +(\S+)"

    def test_fault_on_one_gpu(self):
        rc, out, err = quadx(self.CONFIG + "; run gpu", program=[FAULTS_BIN], args=())
        self.assertEqual(rc, 0, err)
        clean = re.findall(self.VALUE, out)
        self.assertEqual(len(clean), 1, out)
        # in the run (QUADX_FAULT's points, src/fault.c), which starts on GPU 0 and is divided
        # over both once its new regions fill them: the 30th and 45th copies (a tally, or,
        # once divided, a GPU copying another's sums or histogram or regions moving), the 60th
        # event call (GPU 0 running ahead of the host, or its first iterations after), the
        # 13th allocation (an array growing with GPU 0's list, or GPU 1 set up), the third
        # stream call (once divided, a GPU waiting for the other's sums)
        for fault in ("cudaMemcpy:30", "cudaMemcpy:45", "cudaEvent:60", "cudaMalloc:13",
                      "cudaStream:3"):
            with self.subTest(fault=fault):
                rc, out, err = quadx(self.CONFIG + "; run gpu; run gpu", program=[FAULTS_BIN],
                                     env={"QUADX_FAULT": fault}, args=("--keep-going",))
                print(f"\n  QUADX_FAULT={fault}: {err.strip()[:150]}", end="")
                self.assertEqual(rc, 1, out[-2000:] + err[-2000:])
                self.assertEqual(err.count("injected fault"), 1, err)
                self.assertRegex(err, r"command 3 of -e: .*GPU \d of 2: .*injected fault")
                self.assertEqual(len(err.splitlines()), 1, err)
                self.assertEqual(re.findall(self.VALUE, out), clean, out)

    def test_memcheck_fault_and_clean_runs(self):
        # init 9: 9^5 first regions, enough to divide the run over both GPUs from the start
        p = qxtest.run(["--tool", "memcheck", "--leak-check", "full", "--error-exitcode", "99",
                        FAULTS_BIN, "--keep-going", "-e",
                        self.CONFIG.replace("dim 6 rel 1e-6", "dim 5 rel 1e-5 init 9") +
                        "; run gpu; run gpu"],
                       program=[SANITIZER], timeout=900, env={"QUADX_FAULT": "cudaMemcpy:25"})
        print("\n  memcheck: " + " | ".join(
            l for l in (p.stdout + p.stderr).splitlines() if "SUMMARY" in l), end="")
        self.assertEqual(p.returncode, 1, p.stdout[-3000:] + p.stderr[-3000:])
        self.assertRegex(p.stdout + p.stderr, r"ERROR SUMMARY: 0 errors")
        self.assertEqual(len(re.findall(r"(?m)^gpu cubature ", p.stdout)), 1, p.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
