"""qxtest - what the Python tests of quadx share: the binary ($QUADX, default ./quadx), its
help pages ($QUADX_HELPDIR), running quadx on a script through stdin or -e, JSON Lines, the
GPU check, polling for a state with a timeout, and quadx in a tmux session on the test's own
server socket (start, send keys, capture, wait for text, wait for exit, clean up).

Every wait polls for a state and fails with what it waited for after a timeout; nothing sleeps
a fixed time. A tmux session's files are removed only after every process of its pane and the
tmux server have exited (quadx may still be writing its history while its terminal closes).
Standard library only."""
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Absolute: some tests run quadx in other directories.
QUADX = os.path.abspath(os.environ.get("QUADX", os.path.join(ROOT, "quadx")))
# Seconds for one quadx process: a guard against a hang, not a measure of speed. Under
# valgrind (make test-valgrind sets QUADX_VG) a process runs 20-50 times slower, more on a
# loaded machine: a one-second run took over 120 s there, so the guard is 5 times longer.
TIMEOUT = 600 if os.environ.get("QUADX_VG") else 120
POLL_INTERVAL = 0.02


def _helpdir():
    """$QUADX_HELPDIR made absolute; when unset and there is no help/ beside QUADX (a build in
    build/), the repository's help/. Exported so that every quadx the tests start finds it."""
    helpdir = os.environ.get("QUADX_HELPDIR")
    if not helpdir and not os.path.isdir(os.path.join(os.path.dirname(QUADX), "help")):
        helpdir = os.path.join(ROOT, "help")
    if helpdir:
        helpdir = os.path.abspath(helpdir)
        os.environ["QUADX_HELPDIR"] = helpdir
    return helpdir


HELPDIR = _helpdir()


def run(args, stdin=None, env=None, cwd=ROOT, timeout=TIMEOUT, text=True, program=None,
        **popen):
    """Runs quadx (or program, a list) with args, stdin on a pipe (never a terminal), env
    added to the environment and popen passed to subprocess.run; returns the
    CompletedProcess."""
    return subprocess.run([*(program or [QUADX]), *args], input=stdin, capture_output=True,
                          text=text, timeout=timeout, cwd=cwd or ROOT,
                          env={**os.environ, **(env or {})}, **popen)


def script(text, *args, **kw):
    """Runs the script text through quadx's stdin; returns the CompletedProcess."""
    return run(list(args), stdin=text, **kw)


def commands(cmds, *args, **kw):
    """Runs quadx [args] -e cmds; returns the CompletedProcess."""
    return run([*args, "-e", cmds], **kw)


def json_lines(stdout):
    """Every non-empty line of stdout parsed as JSON."""
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def json_commands(cmds, timeout=TIMEOUT):
    """Runs quadx --json -e cmds; returns (exit code, parsed stdout lines, stderr)."""
    p = commands(cmds, "--json", timeout=timeout)
    return p.returncode, json_lines(p.stdout), p.stderr


# The GPU build with fault injection (make build/faults/quadx; make test-gpu builds it).
FAULTS_BIN = os.environ.get("QUADX_FAULTS_BIN", os.path.join(ROOT, "build", "faults", "quadx"))


def require_faults_bin(test):
    """Skips test without the fault build; under make test-gpu (QUADX_REQUIRE_GPU=1, which
    builds it) fails it."""
    if os.path.exists(FAULTS_BIN):
        return
    msg = f"{FAULTS_BIN} is missing (make {os.path.relpath(FAULTS_BIN, ROOT)})"
    if os.environ.get("QUADX_REQUIRE_GPU") == "1":
        test.fail(msg)
    test.skipTest(msg)


def json_run(cmds, timeout=600, program=None, env=None, args=()):
    """Runs quadx (or program, another binary's argv: a fault build, quadx under a sanitizer)
    --json [args] -e cmds; returns (exit code, parsed stdout lines, stderr)."""
    p = run(["--json", *args, "-e", cmds], timeout=timeout, env=env,
            program=program or [QUADX])
    return p.returncode, json_lines(p.stdout), p.stderr


