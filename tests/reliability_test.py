#!/usr/bin/env python3
"""Reliability of quadx end to end: hostile input lines, SIGINT during a long CPU run,
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

import qxtest
from qxtest import QUADX, ROOT, proc_stat

HOSTILE = os.path.join(ROOT, "tests", "data", "hostile_lines.txt")

# A script line's error, or with -e the command's place among the -e commands.
ERROR_RE = re.compile(r"^quadx: (?:line|command) (\d+)(?: of -e)?: (.+)$")


def quadx(stdin, *args, env=None):
    """Runs quadx with stdin (bytes or str) on a pipe; returns (rc, stdout, stderr) as text."""
    data = stdin.encode("utf-8", "surrogateescape") if isinstance(stdin, str) else stdin
    p = qxtest.run(list(args), stdin=data, env=env, text=False)
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
    if allowed.startswith("a file name"):  # a data file: missing, a directory, empty
        return bad + ["/nonexistent/file", "/", "/dev/null", "-", "none:"]
    if allowed == "a finite number or none":  # set exact
        return bad + ["nonex", "1x", "0x10", "--1"]
    if " at column " in allowed:  # an expression (the parser named where it failed)
        return bad + ["(", "x1+", "sin(x1, x2)", "nosuch", "sum(i, x[j])", "1" * 5000]
    m = re.match(r"((?:[\w-]+\|)+)(a number in .*|an integer in .*)$", allowed)
    if m:  # words or a number (gpus: all or an integer)
        words = m.group(1).rstrip("|").split("|")
        return out_of_range(m.group(2)) + [words[0].upper(), words[0] + "x"]
    m = re.match(r"an integer in (-?[\d.e+]+)\.\.(-?[\d.e+]+)$", allowed)
    if m:
        lo, hi = float(m.group(1)), float(m.group(2))
        return bad + ["%d" % (lo - 1), "%d" % (hi + 1), "%.17g" % (hi * 10 + 10),
                      "%d.5" % lo, "-%d" % (hi + 1)]
    m = re.match(r"a number in ([(\[])(-?[\d.e+-]+), (-?[\d.e+-]+)([)\]])$", allowed)
    if m:
        lo, hi = float(m.group(2)), float(m.group(3))
        below = repr(lo) if m.group(1) == "(" else repr(lo - abs(lo) - 1)
        above = [repr(hi)] if m.group(4) == ")" else []  # an open upper bound
        return bad + [below, repr(hi + abs(hi) + 1), "%s:%s" % (lo, hi)] + above
    m = re.match(r"LO:HI or a number, with (-?[\d.e+-]+) (<=?) LO <= HI <= (-?[\d.e+-]+)$",
                 allowed)
    if m:
        lo, hi = float(m.group(1)), float(m.group(3))
        below = repr(lo) if m.group(2) == "<" else repr(lo - abs(lo) - 1)
        return bad + [below, repr(hi * 2 + 1), "%s:%s" % (hi, lo), "%s:" % lo, ":%s" % hi,
                      "%s:%s:%s" % (lo, lo, hi), "%s:nan" % lo]
    choices = allowed.split("|")
    assert len(choices) > 1 and all(re.match(r"^[\w-]+$", c) for c in choices), allowed
    upper = [choices[0].upper()] if choices[0].upper() not in choices else []  # rule "7"
    return bad + ["nosuch", choices[0][:-1], choices[0] + "x"] + upper


def generated_lines(problem):
    """Lines generated from the tables: every parameter and setting with out-of-range values
    and without a value, every command missing its argument or with too many, long lines."""
    lines, current = [], params_of(problem)
    for name in setting_names(problem):
        if name in ("param", "bounds"):  # the user's definitions: words of their own shape
            lines += [f"set {name}", f"set {name} \x01", f"set {name} nan:inf", "set bounds 1:0",
                      "set bounds " + " ".join(["0:1"] * 65), "set param x 1",
                      "set param k nan", "set param 1k 2", "set param " + "k" * 40 + " 1",
                      f"sweep {name} nan on both"]
            continue
        bad = out_of_range(allowed_range(problem, name))
        lines.append(f"set {name}")
        lines += [f"set {name} {v}" for v in bad]
        # the same values as a sweep's list (alone and after a good value), on both backends
        # so that GPU-only settings reach the value check
        lines += [f"sweep {name} {v} on both" for v in bad if "," not in v and ".." not in v]
        if name in current:  # a parameter with no effect now (longman's trig) is not shown
            lines.append(f"sweep {name} {current[name]},{bad[0]} on both")
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
            # integrals is the count of the batch that set param makes, shown and not set
            names = [k for k in params if k not in ("type", "problem", "integrals")]
            self.assertGreater(len(names), 8)
            for name in names:
                self.assertIn(f"set {name} nan", text)
                self.assertIn(f"sweep {name} nan on both", text)

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


def wait_proc(test, pid, what, ready, limit=30):
    """Polls ready(pid) until it is true; fails the test naming what when the process ends or
    limit seconds pass first. The cancel tests wait on evidence, not a fixed time: a SIGINT
    that lands before the long command has started is cleared when it is dispatched."""
    def check():
        try:
            return ready(pid)
        except FileNotFoundError:
            test.fail(f"quadx (pid {pid}) ended while waiting for {what}")
    try:
        qxtest.poll(check, what, limit)
    except AssertionError:
        test.fail(f"quadx (pid {pid}): no sign of {what} within {limit} s")


def busy_in_run(pid):
    """True once quadx has spent 0.3 s of CPU (all threads): only the long run takes that
    long; starting up and `set` take milliseconds."""
    f = proc_stat(pid)
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK") >= 0.3


def idle_reading(pid):
    """True while quadx sleeps (blocked on its next line) with no signal pending."""
    with open(f"/proc/{pid}/status") as f:
        pending = [l.split()[1] for l in f if l.startswith(("SigPnd:", "ShdPnd:"))]
    return proc_stat(pid)[0] == "S" and all(int(m, 16) == 0 for m in pending)


class CancelTest(unittest.TestCase):
    """SIGINT during a long command in script mode: quadx survives, says so, goes on.
    LONG_COMMANDS: (setup line, the long command, the problem it leaves); add new ones here."""

    LONG_COMMANDS = [
        ("set n 1000 m 20000 threads 1 repeat 1000 warmup 0", "run cpu", "expint"),
        ("use longman; set M 20000000 threads 1 repeat 1000 warmup 0", "run cpu", "longman"),
        ("set n 1000 m 20000 repeat 1000 warmup 0", "sweep threads 1,2 on cpu", "expint"),
        ("use longman; set M 20000000 repeat 1000 warmup 0", "sweep threads 1,2 on cpu",
         "longman"),
        ("use kde; set n 2000000 threads 1 repeat 1000 warmup 0", "run cpu", "kde"),
    ]

    def test_each_long_command(self):
        for setup, command, problem in self.LONG_COMMANDS:
            with self.subTest(command=command, problem=problem):
                params = self.cancel(setup, command)
                self.assertEqual(params["problem"], problem)

    def cancel(self, setup, command):
        """Sends SIGINT once command is running; checks the report; returns `show params`."""
        p = subprocess.Popen([QUADX, "--keep-going"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, text=True)
        p.stdin.write(f"{setup}\n{command}\nformat json\nshow params\n")
        p.stdin.flush()
        wait_proc(self, p.pid, "the run (0.3 s of CPU)", busy_in_run)
        self.assertIsNone(p.poll(), "the run ended before SIGINT: make it longer")
        p.send_signal(signal.SIGINT)
        try:
            out, err = p.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
            self.fail("quadx did not stop the run within 60 s of SIGINT")
        self.assertEqual(p.returncode, 1, err)  # alive, and the cancelled run is an error
        self.assertRegex(err, r"^quadx: line 2: .*cancelled[^\n]*\n$")
        return json.loads(out.splitlines()[-1])  # the next commands worked

    def test_sigint_between_runs_does_not_cancel_the_next(self):
        """A SIGINT while no run is going (quadx waits for its next line) does not cancel a
        later run, nor is it a read error of stdin: the next line comes well after it."""
        p = subprocess.Popen([QUADX], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, cwd=ROOT, text=True)
        p.stdin.write("show params\n")
        p.stdin.flush()
        self.assertIn("problem", p.stdout.readline())  # show params is done
        wait_proc(self, p.pid, "the read of the next line", idle_reading)
        p.send_signal(signal.SIGINT)
        # the read is interrupted with nothing to read (EINTR), and quadx reads again
        wait_proc(self, p.pid, "the SIGINT handled and the read resumed", idle_reading)
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
        # the reference's buffer is allocated first, before the run starts
        ("malloc", "set n 50 m 50; run cpu", r"cannot allocate .* reference values"),
        ("malloc:2", "set n 50 m 50; run cpu", r"cannot allocate .* results"),
        ("malloc:3", "set n 50 m 50; run cpu", r"out of memory for 5 timing samples"),
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
        self.assertRegex(errs[0], r"^quadx: line 2: run refused: it needs [\d.]+ [GMK]iB of host "
                         r"memory and [\d.]+ [GMK]iB is available$")
        self.assertRegex(errs[1], r"^quadx: line 4: cannot allocate")


# A session with a run and a sweep, so that export, export last and plot have something to
# write, ending with `show params` in JSON; the command under test is line 4. Runs on expint
# (the file commands do not depend on the problem).
FILE_SETUP = ("set n 20 m 50 repeat 2 warmup 0\nrun cpu\n"
              "sweep threads 1,2 on cpu; format json; show params\n")
HOSTILE_FILES = os.path.join(ROOT, "tests", "data", "hostile_file_lines.txt")


def file_session(cwd, command, env=None, program=(QUADX,)):
    """Runs FILE_SETUP, command (line 4) and `show params` in cwd with program (quadx, or
    setpriv and a copy of quadx); returns (rc, stdout, the stderr lines that are not the
    sweep's progress lines)."""
    p = qxtest.run(["--keep-going"], program=list(program), text=False, cwd=cwd, env=env,
                   stdin=f"{FILE_SETUP}{command}\nshow params\n".encode())
    err = p.stderr.decode("utf-8", "replace").splitlines()
    return (p.returncode, p.stdout.decode("utf-8", "replace"),
            [l for l in err if not re.match(r"sweep \d+/\d+: ", l)])


def tree(top):
    """Every file and directory under top with the bytes of each file, as a sorted list."""
    found = []
    for dirpath, dirs, files in os.walk(top):
        found += [(os.path.relpath(os.path.join(dirpath, d), top), None) for d in dirs]
        for f in files:
            path = os.path.join(dirpath, f)
            if os.path.islink(path):
                found.append((os.path.relpath(path, top), "-> " + os.readlink(path)))
                continue
            with open(path, "rb") as fh:
                found.append((os.path.relpath(path, top), fh.read()))
    return sorted(found)


class FileTest(unittest.TestCase):
    """A temporary directory holding old files (and directories named like targets) that a
    failed export or plot must leave as they were."""

    OLD = b"OLD CONTENT\n"

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="quadx-rely-")
        os.chmod(self.dir, 0o755)  # setpriv's unprivileged user must reach it
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        for name in ["old.csv", "old.json", "old.png", "old.svg", "old.gp", "old.dat"]:
            with open(os.path.join(self.dir, name), "wb") as f:
                f.write(self.OLD)
        for name in ["dir.csv", "dir.json", "dir.png", "dir.svg", "dir.gp", "dir.dat"]:
            os.mkdir(os.path.join(self.dir, name))

    def check_refused(self, command, pattern, env=None, program=(QUADX,), cwd=None):
        """command fails with one error on line 4 matching pattern, the next commands work,
        and nothing under the directory changed."""
        before = tree(self.dir)
        rc, out, errs = file_session(cwd or self.dir, command, env, program)
        what = f"{command!r}: rc={rc} stderr={errs}"
        self.assertEqual(rc, 1, what)
        self.assertEqual(len(errs), 1, what)
        self.assertRegex(errs[0], r"^quadx: line 4: " + pattern, what)
        self.assertIn('"problem":"expint"', out.splitlines()[-1], what)  # later lines ran
        self.assertEqual(tree(self.dir), before, what)  # old files whole, no temporary left


