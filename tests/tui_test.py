#!/usr/bin/env python3
"""The dashboard end to end under tmux: `quadx --tui` in a detached session of a fixed size,
commands typed with send-keys, the panels read back with capture-pane. Checks that the Timing,
Speedup and Error panels show the figures of the runs just made, that the layout reflows on
resize (and says so when too small), that Esc cancels a long CPU run and the session goes on,
that a sweep appears in the Sweep panel (best marked) as soon as it ends and a long one is
cancelled keeping its rows, that a batch's run counts its converged integrals live and after, that longman's runs are not marked as of other parameters and show
their remainder bound, that the function keys change the settings within their range, that the
borders and bars are Unicode box drawing in a UTF-8 locale and plain ASCII otherwise, and that
F10, quit and a fatal signal restore the terminal. Every wait polls with a timeout, and every
check of a screen is a wait for the whole state it checks (Dashboard.until): a capture may hold a
half-drawn frame. Run from the repository root; skipped without tmux."""
import csv as csv_module
import os
import pty
import re
import select
import subprocess
import unittest

import qxtest
from qxtest import QUADX

COLOR = re.compile(r"\x1b\[3[0-7]m")  # a foreground colour in capture-pane -e
PLOT = "[ •▁▂▃▄▅▆▇█]"  # a cell of the Chart panel's plot in a UTF-8 locale
RESTORED = re.compile(r"(?m)^icanon echo")  # stty after quadx: canonical mode and echo back
SIDE = "│"  # a panel's side border in a UTF-8 locale (an ACS border would read "x")


def found(pattern, text):
    """The first match of pattern (a regex string) in text; fails naming it when there is none
    (in a check given to Dashboard.until: the screen is not there yet)."""
    m = re.search(pattern, text)
    if m is None:
        raise AssertionError(f"no match for {pattern!r}")
    return m


class Dashboard(qxtest.TmuxTestCase):
    """quadx in a tmux session and the helpers that drive it (tests/tui_gpu_test.py uses them
    too); no tests of its own."""
    TMUX_NAME = "tui-test"

    def start(self, env="LANG=C.UTF-8", cols=120, rows=40, args="--tui"):
        """Starts quadx (in the dashboard with --tui) in a fresh tmux session; after it ends the
        shell prints its exit status and whether the terminal is back in canonical mode with
        echo."""
        script = (f"env {env} TERM=xterm-256color QUADX_HISTFILE={self.tmp}/history "
                  f"{QUADX} {args}; echo EXITED $?; stty -a | grep -o -- '-*icanon\\|-*echo '"
                  f" | tr '\\n' ' '; echo; {qxtest.HOLD}")
        self.tmux.start(script, cols, rows)
        if args == "--tui":
            self.screen("Log (")
            self.screen("Device")
        else:
            self.screen("quadx expint/float> ")

    def pane(self):
        return self.tmux.pane()

    def screen(self, want, timeout=20.0):
        """Waits until the pane shows `want` (a string or a compiled regex); returns the pane
        text, or the match for a regex."""
        return self.tmux.screen(want, timeout)

    def gone(self, unwanted, timeout=20.0):
        """Waits until the pane no longer shows `unwanted`; returns the pane text."""
        return self.tmux.gone(unwanted, timeout)

    def until(self, check, timeout=20.0, styled=False):
        """Waits until check(pane text) passes (qxtest.Tmux.until); returns what it returned,
        or the text."""
        return self.tmux.until(check, timeout, styled)

    def type(self, line):
        self.tmux.type(line)

    def keys(self, *keys):
        self.tmux.keys(*keys)

    def idle(self, check=None, timeout=20.0):
        """Waits until no command runs (the status line shows the keys again) and check(pane
        text), when given, passes on the same screen; returns what check returned, or the
        text."""
        def settled(text):
            self.assertIn(" quadx dashboard ", text)
            return check(text) if check else None
        return self.until(settled, timeout)

    def run_cpu(self, threads):
        """Runs cpu with `threads` threads; returns the total (ms, as printed) and max_rel."""
        self.type(f"set threads {threads}")
        self.type("run cpu")
        m = self.screen(re.compile(rf"threads {threads}\s*{SIDE}?\n.*?total +(\S+) ms.*?\n"
                                   r".*?max_rel (\S+)", re.S))
        self.idle()
        return m.group(1), m.group(2)


