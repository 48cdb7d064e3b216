#!/usr/bin/env python3
"""Without a usable GPU (make test runs this with CUDA_VISIBLE_DEVICES="" on the GPU build, and
on the CPU-only ASan build): every GPU command fails with one clear line, every CPU command
still works. Run from the repository root; QUADX names the binary (default ./quadx)."""

import json
import os
import unittest

import qxtest
PROBLEMS = ["expint", "longman"]
# A small configuration of each problem, so the CPU runs take milliseconds.
SMALL = {"expint": "set n 20 m 20", "longman": "set M 50 N 8"}


def quadx(cmds, *args):
    """Runs quadx -e cmds; returns (rc, stdout, stderr)."""
    p = qxtest.commands(cmds, *args)
    return p.returncode, p.stdout, p.stderr


class NoGpuTest(unittest.TestCase):
    def setUp(self):
        rc, out, err = quadx("show device", "--json")
        self.assertEqual((rc, err), (0, ""))
        dev = json.loads(out)
        if dev["gpu"] != "none":
            self.skipTest("a GPU is visible (run with CUDA_VISIBLE_DEVICES=\"\")")
        self.reason = dev["reason"]
        self.assertGreater(len(self.reason), 10)

    def assertOneGpuError(self, rc, err):
        self.assertEqual(rc, 1, err)
        lines = err.splitlines()
        self.assertEqual(len(lines), 1, err)
        self.assertRegex(lines[0], r"^quadx: (line \d+|command \d+ of -e): .*(GPU|CUDA)")

    def test_gpu_commands_fail_with_one_line(self):
        """`run gpu` and `run both` ask for the GPU: one error each. A plain `run` runs what
        can run, says why the GPU did not, and succeeds."""
        for prob in PROBLEMS:
            for cmd in ["run gpu", "run both", "run"]:
                with self.subTest(prob=prob, cmd=cmd):
                    rc, out, err = quadx(f"use {prob}; {SMALL[prob]}; {cmd}")
                    if cmd == "run":
                        self.assertEqual((rc, err), (0, ""))
                        self.assertRegex(out, r"(?m)^gpu: not run: .*(GPU|CUDA).* \(run gpu "
                                              r"asks for it\)$")
                    else:
                        self.assertOneGpuError(rc, err)
                    if cmd != "run gpu":  # the CPU half ran and printed its result
                        self.assertIn(f"cpu {prob}", out)
                    self.assertNotIn(f"gpu {prob}", out)
            rc, out, err = quadx(f"use {prob}; {SMALL[prob]}; run", "--json")
            self.assertEqual(rc, 0, err)
            kinds = [json.loads(line)["type"] for line in out.splitlines()]
            self.assertEqual(kinds, ["run", "not_run"])
        rc, out, err = quadx("use longman; set variant block; run gpu")
        self.assertOneGpuError(rc, err)

    def test_cpu_commands_still_work(self):
        """Every CPU command works after a failed GPU command (--keep-going)."""
        for prob in PROBLEMS:
            with self.subTest(prob=prob):
                cmds = [f"use {prob}", SMALL[prob], "run gpu", "run cpu",
                        "set precision double", "run cpu", "set precision float", "run cpu",
                        "errors 2", "show last", "show params", "help run", "format json",
                        "show device"]
                rc, out, err = quadx("; ".join(cmds), "--keep-going")
                self.assertOneGpuError(rc, err)
                self.assertIn("command 3 of -e:", err)  # only the GPU run failed
                self.assertEqual(json.loads(out.splitlines()[-1])["gpu"], "none")

    def test_set_gpus_refused_without_gpu(self):
        """`set gpus N` (N > 1) and `set gpus all` with no usable GPU: one error naming the
        setting and the reason, and the session unchanged (all or nothing: block too); gpus 1,
        the default, is accepted, and a run then fails as any GPU run does."""
        for word in ("2", "all", "16"):
            with self.subTest(word=word):
                rc, out, err = quadx(f"set block 64 gpus {word}; show params", "--json",
                                     "--keep-going")
                self.assertEqual(rc, 1, err)
                self.assertEqual(len(err.splitlines()), 1, err)
                self.assertRegex(err, rf"^quadx: command 1 of -e: gpus {word} refused: there "
                                      r"is no GPU to divide the work over \(.*(GPU|CUDA).*\)")
                params = json.loads(out.splitlines()[-1])
                self.assertEqual((params["gpus"], params["block"]), (1, 256))
        rc, out, err = quadx("set gpus 1; show params", "--json")
        self.assertEqual((rc, err), (0, ""))
        self.assertEqual(json.loads(out.splitlines()[-1])["gpus"], 1)
        rc, out, err = quadx("use longman; set M 50 N 8 gpus 1; run gpu")
        self.assertOneGpuError(rc, err)

    def test_coursework_flags(self):
        """The coursework's one-shot mode: the CPU part runs, the GPU part is one error;
        with -g (no GPU) it succeeds."""
        p = qxtest.run(["-n", "10", "-m", "10", "-t"])
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("on the cpu took", p.stdout)
        self.assertEqual(len(p.stderr.splitlines()), 1, p.stderr)
        self.assertRegex(p.stderr, r"^quadx: .*(GPU|CUDA)")
        p = qxtest.run(["-n", "10", "-m", "10", "-t", "-g"])
        self.assertEqual((p.returncode, p.stderr), (0, ""))
        self.assertIn("on the cpu took", p.stdout)

    def test_no_driver_is_named(self):
        """Without an NVIDIA driver (no /dev/nvidia*, no WSL /dev/dxg) a GPU build says so,
        not CUDA's "driver version is insufficient", which sent users to upgrade a driver they
        do not have; with a driver (a GPU hidden by CUDA_VISIBLE_DEVICES) it says nothing of
        the kind."""
        if "CPU-only build" in self.reason:
            self.skipTest("a CPU-only build: no CUDA runtime to ask")
        driver = any(n.startswith("nvidia") or n == "dxg" for n in os.listdir("/dev"))
        for text in (self.reason, quadx("run gpu")[2]):
            if driver:
                self.assertNotIn("no NVIDIA driver found", text)
            else:
                self.assertIn("no NVIDIA driver found", text)
                self.assertNotIn("insufficient", text)

    def test_eval_prints_cpu_values_and_says_why_not_gpu(self):
        for prob, args in (("expint", "3 1.5"), ("longman", "0.7 2.5")):
            with self.subTest(prob=prob):
                rc, out, err = quadx(f"use {prob}; eval {args}")
                self.assertEqual((rc, err), (0, ""))
                lines = out.splitlines()
                self.assertEqual(sum(" gpu: none" in l for l in lines), 1, out)
                self.assertGreaterEqual(sum("cpu" in l for l in lines), 2, out)


if __name__ == "__main__":
    unittest.main(verbosity=2)
