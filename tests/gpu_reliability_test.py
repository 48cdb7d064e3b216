#!/usr/bin/env python3
"""Reliability on the GPU (make test-gpu): compute-sanitizer memcheck, racecheck and synccheck
over every kernel and variant on small sizes with zero reports; impossible launches (block
2048, shared memory over the limit, a failed launch) reported as errors with the session
alive; GPU fault injection (QUADX_FAULTS_BIN, a build with QUADX_FAULT) reported once, then
the next run works; an oversize run refused before any device allocation.

Skipped without a usable GPU, unless QUADX_REQUIRE_GPU=1. Run from the repository root."""

import re
import shutil
import unittest

import qxtest
from qxtest import FAULTS_BIN, QUADX, require_faults_bin

SANITIZER = shutil.which("compute-sanitizer") or "/usr/local/cuda/bin/compute-sanitizer"

SMALL = "repeat 1 warmup 0 threads 2"
# Every kernel and variant on small sizes: expint fast (chunked) and coursework, longman
# packed and block, in float and double, and eval on the GPU.
ALL_KERNELS = "; ".join([
    f"set n 40 m 300 {SMALL}",
    *[f"set variant {v} precision {p}; run gpu" for v in ("fast", "coursework")
      for p in ("float", "double")],
    "eval 3 1.5",
    f"use longman; set M 100 N 8 g 4 {SMALL}",
    *[f"set variant {v} precision {p}; run gpu" for v in ("packed", "block")
      for p in ("float", "double")],
    "set math fast; run gpu",
    "eval 0.7 2.5",
])


def run(argv, timeout=300, env=None):
    """Runs argv (a program and its arguments); returns (rc, stdout, stderr)."""
    p = qxtest.run(argv[1:], program=argv[:1], timeout=timeout, env=env)
    return p.returncode, p.stdout, p.stderr


GPU = qxtest.gpu_or_exit("gpu_reliability_test")


@unittest.skipIf(GPU is None, "no usable GPU")
class SanitizerTest(unittest.TestCase):
    def sanitize(self, tool, *extra):
        argv = [SANITIZER, "--tool", tool, "--error-exitcode", "99", *extra, QUADX, "-e",
                ALL_KERNELS]
        rc, out, err = run(argv, timeout=600)
        print(f"\n  compute-sanitizer --tool {tool}: rc {rc}; "
              + " | ".join(l for l in (out + err).splitlines() if "SUMMARY" in l), end="")
        self.assertEqual(rc, 0, out[-3000:] + err[-3000:])
        self.assertEqual(len(re.findall(r"^gpu (expint|longman) ", out, re.M)), 9, out)
        return out + err

    def test_memcheck(self):
        text = self.sanitize("memcheck", "--leak-check", "full")
        self.assertRegex(text, r"ERROR SUMMARY: 0 errors")

    def test_racecheck(self):
        text = self.sanitize("racecheck", "--racecheck-report", "all")
        self.assertRegex(text, r"RACECHECK SUMMARY: 0 hazards")

    def test_synccheck(self):
        text = self.sanitize("synccheck")
        self.assertRegex(text, r"ERROR SUMMARY: 0 errors")


@unittest.skipIf(GPU is None, "no usable GPU")
class FaultPathMemcheckTest(unittest.TestCase):
    """memcheck over runs that fail mid-way: the error paths free what they allocated."""

    def setUp(self):
        require_faults_bin(self)  # in setUp, so that it is never an expected failure

    def memcheck_with_fault(self, fault, cmds, failures, runs):
        """memcheck with leak check over cmds on the fault build, QUADX_FAULT=fault: the
        injected errors only (failures of them), the other runs done, and zero reports."""
        rc, out, err = run([SANITIZER, "--tool", "memcheck", "--leak-check", "full",
                            "--error-exitcode", "99", FAULTS_BIN, "--keep-going", "-e", cmds],
                           timeout=600, env={"QUADX_FAULT": fault})
        print(f"\n  memcheck with QUADX_FAULT={fault}: rc {rc}; " + " | ".join(
            l for l in (out + err).splitlines() if "SUMMARY" in l), end="")
        self.assertEqual(err.count("injected fault"), failures, err[-4000:])
        self.assertEqual(len(re.findall(r"^gpu (expint|longman) ", out, re.M)), runs, out)
        self.assertEqual(rc, 1, out[-4000:] + err[-2000:])
        self.assertRegex(out + err, r"ERROR SUMMARY: 0 errors")

    # A failing run frees its buffers on every path (the wrappers' gpu_owned): memcheck checks
    # that none of them (192008 bytes in 5 allocations for expint, 400 bytes for longman) is left.
    def test_memcheck_on_expint_fault_path(self):
        """The streamed sequence (fast) fails at its first result copy, then the serial one
        (coursework) at its result copy; each run after a failure works."""
        self.memcheck_with_fault(
            "cudaMemcpy:2,cudaMemcpy:6",
            f"set n 40 m 300 {SMALL}; run gpu; run gpu; set variant coursework; run gpu; "
            "run gpu", failures=2, runs=2)

    def test_memcheck_on_longman_fault_path(self):
        self.memcheck_with_fault("launch", f"use longman; set M 100 {SMALL}; run gpu; run gpu",
                                 failures=1, runs=1)