class DashboardTest(Dashboard):
    def test_panels_show_the_runs(self):
        """After two CPU runs the panels show those runs' totals, their ratio and the error."""
        self.start()
        self.type("set n 300 m 300")
        serial, max_rel = self.run_cpu(1)

        def serial_run(text):
            self.assertRegex(text, rf"cpu 1 thr .*? {re.escape(serial)} ms")
            self.assertRegex(text, rf"{SIDE} n=300 m=300 a=")  # the Problem panel's parameter row
            self.assertIn(f"max rel {max_rel}", text)
            self.assertIn(f"{SIDE} over 1e-05: 0 of 90000", text)  # the Error panel's row
            self.assertRegex(text, r"worst at n=\d+ x=")
            self.assertRegex(text, r"cpu 1 thr  [▏▎▍▌▋▊▉█]+ ")  # UTF-8 bars
        self.until(serial_run)
        self.until(lambda styled: self.assertRegex(styled, COLOR), styled=True)
        threaded, max_rel2 = self.run_cpu(2)

        def threaded_run(text):
            self.assertRegex(text, rf"cpu 2 thr .*? {re.escape(threaded)} ms")
            self.assertRegex(text, rf"cpu 1 thr .*? {re.escape(serial)} ms")
            self.assertIn("threads 2", text)  # the Problem panel's settings
            self.assertIn("cpu 2 threads vs serial", text)
            self.assertRegex(text, r"cpu threads vs serial (\S+)x")
            self.assertIn(f"max rel {max_rel2}", text)
            self.assertIn("gpu        (no GPU run yet)", text)
        text = self.until(threaded_run)
        ratio = float(re.search(r"cpu threads vs serial (\S+)x", text).group(1))
        self.assertAlmostEqual(ratio, float(serial) / float(threaded),
                               delta=0.01 * ratio + 1e-3)
        self.type("set n 200")  # other parameters: both CPU rows get the marker after a run
        self.type("set precision double; run cpu")
        self.screen(re.compile(r"cpu 1 thr\*.*\n.*cpu 2 thr "))
        self.keys("F10")
        self.screen("EXITED 0")

    def test_resize_reflows(self):
        """Two columns when wide, one column when narrow, a message when too small; the size
        comes from the terminal, not from stale LINES/COLUMNS."""
        self.start(env="LANG=C.UTF-8 LINES=10 COLUMNS=50")
        self.screen(re.compile(r"\A.*\n.*Problem .*Timing"))  # the second row: two columns
        self.tmux("resize-window", "-t", "t", "-x", "60", "-y", "70")

        def one_column(text):
            self.assertRegex(text, r"Problem[^\n]*\n(.*\n)+.*Timing")
            self.assertTrue(all(len(line) <= 60 for line in text.splitlines()))
            self.assertNotRegex(text, r"Problem .*Timing")
        self.until(one_column)
        self.tmux("resize-window", "-t", "t", "-x", "50", "-y", "12")

        def too_small(text):
            self.assertIn("terminal too small: 50x12", text)
            self.assertNotIn("Timing", text)
        self.until(too_small)
        self.tmux("resize-window", "-t", "t", "-x", "100", "-y", "30")
        self.gone("too small")
        self.screen(re.compile(r"Problem .*Timing"))
        self.type("set n 200")  # the command line still works after the reflows
        self.screen("n=200 m=")

    def test_too_small_names_one_minimum(self):
        """The too-small message names the same size at 60x15 (one column, too few rows), at
        100x10 (two columns, too few rows) and one row short of it, and the dashboard opens at
        exactly that size."""
        self.start()
        needs = set()
        for cols, rows in ((60, 15), (100, 10)):
            self.tmux("resize-window", "-t", "t", "-x", str(cols), "-y", str(rows))
            needs.add(self.screen(re.compile(rf"terminal too small: {cols}x{rows}\b.*?"
                                             r"needs\s+(\d+)x(\d+)\.", re.S)).groups())
        self.assertEqual(len(needs), 1, needs)
        cols, rows = (int(v) for v in needs.pop())
        self.tmux("resize-window", "-t", "t", "-x", str(cols), "-y", str(rows - 1))

        def one_row_short(text):
            self.assertIn(f"terminal too small: {cols}x{rows - 1}", text)
            self.assertIn(f"needs {cols}x{rows}.", " ".join(text.split()))
        self.until(one_row_short)
        self.tmux("resize-window", "-t", "t", "-x", str(cols), "-y", str(rows))
        self.gone("too small")
        self.screen(re.compile(r"Problem .*Timing"))
        self.keys("F10")
        self.screen("EXITED 0")

    def test_compile_phase_and_live_convergence(self):
        """A user integrand's run shows the expression, its compile phase in the Timing panel
        (its own line, not in the run's total; "(cached)" on the next run, which builds
        nothing), and a long adaptive run the live convergence chart (its error estimate over
        where it stops, against its evaluations) while it runs; Esc ends it and the chart with
        it."""
        self.start()
        self.type('use cubature; set integrand "exp(-x*x-y*y)*cos(3*x)" dim 2 rel 1e-7 '
                  "warmup 0 repeat 1")
        self.screen("integrand=exp(-x*x-y*y)*cos(3*x)")
        self.type("run cpu")
        m = self.screen(re.compile(r"cpu compile ([0-9.]+) ms, before the run's time"))
        total = float(self.idle(lambda text: found(r"cpu 1 thr .*?([0-9.]+) ms", text)).group(1))
        compile_ms = float(m.group(1))
        # 444 evaluations take well under a millisecond; cc takes tens: the total is the run's
        self.assertLess(total, compile_ms)
        self.type("run cpu")
        self.screen(re.compile(r"cpu compile [0-9.]+ ms \(cached\)"))
        self.idle(lambda text: self.assertNotIn("convergence, live", text))
        self.type("set integrand f4 dim 8 rel 1e-9 threads 1 maxeval 1e9")
        self.type("run cpu")
        self.screen(re.compile(r"Chart \(convergence, live\)(.*\n)+.*"
                               r"log10\(error estimate / where it stops\)(.*\n)+.*"
                               r"\d(\.\d+)?e\+0\d evaluations"))  # the x axis: evaluations
        self.keys("Escape")
        self.screen("error: run cancelled")
        self.idle()
        self.gone("convergence, live")

    def test_escape_cancels_a_long_run(self):
        """Esc (then Ctrl-C) stops a long CPU run with progress showing, dropping the line
        queued behind it; the next command works."""
        self.start()
        self.type("set n 1000 m 20000 repeat 1000")
        self.type("run cpu")
        self.screen(re.compile(r"running `run cpu`  cpu \[.*\] \d+% of \d+  .* elapsed  ~.* left"))
        self.type("show params")  # queued behind the run, dropped by Esc
        self.screen("queued: show params")
        self.keys("sho", "Tab", "x")  # no completion while the session is busy
        self.screen("quadx (running)> shox")
        self.keys("C-u")
        self.gone("> shox")
        self.keys("Escape")
        self.screen("error: run cancelled", timeout=5)
        self.screen("cancelled: 1 queued lines dropped")
        self.idle()
        self.type("run cpu")  # Ctrl-C cancels too
        self.screen("running `run cpu`  cpu [")
        self.keys("C-c")
        self.screen(re.compile(r"error: run cancelled(.*\n)+.*error: run cancelled"), timeout=5)
        self.idle()
        self.type("set n 300 m 300 repeat 2; run cpu")
        self.screen(re.compile(r"max rel \S+"))
        self.screen("over 1e-05: 0 of 90000")
        self.type("quit")
        self.screen("EXITED 0")
        self.screen(RESTORED)

    def test_sweep_panel(self):
        """No Sweep panel before the first sweep; a CPU sweep too quick for the frame rate then
        shows once the dashboard is idle again (the situation of a GPU sweep), one bar per
        configuration with the throughput the table printed, the best marked and highlighted.
        50 rows: the Log holds the whole table, its long lines wrapped."""
        self.start(rows=50)
        self.assertNotIn("Sweep (", self.pane())
        self.type("set n 200 m 200 repeat 1 warmup 0; run cpu; set n 20 m 20 repeat 2; "
                  "sweep threads 1,2,3 on cpu")  # the run puts the sweep at any time in a frame
        best = self.screen(re.compile(r"best: threads=(\d+) on cpu")).group(1)

        def sweep_shown(text):
            self.assertIn("Sweep (evals/s; *: best)", text)
            self.assertIn(f"threads on cpu: 3 of 3 configurations; best {best} cpu", text)
            table = dict(re.findall(rf"(?m)^{SIDE} [ *] ([123]) +cpu +(?:\S+ +){{3}}"
                                    r"(\S+e[+]\d+)", text))
            self.assertEqual(sorted(table), ["1", "2", "3"])
            for threads, rate in table.items():
                mark = "*" if threads == best else " "
                row = found(rf"(?m)^{SIDE} {re.escape(mark)} {threads} cpu ([▏▎▍▌▋▊▉█]*) +"
                            r"(\S+) ([kMG]?)/s", text)
                scale = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9}[row.group(3)]
                self.assertAlmostEqual(float(row.group(2)) * scale, float(rate),
                                       delta=0.006 * float(rate))
            fastest = max(table, key=lambda k: float(table[k]))
            self.assertRegex(text, rf"(?m)^{SIDE} \* {fastest} cpu █+ ")
        self.idle(sweep_shown)
        self.until(lambda styled: self.assertRegex(  # reverse video
            styled, rf"\x1b\[[0-9;]*7m(\x1b\[\d+m)*\* {best} cpu"), styled=True)
        self.keys("F10")
        self.screen("EXITED 0")

    def test_batch_progress_and_result(self):
        """A batch's run: while it runs the status line counts its integrals that converged of
        all ("integrals 412/1000000 converged"); Esc ends it. A batch that finishes shows
        "integrals 300/300 converged" in the Error panel, and a sweep of rel over it each row's
        count in the Sweep panel."""
        self.start(rows=50)
        self.type('use cubature; set precision double dim 1 rel 1e-9 repeat 1 warmup 0 threads 1; '
                  'set param k 1; '
                  'set integrand "exp(-k*x)"; set param k 1..1e6:1')
        self.screen("integrand=exp(-k*x)")
        self.type("run cpu")  # about a minute of integrals: Esc ends it long before
        self.screen(re.compile(r"cpu \[.*\] \d+%, integrals \d+/1000000 converged"))
        self.keys("Escape")
        self.screen("error: run cancelled")
        self.idle()
        self.type('set param k 1..300:1; set exact "(1-exp(-k))/k"; run cpu')
        self.idle(lambda text: self.assertRegex(
            text, rf"{SIDE} integrals 300/300 converged  "))
        self.type("sweep rel 1e-4,1e-8 on cpu")
        self.idle(lambda text: self.assertRegex(
            text, r"(?s)1e-4 cpu +300/300 converged .*1e-8 cpu +300/300 converged"))
        self.keys("F10")
        self.screen("EXITED 0")

    def test_sweep_cancelled_keeps_its_rows(self):
        """A long CPU sweep shows configuration k of n and the run's progress in the status
        line; Esc stops it, the rows done stay in the panel and in `export last`, and the next
        command works."""
        top = min(20, 4 * len(os.sched_getaffinity(0)))  # threads allows 4 per processor
        self.start()
        self.type("set n 1000 m 40000 repeat 5 warmup 1")
        self.type(f"sweep threads 1..{top}:1 on cpu")  # a tuning axis: its best is starred

        def running_with_rows(text):
            """The status line's configuration and the panel's rows done, drawn together."""
            m = found(rf"running `sweep threads 1..{top}:1 on cpu`  configuration ([2-9]) of "
                      rf"{top}, \w+ \[.*\] \d+% of \d+(.*\n)+.*threads on cpu: (\d+) of {top} "
                      r"configurations; best ", text)
            self.assertEqual(int(m.group(3)), int(m.group(1)) - 1)
        self.until(running_with_rows, timeout=120)
        self.keys("Escape")
        self.screen("error: sweep cancelled after", timeout=5)

        def cancelled_rows(text):
            m = found(rf"threads on cpu: cancelled after (\d+) of {top} configurations", text)
            starred = re.findall(rf"(?m)^{SIDE} \* (\d+) cpu █+", text)
            self.assertTrue(starred, "no starred row")
            return int(m.group(1)), starred
        done, starred = self.idle(cancelled_rows)
        self.assertTrue(1 <= done < top)
        csv = os.path.join(self.tmp, "sweep.csv")
        self.type(f"export last {csv}")
        self.screen(f"wrote {csv}")  # the export is done, not just typed
        self.idle()
        with open(csv) as f:
            rows = list(csv_module.DictReader(f))
        self.assertEqual(len(rows), done)
        fastest = max(rows, key=lambda row: float(row["work_per_s"]))
        self.assertEqual(starred, [fastest["config_threads"]])  # the fastest kept row is starred
        self.assertEqual([row["config_threads"] for row in rows if row["best"] == "1"], starred)
        self.type("set n 300 m 300 repeat 2; run cpu")
        self.screen("over 1e-05: 0 of 90000")
        self.keys("F10")
        self.screen("EXITED 0")

    def chart_panel(self, title, legend):
        """Waits for the Chart panel titled `title` (a regex), the legend row when `legend`
        (groups bars and line: the series' names), the plot's rows between the one with the top
        of its y range and the one with 0, and the x axis (groups lo and hi), all inside its
        border; returns (the match, the plot's rows)."""
        m = self.screen(re.compile(
            rf"(?m)^┌─ Chart \({title}\) ─+┐\n"
            + (rf"{SIDE} █ (?P<bars>.*?) +• (?P<line>.*?) +{SIDE}\n" if legend else "")
            + rf"(?P<plot>(?:{SIDE} +\S+ {PLOT}+ +{SIDE}\n)(?:{SIDE} +{PLOT}+ +{SIDE}\n)*"
            rf"{SIDE} +0 {PLOT}+ +{SIDE}\n)"
            rf"{SIDE} +(?P<lo>\S+) +(?:\S+ +)?(?P<hi>\S+) x {SIDE}\n└─+┘$"))
        return m, m.group("plot").splitlines()

    def test_chart_panel(self):
        """A 1-D kde run at the grid leaves a chart: the Chart panel, framed below the other
        panels, shows the histogram's bars and the estimate's line (the legend names both), the
        density's peak as the top of the y range and the samples' range padded on the x axis;
        its title has the bandwidth the Error panel's figures have. At 80x24 it still fits (two
        rows of plot) and the Problem panel keeps a row of parameters; F9 zooms it to the whole
        screen and back; the next run of a problem without a chart takes the panel away."""
        self.start()
        self.assertNotIn("Chart (", self.pane())
        self.type("use kde")
        self.type("set n 20000 at grid G 512")
        self.type("run cpu")
        m, rows = self.chart_panel(r"density of 20000 samples, h (?P<h>\S+)", legend=True)
        self.assertEqual(m.group("bars"), "histogram of the samples (128 bins)")
        self.assertEqual(m.group("line"), "estimate at the grid of 512")
        top = float(re.search(rf"{SIDE} +(\S+) ", rows[0]).group(1))
        self.assertTrue(0.35 < top < 0.45, top)  # the peak of N(0, 1)'s density, 0.399
        self.assertLess(float(m.group("lo")), -3.5)
        self.assertGreater(float(m.group("hi")), 3.5)
        plot = "".join(rows)
        self.assertIn("█", plot)
        self.assertIn("•", plot)
        h = m.group('h')
        self.idle(lambda text: self.assertIn(f"h {h}  samples 20000", text))  # the Error panel's
        self.tmux("resize-window", "-t", "t", "-x", "80", "-y", "24")
        m, rows = self.chart_panel(r"density of 20000 samples, h \S+", legend=False)
        self.assertEqual(len(rows), 2)
        self.assertIn("█", rows[1])

        def problem_row(text):
            self.assertNotIn("too small", text)
            self.assertRegex(text, rf"(?m)^{SIDE} n=20000 dist=normal ")
        self.until(problem_row)
        self.keys("F9")
        m, rows = self.chart_panel(r"density of 20000 samples, h \S+; F9 unzooms", legend=True)
        self.assertEqual(len(rows), 24 - 2 - 2 - 2)  # the body less the borders, legend, axis
        self.gone("Problem")
        self.keys("F9")
        self.screen("Problem")
        self.type("use expint; set n 20 m 20; run cpu")
        self.gone("Chart (")
        self.screen("over 1e-05: 0 of 400")
        self.keys("F10")
        self.screen("EXITED 0")

    def test_log_wraps_long_lines(self):
        """120x40: an error longer than the Log panel is wrapped onto the next row, whole."""
        self.start()
        self.type("use longman; set lambda 0")
        self.screen(re.compile(rf"(?m)^{SIDE} error: lambda must be > 0 .*\n{SIDE} .*"
                               rf"allows it\) +{SIDE}$"))
        self.keys("F10")
        self.screen("EXITED 0")

    def test_small_terminal_keeps_what_matters(self):
        """80x24, the smallest usual terminal: an error in the Log wraps to its end, the
        Problem panel shows a row of parameters even with a Sweep panel below, and the Sweep
        panel, with room for one bar, shows the best row rather than the newest."""
        self.start(cols=80, rows=24)
        self.type("use longman; set lambda 0")
        self.screen("(only j0 allows it)")
        self.screen(re.compile(rf"(?m)^{SIDE} M=\d+ N=\d+ g="))
        self.type("use expint; set n 300 m 300 repeat 3 warmup 1; "
                  "sweep variant fast,coursework on cpu")  # fast is the best by far
        best = self.screen(re.compile(r"best: variant=(\w+) on cpu")).group(1)

        def best_row_and_parameters(text):
            self.assertIn("Sweep (evals/s; *: best)", text)
            self.assertRegex(text, rf"(?m)^{SIDE} \* {best} +cpu +█+")
            self.assertRegex(text, rf"(?m)^{SIDE} n=300 m=300 ")
        self.idle(best_row_and_parameters)
        self.keys("F10")
        self.screen("EXITED 0")

    def test_function_keys(self):
        """F2 toggles the precision, F3 halves and F4 doubles the block, stopping at the ends of
        its range 1..1024 (at an end the log says so and nothing is sent); Ctrl-D leaves and
        the terminal is restored."""
        self.start()
        self.keys("F2")
        self.screen("quadx expint/double> ")
        self.screen("precision double  block 256")
        self.keys("F3")
        self.screen("block 128")
        self.screen("precision double  block 128 ")
        self.keys("F4")
        self.keys("F4")
        self.screen("block 512")
        self.screen("precision double  block 512 ")
        self.type("set block 700")
        self.screen("block 700")
        self.screen("precision double  block 700 ")
        self.keys("F4")
        self.screen("> set block 1024")
        self.screen("block 1024")
        self.screen("precision double  block 1024 ")
        self.keys("F4")
        self.screen("block is already 1024, the largest `set block` takes")
        self.type("set block 3")
        self.screen("block 3 ")
        self.screen("precision double  block 3 ")
        self.keys("F3")
        self.screen("> set block 1")
        self.keys("F3")

        def stopped_at_one(text):
            self.assertIn("block is already 1, the smallest `set block` takes", text)
            self.assertIn("precision double  block 1 ", text)
            self.assertNotIn("error:", text)
            self.assertNotIn("set block 0", text)
            self.assertNotIn("set block 2048", text)
        self.until(stopped_at_one)
        self.type("dashboard")
        self.screen("error: dashboard: already open")
        self.type("set n 100 m 100")
        self.screen("n=100 m=100")
        self.keys("C-d")
        self.screen("EXITED 0")
        self.screen(RESTORED)
        with open(os.path.join(self.tmp, "history")) as f:  # typed lines, not the keys'
            self.assertEqual(f.read().split("\n")[:4], ["set block 700", "set block 3",
                                                        "dashboard", "set n 100 m 100"])

    def test_longman_panels(self):
        """longman, whose configuration is long: a CPU run's timing is not marked as of other
        parameters; the Error panel shows the run's remainder bound and how many are over it as
        `run` printed them. After a sweep of M the restored M is not the last run's, so its
        row is marked; a run on the current settings clears the mark. 50 rows: the Log holds
        a whole run, its long lines wrapped."""
        self.start(rows=50)
        self.type("use longman")
        self.type("set M 2000 repeat 1 warmup 0")
        self.type("run cpu")
        m = self.screen(re.compile(r"\n\S +bound_max (\S+)  over_bound (\S+)"))

        def unmarked_with_bound(text):
            self.assertRegex(text, r"cpu 1 thr  \S")
            self.assertNotIn("cpu 1 thr*", text)
            self.assertIn(f"{SIDE} bound_max {m.group(1)}  over_bound {m.group(2)}", text)
        self.idle(unmarked_with_bound)
        self.type("sweep M 1000,3000 on cpu")
        self.screen("best: none: M sets the problem's size")

        def restored_and_marked(text):
            self.assertIn("M=2000 ", text)  # the Problem panel: M restored
            self.assertIn("cpu 1 thr*", text)
        self.idle(restored_and_marked)
        self.type("run cpu")
        self.screen(re.compile(r"> run cpu .*\n(.*\n)+.*bound_max"))
        self.idle(lambda text: self.assertRegex(text, r"cpu 1 thr  \S"))
        self.keys("F10")
        self.screen("EXITED 0")

    def assert_ascii_screen(self, text):
        """The pane has ASCII only: panel borders of + - |, no box drawing (neither Unicode
        nor the alternate character set's letters lqqk) and no block characters."""
        self.assertRegex(text, r"(?m)^\+- Problem -+\+\+- Timing ")
        self.assertRegex(text, r"(?m)^\| ")
        self.assertNotIn("lqq", text)
        self.assertEqual([c for c in text if ord(c) > 127], [])

    def test_ascii_no_color_and_completion(self):
        """Without a UTF-8 locale (LC_ALL=C) the borders and bars are ASCII; Tab completes from
        the command table."""
        self.start(env="LC_ALL=C NO_COLOR=1")
        self.type("set n 300 m 300")
        self.screen("n=300 m=300")  # Tab completes only once no command runs
        self.idle()
        self.keys("ru", "Tab")
        self.screen("> run ")
        self.keys("c", "Tab", "Enter")
        self.screen(re.compile(r"cpu 1 thr  #*\S* +\S+ ms"))
        self.idle(self.assert_ascii_screen)
        self.until(lambda styled: self.assertNotRegex(styled, COLOR), styled=True)
        self.keys("F10")
        self.screen("EXITED 0")

    def test_ascii_lang_c(self):
        """LANG=C (and no LC_ALL): every panel, the histogram and the sweep's bars in ASCII;
        with a UTF-8 locale the borders are Unicode box drawing."""
        self.start(env="-u LC_ALL -u LC_CTYPE LANG=C")
        self.type("set n 300 m 300; run cpu; sweep threads 1,2 on cpu")
        self.screen(re.compile(r"best: threads=\d+ on cpu"))

        def ascii_sweep(text):
            self.assertRegex(text, r"(?m)^\| \* [12] cpu #+ ")
            self.assert_ascii_screen(text)
        self.idle(ascii_sweep)
        self.keys("F10")
        self.screen("EXITED 0")
        self.start()
        self.screen(re.compile(r"(?m)^┌─ Problem ─+┐┌─ Timing .*┐\n│ "))

    def test_from_the_plain_prompt(self):
        """`dashboard` at the plain prompt opens on the same session; what a script prints on
        stderr goes to the log; quit goes back to the plain prompt, settings kept."""
        self.start(args="")
        script = os.path.join(self.tmp, "bad.qx")
        with open(script, "w") as f:
            f.write("set m 400\nset n 0\n")
        self.type("set n 300 m 300")
        self.type("dashboard")
        self.screen("n=300 m=300")
        self.type(f"source {script}")
        self.screen(f"quadx: {script}: line 2: ")
        self.screen(f"error: source: {script} stopped at its first error")
        self.screen("n=300 m=400")
        self.type("quit")
        self.gone("Log (")
        self.type("show params")

        def both_kept(text):
            self.assertRegex(text, r"m +400")
            self.assertRegex(text, r"n +300")
        self.until(both_kept)
        self.type("dashboard")  # a second time, on the same session
        self.screen("n=300 m=400")
        self.keys("F10")
        self.gone("Log (")
        self.type("quit")
        self.screen("EXITED 0")
        self.screen(RESTORED)

    def test_fatal_signal_restores_the_terminal(self):
        """SIGTERM while the dashboard is open: the terminal is restored on the way out."""
        self.start()
        os.kill(self.tmux.child(), 15)
        self.screen("EXITED 143")
        self.screen(RESTORED)

    def test_history_survives_a_hangup(self):
        """Each line typed in the dashboard is in the history file as soon as it is entered:
        SIGHUP (a closed terminal) loses none (--tui writes it line by line, not at exit)."""
        self.start()
        self.type("set n 7")
        self.type("show params")
        self.screen("threshold")
        self.idle()
        quadx = self.tmux.child()
        os.kill(quadx, 1)
        self.tmux.wait_exit(quadx)
        with open(os.path.join(self.tmp, "history")) as f:
            self.assertEqual(f.read().splitlines(), ["set n 7", "show params"])


