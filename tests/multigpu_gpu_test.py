#!/usr/bin/env python3
"""Runs over several GPUs (`set gpus`), on a host with 2 or more: longman's batch over 2, 4
and all GPUs gives the 1-GPU values bit for bit (every variant, precision and math, chunked and
tiny batches, an expression amplitude); the JSON has each GPU's phases and the slowest GPU's
time; more GPUs than there are, and a problem that runs on one GPU, are refused; an injected
fault on one GPU mid-run is one error, the next run works, and compute-sanitizer (memcheck with
leak check) finds nothing on the multi-GPU paths, fault paths included.

Skipped with fewer than 2 GPUs (and without one, unless QUADX_REQUIRE_GPU=1, which makes no
GPU a failure). Run from the repository root: `python3 tests/multigpu_gpu_test.py`."""
import re
import shutil
import unittest

import qxtest
from qxtest import FAULTS_BIN, QUADX, require_faults_bin

SANITIZER = shutil.which("compute-sanitizer") or "/usr/local/cuda/bin/compute-sanitizer"
SMALL = "repeat 1 warmup 0 threads 2"

GPU = qxtest.gpu_or_exit("multigpu_gpu_test")
NGPUS = qxtest.device().get("gpus", 1) if GPU else 0
COUNTS = [g for g in (2, 4) if g <= NGPUS] + ([NGPUS] if NGPUS not in (2, 4) else [])


quadx = qxtest.json_run


@unittest.skipIf(NGPUS < 2, f"needs 2 or more GPUs (this host has {NGPUS})")
class LongmanMultiGpuTest(qxtest.TempDirCase):
    def values_on(self, config, gpus):
        """Runs longman's config on gpus GPUs; returns (the values file's text, the run)."""
        return self.exported_values(f"use longman; set {config} {SMALL} gpus {gpus}; run gpu",
                                    f"v{gpus}.csv")

    def test_values_equal_one_gpu_bit_for_bit(self):
        """Every value on 2, 4 and all GPUs is the 1-GPU value to the last bit (17 digits in
        the export), across variants, precisions, math, integrands and sizes: a batch smaller
        than the GPUs (empty shares), one chunk a GPU, and chunked shares."""
        configs = [
            "M 300001 N 16 g 10 precision float",
            "M 300001 N 16 g 10 precision double",
            "M 20000 N 12 precision float math fast integrand sin a 1.1",
            "M 5000 N 16 variant block precision double integrand j0 lambda 0:2 omega 1:10 a 0",
            "M 3 N 8 precision double",
            "M 40000 spread random seed 7 precision double lanes 4",
            'M 20000 integrand "exp(-lambda*x)/(1+x)" trig cos precision double',
        ]
        for config in configs:
            one, r1 = self.values_on(config, 1)
            self.assertEqual(r1["gpus"], 1)
            self.assertNotIn("per_gpu", r1)
            for g in COUNTS:
                with self.subTest(config=config, gpus=g):
                    many, rg = self.values_on(config, g)
                    self.assertEqual(rg["gpus"], g)
                    self.assertEqual(many, one)  # the same text: the same doubles
                    self.assertEqual(rg["error"]["max_abs"], r1["error"]["max_abs"])
                    print(f"\n  {config[:40]:40} {g} GPUs: total {rg['time_ms']['total']:.3f}"
                          f" ms (1 GPU {r1['time_ms']['total']:.3f})", end="")

    def test_json_has_each_gpus_phases(self):
        """per_gpu: one object of phases a GPU, each with kernel, d2h and total; time_ms is the
        slowest GPU's; the text output has a line a GPU."""
        g = COUNTS[0]
        rc, out, err = quadx(f"use longman; set M 1000000 repeat 3 warmup 1 gpus {g}; run gpu")
        self.assertEqual(rc, 0, err)
        r = [o for o in out if o.get("type") == "run"][0]
        self.assertEqual(len(r["per_gpu"]), g)
        for ph in r["per_gpu"]:
            for name in ("alloc", "h2d", "kernel", "d2h", "free", "total"):
                self.assertIn(name, ph)
            self.assertGreater(ph["kernel"], 0)
        self.assertLessEqual(max(p["total"] for p in r["per_gpu"]),
                             r["time_ms_max"]["total"] + 1e-9)
        p = qxtest.commands(f"use longman; set M 100000 {SMALL} gpus {g}; run gpu")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(len(re.findall(r"(?m)^  gpu \d+ +ms ", p.stdout)), g, p.stdout)
        self.assertIn(f"gpus {g}", p.stdout)

    def test_show_device_lists_every_gpu(self):
        p = qxtest.commands("show device", "--json")
        devs = qxtest.json_lines(p.stdout)
        self.assertEqual([d["index"] for d in devs], list(range(NGPUS)))
        for d in devs:
            self.assertGreater(d["sms"], 0)
            self.assertRegex(d["memory"], r"^\d+ MiB$")

    def test_refusals(self):
        """More GPUs than there are: refused naming how many; gpus all is every one; a variant
        that runs on one GPU (kde's binned) refuses gpus > 1 at the run, naming the variants
        that divide, with the session unchanged."""
        if NGPUS < 16:
            rc, out, err = quadx(f"set gpus {NGPUS + 1}; show params", timeout=120)
            self.assertEqual(rc, 1)
            self.assertIn(f"this host has {NGPUS} GPUs", err)
            self.assertEqual(len(err.splitlines()), 1, err)
        rc, out, err = quadx(f"use longman; set M 1000 {SMALL} gpus all; run gpu")
        self.assertEqual(rc, 0, err)
        self.assertEqual([o for o in out if o.get("type") == "run"][0]["gpus"], NGPUS)
        p = qxtest.commands(f"use kde; set n 1000 variant binned {SMALL} gpus 2; run gpu; "
                            "set gpus 1; run gpu", "--keep-going")
        self.assertEqual(p.returncode, 1)
        self.assertRegex(p.stderr, r"^quadx: command 3 of -e: kde: variant binned runs on one "
                                   r"GPU .*: set gpus 1; tiled, fast, naive and seed divide")
        self.assertEqual(len(p.stderr.splitlines()), 1, p.stderr)
        self.assertIn("gpu kde", p.stdout)  # the run after `set gpus 1`


