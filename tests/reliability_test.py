#!/usr/bin/env python3
"""Reliability of quadx end to end (issue 6): hostile input lines, SIGINT during a long CPU run,
host-side fault injection, refused oversize runs and the history file.

Run from the repository root after `make`:  python3 tests/reliability_test.py
QUADX names the binary (default ./quadx). The fault tests need a test build, which compiles in
QUADX_FAULT (make test-asan runs this file on one); on a release build they are skipped, unless
QUADX_REQUIRE_FAULTS=1, which makes that a failure. Standard library only.
"""

import concurrent.futures
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QUADX = os.environ.get("QUADX", os.path.join(ROOT, "quadx"))
HOSTILE = os.path.join(ROOT, "tests", "data", "hostile_lines.txt")
TIMEOUT = 120  # seconds for one quadx process

ERROR_RE = re.compile(r"^quadx: line (\d+): (.+)$")


def quadx(stdin, *args, env=None):
    """Runs quadx with stdin (bytes or str) on a pipe; returns (rc, stdout, stderr) as text."""
    data = stdin.encode("utf-8", "surrogateescape") if isinstance(stdin, str) else stdin
    p = subprocess.run([QUADX, *args], input=data, capture_output=True, timeout=TIMEOUT,
                       cwd=ROOT, env={**os.environ, **(env or {})})
    return (p.returncode, p.stdout.decode("utf-8", "replace"),
            p.stderr.decode("utf-8", "replace"))


def decode_line(text):
    """A line of hostile_lines.txt as bytes: \\xNN is the byte NN and \\\\ a backslash."""
    return text.encode("latin-1", "backslashreplace").decode("unicode_escape").encode("latin-1")


def file_lines():
    """The hostile lines committed in tests/data/hostile_lines.txt, as bytes."""
    with open(HOSTILE, encoding="utf-8") as f:
        return [decode_line(l) for l in f.read().splitlines() if l and not l.startswith("#")]


def problems():
    """The problem names, from `help`'s `Problems:` line."""
    rc, out, err = quadx("help\n")
    assert rc == 0, err
    line = next(l for l in out.splitlines() if l.startswith("Problems:"))
    return line.split()[1:]


def params_of(problem):
    """`show params` of a fresh session on problem, as a dict."""
    rc, out, err = quadx(f"use {problem}\nformat json\nshow params\n")
    assert rc == 0, err
    return json.loads(out)


def setting_names(problem):
    """Every name `set` takes on problem, from the error for an unknown one (the tables)."""
    rc, _, err = quadx(f"use {problem}\nset nosuch 1\n")
    m = re.search(r"names are (.+)$", err.strip())
    assert rc != 0 and m, err
    return m.group(1).split(", ")


def allowed_range(problem, name):
    """What `set NAME` accepts, from its error message ('expected ...')."""
    rc, _, err = quadx(f"use {problem}\nset {name} \x01\n")
    m = re.search(r"expected (.+)$", err.strip())
    assert rc != 0 and m, (name, err)
    return m.group(1)


def out_of_range(allowed):
    """Values just outside, far outside and beside what `allowed` describes, as words."""
    bad = ["nan", "inf", "-inf", "1e999", "\x01"]
    m = re.match(r"an integer in (-?[\d.e+]+)\.\.(-?[\d.e+]+)$", allowed)
    if m:
        lo, hi = float(m.group(1)), float(m.group(2))
        return bad + ["%d" % (lo - 1), "%d" % (hi + 1), "%.17g" % (hi * 10 + 10),
                      "%d.5" % lo, "-%d" % (hi + 1)]
    m = re.match(r"a number in ([(\[])(-?[\d.e+-]+), (-?[\d.e+-]+)\]$", allowed)
    if m:
        lo, hi = float(m.group(2)), float(m.group(3))
        below = repr(lo) if m.group(1) == "(" else repr(lo - abs(lo) - 1)
        return bad + [below, repr(hi + abs(hi) + 1), "%s:%s" % (lo, hi)]
    m = re.match(r"LO:HI or a number, with (-?[\d.e+-]+) (<=?) LO <= HI <= (-?[\d.e+-]+)$",
                 allowed)
    if m:
        lo, hi = float(m.group(1)), float(m.group(3))
        below = repr(lo) if m.group(2) == "<" else repr(lo - abs(lo) - 1)
        return bad + [below, repr(hi * 2 + 1), "%s:%s" % (hi, lo), "%s:" % lo, ":%s" % hi,
                      "%s:%s:%s" % (lo, lo, hi), "%s:nan" % lo]
    choices = allowed.split("|")
    assert len(choices) > 1 and all(re.match(r"^[\w-]+$", c) for c in choices), allowed
    return bad + ["nosuch", choices[0].upper(), choices[0][:-1], choices[0] + "x"]