class TempDirCase(unittest.TestCase):
    """A test case with a temporary directory of its own, self.tmp, removed after each test."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="qx-test-")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def exported_values(self, cmds, name):
        """Runs quadx --json -e "cmds; export values TMP/name", which must exit 0 with one run;
        returns (the values file's text, that run's object)."""
        path = os.path.join(self.tmp, name)
        rc, out, err = json_run(f"{cmds}; export values {path}")
        self.assertEqual(rc, 0, err)
        runs = [o for o in out if o.get("type") == "run"]
        self.assertEqual(len(runs), 1, out)
        with open(path) as f:
            return f.read(), runs[0]


def gpu_quadx(cmds, timeout=600):
    """json_commands with a GPU test's bound (a GPU file's runs are long): (exit code, parsed
    stdout lines, stderr)."""
    return json_commands(cmds, timeout=timeout)


def run_objects(case, cmds, timeout=600):
    """Runs quadx --json -e cmds, failing unittest case `case` on a non-zero exit; returns the
    "run" objects it printed."""
    rc, out, err = json_commands(cmds, timeout=timeout)
    case.assertEqual(rc, 0, err)
    return [o for o in out if o.get("type") == "run"]


def device():
    """The `show device` object (its gpu is "none" without a usable GPU)."""
    p = commands("show device", "--json")
    return json.loads(p.stdout.splitlines()[0]) if p.returncode == 0 and p.stdout else {}


def gpu_name():
    """The GPU's name from `show device`, or None when there is no usable GPU."""
    name = device().get("gpu", "none")
    return None if name == "none" else name


def gpu_or_exit(test_name):
    """gpu_name(); without a GPU under QUADX_REQUIRE_GPU=1 (make test-gpu) the test file
    exits with status 1, since its tests would all be skipped."""
    name = gpu_name()
    if name is None and os.environ.get("QUADX_REQUIRE_GPU") == "1":
        raise SystemExit(f"{test_name}: QUADX_REQUIRE_GPU=1 but there is no usable GPU: "
                         f"{device().get('reason', '')}")
    return name


# Every timeout is a bound for a state that should come much sooner; on a loaded machine (a
# shared 2-core host with other builds beside it) the state comes late, not never, so each bound
# is stretched by this factor. A passing test waits no longer for it.
TIMEOUT_SLACK = float(os.environ.get("QUADX_TIMEOUT_SLACK", "4"))


def poll(ready, what, timeout=20.0):
    """Calls ready() until it returns something true and returns that; raises AssertionError
    naming what after timeout seconds (times TIMEOUT_SLACK)."""
    timeout *= TIMEOUT_SLACK
    end = time.monotonic() + timeout
    while True:
        got = ready()
        if got:
            return got
        if time.monotonic() > end:
            raise AssertionError(f"no {what} within {timeout} s")
        time.sleep(POLL_INTERVAL)


def proc_stat(pid):
    """The fields of /proc/PID/stat after the command name: state first, the parent's pid
    second, utime and stime at 11 and 12 (proc(5) fields 14 and 15)."""
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()


def alive(pid, start=None):
    """True while process pid exists and is not a zombie (and, start given, is the process
    that started then: its pid may be another's once it has exited)."""
    try:
        f = proc_stat(pid)
    except (FileNotFoundError, ProcessLookupError):
        return False
    return f[0] != "Z" and (start is None or f[19] == start)


def identity(pid):
    """(pid, its start time in clock ticks since boot, proc(5) field 22): one process, where a
    pid alone may name a later one; None when pid is gone."""
    try:
        return pid, proc_stat(pid)[19]
    except (FileNotFoundError, ProcessLookupError):
        return None