class HostileFileLinesTest(FileTest):
    """Each line of tests/data/hostile_file_lines.txt ({dir}: the temporary directory) after a
    run and a sweep, with the directory as the working directory: one clear error, the same
    `show params` as before it, and no file created, changed or left behind."""

    def test_each_line(self):
        with open(HOSTILE_FILES, encoding="utf-8") as f:
            lines = [l.replace("{dir}", self.dir) for l in f.read().splitlines()
                     if l and not l.startswith("#")]
        self.assertGreater(len(lines), 20)
        for line in lines:
            with self.subTest(line=line[:100]):
                before = tree(self.dir)
                rc, out, errs = file_session(self.dir, line)
                what = f"{line[:100]!r}: rc={rc}\nstdout: {out[-800:]}\nstderr: {errs}"
                self.assertEqual(rc, 1, what)
                self.assertEqual(len(errs), 1, what)
                self.assertRegex(errs[0], r"^quadx: line 4: .{10,}", what)
                self.assertNotRegex(errs[0], r"[\x00-\x1f\x7f]", what)
                # `show params` before the line and after it, and between them (format json)
                # the error as an object too
                params = out.splitlines()[-3:]
                self.assertEqual(json.loads(params[1]),
                                 {"type": "error", "line": 4, "error": errs[0].split(": ", 2)[2]},
                                 what)
                del params[1]
                self.assertEqual(len(set(params)), 1, what)
                self.assertIn('"type":"params"', params[0], what)
                self.assertEqual(tree(self.dir), before, what)