def generated_lines(problem):
    """Lines generated from the tables: every parameter and setting with out-of-range values
    and without a value, every command missing its argument or with too many, long lines."""
    lines = []
    for name in setting_names(problem):
        lines.append(f"set {name}")
        lines += [f"set {name} {v}" for v in out_of_range(allowed_range(problem, name))]
    rc, out, err = quadx("help\n")
    assert rc == 0, err
    for usage in re.findall(r"^  (\S.*?)\s{2,}", out, re.M):
        words = usage.split()
        if len(words) > 1 and not words[1].startswith("["):
            lines.append(words[0])  # missing its argument
        lines.append(" ".join([words[0]] + ["x"] * 70))  # too many words
    lines += ["set n " + "9" * 70000, "x" * 65537, "set n " + "1" * 60000,
              "show " + "a " * 100, "#" * 70000, "set n 5 \"" + "q" * 66000]
    return [l.encode() for l in lines]


class HostileLinesTest(unittest.TestCase):
    """Every hostile line alone: one clear error on stderr, a non-zero exit, no crash, and the
    same `show params` after it as before."""

    def check_line(self, problem, before, line):
        """Returns a failure message for line, or None when it behaves."""
        stdin = f"use {problem}\n".encode() + line + b"\nformat json\nshow params\n"
        rc, out, err = quadx(stdin, "--keep-going")
        errs = err.split("\n")[:-1]
        what = f"{problem}: {line[:120]!r}: rc={rc}\nstdout: {out[:500]}\nstderr: {err[:1000]}"
        if rc != 1:
            return "exit status should be 1 (an error, no crash): " + what
        if len(errs) != 1 or not ERROR_RE.match(errs[0]) or ERROR_RE.match(errs[0]).group(1) != "2":
            return "want exactly one 'quadx: line 2: ...' error: " + what
        if len(ERROR_RE.match(errs[0]).group(2)) < 10:
            return "error message too short to be clear: " + what
        if re.search(r"[\x00-\x1f\x7f]", errs[0]):
            return "control bytes printed to the terminal: " + what
        try:
            after = [json.loads(l) for l in out.splitlines()]
        except ValueError:
            return "stdout should hold only the `show params` JSON: " + what
        if after != [before]:
            return "session state changed: " + what
        return None

    def test_hostile_lines(self):
        """The committed file and the lines generated from the tables, on every problem."""
        lines = file_lines()
        self.assertGreater(len(lines), 50)
        jobs = []
        for problem in problems():
            before = params_of(problem)
            for line in lines + generated_lines(problem):
                jobs.append((problem, before, line))
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            failures = [f for f in pool.map(lambda j: self.check_line(*j), jobs) if f]
        self.assertEqual(failures, [], "%d of %d lines misbehaved:\n%s"
                         % (len(failures), len(jobs), "\n\n".join(failures[:10])))

    def test_generator_covers_every_setting(self):
        """The generated lines name every parameter and setting that `show params` shows."""
        for problem in problems():
            params = params_of(problem)
            text = b"\n".join(generated_lines(problem)).decode()
            names = [k for k in params if k not in ("type", "problem")]
            self.assertGreater(len(names), 8)
            for name in names:
                self.assertIn(f"set {name} nan", text)

    def test_blank_lines_and_comments_are_no_ops(self):
        """Empty, blank and comment-only lines are accepted and change nothing."""
        before = params_of("expint")
        for line in ["", "   ", "\t", "# comment", "  # set n 5", ";", " ; ; "]:
            with self.subTest(line=line):
                rc, out, err = quadx(line + "\nformat json\nshow params\n")
                self.assertEqual((rc, err), (0, ""))
                self.assertEqual(json.loads(out), before)

    def test_binary_script_stops_cleanly(self):
        """A stream with no line break at all (like /dev/zero) is abandoned with one error."""
        rc, out, err = quadx(b"\0" * (17 * 1024 * 1024), "--keep-going")
        self.assertEqual(rc, 1, err)
        self.assertRegex(err, r"^quadx: line 1: no line break in \d+ bytes")

    def test_directory_as_script(self):
        """`source /` and `-f /` are errors, not empty scripts."""
        rc, _, err = quadx("source /\n")
        self.assertEqual((rc, err), (1, "quadx: line 1: source: / is a directory, not a script\n"))
        rc, _, err = quadx("", "-f", "/")
        self.assertEqual((rc, err), (1, "quadx: line 1: read error: Is a directory\n"))


