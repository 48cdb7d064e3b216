#!/usr/bin/env python3
"""The runner of `make test` (tests/runner.py): every step runs though one before it failed,
each failure is reported again at the end with what failed, then `N passed, N failed`, and the
exit status says whether any step failed. Run from the repository root."""
import os
import subprocess
import sys
import unittest

RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "runner.py")


def runner(*steps):
    return subprocess.run([sys.executable, RUNNER, *steps], capture_output=True, text=True,
                          timeout=60)


class RunnerTest(unittest.TestCase):
    def test_goes_on_past_a_failure_and_reports_it(self):
        """A failing first step: the two after it still run; the summary names the failure
        with its last lines, counts 2 passed and 1 failed, and the status is 1."""
        p = runner("echo first-out; echo why-it-failed; exit 3", "echo second-ran",
                   "echo third-ran")
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn("second-ran", p.stdout)
        self.assertIn("third-ran", p.stdout)
        tail = p.stdout[p.stdout.rindex("FAILED: "):]
        self.assertIn("echo first-out", tail.splitlines()[0])
        self.assertIn("why-it-failed", tail)
        self.assertRegex(p.stdout.splitlines()[-1],
                         r"^make test: 2 passed, 1 failed \(3 steps in \d+ s\)$")

    def test_unittest_failures_are_shown_whole(self):
        """A failing unittest file: its report of every failed test comes back at the end."""
        code = ("import unittest\n"
                "class T(unittest.TestCase):\n"
                "    def test_a(self): self.fail('first-reason')\n"
                "    def test_b(self): self.fail('second-reason')\n"
                "unittest.main()\n")
        p = runner(f"{sys.executable} -c \"{code}\"")
        self.assertEqual(p.returncode, 1)
        tail = p.stdout[p.stdout.rindex("FAILED: "):]
        self.assertIn("first-reason", tail)
        self.assertIn("second-reason", tail)
        self.assertIn("0 passed, 1 failed", p.stdout.splitlines()[-1])

    def test_all_pass(self):
        """Every step passes: status 0 and no FAILED line."""
        p = runner("true", "true")
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertNotIn("FAILED", p.stdout)
        self.assertIn("make test: 2 passed, 0 failed", p.stdout)

    def test_each_step_timed_and_the_slowest_named(self):
        """Each step's time is printed as it ends; the summary names the slowest first."""
        p = runner("true", "sleep 1.2", "true")
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertRegex(p.stdout, r"(?m)^-- \d+ s: sleep 1\.2$")
        slowest = [l for l in p.stdout.splitlines() if l.startswith("slowest: ")]
        self.assertEqual(len(slowest), 1, p.stdout)
        self.assertRegex(slowest[0], r"^slowest: \d+ s sleep 1\.2; ")


if __name__ == "__main__":
    unittest.main()