@unittest.skipIf(NGPUS < 2, f"needs 2 or more GPUs (this host has {NGPUS})")
class MultiGpuFaultTest(unittest.TestCase):
    """A failure on one GPU mid-run: one error naming the GPU, nothing leaked on any device
    (compute-sanitizer's leak check), the next run works and equals the 1-GPU values."""

    def setUp(self):
        require_faults_bin(self)

    def sanitized(self, fault, cmds):
        """memcheck with leak check over cmds on the fault build under QUADX_FAULT=fault;
        returns (rc, stdout, stderr)."""
        p = qxtest.run([*(["--tool", "memcheck", "--leak-check", "full", "--error-exitcode",
                           "99", FAULTS_BIN]), "--keep-going", "-e", cmds],
                       program=[SANITIZER], timeout=900, env={"QUADX_FAULT": fault})
        print(f"\n  memcheck with QUADX_FAULT={fault}: rc {p.returncode}; " + " | ".join(
            l for l in (p.stdout + p.stderr).splitlines() if "SUMMARY" in l), end="")
        return p.returncode, p.stdout, p.stderr

    def test_fault_on_one_gpu(self):
        g = COUNTS[0]
        # M large enough that every GPU runs chunks: the second launch, allocation or copy
        # of the run falls on some GPU while the others are mid-way
        for fault in ("launch:2", "cudaMalloc:2", "cudaMemcpy:3", "cudaEvent:7"):
            with self.subTest(fault=fault):
                rc, out, err = self.sanitized(
                    fault, f"use longman; set M 600000 {SMALL} gpus {g}; run gpu; run gpu")
                self.assertEqual(rc, 1, out[-3000:] + err[-3000:])
                self.assertEqual(err.count("injected fault"), 1, err[-3000:])
                self.assertRegex(err, rf"quadx: command 3 of -e: GPU \d of {g}: .*injected "
                                      r"fault \(QUADX_FAULT\)")
                self.assertEqual(len(re.findall(r"(?m)^gpu longman ", out)), 1, out)
                self.assertRegex(out + err, r"ERROR SUMMARY: 0 errors")

    def test_memcheck_clean_on_multi_gpu_runs(self):
        g = COUNTS[0]
        p = qxtest.run(["--tool", "memcheck", "--leak-check", "full", "--error-exitcode", "99",
                        QUADX, "-e", f"use longman; set M 300001 {SMALL} gpus {g}; run gpu; "
                        "set precision double variant block M 3000; run gpu"],
                       program=[SANITIZER], timeout=900)
        self.assertEqual(p.returncode, 0, p.stdout[-3000:] + p.stderr[-3000:])
        self.assertRegex(p.stdout + p.stderr, r"ERROR SUMMARY: 0 errors")
        self.assertEqual(len(re.findall(r"(?m)^gpu longman ", p.stdout)), 2, p.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
