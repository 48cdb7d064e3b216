#!/usr/bin/env python3
"""runner - runs every step of `make test` to its end and reports them all.

Each argument is one step: a shell command (a test file, a unit test binary, a make target).
A failing step does not stop the others. With `-j N` up to N steps run side by side, started
in the order given (so the longest go first), and each step's output is shown whole when it
ends, never interleaved with another's; with `-j 1` (the default) one runs after another and
its output is shown as it comes. Each step's time is printed as it ends, with the CPU time of
its processes (on a loaded machine the wall time says little of what a step costs). At the end every
failing step is named again with its failures (unittest's report of each failed test, or the
last lines of its output), then the slowest steps with their times, then one line
`N passed, N failed` and the time it all took. The exit status is 1 when any step failed,
else 0. Standard library only.

`--build NAME COMMAND` (any number) is a build the steps may need: the builds all start at
once, side by side with each other and with the steps that need none, outside the N (each is
a make with its own -j); a step `@NAME COMMAND` starts only when build NAME has passed, so the
tests of a short build run while a long one is still compiling. A build's COMMAND may be
`@NAME COMMAND` too, NAME a build before it: it starts when that one has passed. A build is
reported as a step is (`build NAME`); when it fails, each step or build that needs it fails
without running. With -j 1 the builds run first, one after another, then the steps.

Each step runs in a session of its own. `--timeout SECONDS` stops a step or build still
running after that long, with every process of its session, and fails it naming them; a step
that exits while something it started still holds its output open fails `--grace` seconds
later naming the holders. Such a step runs once more, and fails when it fails again; one that
then passes is named in the summary with what was running (so a hung test never keeps make test
from ending, and is never silent).
An interrupt (Ctrl-C, SIGTERM, SIGHUP) stops every running step with what it started; so does
`--deadline SECONDS` once the whole run has taken that long, and no step starts after it (each
fails, named; the summary still comes). What a step started is what runs in its session and
what carries its token (QUADX_RUNNER_STEP) in its environment: a daemon such as a tmux server
leaves the session but keeps the token. Stopping is SIGTERM, then SIGKILL.

    python3 tests/runner.py -j 2 "python3 tests/script_test.py" build/tests/test_stats ...
    python3 tests/runner.py -j 3 --build asan "make asan-build" "@asan build/asan/tests/test_x\""""
import argparse
import itertools
import os
import secrets
import signal
import subprocess
import sys
import threading
import time

TAIL_LINES = 40
SLOWEST = 5  # steps named in the summary's line of the slowest
TOKEN_VAR = "QUADX_RUNNER_STEP"  # in each step's environment: a token that what it starts keeps
TERM_WAIT = 5  # seconds a stopped process has to exit on SIGTERM before SIGKILL
# The steps running: the shell's pid (its session's id) to (its token, the notes the runner adds
# to its output, the lock held while its shell is reaped or while stop_all stops it: the pid is
# never another process's while it is stopped); STOPPING once an interrupt or the deadline came:
# no step starts after it.
RUNNING = {}
LOCK = threading.Lock()
STOPPING = []  # the reason, once there is one
COUNTER = itertools.count()


def failures(output):
    """The part of a failed step's output that says what failed: unittest's report from its
    first `====` separator (every failed test with its traceback), else the last lines."""
    lines = output.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("=" * 20):
            return "\n".join(lines[i:])
    return "\n".join(lines[-TAIL_LINES:])


