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
An interrupt (Ctrl-C, SIGTERM) stops every running step's session.

    python3 tests/runner.py -j 2 "python3 tests/script_test.py" build/tests/test_stats ...
    python3 tests/runner.py -j 3 --build asan "make asan-build" "@asan build/asan/tests/test_x\""""
import argparse
import os
import signal
import subprocess
import sys
import threading
import time

TAIL_LINES = 40
SLOWEST = 5  # steps named in the summary's line of the slowest
RUNNING = set()  # the steps' shells (each its session's leader) while they run


def failures(output):
    """The part of a failed step's output that says what failed: unittest's report from its
    first `====` separator (every failed test with its traceback), else the last lines."""
    lines = output.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("=" * 20):
            return "\n".join(lines[i:])
    return "\n".join(lines[-TAIL_LINES:])


def session_processes(sid):
    """[(pid, command line)] of every process of session sid (a step's: it runs in a session
    of its own, so that what it started can be found and stopped with it)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if int(fields[3]) != sid:  # the fields after the name: state ppid pgrp session
                continue
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                args = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except (OSError, IndexError, ValueError):
            continue  # gone meanwhile, or not ours to read
        found.append((int(entry), args))
    return found


def pipe_holders(pipe):
    """[(pid, command line)] of every process with the pipe of file object pipe open (a
    step's output, held by what the step left running)."""
    want = f"pipe:[{os.fstat(pipe.fileno()).st_ino}]"
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            fds = os.listdir(f"/proc/{entry}/fd")
            if not any(os.readlink(f"/proc/{entry}/fd/{fd}") == want for fd in fds):
                continue
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                args = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue
        found.append((int(entry), args))
    return found


def stop(processes):
    """Kills every (pid, _) of processes; returns lines naming them."""
    for pid, _ in processes:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return [f"  {pid} {args}" for pid, args in processes]


def run_step(command, echo, timeout=0, grace=30):
    """Runs command in a shell in a session of its own, its standard input empty (a step
    never waits on the terminal), echoing its output as it comes when echo; returns (exit
    status, output, the CPU seconds of the shell and every process it waited for, the runner's
    note when it stopped the step, else ""). A step
    still running after timeout seconds is stopped with everything it started, and fails
    naming them; so does one whose output stays open grace seconds after it exited (a process
    it left behind holds it): a step never keeps the run from ending."""
    proc = subprocess.Popen(command, shell=True, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            errors="replace", start_new_session=True)
    RUNNING.add(proc.pid)
    kept, why = [], []

    def read():
        for line in proc.stdout:
            if echo:
                sys.stdout.write(line)
                sys.stdout.flush()
            kept.append(line)

    def expire():
        left = session_processes(proc.pid)
        why.append(f"runner: stopped after {timeout:g} s, still running:\n" +
                   "\n".join(stop(left)) + "\n")
    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    timer = threading.Timer(timeout, expire) if timeout else None
    if timer:
        timer.daemon = True
        timer.start()
    _, status, usage = os.wait4(proc.pid, 0)
    RUNNING.discard(proc.pid)
    if timer:
        timer.cancel()
    reader.join(grace)
    if reader.is_alive():
        held = pipe_holders(proc.stdout)
        why.append(f"runner: the step exited but its output was still open {grace:g} s later, "
                   "held by:\n" + "\n".join(stop(sorted(dict(held + session_processes(proc.pid)).items()))) + "\n")
        reader.join(grace)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if why and proc.returncode == 0:
        proc.returncode = 124
    note = "".join(why)
    if echo and note:
        sys.stdout.write(note)
        sys.stdout.flush()
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
    """(jobs, (timeout, grace), [(build name, build it needs or None, command)], [(build name or None,
    command)]) from argv, or exits with argparse's message."""
    parser = argparse.ArgumentParser(description="Runs every step and reports them all.")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="steps side by side")
    parser.add_argument("--build", nargs=2, action="append", default=[],
                        metavar=("NAME", "COMMAND"), help="a build that @NAME steps wait for")
    parser.add_argument("--timeout", type=float, default=0, metavar="SECONDS",
                        help="stop a step or build still running after SECONDS (0: never)")
    parser.add_argument("--grace", type=float, default=30, metavar="SECONDS",
                        help="how long a step's output may stay open after it exited")
    parser.add_argument("steps", nargs="*")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error(f"-j {args.jobs}: the number of steps side by side is 1 or more")
    if args.grace <= 0:
        parser.error(f"--grace {args.grace:g}: seconds, more than 0")
    if args.timeout < 0:
        parser.error(f"--timeout {args.timeout:g}: seconds, 0 (never) or more")
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
    return args.jobs, (args.timeout, args.grace), builds, [needs(step, names) for step in args.steps]


def main(argv):
    jobs, limits, builds, steps = parse(argv)
    echo = jobs == 1
    printing = threading.Lock()
    start = time.monotonic()

    hung = []  # (step, what the runner said) of each step stopped once, passed the next time

    def attempt(command):
        """run_step(command), the runner's own failure a failed step (never a hung run)."""
        try:
            return run_step(command, echo, *limits)
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
        if stopped:
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
    signal.signal(signal.SIGTERM, interrupted)
    try:
        results = run_all(echo, builds, steps, jobs, one, not_run)
    except KeyboardInterrupt:
        # the steps run in sessions of their own, out of the terminal's reach: stop them here
        for pid in list(RUNNING):
            stop(session_processes(pid))
        print("\nmake test: interrupted", flush=True)
        return 130
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
        if need is not None:
            with changed:
                changed.wait_for(lambda: state[need] is not None)
        results[k] = (one(f"build {name}", command) if need is None or state[need] else
                      not_run(f"build {name}", need))
        with changed:
            state[name] = results[k][1] == 0
            changed.notify_all()

    def step(k, command):
        results[k] = one(command)
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
