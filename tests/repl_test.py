#!/usr/bin/env python3
"""The interactive prompt under tmux: the prompt names problem and precision, Tab completes
commands, parameter names, enumerated values and help's topics and variants from the tables,
and `plot`'s and `export`'s first words or file names; a sweep prints its progress, and history
is saved to $QUADX_HISTFILE only when interactive. Run from the repository root; skipped without
tmux."""
import os
import re
import signal
import unittest

import qxtest


class ReplTest(qxtest.TmuxTestCase):
    TMUX_NAME = "repl-test"

    def setUp(self):
        super().setUp()
        self.start_quadx()

    def screen(self, want, timeout=20.0):
        """Waits until the pane shows `want`; returns the pane text (fails if it never does)."""
        return self.tmux.screen(want, timeout)

    def keys(self, *keys):
        self.tmux.keys(*keys)

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
        self.tmux.wait_exit(self.quadx)
        with open(self.hist) as f:
            lines = [l.strip() for l in f.read().splitlines()]
        self.assertIn("set precision double", lines)
        self.assertIn("show params", lines)

    def test_sweep_progress_at_the_prompt(self):
        """At the prompt a sweep prints a progress line per configuration as it finishes, above
        the table that comes at its end."""
        self.screen("quadx expint/float> ")
        self.keys("set m 300 repeat 1 warmup 0; sweep n 1,2,3 on cpu", "Enter")
        text = self.screen("best: none: n sets the problem's size")
        lines = text.splitlines()
        progress = [i for i, l in enumerate(lines) if l.startswith("sweep ") and "/3: n=" in l]
        self.assertEqual([lines[i].split(":")[0] for i in progress],
                         ["sweep 1/3", "sweep 2/3", "sweep 3/3"], text)
        title = next(i for i, l in enumerate(lines) if l.startswith("sweep expint over n"))
        self.assertLess(progress[-1], title, text)

    def test_long_run_shows_progress_and_estimate(self):
        """A run of more than about a second says up front that it takes long and how to
        cancel it, then shows percent, rate and time left on the prompt's line; Ctrl-C
        cancels it and the line goes. The run is minutes long on any machine, loaded or not,
        so its estimate is over the announcing limit whenever it is first measured: the test
        waits for the progress line (the run under way) and finds the estimate above it."""
        self.screen("quadx expint/float> ")
        self.keys("use longman; set M 100000000 warmup 0 repeat 1 threads 1; run cpu", "Enter")
        text = self.screen(re.compile(r"(?m)^cpu \d+%  [0-9.e+]+ values/s  ~[0-9.]+ "
                                      r"(s|min|h).* left"), timeout=120).string
        # the reference, still to compute, is announced with the run's own estimate
        self.assertRegex(text, r"(?m)^cpu: estimated [0-9.]+ (s|min|h)[ 0-9s]*, then the "
                               r"reference; Ctrl-C cancels$")
        self.keys("C-c")
        text = self.screen(re.compile(r"(?m)^quadx: run cancelled\nquadx longman/float>\s*\Z"),
                           timeout=60).string
        self.assertNotIn("values/s", text)  # the progress line was erased

    def test_adaptive_run_shows_its_error_and_cancel_key(self):
        """A long adaptive cubature run shows its error estimate against where it stops and
        its evaluations so far with the cancel key (not a percent of 4 repetitions)."""
        self.screen("quadx expint/float> ")
        self.keys("use cubature; set integrand f4 dim 8 rel 1e-9 warmup 0 repeat 1 threads 1; "
                  "run cpu", "Enter")
        text = self.screen(re.compile(r"(?m)^cpu error [0-9.e+-]+, stops at [0-9.e+-]+  \d+ "
                                      r"evaluations  Ctrl-C cancels"), timeout=120).string
        self.assertNotRegex(text, r"(?m)^cpu \d+%")
        self.keys("C-c")
        self.screen(re.compile(r"(?m)^quadx: run cancelled\nquadx cubature/float>\s*\Z"),
                    timeout=60)

    def test_typed_ahead_line_waits_for_the_prompt(self):
        """A line typed while a run shows its progress line is not echoed onto it (not
        `Ctrl-C cancelsvalues 1`): it waits, and shows at the next prompt as readline's line,
        then runs. The run stops at maxeval: 3e7 evaluations, some 5 s on one thread (a run
        of about one second could end before the progress line, shown after one, is seen)."""
        self.screen("quadx expint/float> ")
        self.keys("use cubature; set integrand f4 dim 8 rel 1e-9 warmup 0 repeat 1 threads 1 "
                  "maxeval 3e7; run cpu", "Enter")
        self.screen(re.compile(r"(?m)^cpu error [0-9.e+-]+, stops at [0-9.e+-]+  \d+ "
                               r"evaluations  Ctrl-C cancels"), timeout=120)
        self.keys("values 1", "Enter")
        text = self.screen(re.compile(r"(?m)^quadx cubature/float> values 1\n  index 0  dim 8 "
                                      r"[^>]*\nquadx cubature/float>\s*\Z"), timeout=120).string
        self.assertIn("not converged: maxeval reached", text)
        self.assertNotRegex(text, r"cancels\S")
        typed = [l for l in text.splitlines() if "values 1" in l]
        self.assertEqual(typed, ["quadx cubature/float> values 1"], text)

    def test_cancelled_sweep_erases_the_progress_line(self):
        """Ctrl-C in a sweep's long run: the progress line goes before what the sweep prints
        (not `~6 s leftsweep longman over N:`)."""
        self.screen("quadx expint/float> ")
        self.keys("use longman; set M 100000000 warmup 0 repeat 1 threads 1; sweep N 8,9 on cpu",
                  "Enter")
        self.screen(re.compile(r"(?m)^cpu \d+%  [0-9.e+]+ values/s  ~[0-9.]+ (s|min|h).* "
                               r"left"), timeout=120)
        self.keys("C-c")
        text = self.screen(re.compile(r"(?m)^quadx longman/float>\s*\Z"), timeout=60).string
        self.assertNotIn("values/s", text)
        self.assertNotRegex(text, r"left\S")

    def test_sweep_progress_replaces_the_progress_line(self):
        """A sweep's line per configuration is printed in place of a run's progress line."""
        self.screen("quadx expint/float> ")
        self.keys("use longman; set M 400000 warmup 0 repeat 1; sweep N 8,9 on cpu", "Enter")
        text = self.screen("best: N=", timeout=120)
        self.assertRegex(text, r"(?m)^sweep 1/2: N=8 cpu [0-9.e+]+ ms\nsweep 2/2: N=9 cpu ")
        self.assertNotIn("values/s", text)

    def test_help_completes_variants(self):
        """Tab after `help` completes what help takes, variants too, and the page shows."""
        self.screen("quadx expint/float> ")
        self.keys("help sha", "Tab")
        self.screen("> help shared ")
        self.keys("Enter")
        self.screen("shared - variant of expint (gpu only)")
        self.keys("help qa", "Tab")
        self.screen("> help qawf ")

    def test_file_arguments_complete_their_words_and_files(self):
        """Tab after `plot` and `export` completes their first words (convergence; last,
        values) where the text begins one, and file names otherwise (run from the root, which
        holds README.md)."""
        self.screen("quadx expint/float> ")
        self.keys("plot conv", "Tab")
        self.screen("> plot convergence ")
        self.keys("C-u", "export val", "Tab")
        self.screen("> export values ")
        self.keys("C-u", "export READ", "Tab")
        self.screen("> export README.md ")
        self.keys("C-u")

    def test_ctrl_c_discards_the_line(self):
        """Ctrl-C at the prompt drops what was typed and gives a fresh prompt, as shells do;
        the next line runs alone (without the fix it ran as `set n 3show params`)."""
        self.screen("quadx expint/float> ")
        self.keys("set n 3")
        self.screen("> set n 3")
        self.keys("C-c")
        self.screen(re.compile(r"(?m)^quadx expint/float> set n 3.*\nquadx expint/float>\s*$"))
        self.keys("show params", "Enter")
        text = self.screen("threads")
        self.assertNotIn("has no value", text)
        self.assertNotIn("set n 3show", text)
        self.assertRegex(text, r"(?m)^quadx expint/float> set n 3(\^C)?\s*$")

    def test_banner_then_prompt(self):
        """An interactive start says in one line how to begin, as sqlite3 and python do."""
        text = self.screen("quadx expint/float> ")
        lines = text.splitlines()
        self.assertEqual(lines[0], "quadx: type help for the commands; Tab completes; quit or "
                                   "Ctrl-D leaves")
        self.assertEqual(lines[1].rstrip(), "quadx expint/float>")

    def test_history_survives_a_hangup(self):
        """Each line is in the history file once it has run: SIGHUP (a closed terminal) at the
        prompt loses none (the file is written line by line, not at an exit that SIGHUP never
        reaches)."""
        self.screen("quadx expint/float> ")
        self.keys("set n 7", "Enter", "show params", "Enter")
        self.screen("threshold")
        self.screen(re.compile(r"(?m)^quadx expint/float>\s*\Z"))
        os.kill(self.quadx, signal.SIGHUP)
        self.tmux.wait_exit(self.quadx)
        with open(self.hist) as f:
            self.assertEqual(f.read().splitlines(), ["set n 7", "show params"])

    def test_history_command(self):
        """`history` lists the lines typed, numbered, the last N with an argument."""
        self.screen("quadx expint/float> ")
        self.keys("set n 7", "Enter", "show params", "Enter", "history", "Enter")
        self.screen(re.compile(r"(?m)^ +1  set n 7\n +2  show params\n +3  history$"))
        self.keys("history 1", "Enter")
        self.screen(re.compile(r"(?m)^ +4  history 1$"))
        text = self.screen(re.compile(r"history 1\n +4  history 1\n")).string
        self.assertNotRegex(text, r"history 1\n +3  history")

    def test_long_help_goes_through_the_pager(self):
        """At the prompt a help page longer than the terminal goes through $PAGER; a short
        one is printed as it is."""
        paged = os.path.join(self.tmp, "paged")
        self.tmux.close()
        self.start_quadx(env=f"PAGER='tee {paged}'", rows=30)
        self.screen("quadx expint/float> ")
        self.keys("help history", "Enter")
        self.screen("history - list the lines typed")
        self.screen(re.compile(r"help quit\n+quadx expint/float>"))
        self.assertFalse(os.path.exists(paged))
        self.keys("help settings", "Enter")  # longer than 30 rows
        qxtest.poll(lambda: os.path.exists(paged) and "help run" in open(paged).read(),
                    "the page in the pager")
        with open(paged) as f:
            self.assertTrue(f.read().startswith("settings - the session settings"))

    def test_scripts_keep_no_history(self):
        """A script on stdin writes no history file."""
        qxtest.script("show params\n", env={"QUADX_HISTFILE": self.hist + ".script"})
        self.assertFalse(os.path.exists(self.hist + ".script"))

    def test_history_records_a_line_before_it_runs(self):
        """A line is in the history file before its command runs, so a run killed by SIGTERM
        is there too."""
        line = "use longman; set M 10000000 warmup 0 repeat 1; run cpu"
        self.screen("quadx expint/float> ")
        self.keys(line, "Enter")
        qxtest.poll(lambda: os.path.exists(self.hist) and "run cpu" in open(self.hist).read(),
                    "the line in the history file", timeout=60)
        self.assertTrue(qxtest.alive(self.quadx), "the run had ended before its line was kept")
        os.kill(self.quadx, signal.SIGTERM)
        self.tmux.wait_exit(self.quadx)
        with open(self.hist) as f:
            self.assertEqual(f.read().splitlines(), [line])

    def test_history_shows_damaged_bytes_escaped(self):
        """`history` on a damaged history file shows control bytes and bytes outside UTF-8 as
        \\xHH, never sending them to the terminal."""
        self.tmux.close()
        with open(self.hist, "wb") as f:
            f.write(b"set n 5\nab\x01\x1b[31mred\ncaf\xff\n")
        self.start_quadx()
        self.screen("quadx expint/float> ")
        self.keys("history", "Enter")
        text = self.screen(re.compile(r"(?m)^ +4  history$")).string
        self.assertIn("ab\\x01\\x1B[31mred", text)
        self.assertIn("caf\\xFF", text)
        styled = self.tmux.pane(styled=True)
        self.assertNotIn("\x1b[31m", styled)

    def test_ctrl_c_during_the_reference_cancels(self):
        """Ctrl-C while the reference is computed after the timed run cancels the run: it
        says so, and no result is printed as if it had succeeded."""
        self.screen("quadx expint/float> ")
        self.keys("use longman; set M 10000000 warmup 0 repeat 1; run cpu", "Enter")
        self.screen(re.compile(r"(?m)^reference \d+%"), timeout=120)
        self.keys("C-c")
        text = self.screen(re.compile(r"(?m)^quadx: run cancelled.*\nquadx longman/float>\s*\Z"),
                           timeout=120).string
        self.assertNotIn("max_rel", text)


if __name__ == "__main__":
    unittest.main(verbosity=2)