def processes(match):
    """[(pid, command line)] of every live process but this one for which match(pid, its
    /proc/PID/stat fields after the name) is true: a zombie is done, and one that exits while
    it is read is skipped."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if fields[0] == "Z" or not match(int(entry), fields):
                continue
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                args = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except (OSError, IndexError, ValueError):
            continue
        found.append((int(entry), args))
    return found


def of_step(sid, token):
    """The processes of the step whose shell is sid: its session's, and any that left it (a
    daemon, a tmux server and its panes) but keep its token in their environment."""
    mark = f"\0{TOKEN_VAR}={token}\0".encode()  # a whole entry of the environment

    def match(pid, fields):
        if int(fields[3]) == sid:  # fields: state ppid pgrp session ...
            return True
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                return mark in b"\0" + f.read() + b"\0"
        except OSError:
            return False
    return processes(match)


def holding(pipe):
    """The processes with the pipe of file object pipe open (a step's output)."""
    want = f"pipe:[{os.fstat(pipe.fileno()).st_ino}]"

    def match(pid, _):
        try:
            return any(os.readlink(f"/proc/{pid}/fd/{fd}") == want
                       for fd in os.listdir(f"/proc/{pid}/fd"))
        except OSError:
            return False
    return processes(match)


def stop(find, group=None):
    """Stops the processes find() returns (and process group group, atomically against a
    fork): SIGTERM first (a make deletes the target it was writing), SIGKILL for what is
    still there TERM_WAIT seconds later, until find() returns none. Returns lines naming
    those found first."""
    def send(sig, found):
        if group is not None:
            try:
                os.killpg(group, sig)
            except OSError:
                pass
        for pid, _ in found:
            try:
                os.kill(pid, sig)
            except OSError:
                pass
    first = find()
    if not first:
        return []  # nothing of it runs (a step's usual end: one scan)
    send(signal.SIGTERM, first)
    send(signal.SIGCONT, first)  # a stopped process acts on SIGTERM once it runs
    end = time.monotonic() + TERM_WAIT
    while find() and time.monotonic() < end:
        time.sleep(0.05)
    for _ in range(100):
        left = find()
        if not left:
            break
        send(signal.SIGKILL, left)
        time.sleep(0.02)
    return [f"  {pid} {args}" for pid, args in first]


def stop_all(reason):
    """Stops every running step for reason (an interrupt, the deadline), its note naming the
    reason; no step starts after this."""
    with LOCK:
        STOPPING.append(reason)
        running = dict(RUNNING)
    for sid, (token, why, reap) in running.items():
        with reap:  # its shell unreaped until this is done, so that sid stays the step's
            with LOCK:
                if sid not in RUNNING:
                    continue  # it ended meanwhile
            why.append(f"runner: stopped ({reason}), still running:\n")  # before: it may end
            lines = stop(lambda: of_step(sid, token), sid)
            why.append("\n".join(lines) + "\n")


def run_step(command, echo, timeout=0, grace=30):
    """Runs command in a shell in a session of its own, its standard input empty (a step
    never waits on the terminal), echoing its output as it comes when echo; returns (exit
    status, output, the CPU seconds of the shell and every process it waited for, the runner's
    note when it stopped the step, else ""). A step still running after timeout seconds is
    stopped with everything it started, and fails naming them; so does one whose output
    stays open grace seconds after it exited (a process it left behind holds it): a step never
    keeps the run from ending. What a passing step leaves running is stopped and named."""
    token = f"{os.getpid()}.{next(COUNTER)}.{secrets.token_hex(4)}"
    why, reap = [], threading.Lock()
    with LOCK:
        if STOPPING:
            return 1, f"runner: not started ({STOPPING[0]})\n", 0.0, ""
        proc = subprocess.Popen(command, shell=True, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                errors="replace", start_new_session=True,
                                env={**os.environ, TOKEN_VAR: token})
        RUNNING[proc.pid] = (token, why, reap)
    kept = []

    def read():
        shown = echo
        for line in proc.stdout:
            kept.append(line)
            if shown:
                try:
                    sys.stdout.write(line)
                    sys.stdout.flush()
                except (OSError, ValueError):
                    shown = False  # the terminal went away: keep reading to the end

    def expire():
        try:
            with open(f"/proc/{proc.pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return  # it ended as the time ran out: not hung
        except OSError:
            return
        lines = stop(lambda: of_step(proc.pid, token), proc.pid)
        why.append(f"runner: stopped after {timeout:g} s, still running:\n" +
                   "\n".join(lines) + "\n")
    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    timer = threading.Timer(timeout, expire) if timeout else None
    if timer:
        timer.daemon = True
        timer.start()
    # the shell stays a zombie until the end, so that its pid, the session's id, is no
    # other process's while the runner looks for what belongs to the step
    os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)
    if timer:
        timer.cancel()
        timer.join()
    reader.join(grace)
    if reader.is_alive():
        lines = stop(lambda: sorted(dict(holding(proc.stdout) +
                                         of_step(proc.pid, token)).items()))
        why.append(f"runner: the step exited but its output was still open {grace:g} s "
                   "later, held by:\n" + "\n".join(lines) + "\n")
        reader.join(grace)
    left = stop(lambda: of_step(proc.pid, token), proc.pid)
    if left:
        kept.append("runner: stopped what the step left running:\n" + "\n".join(left) +
                    "\n")
        if echo:
            sys.stdout.write(kept[-1])
    with reap:
        _, status, usage = os.wait4(proc.pid, 0)
        with LOCK:
            RUNNING.pop(proc.pid, None)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if why and proc.returncode == 0:
        proc.returncode = 124
    note = "".join(why)
    if echo and note:
        try:
            sys.stdout.write(note)
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
    return proc.returncode, "".join(kept) + note, usage.ru_utime + usage.ru_stime, note


def duration(seconds):
    """A duration as `12 min 3 s` or `41 s`."""
    minutes, secs = divmod(int(round(seconds)), 60)
    return f"{minutes} min {secs} s" if minutes else f"{secs} s"


def summary(results, seconds, hung=()):
    """The closing report of results, a list of (step, exit status, output, seconds): every
    failure again, each step of hung (the runner stopped it, then it passed when run again)
    with what was running, the slowest steps (where a loaded machine's time goes), the
    counts."""
    failed = [(step, out) for step, rc, out, _ in results if rc != 0]
    lines = []
    for step, out in failed:
        lines += ["", f"FAILED: {step}", failures(out)]
    for step, why in hung:
        lines += ["", f"HUNG, then passed when run again: {step}", why.rstrip("\n")]
    slow = sorted(results, key=lambda r: -r[3])[:SLOWEST]
    lines += ["", "slowest: " + "; ".join(f"{duration(t)} {step}" for step, _, _, t in slow)]
    lines += ["", f"make test: {len(results) - len(failed)} passed, {len(failed)} failed "
                  f"({len(results)} steps in {duration(seconds)})"]
    return "\n".join(lines) + "\n"


def parse(argv):
    """(jobs, (timeout, grace, deadline), [(build name, build it needs or None, command)],
    [(build name or None, command)]) from argv, or exits with argparse's message."""
    parser = argparse.ArgumentParser(description="Runs every step and reports them all.")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="steps side by side")
    parser.add_argument("--build", nargs=2, action="append", default=[],
                        metavar=("NAME", "COMMAND"), help="a build that @NAME steps wait for")
    parser.add_argument("--timeout", type=float, default=0, metavar="SECONDS",
                        help="stop a step or build still running after SECONDS (0: never)")
    parser.add_argument("--deadline", type=float, default=0, metavar="SECONDS",
                        help="stop every step still running after SECONDS in all, start no "
                             "other, and report (0: never)")
    parser.add_argument("--grace", type=float, default=30, metavar="SECONDS",
                        help="how long a step's output may stay open after it exited")
    parser.add_argument("steps", nargs="*")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error(f"-j {args.jobs}: the number of steps side by side is 1 or more")
    if args.grace <= 0:
        parser.error(f"--grace {args.grace:g}: seconds, more than 0")
    for name in ("timeout", "deadline"):
        if getattr(args, name) < 0:
            parser.error(f"--{name} {getattr(args, name):g}: seconds, 0 (never) or more")
    names = [name for name, _ in args.build]
    if len(set(names)) != len(names):
        parser.error(f"--build: a name given twice in {' '.join(names)}")

    def needs(step, before):
        """(the build that step needs or None, its command); before: the builds it may need."""
        if not step.startswith("@"):
            return None, step
        need, _, step = step[1:].partition(" ")
        if need not in before:
            parser.error(f"@{need}: no --build {need} before it (builds: "
                         f"{' '.join(before) or 'none'})")
        return need, step
    builds = [(name, *needs(command, names[:k])) for k, (name, command) in enumerate(args.build)]
    return (args.jobs, (args.timeout, args.grace, args.deadline), builds,
            [needs(step, names) for step in args.steps])