@unittest.skipIf(GPU is None, "no usable GPU")
class ImpossibleLaunchTest(unittest.TestCase):
    def test_block_2048_refused_and_session_survives(self):
        rc, out, err = run([QUADX, "--keep-going", "-e",
                            f"set n 10 m 10 {SMALL}; set block 2048; run gpu"])
        self.assertEqual(rc, 1, err)
        self.assertRegex(err, r"^quadx: command 2 of -e: bad value '2048' for block: expected an "
                         r"integer in 1\.\.1024\n$")
        self.assertIn("block 256", out)  # the next run ran with the block size unchanged

    def test_shared_memory_over_the_limit_refused(self):
        rc, out, err = run([QUADX, "--keep-going", "-e",
                            f"use longman; set M 10 {SMALL} variant block precision double "
                            "N 1000; run gpu; set N 16; run gpu"])
        self.assertEqual(rc, 1, err)
        self.assertRegex(err, r"^quadx: command 3 of -e: .*shared memory.*\n$")
        self.assertEqual(len(re.findall(r"^gpu longman ", out, re.M)), 1, out)


@unittest.skipIf(GPU is None, "no usable GPU")
class GpuFaultTest(unittest.TestCase):
    """Each GPU fault point fails once: one error naming the call, then the same run works.
    (cudaFree: the first cudaFree(0) creates the context; its failure is not kept for the
    session, so the next run opens the GPU and works.)"""

    FAULTS = {
        "expint": ["cudaMalloc", "cudaMemcpy", "cudaFree", "cudaFree:2", "cudaStream",
                   "cudaEvent", "launch"],
        "longman": ["cudaMalloc", "cudaMemcpy", "cudaFree", "cudaFree:2", "cudaStream",
                    "cudaEvent", "launch"],
    }
    SETUP = {"expint": f"set n 40 m 300 {SMALL}", "longman": f"use longman; set M 100 {SMALL}"}

    def setUp(self):
        require_faults_bin(self)

    def test_each_fault_reported_once_then_the_run_works(self):
        for prob, faults in self.FAULTS.items():
            for fault in faults:
                with self.subTest(prob=prob, fault=fault):
                    rc, out, err = run([FAULTS_BIN, "--keep-going", "-e",
                                        f"{self.SETUP[prob]}; run gpu; run gpu"],
                                       env={"QUADX_FAULT": fault})
                    self.assertEqual(rc, 1, err)
                    self.assertRegex(err, r"^quadx: command \d+ of -e: \(?%s.*: injected fault "
                                     r"\(QUADX_FAULT\)\n$" % fault.split(":")[0])
                    self.assertEqual(len(re.findall(r"^gpu %s " % prob, out, re.M)), 1, out)

    def test_fault_amid_the_chunk_events(self):
        """The kernels queued ahead of the copies take an event a chunk, a run's first event
        calls on one GPU: the second failing (of a grid of 2 chunks) is one error naming it,
        and the same run then works."""
        rc, out, err = run([FAULTS_BIN, "--keep-going", "-e",
                            f"set n 1 m 16777217 {SMALL}; run gpu; run gpu"],
                           env={"QUADX_FAULT": "cudaEvent:2"})
        self.assertEqual(rc, 1, err)
        self.assertRegex(err, r"^quadx: command 2 of -e: cudaEventCreateWithFlags\(.*: injected "
                              r"fault \(QUADX_FAULT\)\n$")
        self.assertEqual(len(re.findall(r"^gpu expint ", out, re.M)), 1, out)

    def test_oversize_gpu_run_refused_before_allocating(self):
        """Refused with both figures; the armed cudaMalloc fault then hits the next run."""
        rc, out, err = run([FAULTS_BIN, "--keep-going", "-e",
                            "set n 1000000 m 100000 variant coursework; run gpu; "
                            f"set n 40 m 300 {SMALL}; run gpu"],
                           env={"QUADX_FAULT": "cudaMalloc"})
        lines = err.splitlines()
        self.assertEqual(len(lines), 2, err)
        self.assertRegex(lines[0], r"run refused: it needs [\d.]+ [KMG]iB of (GPU|host) memory "
                         r"and [\d.]+ [KMG]iB (is free|is available)")
        self.assertRegex(lines[1], r"cudaMalloc.*injected fault")


if __name__ == "__main__":
    unittest.main(verbosity=2)