class KeysAndTerminalTest(Dashboard):
    """The terminal and keys: a refused dashboard leaves the terminal modes as they were,
    quick function keys all count, the exit key and the too-small message fit 80x24 and less,
    long errors from `source` wrap to their end, and the htop-like keys (q, F1, F8)."""

    def stty_around(self, name, args):
        """The shell line that saves `stty -a` to name.before, runs quadx with TERM=dumb and
        args, then saves `stty -a` to name.after and prints name SAVED."""
        before, after = (os.path.join(self.tmp, f"{name}.{w}") for w in ("before", "after"))
        return (f"stty -a > {before}; env TERM=dumb QUADX_HISTFILE={self.tmp}/history "
                f"{QUADX} {args}; echo EXITED $?; stty -a > {after}; echo {name} SAVED")

    def assert_same_stty(self, name):
        with open(os.path.join(self.tmp, f"{name}.before")) as f:
            before = f.read()
        with open(os.path.join(self.tmp, f"{name}.after")) as f:
            self.assertEqual(f.read(), before)
        self.assertRegex(before, r"\bicanon\b.*\becho\b|\becho\b.*\bicanon\b")

    def test_refused_dashboard_leaves_the_terminal_as_it_was(self):
        """TERM=dumb: `quadx --tui` and `dashboard` at the prompt refuse, and `stty -a` after
        quadx is what it was before (quadx does not leave it -icanon -echo -onlcr)."""
        self.tmux.start(self.stty_around("tui", "--tui") + "; " +
                        self.stty_around("prompt", "") + f"; {qxtest.HOLD}", 80, 24)
        self.screen("tui SAVED")
        self.assert_same_stty("tui")
        self.screen("quadx expint/float> ")
        self.type("dashboard")
        self.screen("cannot move the cursor")
        self.type("quit")
        self.screen("prompt SAVED")
        self.assert_same_stty("prompt")

    def test_quick_function_keys_all_count(self):
        """F4 F4 F4 sent at once from block 32 ends at 256, F3 x4 then at 16, F2 F2 at the
        precision it began with: every press counts, each from what the one before set.
        q with text on the line is typed; q alone on an empty line leaves (typing quit still
        works: test_from_the_plain_prompt)."""
        self.start()
        self.type("set block 32")
        self.screen("precision float  block 32 ")
        self.keys("F4", "F4", "F4")
        self.screen("precision float  block 256 ")
        # each press became its own line, in order (a note that a press was queued behind a
        # running line may stand between them under load)
        self.idle(lambda text: self.assertEqual(re.findall(r"> set block (\d+)", text)[-3:],
                                                ["64", "128", "256"]))
        self.keys("F3", "F3", "F3", "F3")
        self.screen("precision float  block 16 ")
        self.keys("F2", "F2")
        self.screen(re.compile(r"> set precision double\s.*\n(.*\n)*.*> set precision float"))
        self.idle(lambda text: self.assertIn("precision float  block 16 ", text))
        self.keys("eq")
        self.screen("quadx expint/float> eq")
        self.keys("C-u")
        self.gone("> eq")
        self.keys("q")
        self.screen("EXITED 0")
        self.screen(RESTORED)

    def test_exit_key_and_messages_fit_80x24(self):
        """80x24: the title bar ends with "F10 leave", idle and during a run; smaller than the
        layout, the too-small message wraps whole; F8 zooms the Log, which fits there."""
        self.start(cols=80, rows=24)
        self.idle(lambda text: self.assertRegex(text, r"\A quadx dashboard .*F10 leave\n"))
        self.type("set n 1000 m 20000 repeat 1000")
        self.type("run cpu")
        self.screen(re.compile(r"(?m)^ running `run cpu`  cpu "
                               r"\[.*\] \d+% of \d+  Esc cancels  F10 leave$"))
        self.keys("Escape")
        self.screen("error: run cancelled")
        self.idle()
        self.tmux("resize-window", "-t", "t", "-x", "45", "-y", "12")
        self.screen(re.compile(r"terminal too small: 45x12; the dashboard.*\n(?:.*\n)*?"
                               r"needs \d+x\d+\. Enlarge the window, or F10 to\nleave\.$", re.M))
        self.keys("F8")

        def log_zoomed(text):
            self.assertIn("Log (PgUp/PgDn scroll; F8 unzooms)", text)
            self.assertNotIn("too small", text)
        self.until(log_zoomed)
        self.keys("F8")
        self.screen("terminal too small: 45x12")
        self.tmux("resize-window", "-t", "t", "-x", "80", "-y", "24")
        self.gone("too small")
        self.keys("F10")
        self.screen("EXITED 0")

    def test_long_source_error_wraps_to_its_end(self):
        """An error from `source` with a long path (over 200 bytes with its list of names) is
        in the Log whole, wrapped (80x50); F8 zooms the Log to the whole screen, and back."""
        self.start(cols=80, rows=50)
        folder = os.path.join(self.tmp, "a-rather-long-folder-name-for-the-course-material",
                              "and-another-level-of-it-for-this-week")
        os.makedirs(folder)
        script = os.path.join(folder, "bad.qx")
        with open(script, "w") as f:
            f.write("set m 400\nset foo 1\n")
        self.type(f"source {script}")
        plain = qxtest.script(f"source {script}\n").stderr  # the error as the prompt prints it
        error = re.search(r"line 2: unknown parameter 'foo' .*", plain).group(0)
        self.assertGreater(len(f"quadx: {script}: {error}"), 200)

        def error_whole(text):
            """The Log's rows, once they hold the error whole and the line after it."""
            self.assertIn("stopped at its first error", text)
            self.assertIn("Log (", text)
            rows = re.findall(rf"(?m)^{SIDE} (.*?) *{SIDE}$", text[text.index("Log ("):])
            self.assertIn(error, " ".join(rows))
            return rows
        rows = self.idle(error_whole)
        self.keys("F8")

        def zoomed_rows(text):
            self.assertIn("Log (PgUp/PgDn scroll; F8 unzooms)", text)
            self.assertEqual(re.findall(rf"(?m)^{SIDE} (.*?) *{SIDE}$", text)[:len(rows)], rows)
            self.assertNotIn("Problem", text)
        self.until(zoomed_rows)
        self.keys("F8")
        self.screen("Problem")
        self.keys("F10")
        self.screen("EXITED 0")

    def test_f1_lists_the_keys(self):
        """F1 shows every key with what it does over the panels, F1 again hides it."""
        self.start(cols=80, rows=24)
        self.keys("F1")

        def keys_listed(text):
            self.assertIn("Keys (F1 closes)", text)
            for key, about in [("F8", "zoom the Log to the whole screen, and back"),
                               ("F9", "zoom the Chart (the last run's, when its problem"),
                               ("q", "leave, typed alone on an empty command line"),
                               ("F10", "leave the dashboard")]:
                self.assertRegex(text, rf"(?m)^{SIDE} {re.escape(key)} +{re.escape(about)}")
        self.until(keys_listed)
        self.keys("F1")
        self.gone("Keys (F1 closes)")
        self.keys("F10")
        self.screen("EXITED 0")


