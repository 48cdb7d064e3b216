#!/usr/bin/env python3
"""valgrind_run - runs one test file with quadx through tests/valgrind-quadx, under valgrind for
the processes tests/valgrind_cover.txt picks for each test (every process of a test it does not
name), the others without; prints the results as unittest does, then how many processes ran
under valgrind. Exits 1 when a test failed. make test's valgrind steps run it, with QUADX and
the QUADX_VG* variables of tests/valgrind-quadx set. Standard library only.

    python3 tests/valgrind_run.py tests/script_test.py"""
import importlib
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
COVER = os.path.join(HERE, "valgrind_cover.txt")


def picks(path):
    """{test id: PICK} for the test file path (as make names it: tests/NAME.py) from COVER."""
    found = {}
    with open(COVER) as f:
        for line in f:
            words = line.split()
            if words and not line.startswith("#") and words[0] == path:
                found[words[1]] = words[2]
    return found


def main():
    path = sys.argv[1]
    chosen = picks(path)
    sys.path.insert(0, HERE)
    module = importlib.import_module(os.path.splitext(os.path.basename(path))[0])
    fd, counter = tempfile.mkstemp(prefix="quadx-vgcount-")
    os.close(fd)
    os.environ["QUADX_VG_COUNTER"] = counter
    counts = {"processes": 0, "under valgrind": 0}

    def count_last():
        """Adds the processes of the test that just ended to counts."""
        with open(counter) as f:
            n = int(f.read().strip() or 0)
        pick = os.environ.get("QUADX_VG_PICK", "all")
        counts["processes"] += n
        counts["under valgrind"] += (n if pick == "all" else
                                     len([k for k in pick.split(",") if k != "-" and int(k) <= n]))

    class Result(unittest.TextTestResult):
        """Sets the pick and restarts the numbering before each test."""

        def startTest(self, test):
            os.environ["QUADX_VG_PICK"] = chosen.get(test.id().split(".", 1)[1], "all")
            with open(counter, "w") as f:
                f.write("0\n")
            super().startTest(test)

        def stopTest(self, test):
            count_last()
            super().stopTest(test)

    suite = unittest.defaultTestLoader.loadTestsFromModule(module)
    result = unittest.TextTestRunner(verbosity=2, resultclass=Result).run(suite)
    os.remove(counter)
    logs = len(os.listdir(os.environ["QUADX_VG_LOGS"]))
    print(f"valgrind_run: {path}: {counts['under valgrind']} of {counts['processes']} quadx "
          "processes under valgrind")
    if logs < counts["under valgrind"] or not logs:
        # valgrind writes a log for every process it runs, empty when clean
        print(f"valgrind_run: {logs} valgrind logs for {counts['under valgrind']} processes "
              "picked: the picked processes did not run under valgrind")
        sys.exit(1)
    sys.exit(0 if result.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