def descendants(pid):
    """The pids of every process below pid (children, their children...)."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                children.setdefault(int(proc_stat(entry)[1]), []).append(int(entry))
            except (FileNotFoundError, ProcessLookupError, IndexError):
                continue
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


HAVE_TMUX = shutil.which("tmux") is not None
# Ends a pane's shell line: keeps the pane open, with what its commands printed last, until
# close() (tmux may drop the last output of a pane whose command exits at once).
HOLD = "exec sleep infinity"


class Tmux:
    """A tmux server on its own socket (tests running side by side never meet) holding one
    session "t" of a fixed size, its own configuration only (-f /dev/null)."""

    def __init__(self, name):
        self.socket = f"quadx-{name}-{os.getpid()}"
        self.pids = set()  # (pid, start) of the server and the pane's processes: close() waits

    def __call__(self, *args):
        """Runs one tmux command on this server; returns its stdout."""
        return subprocess.run(["tmux", "-L", self.socket, "-f", "/dev/null", *args],
                              capture_output=True, text=True, timeout=10).stdout

    def start(self, command, cols=120, rows=30):
        """Starts command (a shell line, which should end in HOLD) in a new session of cols x
        rows."""
        self.close()
        self("new-session", "-d", "-s", "t", "-x", str(cols), "-y", str(rows), command)
        server = self("display-message", "-p", "-t", "t", "#{pid}").strip()
        if not server.isdigit():
            raise AssertionError(f"tmux did not start a session for {command!r}")
        self.pids.update(filter(None, (identity(int(server)), identity(self.pane_pid()))))

    def pane_pid(self):
        """The pid of the pane's command (the shell running the test's line)."""
        return int(self("display-message", "-p", "-t", "t", "#{pane_pid}"))

    def child(self):
        """The pid of the first process under the pane's shell (quadx), once it runs."""
        shell = self.pane_pid()
        return poll(lambda: (descendants(shell) or [None])[0], "process in the pane")

    def pane(self, styled=False):
        """The pane's text (with its colours and attributes as escapes when styled)."""
        return self("capture-pane", "-p", *(["-e"] if styled else []), "-t", "t")

    def keys(self, *keys):
        """Sends keys by their tmux names (Enter, C-c, F10...) or as text."""
        self("send-keys", "-t", "t", *keys)

    def type(self, line):
        """Types line literally, then Enter."""
        self("send-keys", "-t", "t", "-l", line)
        self("send-keys", "-t", "t", "Enter")

    def screen(self, want, timeout=20.0):
        """Waits until the pane shows want (a string or a compiled regex); returns the pane's
        text, or the match for a regex. capture-pane drops trailing blanks, so want is
        compared without its own."""
        last = [""]

        def shows():
            last[0] = text = self.pane()
            if isinstance(want, str):
                return text if want.rstrip() in text else None
            return want.search(text)
        try:
            return poll(shows, f"{want!r} in the pane", timeout)
        except AssertionError as exc:
            raise AssertionError(f"{exc}:\n{last[0]}") from None

    def until(self, check, timeout=20.0, styled=False):
        """Waits until check(text) passes for the pane's text (with its escapes when styled):
        returns without raising AssertionError. Returns what check returned, or the text when
        that is None; after timeout fails with check's last failure and the pane. A full-screen
        program draws a frame in several writes, so one capture may hold part of a frame: a
        test asserts on a screen only through a wait for every part of the state it checks,
        never on the capture that first showed one line of it."""
        last = [None, ""]

        def passes():
            last[1] = text = self.pane(styled)
            try:
                got = check(text)
            except AssertionError as exc:
                last[0] = exc
                return None
            return (text if got is None else got,)
        try:
            return poll(passes, "pane that passes the check", timeout)[0]
        except AssertionError as exc:
            raise AssertionError(f"{exc}; its last failure: {last[0]}\n{last[1]}") from None

    def gone(self, unwanted, timeout=20.0):
        """Waits until the pane no longer shows unwanted; returns the pane's text."""
        last = [""]

        def hidden():
            last[0] = text = self.pane()
            return text if unwanted not in text else None
        try:
            return poll(hidden, f"pane without {unwanted!r}", timeout)
        except AssertionError as exc:
            raise AssertionError(f"{exc}:\n{last[0]}") from None

    def wait_exit(self, pid, timeout=20.0):
        """Waits until process pid (quadx in the pane: child()) has exited."""
        me = identity(pid)
        poll(lambda: me is None or not alive(*me), f"exit of process {pid}", timeout)

    def close(self, timeout=20.0):
        """Kills the server and waits until it and every process of its pane have exited
        (quadx writes its history as its terminal closes); a process still there after
        timeout seconds is killed and reported."""
        shell = self("display-message", "-p", "-t", "t", "#{pane_pid}").strip()
        if shell.isdigit():
            self.pids.update(filter(None, map(identity, descendants(int(shell)))))
        self("kill-server")
        try:
            poll(lambda: not any(alive(*p) for p in self.pids),
                 "exit of the tmux server and its pane's processes", timeout)
        except AssertionError:
            left = [pid for pid, start in self.pids if alive(pid, start)]
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass  # it exited since
            raise AssertionError(f"processes {left} still ran {timeout} s after the tmux "
                                 "server was killed") from None
        finally:
            self.pids.clear()


@unittest.skipIf(not HAVE_TMUX, "tmux is not installed")
class TmuxTestCase(unittest.TestCase):
    """A test with a temporary directory self.tmp and a tmux server self.tmux; at the end the
    server is closed (waiting for its processes) before the directory is removed."""

    TMUX_NAME = "test"

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="quadx-tmux-")
        self.addCleanup(shutil.rmtree, self.tmp)
        self.tmux = Tmux(self.TMUX_NAME)
        self.addCleanup(self.tmux.close)  # cleanups run last-in first-out: before rmtree

    def start_quadx(self, args="", env="", cols=120, rows=30):
        """Starts quadx with args under env (VAR=value words) and TERM=xterm, its history in
        self.tmp/history; self.quadx is its pid. When it ends the shell prints `EXITED` and
        its exit status."""
        self.hist = os.path.join(self.tmp, "history")
        self.tmux.start(f"env QUADX_HISTFILE={self.hist} TERM=xterm {env} {QUADX} {args}; "
                        f"echo EXITED $?; {HOLD}", cols, rows)
        self.quadx = self.tmux.child()