class NoTerminalTest(unittest.TestCase):
    def test_refused_without_a_terminal(self):
        """dashboard and --tui refuse with one line when stdin/stdout are not terminals."""
        r = qxtest.script("dashboard\n", timeout=20)
        self.assertNotEqual(r.returncode, 0)
        self.assertEqual(r.stderr.strip().splitlines(),
                         ["quadx: line 1: dashboard: needs a terminal, and stdin or stdout is "
                          "not one (scripts use the plain commands)"])
        r = qxtest.run(["--tui"], stdin="", timeout=20)
        self.assertEqual(r.returncode, 1)
        self.assertIn("dashboard: needs a terminal", r.stderr)


    def test_refused_without_cursor_addressing(self):
        """On a terminal that cannot move the cursor (TERM=dumb: no cup capability) --tui
        refuses with one line on stderr and writes nothing to the terminal."""
        master, slave = pty.openpty()
        env = dict(os.environ, TERM="dumb", QUADX_HISTFILE=os.devnull)
        r = subprocess.run([QUADX, "--tui"], stdin=slave, stdout=slave, stderr=subprocess.PIPE,
                           env=env, text=True, timeout=20)
        os.close(slave)
        written = b""
        while select.select([master], [], [], 0.2)[0]:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            written += chunk
        os.close(master)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stderr.splitlines(),
                         ["quadx: dashboard: the terminal (TERM=dumb) cannot move the cursor "
                          "(no cup capability); use a terminal such as xterm, or the plain "
                          "commands"])
        self.assertEqual(written, b"")


if __name__ == "__main__":
    unittest.main(verbosity=2)