def main(argv):
    jobs, limits, builds, steps = parse(argv)
    echo = jobs == 1
    printing = threading.Lock()
    start = time.monotonic()

    hung = []  # (step, what the runner said) of each step stopped once, passed the next time

    def attempt(command):
        """run_step(command), the runner's own failure a failed step (never a hung run)."""
        try:
            return run_step(command, echo, *limits[:2])
        except Exception as exc:
            return 1, f"runner: {exc!r}\n", 0.0, ""

    def one(step, command=None):
        """Runs one step (command, the step itself when None) and prints its block; returns
        (step, status, output, seconds). A step the runner stopped runs once more (a hang the
        machine's load made, or one that comes and goes: the summary names it either way), its
        result the second run's."""
        with printing:
            print(f"== {step}" if echo else f".. started: {step}", flush=True)
        began = time.monotonic()
        rc, out, cpu, stopped = attempt(command or step)
        if stopped and not STOPPING:
            if echo:
                print("runner: running it again", flush=True)
            rc, again, cpu_again, _ = attempt(command or step)
            out += f"runner: running it again\n{again}"
            cpu += cpu_again
            if rc == 0:
                with printing:
                    hung.append((step, stopped))
        took = time.monotonic() - began
        with printing:
            if not echo:
                sys.stdout.write(f"== {step}\n{out}")
                if out and not out.endswith("\n"):
                    sys.stdout.write("\n")
            print(f"-- {duration(took)}, cpu {duration(cpu)}: {step}", flush=True)
        return step, rc, out, took

    def not_run(step, need):
        """The result of a step whose build failed."""
        out = f"not run: the build {need} failed\n"
        with printing:
            sys.stdout.write(f"== {step}\n{out}-- not run: {step}\n")
            sys.stdout.flush()
        return step, 1, out, 0.0

    def interrupted(*_):
        raise KeyboardInterrupt
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, interrupted)
    deadline = threading.Timer(limits[2], stop_all, (f"the run's deadline, {limits[2]:g} s",))
    deadline.daemon = True
    if limits[2]:
        deadline.start()
    try:
        results = run_all(echo, builds, steps, jobs, one, not_run)
    except KeyboardInterrupt:
        # the steps run in sessions of their own, out of the terminal's reach: stop them here
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN)
        stop_all("interrupted")
        print("\nmake test: interrupted", flush=True)
        return 130
    deadline.cancel()
    sys.stdout.write(summary(results, time.monotonic() - start, hung))
    return 1 if any(rc != 0 for _, rc, _, _ in results) else 0