class CancelTest(unittest.TestCase):
    """SIGINT during a long command in script mode: quadx survives, says so, goes on.
    LONG_COMMANDS: (setup line, the long command, the problem it leaves); add new ones here."""

    LONG_COMMANDS = [
        ("set n 1000 m 20000 threads 1 repeat 1000 warmup 0", "run cpu", "expint"),
        ("use longman; set M 20000000 threads 1 repeat 1000 warmup 0", "run cpu", "longman"),
    ]

    def test_each_long_command(self):
        for setup, command, problem in self.LONG_COMMANDS:
            with self.subTest(command=command, problem=problem):
                params = self.cancel(setup, command)
                self.assertEqual(params["problem"], problem)

    def cancel(self, setup, command):
        """Sends SIGINT 1.5 s into command; checks the report; returns `show params` after."""
        p = subprocess.Popen([QUADX, "--keep-going"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, text=True)
        p.stdin.write(f"{setup}\n{command}\nformat json\nshow params\n")
        p.stdin.flush()
        time.sleep(1.5)  # well into the run (it would take minutes)
        self.assertIsNone(p.poll(), "the run ended before SIGINT: make it longer")
        p.send_signal(signal.SIGINT)
        try:
            out, err = p.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
            self.fail("quadx did not stop the run within 60 s of SIGINT")
        self.assertEqual(p.returncode, 1, err)  # alive, and the cancelled run is an error
        self.assertRegex(err, r"^quadx: line 2: .*cancelled\n$")
        return json.loads(out.splitlines()[-1])  # the next commands worked

    def test_sigint_between_runs_does_not_cancel_the_next(self):
        """A SIGINT while no run is going does not cancel a later run."""
        p = subprocess.Popen([QUADX], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, cwd=ROOT, text=True)
        p.stdin.write("show params\n")
        p.stdin.flush()
        time.sleep(0.5)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate("set n 5 m 5\nrun cpu\n", timeout=60)
        self.assertEqual((p.returncode, err), (0, ""))
        self.assertIn("cpu expint", out)


def fault_build():
    """True when QUADX reads QUADX_FAULT (a test build)."""
    _, _, err = quadx("help run\n", env={"QUADX_FAULT": "nosuchpoint"})  # help opens a file
    return "QUADX_FAULT" in err


FAULTS = fault_build()
if not FAULTS and os.environ.get("QUADX_REQUIRE_FAULTS") == "1":
    raise SystemExit("reliability_test: QUADX_REQUIRE_FAULTS=1 but %s has no fault injection"
                     % QUADX)


@unittest.skipUnless(FAULTS, "not a test build: QUADX_FAULT is compiled out")
class HostFaultTest(unittest.TestCase):
    """QUADX_FAULT makes one operation fail once: quadx reports it and the next command works.
    Each case: the fault, the command, what the error must say. Add a fault point here."""

    CASES = [
        ("malloc", "set n 50 m 50 precision double; run cpu", r"cannot allocate .* results"),
        ("malloc:2", "set n 50 m 50; run cpu", r"cannot allocate .* reference values"),
        ("fopen", "source tests/script/inner_ok.qx",
         r"source: cannot open tests/script/inner_ok.qx: Input/output error"),
        ("fopen", "help run", r"cannot read .*run.txt: Input/output error"),
    ]

    def test_each_fault_is_reported_and_the_next_command_works(self):
        for fault, cmd, pattern in self.CASES:
            with self.subTest(fault=fault, cmd=cmd):
                rc, out, err = quadx(f"{cmd}\n{cmd}\nformat json\nshow params\n", "--keep-going",
                                     env={"QUADX_FAULT": fault})
                self.assertEqual(rc, 1, err)
                errs = err.splitlines()
                self.assertEqual(len(errs), 1, err)
                self.assertRegex(errs[0], r"^quadx: line 1: .*" + pattern)
                self.assertIn('"problem"', out.splitlines()[-1])  # later lines ran
                rc, out_clean, err_clean = quadx(f"{cmd}\n")  # control: no fault, no error
                self.assertEqual((rc, err_clean), (0, ""))

    def test_unknown_fault_point_is_reported(self):
        _, _, err = quadx("help run\n", env={"QUADX_FAULT": "nosuchpoint"})
        self.assertIn("ignoring 'nosuchpoint'", err)
        self.assertIn("malloc", err)

    def test_oversize_run_refused_before_any_allocation(self):
        """A run larger than host memory is refused with both figures, before allocating:
        the armed malloc fault is still there for the next run."""
        rc, out, err = quadx("set n 1000 m 1000000000\nrun cpu\nset n 5 m 5\nrun cpu\n",
                             "--keep-going", env={"QUADX_FAULT": "malloc"})
        errs = err.splitlines()
        self.assertEqual(len(errs), 2, err)
        self.assertRegex(errs[0], r"^quadx: line 2: run refused: it needs [\d.]+ MiB of host "
                         r"memory and [\d.]+ MiB is available$")
        self.assertRegex(errs[1], r"^quadx: line 4: cannot allocate")


def tmux(*args):
    """Runs one tmux command on this test's own server; returns its stdout."""
    return subprocess.run(["tmux", "-L", "quadx-rely-test", *args], capture_output=True,
                          text=True, timeout=10).stdout


def wait_pane(test, want):
    """Waits until the tmux pane shows want; returns its text (fails the test if it never does)."""
    end = time.time() + 20
    while time.time() < end:
        text = tmux("capture-pane", "-p", "-t", "t")
        if want.rstrip() in text:
            return text
        time.sleep(0.05)
    test.fail(f"pane never showed {want!r}:\n{text}")


@unittest.skipIf(shutil.which("tmux") is None, "tmux is not installed")
class InteractiveCancelTest(unittest.TestCase):
    """Ctrl-C at the readline prompt during a long run cancels the run, not quadx."""

    def test_ctrl_c_cancels_the_run(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        tmux("kill-server")
        self.addCleanup(tmux, "kill-server")
        tmux("new-session", "-d", "-s", "t", "-x", "150", "-y", "40",
             f"env QUADX_HISTFILE={tmp}/history TERM=xterm {QUADX}; echo EXITED; sleep 30")
        wait_pane(self, "quadx expint/float> ")
        tmux("send-keys", "-t", "t", "set n 1000 m 20000 threads 1 repeat 1000; run cpu",
             "Enter")
        time.sleep(1.5)
        tmux("send-keys", "-t", "t", "C-c")
        wait_pane(self, "quadx: run cancelled")
        tmux("send-keys", "-t", "t", "set n 5 m 5; run cpu", "Enter")
        text = wait_pane(self, "cpu expint  n=5 m=5")
        self.assertNotIn("EXITED", text)


@unittest.skipIf(shutil.which("tmux") is None, "tmux is not installed")
class HistoryTest(unittest.TestCase):
    """The interactive prompt saves its history through a temporary file and a rename: a
    failed write (QUADX_FAULT=write) leaves the old file as it was."""

    def session(self, fault):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        hist = os.path.join(tmp, "history")
        with open(hist, "w") as f:
            f.write("set n 123\n")
        env = f"QUADX_HISTFILE={hist} TERM=xterm" + (f" QUADX_FAULT={fault}" if fault else "")
        tmux("kill-server")
        self.addCleanup(tmux, "kill-server")
        tmux("new-session", "-d", "-s", "t", "-x", "150", "-y", "20",
             f"env {env} {QUADX} 2>{tmp}/stderr; echo EXITED; sleep 30")
        wait_pane(self, "quadx expint/float> ")
        tmux("send-keys", "-t", "t", "show params", "Enter", "quit", "Enter")
        wait_pane(self, "EXITED")
        with open(hist) as f, open(f"{tmp}/stderr") as e:
            return f.read(), e.read(), sorted(os.listdir(tmp))

    @unittest.skipUnless(FAULTS, "not a test build: QUADX_FAULT is compiled out")
    def test_failed_write_keeps_the_old_history(self):
        text, err, files = self.session("write")
        self.assertEqual(text, "set n 123\n")
        self.assertRegex(err, r"could not save history to .*history: .*old file is unchanged")
        self.assertEqual(files, ["history", "stderr"])  # no temporary left behind

    def test_history_saved_without_fault(self):
        """Control: the same session without the fault appends its lines."""
        text, err, _ = self.session(None)
        self.assertEqual(err, "")
        self.assertIn("set n 123", text)
        self.assertIn("show params", text)


if __name__ == "__main__":
    unittest.main(verbosity=2)
