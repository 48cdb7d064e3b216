#!/usr/bin/env python3
"""The interactive prompt under tmux: the prompt names problem and precision, Tab completes
commands, parameter names, enumerated values and help's topics and variants from the tables,
a sweep prints its progress, and history is saved to $QUADX_HISTFILE only when interactive. Run from the repository root; skipped without tmux."""
import os
import shutil
import subprocess
import tempfile
import time
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
QUADX = os.environ.get("QUADX", os.path.join(ROOT, "quadx"))


def tmux(*args):
    """Runs one tmux command on the test's own server socket and returns its stdout."""
    return subprocess.run(["tmux", "-L", "quadx-repl-test", *args], capture_output=True,
                          text=True, timeout=10).stdout


@unittest.skipIf(shutil.which("tmux") is None, "tmux is not installed")
class ReplTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.hist = os.path.join(self.tmp, "history")
        tmux("kill-server")
        tmux("new-session", "-d", "-s", "t", "-x", "120", "-y", "30",
             f"env QUADX_HISTFILE={self.hist} TERM=xterm {QUADX}; sleep 30")

    def tearDown(self):
        tmux("kill-server")
        shutil.rmtree(self.tmp)

    def screen(self, want, timeout=5.0):
        """Waits until the pane shows `want`; returns the pane text (fails if it never does)."""
        end = time.time() + timeout
        while time.time() < end:
            text = tmux("capture-pane", "-p", "-t", "t")
            if want.rstrip() in text:
                return text
            time.sleep(0.05)
        self.fail(f"pane never showed {want!r}:\n{text}")

    def keys(self, *keys):
        tmux("send-keys", "-t", "t", *keys)

    def test_prompt_completion_history(self):
        """Prompt, Tab completion from the tables, and the history file written at quit."""
        self.screen("quadx expint/float> ")
        self.keys("sho", "Tab")
        self.screen("> show ")
        self.keys("C-u", "set prec", "Tab")
        self.screen("> set precision ")
        self.keys("do", "Tab")
        self.screen("> set precision double ")
        self.keys("Enter")
        self.screen("quadx expint/double> ")
        self.keys("set variant cou", "Tab", "Enter")  # "co" also begins constant
        self.keys("show params", "Enter")
        self.screen("coursework")
        self.screen("variant          coursework")  # the show params row, not the typed line
        self.keys("quit", "Enter")
        end = time.time() + 5
        while time.time() < end and not os.path.exists(self.hist):
            time.sleep(0.05)
        with open(self.hist) as f:
            lines = [l.strip() for l in f.read().splitlines()]
        self.assertIn("set precision double", lines)
        self.assertIn("show params", lines)

    def test_sweep_progress_at_the_prompt(self):
        """At the prompt a sweep prints a progress line per configuration as it finishes, above
        the table that comes at its end."""
        self.screen("quadx expint/float> ")
        self.keys("set m 300 repeat 1 warmup 0; sweep n 1,2,3 on cpu", "Enter")
        text = self.screen("best: n=")
        lines = text.splitlines()
        progress = [i for i, l in enumerate(lines) if l.startswith("sweep ") and "/3: n=" in l]
        self.assertEqual([lines[i].split(":")[0] for i in progress],
                         ["sweep 1/3", "sweep 2/3", "sweep 3/3"], text)
        title = next(i for i, l in enumerate(lines) if l.startswith("sweep expint over n"))
        self.assertLess(progress[-1], title, text)

    def test_help_completes_variants(self):
        """Tab after `help` completes what help takes, variants too, and the page shows."""
        self.screen("quadx expint/float> ")
        self.keys("help sha", "Tab")
        self.screen("> help shared ")
        self.keys("Enter")
        self.screen("shared - variant of expint (gpu only)")
        self.keys("help qa", "Tab")
        self.screen("> help qawf ")

    def test_ctrl_c_discards_the_line(self):
        """Ctrl-C at the prompt drops what was typed and gives a fresh prompt, as shells do;
        the next line runs alone (without the fix it ran as `set n 3show params`)."""
        self.screen("quadx expint/float> ")
        self.keys("set n 3")
        self.screen("> set n 3")
        self.keys("C-c")
        time.sleep(0.2)
        self.keys("show params", "Enter")
        text = self.screen("threads")
        self.assertNotIn("has no value", text)
        self.assertNotIn("set n 3show", text)
        self.assertRegex(text, r"(?m)^quadx expint/float> set n 3(\^C)?\s*$")

    def test_scripts_keep_no_history(self):
        """A script on stdin writes no history file."""
        subprocess.run([QUADX], input="show params\n", text=True, capture_output=True,
                       env={**os.environ, "QUADX_HISTFILE": self.hist + ".script"}, timeout=10)
        self.assertFalse(os.path.exists(self.hist + ".script"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
