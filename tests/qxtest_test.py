#!/usr/bin/env python3
"""The shared test helpers of tests/qxtest.py: a tmux session is closed only once every process
of its pane has exited (so that no test removes quadx's directory while quadx, its terminal
closing, still writes its history there), and poll() fails naming what it waited for. Run from
the repository root; the tmux test is skipped without tmux."""
import os
import sys
import unittest

import qxtest

# A stand-in for a program that writes a file as its terminal closes: on SIGHUP it takes a
# while (longer than tmux takes to kill its server), then writes `late` and exits.
SLOW_ON_HANGUP = """
import os, signal, sys, time
def hangup(sig, frame):
    time.sleep(1.5)
    with open(sys.argv[1] + "/late", "w") as f:
        f.write("written after the hangup")
    sys.exit(0)
signal.signal(signal.SIGHUP, hangup)
open(sys.argv[1] + "/ready", "w").close()
while True:
    signal.pause()
"""


class TmuxCloseTest(qxtest.TmuxTestCase):
    TMUX_NAME = "qxtest-test"

    def test_close_waits_for_the_pane_to_exit(self):
        """close() returns only after the pane's program has finished what it does on SIGHUP;
        a close that only killed the server returned before `late` was written."""
        prog = os.path.join(self.tmp, "slow.py")
        with open(prog, "w") as f:
            f.write(SLOW_ON_HANGUP)
        self.tmux.start(f"{sys.executable} {prog} {self.tmp}; {qxtest.HOLD}")
        qxtest.poll(lambda: os.path.exists(os.path.join(self.tmp, "ready")),
                    "SIGHUP handler installed")
        self.tmux.close()
        self.assertTrue(os.path.exists(os.path.join(self.tmp, "late")))

    def test_wait_exit(self):
        """wait_exit() returns once the program in the pane has ended; the pane keeps what the
        shell printed after it."""
        self.tmux.start(f"cat; echo CAT-ENDED-$((6 * 7)); {qxtest.HOLD}")
        cat = self.tmux.child()
        self.tmux.keys("C-d")
        self.tmux.wait_exit(cat)
        self.tmux.screen("CAT-ENDED-42")

    def test_until_waits_for_every_part_of_a_state(self):
        """until() retries a check that fails on a screen showing only part of the state it
        checks, returns once all of it shows, and fails naming the check's last failure."""
        self.tmux.start(f"cat; {qxtest.HOLD}")
        self.tmux.child()

        def both_lines(text):
            self.assertIn("first-part", text)
            self.assertIn("second-part", text)
            return "both"
        self.tmux.type("first-part")
        self.tmux.screen("first-part")
        with self.assertRaisesRegex(AssertionError, r"its last failure: 'second-part' not found"):
            self.tmux.until(both_lines, timeout=0.2)
        self.tmux.type("second-part")
        self.assertEqual(self.tmux.until(both_lines), "both")
        self.assertIn("second-part", self.tmux.until(lambda text: None))


class JsonCommandsTest(unittest.TestCase):
    def test_exit_code_objects_and_stderr(self):
        """json_commands gives quadx's exit status, every stdout line parsed, and stderr."""
        rc, objs, err = qxtest.json_commands("show params; set n 0")
        self.assertEqual(rc, 1)
        self.assertEqual(objs[0]["type"], "params")
        self.assertIn("error", objs[-1])
        self.assertRegex(err, r"^quadx: command \d+ of -e: bad value '0' for n")


class ExportedValuesTest(qxtest.TempDirCase):
    def test_the_file_and_the_one_run(self):
        """exported_values gives the values file the commands wrote and their one run's object,
        and fails a test whose commands do not run exactly once."""
        text, run = self.exported_values("use expint; set n 3 m 4 repeat 1 warmup 0; run cpu",
                                         "v.csv")
        self.assertEqual(run["problem"], "expint")
        self.assertEqual(len(text.strip().splitlines()), 1 + 3 * 4, text)
        with self.assertRaises(AssertionError):
            self.exported_values("use expint; set n 3 m 4", "none.csv")


class PollTest(unittest.TestCase):
    def test_poll_returns_the_value_or_fails_naming_the_state(self):
        values = iter([None, 0, "got it"])
        self.assertEqual(qxtest.poll(lambda: next(values), "a value"), "got it")
        with self.assertRaisesRegex(AssertionError,
                                    r"no nothing within %g s" % (0.1 * qxtest.TIMEOUT_SLACK)):
            qxtest.poll(lambda: None, "nothing", timeout=0.1)


if __name__ == "__main__":
    unittest.main(verbosity=2)
