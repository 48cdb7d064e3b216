#!/usr/bin/env python3
"""valgrind_cover - picks the quadx processes that make test runs under valgrind: the fewest
processes of the given test files that, together, run every line of quadx's C sources that all
their processes run.

Valgrind costs about half a second of CPU for every process it starts, and the script tests
start some 430 quadx processes, most of them for a few commands: under valgrind that fixed
cost was most of make test's time. Memcheck checks the code a process runs, so processes that
run the same lines check the same code; the tests run whole all the same (the other processes
run without valgrind), and ASan and UBSan run every process.

    python3 tests/valgrind_cover.py BUILD OUT TEST_FILE...

BUILD is a build of quadx with gcov's instrumentation and fault injection (`make
valgrind-cover` makes it and runs this). Each test of the TEST_FILEs runs alone, every quadx
process it starts numbered by tests/valgrind-quadx in the order they start and writing its
counts apart; `gcov --json-format` reads each process's lines, and a greedy set cover picks the
processes. OUT gets a header saying what was covered, then a line a test:
`FILE Class.test_name PICK`, PICK the numbers of its processes that run under valgrind (comma
separated) or `-` for none. A test that OUT does not name (a new one) runs every process under
valgrind. A test that skips under valgrind (QUADX_VG set) is skipped here too. Standard library
only."""
import glob
import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def gcov_lines(gcda):
    """The (source, line) pairs of quadx's own sources that the .gcda files gcda ran."""
    out = subprocess.run(["gcov", "--json-format", "--stdout", *gcda], capture_output=True,
                         text=True, cwd=ROOT, check=True).stdout
    ran = set()
    for line in out.splitlines():
        if line.strip():
            for f in json.loads(line)["files"]:
                if not f["file"].startswith("/"):  # quadx's own, not a system header
                    ran.update((f["file"], l["line_number"]) for l in f["lines"]
                               if l["count"])
    return ran


def process_lines(cover, build):
    """{process number: its lines} for the processes under the folder cover, each written by
    gcov under cover/NUMBER + the absolute path of build; their .gcda files are moved into
    build (beside the .gcno files gcov reads) one process at a time, and removed."""
    lines = {}
    for n in sorted(os.listdir(cover), key=int):
        moved = []
        for path in glob.glob(os.path.join(cover, n + build, "**", "*.gcda"), recursive=True):
            into = build + path[len(os.path.join(cover, n + build)):]
            shutil.move(path, into)
            moved.append(into)
        lines[int(n)] = gcov_lines(moved) if moved else set()
        for path in moved:
            os.remove(path)
        shutil.rmtree(os.path.join(cover, n))
    return lines


def tests_of(path):
    """(test file, test id, test) for every test of the test file at path."""
    module = importlib.import_module(os.path.splitext(os.path.basename(path))[0])

    def flat(suite):
        for t in suite:
            if isinstance(t, unittest.TestSuite):
                yield from flat(t)
            else:
                yield t
    for t in flat(unittest.defaultTestLoader.loadTestsFromModule(module)):
        yield path, t.id().split(".", 1)[1], t


def cover(sets):
    """A greedy set cover: keys of sets (key -> set) whose union is the union of all, the one
    adding most first."""
    left = set().union(*sets.values())
    picked = []
    while left:
        best = max(sets, key=lambda k: (len(sets[k] & left), k))
        picked.append(best)
        left -= sets[best]
    return picked


def main():
    build, out, files = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3:]
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    work = tempfile.mkdtemp(prefix="quadx-vgcover-")
    counter, cover_dir = os.path.join(work, "count"), os.path.join(work, "cover")
    os.makedirs(cover_dir)
    os.environ.update(QUADX=os.path.join(ROOT, "tests", "valgrind-quadx"),
                      QUADX_VG_BIN=os.path.join(build, "quadx"), QUADX_VG_COVER=cover_dir,
                      QUADX_VG_COUNTER=counter, QUADX_VG="valgrind_cover")
    for stale in glob.glob(os.path.join(build, "**", "*.gcda"), recursive=True):
        os.remove(stale)
    processes, tests = {}, []
    for path, test_id, test in (t for f in files for t in tests_of(f)):
        with open(counter, "w") as f:
            f.write("0\n")
        result = unittest.TestResult()
        test.run(result)
        if result.failures or result.errors:
            sys.exit(f"valgrind_cover: {path} {test_id} failed:\n"
                     + "".join(tb for _, tb in result.failures + result.errors))
        ran = process_lines(cover_dir, build)
        if not result.skipped:
            tests.append((path, test_id))
            processes.update({(path, test_id, n): lines for n, lines in ran.items()})
        print(f"{len(ran):3d} processes  {path} {test_id}", file=sys.stderr, flush=True)
    shutil.rmtree(work)
    picked = cover(processes)
    every = set().union(*processes.values())
    with open(out + ".tmp", "w") as f:
        f.write(f"# The quadx processes make test runs under valgrind, made by `make "
                f"valgrind-cover`\n# (tests/valgrind_cover.py): {len(picked)} of the "
                f"{len(processes)} processes of the tests of\n# {' '.join(files)}, running "
                f"all {len(every)} lines of quadx's sources that the {len(processes)} run.\n")
        for path, test_id in tests:
            pick = sorted(n for p, t, n in picked if (p, t) == (path, test_id))
            f.write(f"{path} {test_id} {','.join(map(str, pick)) or '-'}\n")
    os.replace(out + ".tmp", out)
    print(f"valgrind_cover: {len(picked)} of {len(processes)} processes run all {len(every)} "
          "lines", file=sys.stderr)


if __name__ == "__main__":
    main()