def run_all(echo, builds, steps, jobs, one, not_run):
    """Runs the builds and steps, one at a time when echo, else by schedule; returns their
    results."""
    if echo:
        # one at a time, as they come: the builds, then the steps
        state = {}
        results = []
        for name, need, command in builds:
            results.append(one(f"build {name}", command) if need is None or state[need] else
                           not_run(f"build {name}", need))
            state[name] = results[-1][1] == 0
        for need, step in steps:
            results.append(one(step) if need is None or state[need] else not_run(step, need))
        return results
    return schedule(jobs, builds, steps, one, not_run)


def schedule(jobs, builds, steps, one, not_run):
    """Runs every build at once (one that needs another once that has passed) and the steps
    jobs at a time, each in the order given as soon as the build it needs has passed (a step
    or build that needs a failed build: not_run); returns the results, the builds' first, then
    the steps' in their order."""
    results = [None] * (len(builds) + len(steps))
    state = {name: None for name, _, _ in builds}  # None while building, then passed or not
    waiting = list(range(len(steps)))
    running = [0]
    changed = threading.Condition()

    def build(k, name, need, command):
        results[k] = (f"build {name}", 1, "runner: the build's thread failed\n", 0.0)
        try:
            if need is not None:
                with changed:
                    changed.wait_for(lambda: state[need] is not None)
            results[k] = (one(f"build {name}", command) if need is None or state[need] else
                          not_run(f"build {name}", need))
        finally:  # whatever happened, the steps that wait for it go on
            with changed:
                state[name] = results[k][1] == 0
                changed.notify_all()

    def step(k, command):
        results[k] = (command, 1, "runner: the step's thread failed\n", 0.0)
        try:
            results[k] = one(command)
        finally:
            with changed:
                running[0] -= 1
                changed.notify_all()

    threads = [threading.Thread(target=build, args=(k, *b), daemon=True)
               for k, b in enumerate(builds)]
    for t in threads:
        t.start()
    with changed:
        while waiting:
            for i in list(waiting):
                need, command = steps[i]
                if need is not None and state[need] is False:
                    waiting.remove(i)
                    results[len(builds) + i] = not_run(command, need)
                elif running[0] < jobs and (need is None or state[need]):
                    waiting.remove(i)
                    running[0] += 1
                    t = threading.Thread(target=step, args=(len(builds) + i, command),
                                         daemon=True)
                    threads.append(t)
                    t.start()
            if waiting:
                changed.wait()
    for t in threads:
        t.join()
    return results


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