class ExportTargetTest(FileTest):
    """export (and plot) to /dev/full, to a directory without write permission and to a path
    whose directory does not exist: a clear error naming the path and the reason, the old
    files unchanged, no temporary file, and the session goes on."""

    def test_dev_full(self):
        os.symlink("/dev/full", os.path.join(self.dir, "full.csv"))
        self.check_refused(f"export {self.dir}/full.csv",
                           re.escape(f"cannot write {self.dir}/full.csv: No space left on device"))

    def test_missing_directory(self):
        for cmd in ["export {d}/nosuch/old.csv", "export last {d}/nosuch/old.json",
                    "export {d}/old.csv/x.csv"]:
            with self.subTest(cmd=cmd):
                self.check_refused(cmd.format(d=self.dir),
                                   r"cannot write .*: cannot create a temporary file in "
                                   r".*: (No such file or directory|Not a directory)$")
        self.check_refused(f"plot {self.dir}/nosuch/old.png",
                           r"plot: (cannot create a temporary file beside .*|cannot write "
                           r".*old.dat): (cannot create a temporary file in .*: )?"
                           r"No such file or directory")

    def test_directory_without_write_permission(self):
        """The directory is made read-only (0555). Root ignores permission bits, so as root
        quadx runs as the unprivileged user nobody through setpriv (util-linux), from a copy
        in a directory nobody can reach (the checkout may be in root's home)."""
        program, cwd = (QUADX,), ROOT
        if os.geteuid() == 0:
            if shutil.which("setpriv") is None:
                self.skipTest("running as root (permission bits do not stop root) and "
                              "setpriv, to drop to an unprivileged user, is not installed")
            cwd = tempfile.mkdtemp(prefix="quadx-rely-bin-")
            self.addCleanup(shutil.rmtree, cwd, ignore_errors=True)
            os.chmod(cwd, 0o755)
            shutil.copy(QUADX, cwd)
            program = ("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                       os.path.join(cwd, os.path.basename(QUADX)))
        os.chmod(self.dir, 0o555)
        self.addCleanup(os.chmod, self.dir, 0o755)
        for cmd in ["export {d}/old.csv", "export last {d}/old.json", "export {d}/new.json"]:
            with self.subTest(cmd=cmd):
                self.check_refused(cmd.format(d=self.dir),
                                   r"cannot write .*: cannot create a temporary file in "
                                   r".*: Permission denied$", program=program, cwd=cwd)
        self.check_refused(f"plot {self.dir}/old.svg",
                           r"plot: (cannot create a temporary file beside .*|cannot write "
                           r".*old.dat): (cannot create a temporary file in .*: )?"
                           r"Permission denied", program=program, cwd=cwd)

    def test_control_exports_replace_old_files(self):
        """Control: the same session writes the files when nothing stops it."""
        for cmd, name in [("export {d}/old.csv", "old.csv"),
                          ("export last {d}/old.json", "old.json"),
                          ("plot {d}/old.svg", "old.svg")]:
            rc, _, errs = file_session(self.dir, cmd.format(d=self.dir))
            self.assertEqual((rc, errs), (0, []), cmd)
            with open(os.path.join(self.dir, name), "rb") as f:
                self.assertNotEqual(f.read(), self.OLD, cmd)


@unittest.skipUnless(FAULTS, "not a test build: QUADX_FAULT is compiled out")
class FileFaultTest(FileTest):
    """QUADX_FAULT at each step of the atomic write of export and plot (creating the temporary
    file, writing it, fsync, the rename over the target): quadx reports it, carries on, the
    old file is whole and no temporary file is left."""

    REASON = r".*Input/output error"
    EXPORTS = ["export {d}/old.csv", "export last {d}/old.json"]

    def test_export(self):
        for fault in ["fopen", "write", "fsync", "rename"]:
            for cmd in self.EXPORTS:
                with self.subTest(fault=fault, cmd=cmd):
                    self.check_refused(cmd.format(d=self.dir), r"cannot write " + self.REASON,
                                       env={"QUADX_FAULT": fault})

    @unittest.skipIf(shutil.which("gnuplot") is None, "gnuplot is not installed")
    def test_plot_with_gnuplot(self):
        """gnuplot renders into the temporary file; creating it or the rename fails."""
        for fault in ["fopen", "fsync", "rename"]:
            with self.subTest(fault=fault):
                self.check_refused(f"plot {self.dir}/old.svg", r"plot: .*" + self.REASON,
                                   env={"QUADX_FAULT": fault})

    @unittest.skipIf(shutil.which("gnuplot") is None, "gnuplot is not installed")
    def test_plot_cut_short(self):
        """gnuplot exits 0 when the disk fills up under it; QUADX_FAULT=write cuts its image
        in half as a full disk does: the cut image is refused and the old file stays."""
        for name in ["old.svg", "old.png"]:
            with self.subTest(name=name):
                self.check_refused(f"plot {self.dir}/{name}",
                                   r"plot: gnuplot wrote an incomplete image \(\d+ bytes; is "
                                   r"the disk full\?\); .*" + name + " is unchanged$",
                                   env={"QUADX_FAULT": "write"})

    def test_plot_without_gnuplot(self):
        """Without gnuplot, plot writes STEM.dat then STEM.gp, each atomically; a fault in
        either leaves both old files whole."""
        env = {"PATH": os.path.join(self.dir, "dir.gp")}  # an empty directory: no gnuplot
        for fault in ["fopen", "write", "fsync", "rename", "fopen:2", "rename:2"]:
            with self.subTest(fault=fault):
                if fault.endswith(":2"):  # STEM.dat is written, then STEM.gp fails
                    with open(os.path.join(self.dir, "old.dat"), "wb") as f:
                        f.write(self.OLD)
                    before_gp = tree(self.dir)
                    rc, _, errs = file_session(self.dir, f"plot {self.dir}/old.png",
                                               env={**env, "QUADX_FAULT": fault})
                    self.assertEqual(rc, 1, errs)
                    self.assertRegex(errs[0], r"^quadx: line 4: cannot write .*old.gp: "
                                     + self.REASON)
                    after = dict(tree(self.dir))
                    self.assertEqual(after["old.gp"], self.OLD)
                    self.assertEqual(sorted(after), sorted(dict(before_gp)))
                    continue
                self.check_refused(f"plot {self.dir}/old.png", r"cannot write " + self.REASON,
                                   env={**env, "QUADX_FAULT": fault})


class AddressSpaceLimitTest(unittest.TestCase):
    """Under an address-space limit (ulimit -v) a run whose values and reference do not fit
    is refused before it starts, naming both figures, rather than failing after computing."""

    LIMIT = 700 << 20

    def limited(self, cmds):
        import resource

        def limit():
            resource.setrlimit(resource.RLIMIT_AS, (self.LIMIT, self.LIMIT))
        return qxtest.run(["-e", cmds], preexec_fn=limit)

    def test_run_refused_up_front(self):
        if self.limited("show params").returncode != 0:
            self.skipTest("this build cannot start under a 700 MiB address-space limit "
                          "(a sanitizer's shadow memory)")
        p = self.limited("use longman; set M 60000000 repeat 1 warmup 0; run cpu")
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertRegex(p.stderr, r"^quadx: command 3 of -e: run refused: it needs [\d.]+ MiB of host "
                         r"memory and [\d.]+ MiB is available\n$")


class StaleTempTest(FileTest):
    """The next export or plot into a directory removes the temporary files a killed export
    left (.NAME.EXT.tmpXXXXXX), but only those no live writer holds (flock) and untouched for
    a minute; other files stay."""

    def make(self, name, age):
        path = os.path.join(self.dir, name)
        with open(path, "wb") as f:
            f.write(b"partial")
        os.utime(path, (time.time() - age, time.time() - age))
        return path

    def test_stale_temporary_files_removed(self):
        import fcntl
        stale = [self.make(".old.csv.tmpAbC123", 120), self.make(".x.gp.tmp0a1B2c", 3600)]
        kept = [self.make(".old.csv.tmpFresh1", 0),        # a writer between mkstemp and flock
                self.make(".notes.txt.tmpAbC123", 3600),   # not an extension quadx writes
                self.make("old.csv.tmpAbC123", 3600),      # no leading dot
                self.make(".old.csv.tmpAb_123", 3600)]     # not mkstemp's letters
        locked = self.make(".old.json.tmpLock01", 3600)    # a live writer holds it
        holder = open(locked, "rb")
        self.addCleanup(holder.close)
        fcntl.flock(holder, fcntl.LOCK_EX)
        for cmd in (f"export {self.dir}/new.csv", f"plot {self.dir}/new.svg"):
            rc, _, errs = file_session(self.dir, cmd)
            self.assertEqual((rc, errs), (0, []), cmd)
        for path in stale:
            self.assertFalse(os.path.exists(path), path)
        for path in kept + [locked]:
            self.assertTrue(os.path.exists(path), path)

    def test_export_through_a_symlink_writes_its_target(self):
        os.mkdir(os.path.join(self.dir, "real"))
        target = os.path.join(self.dir, "real", "target.csv")
        with open(target, "wb") as f:
            f.write(self.OLD)
        link = os.path.join(self.dir, "link.csv")
        os.symlink("real/target.csv", link)
        rc, _, errs = file_session(self.dir, f"export {link}")
        self.assertEqual((rc, errs), (0, []))
        self.assertEqual(os.readlink(link), "real/target.csv")
        with open(target, "rb") as f:
            self.assertTrue(f.read().startswith(b"type,problem,"))
        self.assertEqual(sorted(os.listdir(os.path.join(self.dir, "real"))), ["target.csv"])
        os.symlink("nowhere/x.csv", os.path.join(self.dir, "dangling.csv"))
        self.check_refused(f"export {self.dir}/dangling.csv",
                           r"cannot write .*dangling.csv: it is a symbolic link whose target "
                           r"cannot be reached \(No such file or directory\)$")


@unittest.skipIf(shutil.which("gnuplot") is None, "gnuplot is not installed")
class FullFileSystemTest(unittest.TestCase):
    """plot over a good image on a file system that fills up: gnuplot's short write is refused
    and the good image stays whole. A 64 KiB tmpfs needs root (mount); skipped otherwise."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="quadx-fullfs-")
        self.addCleanup(os.rmdir, self.dir)
        try:
            subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", self.dir],
                           check=True, capture_output=True, timeout=30)
        except (OSError, subprocess.CalledProcessError) as exc:
            self.skipTest(f"cannot mount a small tmpfs (needs root): {exc}")
        self.addCleanup(subprocess.run, ["umount", self.dir], capture_output=True,
                        timeout=30)

    def test_plot_on_a_full_file_system(self):
        for name in ["good.svg", "good.png"]:
            with self.subTest(name=name):
                path = os.path.join(self.dir, name)
                rc, _, errs = file_session(self.dir, f"plot {path}")
                self.assertEqual((rc, errs), (0, []))
                with open(path, "rb") as f:
                    good = f.read()
                filler = os.path.join(self.dir, "filler")
                with open(filler, "wb") as f:  # fill the file system but for 2 KiB
                    try:
                        while os.statvfs(self.dir).f_bavail * os.statvfs(self.dir).f_frsize > 2048:
                            f.write(b"x" * 1024)
                            f.flush()
                    except OSError:
                        pass
                rc, _, errs = file_session(self.dir, f"plot {path}")
                self.assertEqual(rc, 1, errs)
                self.assertEqual(len(errs), 1, errs)
                self.assertRegex(errs[0], r"plot: (gnuplot wrote an incomplete image|cannot "
                                 r"create a temporary file|cannot write)")
                with open(path, "rb") as f:
                    self.assertEqual(f.read(), good)
                self.assertEqual(sorted(os.listdir(self.dir)), sorted([name, "filler"]))
                os.unlink(filler)
                os.unlink(path)


class InteractiveCancelTest(qxtest.TmuxTestCase):
    """Ctrl-C at the readline prompt during a long run cancels the run, not quadx."""
    TMUX_NAME = "rely-test"

    def test_ctrl_c_cancels_the_run(self):
        self.start_quadx(cols=150, rows=40)
        self.tmux.screen("quadx expint/float> ")
        self.tmux.keys("set n 1000 m 20000 threads 1 repeat 1000; run cpu", "Enter")
        wait_proc(self, self.quadx, "the run (0.3 s of CPU)", busy_in_run)
        self.tmux.keys("C-c")
        self.tmux.screen("quadx: run cancelled")
        self.tmux.keys("set n 5 m 5; run cpu", "Enter")
        text = self.tmux.screen("cpu expint  n=5 m=5")
        self.assertNotIn("EXITED", text)


class HistoryTest(qxtest.TmuxTestCase):
    """The interactive prompt appends each line to its history file as it runs: a failed
    append (QUADX_FAULT=write) is reported, leaves the old lines as they were and the next
    line is appended."""
    TMUX_NAME = "rely-test"

    def session(self, fault):
        hist = os.path.join(self.tmp, "history")
        with open(hist, "w") as f:
            f.write("set n 123\n")
        self.start_quadx(args=f"2>{self.tmp}/stderr", env=f"QUADX_FAULT={fault}" if fault else "",
                         cols=150, rows=20)
        self.tmux.screen("quadx expint/float> ")
        self.tmux.keys("show params", "Enter", "quit", "Enter")
        self.tmux.screen("EXITED")
        with open(hist) as f, open(f"{self.tmp}/stderr") as e:
            return f.read(), e.read(), sorted(os.listdir(self.tmp))

    @unittest.skipUnless(FAULTS, "not a test build: QUADX_FAULT is compiled out")
    def test_failed_write_keeps_the_old_history(self):
        text, err, files = self.session("write")
        self.assertEqual(text, "set n 123\nquit\n")  # show params failed, quit was appended
        self.assertRegex(err, r"could not append to the history file .*history: .*kept for "
                         r"this session")
        self.assertEqual(files, ["history", "stderr"])  # no temporary left behind

    def test_history_saved_without_fault(self):
        """Control: the same session without the fault appends its lines."""
        text, err, _ = self.session(None)
        self.assertEqual(err, "")
        self.assertIn("set n 123", text)
        self.assertIn("show params", text)


if __name__ == "__main__":
    unittest.main(verbosity=2)
