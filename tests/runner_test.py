#!/usr/bin/env python3
"""The runner of `make test` (tests/runner.py): every step runs though one before it failed,
each failure is reported again at the end with what failed, then `N passed, N failed`, and the
exit status says whether any step failed. Run from the repository root."""
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import unittest

RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "runner.py")


def running(marker):
    """The pids of the processes whose command line starts with marker."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if f.read().replace(b"\0", b" ").startswith(marker.encode()):
                    found.append(int(entry))
        except (OSError, ValueError):
            pass
    return found


def wait_gone(marker, timeout=20.0):
    """Waits until no process's command line starts with marker; returns whether none does."""
    end = time.monotonic() + timeout
    while running(marker) and time.monotonic() < end:
        time.sleep(0.05)
    return not running(marker)


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
        self.assertRegex(p.stdout, r"(?m)^-- \d+ s, cpu 0 s: sleep 1\.2$")  # a sleep: no CPU
        slowest = [l for l in p.stdout.splitlines() if l.startswith("slowest: ")]
        self.assertEqual(len(slowest), 1, p.stdout)
        self.assertRegex(slowest[0], r"^slowest: \d+ s sleep 1\.2; ")

    def test_each_step_cpu_time(self):
        """A step's CPU time counts its processes' (a busy loop of 1.6 s of CPU: 2 s)."""
        busy = f"{sys.executable} -c 'import time; t = time.process_time() + 1.6\nwhile " \
               "time.process_time() < t: pass'"
        p = runner(busy)
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertRegex(p.stdout, rf"(?m)^-- \d+ s, cpu 2 s: {re.escape(busy)}$")

    def test_jobs_run_side_by_side_and_their_outputs_stay_whole(self):
        """-j 2: the first step waits for a file that only the second makes, so it passes only
        when both run at once; each step's lines come out as one block, in its own order."""
        with tempfile.TemporaryDirectory() as tmp:
            flag = os.path.join(tmp, "flag")
            first = (f"echo first-1; for i in $(seq 400); do [ -e {flag} ] && break; "
                     f"sleep 0.05; done; echo first-2; [ -e {flag} ]")
            second = f"echo second-1; sleep 0.2; touch {flag}; echo second-2"
            p = runner("-j", "2", first, second)
        self.assertEqual(p.returncode, 0, p.stdout)
        lines = p.stdout.splitlines()
        for name in ("first", "second"):
            i = lines.index(f"{name}-1")
            self.assertEqual(lines[i + 1], f"{name}-2", p.stdout)
        self.assertIn("make test: 2 passed, 0 failed", lines[-1])

    def test_a_step_waits_for_its_build_and_the_others_do_not(self):
        """--build: the build waits for a file that a step needing no build makes (so they run
        side by side), then makes its own; the step that needs the build finds that one, and
        starts only after the build (its block comes after the build's)."""
        with tempfile.TemporaryDirectory() as tmp:
            free, built = os.path.join(tmp, "free"), os.path.join(tmp, "built")
            build = (f"for i in $(seq 400); do [ -e {free} ] && break; sleep 0.05; done; "
                     f"[ -e {free} ] && echo build-ran && touch {built}")
            p = runner("-j", "2", "--build", "b", build, f"@b test -e {built} && echo after-ran",
                       f"touch {free}")
        self.assertEqual(p.returncode, 0, p.stdout)
        lines = p.stdout.splitlines()
        self.assertLess(lines.index("build-ran"), lines.index("after-ran"), p.stdout)
        self.assertTrue(any(re.fullmatch(r"-- \d+ s, cpu 0 s: build b", l) for l in lines),
                        p.stdout)
        self.assertIn("make test: 3 passed, 0 failed", lines[-1])

    def test_a_failed_build_fails_its_steps_unrun(self):
        """A failing build: its steps fail without running, naming the build; a step of another
        build and one needing none still run; the status is 1. -j 1 runs the builds first."""
        for jobs in ("1", "2"):
            p = runner("-j", jobs, "--build", "bad", "echo broken; exit 2", "--build", "good",
                       "true", "@bad echo bad-ran-$((6 * 7))", "@good echo good-ran",
                       "echo free-ran")
            self.assertEqual(p.returncode, 1, p.stdout)
            self.assertNotIn("bad-ran-42", p.stdout)
            self.assertIn("good-ran", p.stdout)
            self.assertIn("free-ran", p.stdout)
            tail = p.stdout[p.stdout.index("FAILED: "):]
            self.assertIn("FAILED: build bad", tail)
            self.assertIn("broken", tail)
            self.assertIn("FAILED: echo bad-ran-$((6 * 7))\nnot run: the build bad failed",
                          tail)
            self.assertIn("make test: 3 passed, 2 failed (5 steps", p.stdout.splitlines()[-1])

    def test_a_build_after_another(self):
        """A build `@NAME COMMAND` starts after build NAME has passed (it finds its file), and
        fails unrun when that one failed, with the steps that need it."""
        with tempfile.TemporaryDirectory() as tmp:
            first = os.path.join(tmp, "first")
            p = runner("-j", "2", "--build", "a", f"sleep 0.3; touch {first}", "--build", "b",
                       f"@a test -e {first} && echo second-built", f"@b echo step-ran")
            self.assertEqual(p.returncode, 0, p.stdout)
            self.assertIn("second-built", p.stdout)
            self.assertIn("step-ran", p.stdout)
        for jobs in ("1", "2"):
            p = runner("-j", jobs, "--build", "a", "false", "--build", "b",
                       "@a echo b-$((6 * 7))", "@b true")
            self.assertEqual(p.returncode, 1, p.stdout)
            self.assertNotIn("b-42", p.stdout)
            self.assertIn("FAILED: build b\nnot run: the build a failed", p.stdout)
            self.assertIn("make test: 0 passed, 3 failed", p.stdout.splitlines()[-1])

    def test_a_step_of_an_unknown_build_refused(self):
        """@NAME without --build NAME is refused, naming the builds there are; so is a build
        that needs one given after it."""
        p = runner("--build", "a", "true", "@b true")
        self.assertEqual(p.returncode, 2)
        self.assertIn("no --build b before it (builds: a)", p.stderr)
        p = runner("--build", "a", "@b true", "--build", "b", "true")
        self.assertEqual(p.returncode, 2)
        self.assertIn("no --build b before it (builds: none)", p.stderr)

    def test_jobs_below_one_refused(self):
        """-j 0 is refused with a message naming what is allowed."""
        p = runner("-j", "0", "true")
        self.assertEqual(p.returncode, 2)
        self.assertIn("1 or more", p.stderr)

    def test_a_hung_step_is_stopped_with_what_it_started(self):
        """--timeout 1: a step still running then is stopped, naming every process of it (one
        it put in the background too), which are gone; it runs once more, hangs again and
        fails; the step beside it still passes."""
        marker = f"sleep 300.{os.getpid()}"  # this test's own: no other process matches
        p = runner("-j", "2", "--timeout", "1", f"echo started; {marker}1 & {marker}2", "true")
        self.assertEqual(p.returncode, 1, p.stdout)
        tail = p.stdout[p.stdout.index("FAILED: "):]
        self.assertIn("started\nrunner: stopped after 1 s, still running:", tail)
        self.assertIn(f"{marker}1", tail)
        self.assertIn(f"{marker}2", tail)
        self.assertEqual(tail.count("runner: stopped after 1 s"), 2, tail)
        self.assertIn("runner: running it again\nstarted\n", tail)
        self.assertNotIn("HUNG", p.stdout)
        self.assertIn("make test: 1 passed, 1 failed", p.stdout.splitlines()[-1])
        self.assertTrue(wait_gone(marker), running(marker))

    def test_a_stopped_process_gets_its_sigterm(self):
        """A step that stopped itself (SIGSTOP) when the time runs out is continued after its
        SIGTERM, so its handler runs (a stopped process acts on no signal but SIGKILL until
        it is continued): its words come back, before SIGKILL could have come."""
        code = ("import os, signal, sys\n"
                "def term(*_):\n"
                "    print('got-sigterm', flush=True)\n"
                "    sys.exit(0)\n"
                "signal.signal(signal.SIGTERM, term)\n"
                "print('stopping', flush=True)\n"
                "os.kill(os.getpid(), signal.SIGSTOP)\n"
                "signal.pause()\n")
        with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
            f.write(code)
        try:
            p = runner("--timeout", "1", f"{sys.executable} {f.name}")
        finally:
            os.unlink(f.name)
        ran = p.stdout[:p.stdout.index("\nFAILED: ")]  # the summary repeats it
        self.assertEqual(ran.count("stopping\ngot-sigterm\n"), 2, p.stdout)  # and again

    def test_a_step_that_hangs_once_passes_and_is_named(self):
        """A step that hangs on its first run only (a file says it ran) passes on its second;
        the summary names it with the process that was running then."""
        marker = f"sleep 303.{os.getpid()}"
        with tempfile.TemporaryDirectory() as tmp:
            ran = os.path.join(tmp, "ran")
            step = f"if [ -e {ran} ]; then echo second; else touch {ran}; {marker}; fi"
            p = runner("-j", "2", "--timeout", "1", step)
        self.assertEqual(p.returncode, 0, p.stdout)
        tail = p.stdout[p.stdout.index("HUNG, then passed when run again: "):]
        self.assertIn(step, tail.splitlines()[0])
        self.assertIn("runner: stopped after 1 s, still running:", tail)
        self.assertIn(marker, tail)
        self.assertIn("make test: 1 passed, 0 failed", p.stdout.splitlines()[-1])
        self.assertTrue(wait_gone(marker), running(marker))

    def test_output_held_open_after_the_step_exited(self):
        """A step that exits leaving a process (in a session of its own) on its output fails
        --grace seconds later, naming that process, which is stopped."""
        marker = f"sleep 301.{os.getpid()}"
        p = runner("--grace", "1", f"(setsid {marker} &); echo left")
        self.assertEqual(p.returncode, 1, p.stdout)
        tail = p.stdout[p.stdout.index("FAILED: "):]
        self.assertIn("runner: the step exited but its output was still open 1 s later, "
                      "held by:", tail)
        self.assertIn(marker, tail)
        self.assertEqual(tail.count("held by:"), 2, tail)  # it ran again: held again
        self.assertTrue(wait_gone(marker), running(marker))

    def test_an_interrupt_stops_every_step(self):
        """SIGTERM to the runner while two steps run: both are stopped, the status is 130."""
        marker = f"sleep 302.{os.getpid()}"  # this test's own: no other process matches
        proc = subprocess.Popen([sys.executable, RUNNER, "-j", "2", f"{marker}1; true",
                                 f"{marker}2; true"], stdout=subprocess.PIPE, text=True)
        try:
            end = time.monotonic() + 20
            while len(running(marker)) < 2 and time.monotonic() < end:
                time.sleep(0.05)
            self.assertEqual(len(running(marker)), 2)
            proc.send_signal(signal.SIGTERM)
            out, _ = proc.communicate(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        self.assertEqual(proc.returncode, 130, out)
        self.assertIn("make test: interrupted", out)
        self.assertTrue(wait_gone(marker), running(marker))

    def test_what_left_the_session_is_stopped_too(self):
        """A hung step's process that left its session (setsid, as a daemon or a tmux server
        does) keeps the step's token and is stopped and named with the rest."""
        marker = f"sleep 304.{os.getpid()}"
        p = runner("--timeout", "1",
                   f"(setsid {marker} >/dev/null 2>&1 &); sleep 300.{os.getpid()}")
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn(marker, p.stdout[p.stdout.index("FAILED: "):])
        self.assertTrue(wait_gone(marker), running(marker))

    def test_a_passing_step_leaves_nothing_running(self):
        """What a passing step left running (in a session of its own) is stopped and named in
        its output; the step still passes."""
        marker = f"sleep 305.{os.getpid()}"
        p = runner("-j", "2", f"(setsid {marker} >/dev/null 2>&1 &); echo done")
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertIn("done\nrunner: stopped what the step left running:\n", p.stdout)
        self.assertIn(marker, p.stdout)
        self.assertTrue(wait_gone(marker), running(marker))

    def test_a_stopped_make_leaves_no_half_written_target(self):
        """A build stopped while it writes its target gets SIGTERM first: make deletes the
        half-written file (a SIGKILL would leave it, and the rerun would take it as made)."""
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(tmp, "Makefile"), "w") as f:
                f.write("out:\n\techo partial > $@; sleep 30; echo rest >> $@\n")
            p = runner("-j", "2", "--timeout", "1", "--build", "b", f"make -s -C {tmp} out",
                       f"@b cat {tmp}/out")
            self.assertEqual(p.returncode, 1, p.stdout)
            self.assertFalse(os.path.exists(os.path.join(tmp, "out")), p.stdout)
        self.assertIn("FAILED: build b", p.stdout)
        self.assertIn("not run: the build b failed", p.stdout)

    def test_the_deadline_stops_the_run_and_reports(self):
        """--deadline 1: the running step is stopped naming the deadline, the next one does
        not start; both fail and the summary comes."""
        marker = f"sleep 306.{os.getpid()}"
        p = runner("--deadline", "1", f"{marker}; true", "echo never-$((6 * 7))")
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn("runner: stopped (the run's deadline, 1 s), still running:", p.stdout)
        self.assertIn("runner: not started (the run's deadline, 1 s)", p.stdout)
        self.assertNotIn("never-42", p.stdout)
        self.assertIn("make test: 0 passed, 2 failed", p.stdout.splitlines()[-1])
        self.assertTrue(wait_gone(marker), running(marker))

    def test_limits_below_zero_refused(self):
        """A negative --timeout or --deadline, a --grace of 0: refused naming what is
        allowed."""
        for name in ("--timeout", "--deadline"):
            p = runner(name, "-1", "true")
            self.assertEqual(p.returncode, 2)
            self.assertIn(f"{name} -1: seconds, 0 (never) or more", p.stderr)
        p = runner("--grace", "0", "true")
        self.assertEqual(p.returncode, 2)
        self.assertIn("more than 0", p.stderr)


if __name__ == "__main__":
    unittest.main()
