#!/usr/bin/env python3
"""Script tests for quadx: whole sessions piped through stdin, -e, -f and source.

Run from the repository root after `make`:  python3 tests/script_test.py
Standard library only. Timings vary between runs, so only structure and
deterministic fields are compared, never timing numbers. The interactive
(readline) path needs a terminal and is not tested here. Fixture scripts live
in tests/script/; the tests run quadx with the repository root as the working
directory, so the paths inside them are relative to it.
"""

import csv
import io
import json
import math
import os
import re
import struct
import subprocess
import tempfile
import unittest

import qxtest
from qxtest import QUADX

FIXTURES = os.path.join("tests", "script")  # relative to the repository root

# E_3(1.5) from mpmath (40 digits: 0.05673949017035427615632788970962...).
E3_15 = 0.056739490170354276

# The command table of the specification ("The command loop").
SPEC_COMMANDS = ["use", "set", "show", "run", "sweep", "export", "plot", "eval", "errors", "values",
                 "format", "help", "source", "dashboard", "history", "quit"]

# A script line's error, or with -e the command's place among the -e commands.
ERROR_RE = re.compile(r"^quadx: (?:line|command) (\d+)(?: of -e)?: (.+)$")
INT_RANGE = r"-?\d+\s*\.\.\s*\d+"  # 1..1000000
INTERVAL = r"[\[(]\s*[-+0-9.e]+\s*,\s*[-+0-9.e]+\s*[\])]"  # (0, 1]


class Result:
    """The outcome of one quadx process."""

    def __init__(self, proc):
        self.rc = proc.returncode
        self.out = proc.stdout
        self.err = proc.stderr
        self.out_lines = proc.stdout.splitlines()
        self.err_lines = proc.stderr.splitlines()

    def __repr__(self):
        return "rc=%r\n--- stdout\n%s--- stderr\n%s" % (self.rc, self.out, self.err)


def quadx(*args, stdin=""):
    """Runs ./quadx with args, feeding stdin (a pipe, so never a terminal)."""
    proc = qxtest.script(stdin, *args)
    return Result(proc)


def session(text, *args):
    """Pipes a whole session (one command per line) through stdin."""
    return quadx(*args, stdin=text)


def json_lines(res, raw_floats=False):
    """Parses every stdout line as one JSON object (JSON Lines)."""
    objs = []
    for i, line in enumerate(res.out_lines, 1):
        try:
            obj = json.loads(line, parse_float=str) if raw_floats else json.loads(line)
        except ValueError as exc:
            raise AssertionError("stdout line %d is not JSON: %r (%s)" % (i, line, exc))
        if not isinstance(obj, dict):
            raise AssertionError("stdout line %d is not a JSON object: %r" % (i, line))
        objs.append(obj)
    return objs


def default_params():
    """The parameters of a fresh session, as `format json; show params` prints them."""
    res = quadx("-e", "format json; show params")
    assert res.rc == 0, res
    objs = json_lines(res)
    assert len(objs) == 1, res
    return objs[0]


def device_info():
    """The `show device` object (gpu is "none" without a usable GPU)."""
    res = quadx("--json", "-e", "show device")
    assert res.rc == 0, res
    return json_lines(res)[0]


def sig_digits(text):
    """The significant digits of a decimal number's text, without sign, point or exponent."""
    mant = re.split(r"[eE]", text.strip().lstrip("+-"))[0].replace(".", "")
    return mant.lstrip("0").rstrip("0") or "0"


def is_float32(v):
    """True when the double v is exactly a float32 value."""
    return struct.unpack("f", struct.pack("f", v))[0] == v


def rel(a, b):
    """Relative difference of a against b."""
    return abs(a - b) / abs(b)


_DEVICE = None


def no_gpu():
    """True when `show device` reports no usable GPU."""
    global _DEVICE
    if _DEVICE is None:
        _DEVICE = device_info()
    return _DEVICE.get("gpu") == "none"


class QuadxTestCase(unittest.TestCase):
    """Assertions shared by the script tests."""

    def assertOk(self, res):
        self.assertEqual(res.rc, 0, res)
        self.assertEqual(res.err, "", res)

    def assertOneError(self, res, line=1, words=(), pattern=None):
        """Exactly one `quadx: line N: ...` line on stderr naming words, exit status non-zero.

        line is the expected N, or a tuple of acceptable values."""
        self.assertNotEqual(res.rc, 0, res)
        self.assertEqual(len(res.err_lines), 1, "want one error line\n%r" % res)
        m = ERROR_RE.match(res.err_lines[0])
        self.assertIsNotNone(m, "error line not of the form 'quadx: line N: ...': %r"
                             % res.err_lines[0])
        self.assertIn(int(m.group(1)), line if isinstance(line, tuple) else (line,),
                      res.err_lines[0])
        msg = m.group(2)
        for w in words:
            self.assertIn(w, msg, "error message should name %r" % w)
        if pattern:
            self.assertRegex(msg, pattern, "error message should give the allowed range")
        return msg

    def run_json(self, cmds, *args):
        """Runs `-e cmds` with --json, expects success and returns the parsed objects."""
        res = quadx("--json", *args, "-e", cmds)
        self.assertOk(res)
        return json_lines(res)

    def run_objects(self, objs):
        return [o for o in objs if "backend" in o and "time_ms" in o]


# --------------------------------------------------------------------------------------------
# 1. Validation


class ValidationTest(QuadxTestCase):
    """Bad input gives one clear error, a non-zero exit, and leaves the session unchanged."""

    # (command, words the message must name, regex for the allowed range or usage)
    CASES = [
        ("set n abc", ["'abc'", "n"], INT_RANGE),
        ("set n -5", ["'-5'", "n"], INT_RANGE),
        ("set n 1e99", ["'1e99'", "n"], INT_RANGE),
        ("set n 2.5", ["'2.5'", "n"], INT_RANGE),
        ("set block 0", ["'0'", "block"], INT_RANGE),
        ("set block 4096", ["'4096'", "block"], INT_RANGE),
        ("set a 10 b 0", ["b"], INTERVAL + r"|less than|<"),
        ("set precision half", ["'half'", "precision"], r"float.*double|double.*float"),
        ("set threshold 0", ["'0'", "threshold"], INTERVAL),
        ("set repeat 0", ["'0'", "repeat"], INT_RANGE),
        ("set nosuch 1", ["'nosuch'"], r"precision.*block|block.*precision"),
        ("set n", ["set"], r"NAME VALUE|missing|value"),
        ("frobnicate", ["'frobnicate'"], r"(?s)" + "".join(r"(?=.*\b%s\b)" % c for c in SPEC_COMMANDS)),
        ("s", ["'s'", "set", "show", "source"], r"ambiguous"),
        ("run sideways", ["'sideways'"], r"cpu.*gpu.*both"),
        ("use nosuch", ["'nosuch'"], r"expint"),
        ("errors", ["errors"], r"run"),
        ('set "n 5', [], r"quote"),
        ("eval 0 0", [], r"domain"),
        ("eval -1 2", ["-1"], r"domain"),
        ("eval 2 -1", ["-1"], r"domain"),
        ("eval 3", ["eval"], r"2 arguments|N X"),
        ("format xml", ["'xml'"], r"text.*json.*csv"),
        ("set gpus 0", ["'0'", "gpus"], r"all\|an integer in 1\.\.16"),
        ("set gpus 17", ["'17'", "gpus"], r"all\|an integer in 1\.\.16"),
        ("set gpus two", ["'two'", "gpus"], r"all\|an integer in 1\.\.16"),
        ("set gpus 1.5", ["'1.5'", "gpus"], r"all\|an integer in 1\.\.16"),
    ]

    def test_each_bad_command_is_one_clear_error(self):
        """Each bad command alone: one `quadx: line 1:` error naming the word and range, no stdout."""
        for cmd, words, pattern in self.CASES:
            with self.subTest(cmd=cmd):
                res = session(cmd + "\n")
                self.assertOneError(res, 1, words, pattern)
                self.assertEqual(res.out, "", "no partial output for a bad command")

    def test_state_unchanged_after_each_error(self):
        """With --keep-going, `show params` after each bad command shows the defaults."""
        defaults = default_params()
        for cmd, _, _ in self.CASES:
            with self.subTest(cmd=cmd):
                res = session(cmd + "\nformat json\nshow params\n", "--keep-going")
                self.assertOneError(res, 1)
                self.assertEqual(json_lines(res), [defaults])

    def test_set_is_all_or_nothing(self):
        """A set with one bad pair changes none of its pairs."""
        defaults = default_params()
        for cmd in ["set n 7 block 0", "set n 5 m abc", "set a 10 b 0", "set a 10 b 5",
                    "set precision double threshold 0", "set a 10"]:
            with self.subTest(cmd=cmd):
                res = session(cmd + "\nformat json\nshow params\n", "--keep-going")
                self.assertOneError(res, 1)
                self.assertEqual(json_lines(res), [defaults])

    def test_a_must_be_less_than_b(self):
        """`set a 10 b 5` is refused (a < b) though each value alone is in range."""
        res = quadx("-e", "set a 10 b 5")
        msg = self.assertOneError(res, 1)
        self.assertRegex(msg, r"\ba\b.*\bb\b")

    def test_show_params_json_numbers(self):
        """`show params` in JSON gives numeric settings as numbers, as run objects do, and the
        word settings (precision, variant) as strings."""
        for problem in ("expint", "longman"):
            with self.subTest(problem=problem):
                p = self.run_json("use %s; set threshold 1e-7; show params" % problem)[0]
                own = ("streams",) if problem == "expint" else ()  # expint's own setting
                for name in ("block", "threads", "repeat", "warmup") + own:
                    self.assertIs(type(p[name]), int, (name, p))
                self.assertEqual(p["threshold"], 1e-7)
                self.assertEqual((p["precision"], p["block"]), ("float", 256))
                self.assertIsInstance(p["variant"], str)

    def test_valid_set_changes_state(self):
        """A valid multi-pair set changes every named parameter (control for the tests above)."""
        objs = self.run_json("set n 7 m 3 a 1 b 2 block 128 precision double; show params")
        p = objs[0]
        self.assertEqual([str(p[k]) for k in ("n", "m", "a", "b", "block", "precision")],
                         ["7", "3", "1", "2", "128", "double"])


class LongmanLanesTest(QuadxTestCase):
    """Problem longman's `lanes` (the GPU work split) is checked like every parameter."""

    def test_bad_lanes_is_one_error_and_changes_nothing(self):
        """`set lanes 3 N 8` is one error naming lanes and the allowed powers of two; neither
        lanes nor N changes; a valid `set lanes 4` then does (the control)."""
        res = session("use longman\nset lanes 3 N 8\nformat json\nshow params\nset lanes 4\n"
                      "show params\n", "--keep-going")
        self.assertOneError(res, 2, ["lanes", "3"], r"power of two 1, 2, 4, 8, 16, 32")
        before, after = json_lines(res)
        self.assertEqual((before["lanes"], before["N"]), (0, 16))
        self.assertEqual(after["lanes"], 4)

    def test_lanes_out_of_range(self):
        """lanes 64 is refused by the parameter's range."""
        res = session("use longman\nset lanes 64\n")
        self.assertOneError(res, 2, ["lanes", "64"], INT_RANGE)


class LongmanRangeTest(QuadxTestCase):
    """lambda and omega that float cannot compute are refused by set, sweep and eval naming the
    limit; the values at the limits give finite results near the exact ones (never NaN)."""

    def test_refused_naming_the_limit(self):
        """Each bad command is one error naming the word and the limit; no run, no value."""
        cases = [
            ("set M 4 lambda 1 omega 1e-50; run cpu", ["omega", "1e-50"], r"1e-06 <= LO"),
            ("set lambda 1 omega 1e-300", ["omega"], r"1e-06 <= LO"),
            ("eval 1 1e-300", ["OMEGA"], r"\[1e-06, 1e\+06\]"),
            ("eval 8.5 1", ["lambda 8.5", "omega 1"], r"<= 8 omega"),
            ("set lambda 0.1:41", ["lambda 41", "omega 5"], r"<= 8 omega"),
            ("sweep omega 0.01,1 on cpu", ["sweep", "omega 0.01"], r"<= 8 omega"),
            ("set a -200", ["a = -200"], r"lambda \|a\| must be <= 80"),
        ]
        for cmd, words, pattern in cases:
            with self.subTest(cmd=cmd):
                res = session("use longman\n" + cmd + "\n")
                self.assertOneError(res, 2, words, pattern)
                self.assertEqual(res.out, "")

    def test_limits_give_finite_values(self):
        """At omega 1e-6 (j0), lambda = 8 omega and lambda |a| = 80 every cpu value of eval is
        finite and within 1e-3 relative of the exact one, in float and double."""
        res = quadx("-e", "use longman; format json; eval 8 1; set a -80 lambda 1; eval 1 1; "
                    "set a 0 integrand j0 lambda 0; eval 0 1e-6")
        self.assertOk(res)
        rows = [o for o in json_lines(res) if o.get("backend") == "cpu"]
        self.assertEqual(len(rows), 6, res.out)
        for o in rows:
            with self.subTest(row=o):
                self.assertTrue(math.isfinite(o["value"]), o)
                self.assertLess(abs(o["value"] - o["exact"]), 1e-3 * abs(o["exact"]), o)


class LongmanBlockTest(QuadxTestCase):
    """Problem longman refuses up front a block its variant packed cannot launch (whole warps
    up to the kernel's launch bound 256); variant block sets its own and accepts any."""

    BAD_BLOCK = r"expected a multiple of 32 in 32\.\.256"

    def test_set_refuses_and_changes_nothing(self):
        """`set block 512 N 8` is one error naming the block and the allowed sizes; neither
        changes; `set block 128` then does (the control)."""
        res = session("use longman\nset block 512 N 8\nformat json\nshow params\n"
                      "set block 128\nshow params\n", "--keep-going")
        self.assertOneError(res, 2, ["bad block 512", "packed"], self.BAD_BLOCK)
        before, after = json_lines(res)
        self.assertEqual((before["block"], before["N"]), (256, 16))
        self.assertEqual(after["block"], 128)

    def test_block_that_is_not_whole_warps_refused(self):
        res = session("use longman\nset block 100\n")
        self.assertOneError(res, 2, ["bad block 100"], self.BAD_BLOCK)

    def test_switching_to_packed_with_a_block_it_cannot_use_refused(self):
        """block 512 is fine for variant block; switching to packed with it is refused."""
        res = session("use longman\nset variant block block 512\nset variant packed\n"
                      "format json\nshow params\n", "--keep-going")
        self.assertOneError(res, 3, ["bad block 512"], self.BAD_BLOCK)
        self.assertEqual(json_lines(res)[0]["variant"], "block")

    def test_sweep_refused_before_anything_runs(self):
        """A sweep whose block axis holds a size packed cannot launch is refused whole,
        naming the first such size; nothing runs."""
        res = session("use longman\nset M 10 repeat 1 warmup 0\nsweep block 32..1024\n")
        self.assertOneError(res, 3, ["sweep", "bad block 512"], self.BAD_BLOCK)
        self.assertEqual(res.out, "")

    def test_run_refused_when_the_block_came_from_another_problem(self):
        """The block setting is shared by the problems: expint's block 1024 is refused by
        longman's GPU run before anything runs (also without a GPU)."""
        res = session("use longman\nset M 10 repeat 1\nuse expint\nset block 1024\n"
                      "use longman\nrun gpu\n")
        self.assertOneError(res, 6, ["bad block 1024", "packed"], self.BAD_BLOCK)
        self.assertEqual(res.out, "")


class LongmanQawfTest(QuadxTestCase):
    """Variant qawf (GSL) reports only what applies to it."""

    def test_qawf_has_no_longman_figures(self):
        """A qawf run shows its error against the exact values but no Longman remainder
        estimate and no euler/direct counts, in text and JSON; the packed variant (the
        control) has them."""
        res = session("use longman\nset M 40 precision double\nrun cpu\nset variant qawf\n"
                      "run cpu\nformat json\nrun cpu\n")
        self.assertOk(res)
        packed, qawf = res.out.split("variant qawf")[0], res.out.split("variant qawf")[1]
        self.assertRegex(packed, r"bound_max [0-9.e+-]+  over_bound 0  euler \d+  direct \d+")
        self.assertIn("max_rel", qawf)
        for word in ("bound_max", "over_bound", "euler", "direct"):
            self.assertNotIn(word, qawf.split("\n{")[0])
        err = json.loads(res.out_lines[-1])["error"]
        self.assertEqual(set(err), {"max_rel", "mean_rel", "max_abs", "mean_abs",
                                    "over_threshold", "threshold"})


# --------------------------------------------------------------------------------------------
# 2. Script semantics


class ScriptTest(QuadxTestCase):
    """Reading commands from stdin, -e, -f and source."""

    def test_stops_at_first_error(self):
        """The script stops at the first error: later lines are not executed."""
        res = session("set n 5\nfrobnicate\nshow\nshow params\n")
        self.assertOneError(res, 2, ["'frobnicate'"])
        self.assertEqual(res.out, "")

    def test_stops_at_first_error_within_a_line(self):
        """`;`-separated commands after a failing one on the same stdin line do not run."""
        res = session("show params; frobnicate; show params\nshow params\n")
        self.assertOneError(res, 1)
        self.assertEqual(res.out, quadx("-e", "show params").out)

    def test_stops_at_first_error_in_e(self):
        """-e stops at the first failing command (numbered as line 1 or as its position, 2)."""
        res = quadx("-e", "show params; frobnicate; show params")
        self.assertOneError(res, (1, 2), ["'frobnicate'"])
        self.assertEqual(res.out, quadx("-e", "show params").out)

    def test_keep_going_runs_the_rest(self):
        """--keep-going reports every error with its line, runs the rest, exits non-zero."""
        res = session("frobnicate\nset n 5\nset n abc\nformat json\nshow params\n", "--keep-going")
        self.assertNotEqual(res.rc, 0, res)
        self.assertEqual(len(res.err_lines), 2, res)
        self.assertRegex(res.err_lines[0], r"^quadx: line 1: .*'frobnicate'")
        self.assertRegex(res.err_lines[1], r"^quadx: line 3: .*'abc'")
        objs = json_lines(res)
        self.assertEqual(len(objs), 1, res)
        self.assertEqual(str(objs[0]["n"]), "5")

    def test_keep_going_runs_the_rest_of_an_e_line(self):
        """--keep-going -e 'bad; cmd' still runs the commands after the bad one."""
        res = quadx("--keep-going", "-e", "frobnicate; format json; show params")
        self.assertOneError(res, 1, ["'frobnicate'"])  # the first command: line 1 either way
        self.assertEqual(json_lines(res), [default_params()])

    def test_line_numbers_count_comments_and_blank_lines(self):
        """Error line numbers count comment and blank lines."""
        script = "# a comment\n\nset n 5   # trailing comment\n\n   # indented comment\nset m abc\n"
        res = session(script)
        self.assertOneError(res, 6, ["'abc'", "m"])

    def test_comments_and_semicolons(self):
        """`#` comments are ignored and `;` separates commands on one line."""
        objs = json_lines(session("# only a comment\nset n 5; set m 4 # set m 9\n"
                                  "format json;show params\n"))
        self.assertEqual((str(objs[0]["n"]), str(objs[0]["m"])), ("5", "4"))

    def test_empty_script(self):
        """An empty script, or only comments and blank lines, does nothing and succeeds."""
        for text in ["", "\n\n", "# nothing\n   \n# more\n"]:
            with self.subTest(text=text):
                res = session(text)
                self.assertOk(res)
                self.assertEqual(res.out, "")

    def test_e_option(self):
        """-e 'cmd; cmd' runs the commands."""
        objs = self.run_json("set n 3 m 2; show params")
        self.assertEqual((str(objs[0]["n"]), str(objs[0]["m"])), ("3", "2"))

    def test_e_error_line(self):
        """An error in -e is reported at line 1 (or the command's position, 2) and stops."""
        res = quadx("-e", "set n 3; set block 0; show params")
        self.assertOneError(res, (1, 2), ["'0'", "block"])
        self.assertEqual(res.out, "")

    def test_f_option(self):
        """-f FILE runs the file (comments, blank lines, `;`)."""
        res = quadx("-f", os.path.join(FIXTURES, "settings.qx"))
        self.assertOk(res)
        objs = json_lines(res)
        self.assertEqual(len(objs), 1)
        self.assertEqual((str(objs[0]["n"]), str(objs[0]["m"]), objs[0]["precision"]),
                         ("4", "3", "float"))

    def test_f_error_line_number(self):
        """-f FILE reports an error with its line in the file."""
        res = quadx("-f", os.path.join(FIXTURES, "inner_error.qx"))
        self.assertNotEqual(res.rc, 0)
        self.assertEqual(len(res.err_lines), 1, res)
        self.assertRegex(res.err_lines[0], r"^quadx: (.*: )?line 4: .*'frobnicate'")

    def test_f_missing_file(self):
        """-f with a missing file fails with a message naming the file."""
        res = quadx("-f", "tests/script/no-such-file.qx")
        self.assertNotEqual(res.rc, 0)
        self.assertEqual(len(res.err_lines), 1, res)
        self.assertIn("no-such-file.qx", res.err)

    def test_source(self):
        """`source FILE` runs the file's commands in the session."""
        objs = self.run_json("source %s; show params" % os.path.join(FIXTURES, "inner_ok.qx"))
        self.assertEqual((str(objs[0]["n"]), str(objs[0]["m"])), ("7", "2"))
        res = quadx("-f", os.path.join(FIXTURES, "outer_ok.qx"))
        self.assertOk(res)
        self.assertEqual(str(json_lines(res)[0]["n"]), "7")

    def test_source_nested_error(self):
        """An error inside a sourced file is reported with the file and its line; the script stops."""
        res = quadx("-f", os.path.join(FIXTURES, "outer_error.qx"))
        self.assertNotEqual(res.rc, 0)
        self.assertEqual(res.out, "", "the outer script must stop")
        self.assertTrue(any(re.search(r"inner_error\.qx.*line 4: .*'frobnicate'", l)
                            for l in res.err_lines), res)
        self.assertTrue(all(l.startswith("quadx: ") for l in res.err_lines), res)
        self.assertTrue(any(re.match(r"^quadx: line 2: ", l) for l in res.err_lines),
                        "the outer line (2) should be reported too\n%r" % res)

    def test_source_nested_error_keep_going(self):
        """With --keep-going the outer script goes on after a failed source (inner stops at line 4)."""
        res = quadx("--keep-going", "-f", os.path.join(FIXTURES, "outer_error.qx"))
        self.assertNotEqual(res.rc, 0)
        objs = json_lines(res)
        self.assertEqual(len(objs), 1, res)
        self.assertEqual(str(objs[0]["n"]), "6", "inner lines after its error must not run")

    def test_source_missing_file(self):
        """`source` of a missing file is one clear error naming the file."""
        res = quadx("-e", "source tests/script/no-such-file.qx")
        self.assertOneError(res, 1, ["no-such-file.qx"])

    def test_quit_stops_reading(self):
        """`quit` stops reading: later lines, even bad ones, are not run; exit 0."""
        res = session("set n 5\nquit\nfrobnicate\nshow params\n")
        self.assertOk(res)
        self.assertEqual(res.out, "")
        res = quadx("-e", "quit; frobnicate")
        self.assertOk(res)

    def test_unique_prefixes(self):
        """Unique prefixes work: `ru cpu`, `sh params`, `fo json`."""
        objs = self.run_json("ru cpu; sh params")
        self.assertEqual(len(objs), 2)
        self.assertEqual(objs[0]["backend"], "cpu")
        self.assertEqual(objs[1]["problem"], "expint")
        objs = json_lines(quadx("-e", "fo json; sh params"))
        self.assertEqual(len(objs), 1)


# --------------------------------------------------------------------------------------------
# 3. JSON


class JsonTest(QuadxTestCase):
    """`--json` and `format json` print one JSON object per line."""

    def check_run_cpu(self, o, precision="float", n=10, m=10):
        self.assertEqual(o["problem"], "expint")
        self.assertEqual(o["backend"], "cpu")
        self.assertEqual(o["precision"], precision)
        self.assertIsInstance(o["threads"], int)
        self.assertGreaterEqual(o["threads"], 1)
        self.assertIsInstance(o["block"], int)
        self.assertEqual(o["variant"], "fast")
        self.assertEqual(o["params"], {"n": n, "m": m, "a": 0, "b": 10, "iters": 2000000000})
        self.assertIn("total", o["time_ms"])
        self.assertGreater(o["time_ms"]["total"], 0)
        for k in ("alloc", "h2d", "kernel", "d2h", "free"):
            self.assertNotIn(k, o["time_ms"], "cpu time_ms has total only")
        self.assertEqual(o["evals"], n * m)
        self.assertGreater(o["evals_per_s"], 0)

    def test_run_cpu_object(self):
        """A float `run cpu` object has every spec field, cpu times total only, and an error block."""
        for args, cmds in [(["--json"], "run cpu"), ([], "format json; run cpu")]:
            with self.subTest(args=args, cmds=cmds):
                res = quadx(*args, "-e", cmds)
                self.assertOk(res)
                objs = json_lines(res)
                self.assertEqual(len(objs), 1)
                o = objs[0]
                self.check_run_cpu(o)
                err = o["error"]
                self.assertEqual(set(err), {"max_rel", "mean_rel", "max_abs", "mean_abs",
                                            "over_threshold", "threshold"})
                self.assertEqual(err["threshold"], 1e-5)
                self.assertEqual(err["over_threshold"], 0)
                self.assertLessEqual(0, err["mean_rel"])
                self.assertLessEqual(err["mean_rel"], err["max_rel"])
                self.assertGreaterEqual(err["max_abs"], 0)
                self.assertLessEqual(0, err["mean_abs"])
                self.assertLessEqual(err["mean_abs"], err["max_abs"])

    def test_evals_is_n_times_m(self):
        """evals == n*m for a non-default grid."""
        o = self.run_json("set n 7 m 3; run cpu")[0]
        self.check_run_cpu(o, n=7, m=3)

    def test_reference_run(self):
        """A double + fast cpu run is the reference: "reference": true and no "error"."""
        o = self.run_json("set precision double variant fast; run cpu")[0]
        self.check_run_cpu(o, precision="double")
        self.assertIs(o["reference"], True)
        self.assertNotIn("error", o)

    def test_eval_objects(self):
        """`eval 3 1.5` gives a cpu double and a cpu float object with the spec's fields."""
        objs = self.run_json("eval 3 1.5")
        cpu = {o["precision"]: o for o in objs if o.get("backend") == "cpu"}
        self.assertEqual(set(cpu), {"double", "float"})
        for prec, o in cpu.items():
            with self.subTest(precision=prec):
                self.assertEqual(o["problem"], "expint")
                self.assertEqual(o["args"], [3, 1.5])
                self.assertIsInstance(o["value"], float)
        if no_gpu():  # the two cpu objects, and the gpu's two saying why they have no value
            self.assertEqual(len(objs), 4, objs)
            for o in objs[2:]:
                self.assertEqual((o["backend"], o["value"], o["status"]),
                                 ("gpu", None, "unavailable"), o)
                # why: no GPU here, or none in a CPU-only build (the ASan pass)
                self.assertRegex(o["note"], r"^no (usable GPU|GPU backend): ")
        self.assertLess(rel(cpu["float"]["value"], E3_15), 1e-6)

    def test_eval_double_accuracy(self):
        """The cpu double E_3(1.5) is within 1e-14 (the spec's double target) relative of mpmath's value."""
        objs = self.run_json("eval 3 1.5")
        v = [o["value"] for o in objs if o.get("backend") == "cpu" and o["precision"] == "double"]
        self.assertEqual(len(v), 1)
        self.assertLess(rel(v[0], E3_15), 1e-14, "E_3(1.5) = %r, exact %r" % (v[0], E3_15))

    def test_eval_values_round_trip(self):
        """Eval values are printed with enough digits to give back the exact double."""
        objs = self.run_json("eval 3 1.5")
        raw = json_lines(quadx("--json", "-e", "eval 3 1.5"), raw_floats=True)
        cpu = {o["precision"]: o["value"] for o in raw if o.get("backend") == "cpu"}
        for prec, text in cpu.items():
            with self.subTest(precision=prec, text=text):
                v = float(text)
                # Either 17 significant digits or the shortest text that round-trips.
                self.assertTrue(len(sig_digits(text)) >= 17
                                or sig_digits(text) == sig_digits(repr(v)), text)
        # The float result widened to double must be printed exactly.
        self.assertTrue(is_float32(float(cpu["float"])),
                        "float value %s is not exactly a float32" % cpu["float"])
        # The same double, printed by `errors` as a run's reference, must read back identically.
        errs = self.run_json("set n 3 m 2 a 0 b 3; run cpu; errors 6")
        ref = [e["reference"] for e in errs if e.get("type") == "worst"
               and e["n"] == 3 and e["x"] == 1.5]
        self.assertEqual(len(ref), 1, errs)
        dbl = [o["value"] for o in objs if o["precision"] == "double" and o["backend"] == "cpu"]
        self.assertEqual(ref[0], dbl[0])
        # Text and JSON print the same doubles.
        text = quadx("-e", "eval 3 1.5").out
        self.assertIn(cpu["double"], text)

    def test_repeat_and_show_last(self):
        """`set repeat 3` gives "repeat":3; `show last` prints the run then 3 sample objects."""
        objs = self.run_json("set repeat 3; run cpu; show last")
        self.assertEqual(len(objs), 5, objs)
        run, again, samples = objs[0], objs[1], objs[2:]
        self.assertEqual(run["repeat"], 3)
        self.assertEqual(again, run, "show last repeats the run object")
        for i, s in enumerate(samples, 1):
            with self.subTest(sample=i):
                self.assertEqual(s.get("type"), "sample")
                self.assertEqual(s.get("index"), i)
                self.assertGreater(s["time_ms"]["total"], 0)

    def test_every_line_is_json(self):
        """A mixed session in JSON mode prints only JSON objects, one per line."""
        cmds = ("show; show params; show device; eval 3 1.5; eval 2 0; run cpu; errors 3; "
                "show last; set precision double; run cpu")
        for args, prefix in [(["--json"], ""), ([], "format json; ")]:
            with self.subTest(args=args):
                res = quadx(*args, "-e", prefix + cmds)
                self.assertOk(res)
                objs = json_lines(res)
                self.assertGreaterEqual(len(objs), 10)


# --------------------------------------------------------------------------------------------
# 4. CSV


class CsvTest(QuadxTestCase):
    """`format csv` prints a header once, then rows."""

    def rows(self, res):
        self.assertOk(res)
        return list(csv.reader(io.StringIO(res.out)))

    def test_header_once_then_rows(self):
        """Two runs: one header, two rows with as many columns as the header."""
        res = quadx("-e", "format csv; run cpu; run cpu")
        rows = self.rows(res)
        self.assertEqual(len(rows), 3, res)
        header = rows[0]
        for col in ("problem", "backend", "precision", "threads", "block", "variant",
                    "n", "m", "a", "b", "iters", "evals", "evals_per_s",
                    "max_rel", "mean_rel", "max_abs", "mean_abs", "over_threshold", "threshold"):
            self.assertIn(col, header)
        self.assertTrue(any("total" in c for c in header), header)
        self.assertEqual(rows.count(header), 1, "a second run prints no second header")
        for r in rows[1:]:
            self.assertEqual(len(r), len(header))
            d = dict(zip(header, r))
            self.assertEqual((d["problem"], d["backend"], d["precision"]), ("expint", "cpu", "float"))
            self.assertEqual((d["n"], d["m"], d["evals"]), ("10", "10", "100"))
            self.assertEqual(int(d["over_threshold"]), 0)
            self.assertLess(float(d["max_rel"]), 1e-5)
            self.assertGreater(float(d["evals_per_s"]), 0)

    def test_no_second_header_after_set(self):
        """A float run, a `set`, and a double run share one header."""
        rows = self.rows(quadx("-e", "format csv; run cpu; set precision double; run cpu"))
        self.assertEqual(len(rows), 3)
        self.assertEqual(rows.count(rows[0]), 1)
        d = dict(zip(rows[0], rows[2]))
        self.assertEqual(d["precision"], "double")

    def test_csv_from_stdin(self):
        """CSV output from a piped session parses with DictReader."""
        res = session("format csv\nset n 4 m 5\nrun cpu\n")
        self.assertOk(res)
        rows = list(csv.DictReader(io.StringIO(res.out)))
        self.assertEqual(len(rows), 1)
        self.assertEqual(rows[0]["evals"], "20")

    def test_eval_csv(self):
        """`eval` in CSV has a header with a value column and a row per backend and precision."""
        res = quadx("-e", "format csv; eval 3 1.5")
        rows = list(csv.DictReader(io.StringIO(res.out)))
        self.assertOk(res)
        cpu = {r["precision"]: float(r["value"]) for r in rows if r.get("backend") == "cpu"}
        self.assertEqual(set(cpu), {"double", "float"})
        self.assertLess(rel(cpu["float"], E3_15), 1e-6)


# --------------------------------------------------------------------------------------------
# 5. errors K


class ErrorsTest(QuadxTestCase):
    """`errors K` lists the K worst points of the last run."""

    def test_errors_json(self):
        """errors 4: 4 objects of type worst, ranks 1..4, sorted by rel_error descending."""
        objs = self.run_json("set precision float; run cpu; errors 4; errors 100")
        run = objs[0]
        errs = [o for o in objs[1:5]]
        allerrs = objs[5:]
        self.assertEqual(len(allerrs), 100, "errors 100 on a 10x10 grid lists every point")
        self.assertEqual([e["type"] for e in errs], ["worst"] * 4)
        self.assertEqual([e["rank"] for e in errs], [1, 2, 3, 4])
        for e in errs:
            self.assertTrue({"n", "x", "reference", "value", "rel_error"} <= set(e), e)
            self.assertIn(e["n"], range(1, 11))
            self.assertAlmostEqual(e["rel_error"], abs(e["reference"] - e["value"])
                                   / (abs(e["reference"]) + 1e-15), delta=1e-3 * e["rel_error"])
        rels = [e["rel_error"] for e in errs]
        self.assertEqual(rels, sorted(rels, reverse=True))
        self.assertEqual(rels[0], run["error"]["max_rel"])
        self.assertEqual(errs, allerrs[:4], "errors 4 are the top 4 of all points")
        self.assertEqual(max(e["rel_error"] for e in allerrs), rels[0])

    def test_errors_text(self):
        """errors 4 in text: 4 rows, relative error descending."""
        res = quadx("-e", "set precision float; run cpu; errors 4")
        self.assertOk(res)
        rows = [l for l in res.out_lines if re.match(r"^\s*\d+\s+n\s", l)]
        self.assertEqual(len(rows), 4, res)
        rels = [float(l.split()[-1]) for l in rows]
        self.assertEqual(rels, sorted(rels, reverse=True))
        self.assertEqual([int(l.split()[0]) for l in rows], [1, 2, 3, 4])

    def test_errors_after_reference_run(self):
        """errors after the reference run itself is one clear error."""
        res = session("set precision double\nrun cpu\nerrors 2\n")
        self.assertOneError(res, 3, pattern=r"reference itself \(cpu double\)")

    def test_page_gives_each_problems_fields_and_reference(self):
        """help errors names, per problem, the fields its errors records have, and says which
        runs have errors: after a CPU double run, expint's errors is an error (the run is the
        reference) and longman's lists points (the reference is the exact value)."""
        page = quadx("-e", "help errors").out
        for problem in ("expint", "longman"):
            with self.subTest(problem=problem):
                res = quadx("--json", "-e", "use %s; set precision double; set %s; run cpu; "
                            "errors 1" % (problem, "M 20" if problem == "longman" else "m 5"))
                para = re.search(r"\n    %s +(.*?)(?=\n    \w|\n\n)" % problem, page, re.S)
                self.assertIsNotNone(para, "help errors has no paragraph for " + problem)
                para = " ".join(para.group(1).split())
                if problem == "expint":
                    self.assertNotEqual(res.rc, 0, res)
                    self.assertIn("after a CPU double run of fast it is an error", para)
                    continue
                self.assertOk(res)
                rec = json_lines(res)[-1]
                self.assertEqual(rec["type"], "worst")
                coords = [k for k in rec if k not in
                          ("type", "rank", "reference", "value", "rel_error")]
                self.assertIn("a CPU double run included", para)
                self.assertIn("exact value", para)
                self.assertIn(", ".join(coords), " ".join(page.split()))

    def test_errors_bad_k(self):
        """errors 0 / -1 / abc name the bad K and the range."""
        for k in ("0", "-1", "abc"):
            with self.subTest(k=k):
                res = session("run cpu\nerrors %s\n" % k)
                self.assertOneError(res, 2, ["'%s'" % k], INT_RANGE)


# --------------------------------------------------------------------------------------------
# 6. Numbers


class NumbersTest(QuadxTestCase):
    """Accuracy of the CPU runs against the CPU double reference."""

    def error_of(self, cmds):
        runs = self.run_objects(self.run_json(cmds))
        self.assertEqual(len(runs), 1)
        return runs[0]

    def test_default_float(self):
        """Float CPU run on the default grid: max_rel < 1e-5, none over threshold."""
        err = self.error_of("set precision float; run cpu")["error"]
        self.assertLess(err["max_rel"], 1e-5)
        self.assertEqual(err["over_threshold"], 0)

    def test_300x300_float(self):
        """Float CPU run on n=300 m=300: max_rel < 1e-5."""
        o = self.error_of("set n 300 m 300 precision float; run cpu")
        self.assertEqual(o["evals"], 90000)
        self.assertLess(o["error"]["max_rel"], 1e-5)
        self.assertEqual(o["error"]["over_threshold"], 0)

    def test_threads_capped_by_the_host(self):
        """threads accepts up to 4 per processor of the host, and refuses more naming the
        bound (1024 threads on a small host only spin)."""
        cap = 4 * len(os.sched_getaffinity(0))
        ok = qxtest.commands(f"set threads {cap}; show params")
        self.assertEqual(ok.returncode, 0, ok.stderr)
        p = qxtest.commands(f"set threads {min(cap + 1, 1025)}")
        self.assertNotEqual(p.returncode, 0)
        self.assertIn(f"for threads: expected an integer in 1..{min(cap, 1024)}", p.stderr)

    def test_threads_float(self):
        """Float CPU run with 4 threads agrees with the reference like the serial one."""
        o = self.error_of("set n 300 m 300 threads 4; run cpu")
        self.assertEqual(o["threads"], 4)
        self.assertLess(o["error"]["max_rel"], 1e-5)

    def test_coursework_variant(self):
        """Variant coursework, cpu float and double, agrees with the reference."""
        o = self.error_of("set variant coursework precision float; run cpu")
        self.assertEqual(o["variant"], "coursework")
        self.assertLess(o["error"]["max_rel"], 1e-5)
        self.assertEqual(o["error"]["over_threshold"], 0)
        o = self.error_of("set variant coursework precision double; run cpu")
        self.assertLessEqual(o["error"]["max_rel"], 1e-12)

    def test_gsl_double(self):
        """`set precision double variant gsl; run cpu` works with error <= 1e-12."""
        o = self.error_of("set precision double variant gsl; run cpu")
        self.assertEqual(o["variant"], "gsl")
        self.assertLessEqual(o["error"]["max_rel"], 1e-12)

    def test_gsl_float_refused(self):
        """Variant gsl with precision float fails with a clear message."""
        res = session("set precision float variant gsl\nrun cpu\n")
        self.assertOneError(res, 2, ["gsl"], r"double")
        self.assertEqual(res.out, "")

    def test_gsl_large_n_no_inf_nan(self):
        """Variant gsl on n=300 m=300 never reports inf/NaN: right values or a clear error."""
        res = quadx("--json", "-e", "set n 300 m 300 precision double variant gsl; run cpu")
        self.assertNotRegex(res.out, r"(?i)\b(inf|infinity|nan|null)\b", res)
        if res.rc == 0:
            self.assertLessEqual(json_lines(res)[0]["error"]["max_rel"], 1e-12)
        else:
            self.assertOneError(res, (1, 2))

    def test_special_values(self):
        """x = 0 with n >= 2 gives 1/(n-1); n = 0 gives e^-x/x."""
        objs = self.run_json("eval 3 0; eval 0 2")
        vals = {(tuple(o["args"]), o["precision"]): o["value"] for o in objs
                if o.get("backend") == "cpu"}
        self.assertEqual(vals[((3, 0), "double")], 0.5)
        self.assertEqual(vals[((3, 0), "float")], 0.5)
        self.assertLess(rel(vals[((0, 2), "double")], math.exp(-2) / 2), 1e-15)
        self.assertLess(rel(vals[((0, 2), "float")], math.exp(-2) / 2), 1e-6)

    def test_eval_never_prints_inf_or_nan(self):
        """Evals whose float result overflows give finite values or a clear error, never inf/NaN:
        a row without a value says why (its status and note)."""
        for cmd in ("eval 0 1e-40", "eval 1 1e-300", "eval 0 1e-300"):
            with self.subTest(cmd=cmd):
                res = quadx("-e", cmd)
                self.assertNotRegex(res.out, r"(?i)\b(inf|nan)\b", res)
                if res.rc != 0:
                    self.assertEqual(len(res.err_lines), 1, res)
                res = quadx("--json", "-e", cmd)
                for o in json_lines(res):
                    if o.get("value") is None:
                        self.assertIn(o.get("status"), ("not representable", "unavailable"), o)
                        self.assertTrue(o.get("note"), o)

    def test_non_convergence_reported(self):
        """Non-convergence within iters is one clear error, never a silent result."""
        res = session("set iters 1\nrun cpu\n")
        self.assertOneError(res, 2, pattern=r"converge within iters = 1 iteration$")
        self.assertEqual(res.out, "")
        res = session("set iters 2\nrun cpu\n")
        self.assertOneError(res, 2, pattern=r"converge within iters = 2 iterations$")


# --------------------------------------------------------------------------------------------
# 7. No GPU


@unittest.skipUnless(os.path.exists(QUADX) and no_gpu(), "a GPU is present")
class NoGpuTest(QuadxTestCase):
    """Without a usable GPU, GPU commands fail with one clear line; the CPU still works."""

    def test_show_device(self):
        """`show device` says gpu none and why."""
        res = quadx("-e", "show device")
        self.assertOk(res)
        self.assertRegex(res.out, r"gpu\s+none")

    def test_run_gpu_fails(self):
        """`run gpu` fails with one line on stderr mentioning GPU."""
        res = quadx("-e", "run gpu")
        msg = self.assertOneError(res, 1)
        self.assertRegex(msg, r"GPU|gpu")
        self.assertEqual(res.out, "")

    def test_cpu_after_gpu_failure(self):
        """After a failed `run gpu`, `run cpu` works in --keep-going mode."""
        res = session("run gpu\nformat json\nrun cpu\n", "--keep-going")
        self.assertOneError(res, 1)
        objs = json_lines(res)
        self.assertEqual(len(objs), 1)
        self.assertEqual(objs[0]["backend"], "cpu")

    def test_eval_cpu_values(self):
        """`eval 3 1.5` still prints the CPU values and exits 0."""
        res = quadx("-e", "eval 3 1.5")
        self.assertEqual(res.rc, 0, res)
        self.assertEqual(res.err, "")
        self.assertRegex(res.out, r"cpu\s+double\s+0\.0567394901703")
        # float: E_3(1.5) = 0.0567394901703543 rounded to the nearest float
        self.assertRegex(res.out, r"cpu\s+float\s+0\.05673949047923")


class GpusSettingTest(QuadxTestCase):
    """`set gpus`: checked against the GPUs this host has when set, on any machine."""

    def test_more_gpus_than_exist(self):
        """More GPUs than the host shows: one error naming how many there are (or, without a
        GPU, why there is none), and gpus stays 1."""
        dev = device_info()
        have = dev.get("gpus", 0) if dev.get("gpu") != "none" else 0
        want = max(2, min(have + 1, 16))
        if want <= have:
            self.skipTest("this host has 16 GPUs: no count over them is a valid word")
        res = session(f"set gpus {want}\nformat json\nshow params\n", "--keep-going")
        msg = self.assertOneError(res, 1, [f"gpus {want} refused"])
        if have:
            self.assertIn(f"this host has {have} GPU", msg)
            self.assertIn(f"expected 1..{have} or all", msg)
        else:
            self.assertRegex(msg, r"no GPU to divide the work over \(.*(GPU|CUDA)")
        self.assertEqual(json_lines(res)[0]["gpus"], 1)

    def test_gpus_shown_and_word_kept(self):
        """gpus 1 is accepted everywhere and shown as a number; `all`, where it is accepted,
        is shown as the word."""
        self.assertEqual(self.run_json("set gpus 1; show params")[0]["gpus"], 1)
        if not no_gpu():
            self.assertEqual(self.run_json("set gpus all; show params")[0]["gpus"], "all")

    def test_help_gpus(self):
        """`help gpus` is the setting's paragraph: the default, why, and who divides work."""
        res = quadx("-e", "help gpus")
        self.assertOk(res)
        for words in ("default 1", "set gpus all", "longman", "slowest GPU"):
            self.assertIn(words, " ".join(res.out.split()))


# --------------------------------------------------------------------------------------------
# 8. Coursework flags


class CourseworkTest(QuadxTestCase):
    """The coursework's command-line flags do one run and exit."""

    def test_timing(self):
        """-n 20 -m 20 -t -g prints the coursework's cpu timing line."""
        res = quadx("-n", "20", "-m", "20", "-t", "-g")
        self.assertOk(res)
        self.assertRegex(res.out, r"calculating the exponentials on the cpu took: "
                                  r"[0-9.eE+-]+ seconds")

    def test_values(self):
        """-n 3 -m 2 -v -g prints 6 CPU==> lines with E_n(5) and E_n(10)."""
        res = quadx("-n", "3", "-m", "2", "-v", "-g")
        self.assertOk(res)
        lines = [l for l in res.out_lines if l.startswith("CPU==>")]
        self.assertEqual(len(lines), 6, res)
        want = {(1, 5.0): "0.001148", (1, 10.0): "0.000004", (2, 5.0): "0.000996",
                (2, 10.0): "0.000004", (3, 5.0): "0.000878", (3, 10.0): "0.000004"}
        got = {}
        for l in lines:
            m = re.search(r"Double \((\d+),([0-9.]+)\)=([0-9.]+) ,.*Float\s*\((\d+),([0-9.]+)\)=([0-9.]+)", l)
            self.assertIsNotNone(m, l)
            got[(int(m.group(1)), float(m.group(2)))] = m.group(3)
            self.assertEqual(m.group(3), m.group(6), l)
        self.assertEqual(got, want)

    def test_bad_flag_value(self):
        """-n abc fails with a clear error naming the value."""
        res = quadx("-n", "abc")
        self.assertNotEqual(res.rc, 0)
        self.assertEqual(res.out, "")
        self.assertGreaterEqual(len(res.err_lines), 1)
        self.assertIn("abc", res.err_lines[0])

    def test_usage(self):
        """-h prints the usage and exits 0."""
        res = quadx("-h")
        self.assertOk(res)
        self.assertRegex(res.out, r"(?i)usage")


# --------------------------------------------------------------------------------------------
# 9. help


def help_topics():
    """The commands, problems and other topics listed by `help`."""
    out = quadx("-e", "help").out_lines
    commands, problems, others = [], [], []
    in_commands = False
    for line in out:
        if line.startswith("Commands"):
            in_commands = True
            continue
        m = re.match(r"^(Problems|Other topics):\s*(.*)$", line)
        if m:
            words = [w for w in re.split(r"[\s,]+", m.group(2).strip()) if w]
            (problems if m.group(1) == "Problems" else others).extend(words)
            in_commands = False
            continue
        if in_commands:
            m = re.match(r"^\s+([a-z]+)\b", line)
            if m:
                commands.append(m.group(1))
            else:
                in_commands = False
    return commands, problems, others


def setting_names():
    """The settings: the names that `set` takes for every problem, after its parameters."""
    lists = []
    for problem in help_topics()[1]:
        err = quadx("-e", "use %s; set nosuch 1" % problem).err
        lists.append(re.search(r"names are (.*)$", err, re.M).group(1).split(", "))
    settings = []
    while all(len(l) > len(settings) for l in lists) and \
            len({l[-1 - len(settings)] for l in lists}) == 1:
        settings.insert(0, lists[0][-1 - len(settings)])
    return settings


def own_settings(problem):
    """The settings of problem's own: the entries of the Settings section of its page."""
    page = quadx("-e", "help " + problem).out
    m = re.search(r"(?m)^    Settings.*\n((?:(?:      .*)?\n)*)", page)
    return re.findall(r"(?m)^      (\w+)  ", m.group(1)) if m else []


class HelpTest(QuadxTestCase):
    """`help` lists the command table; `help TOPIC` shows a page (pages live in help/)."""

    def test_help_lists_every_command(self):
        """`help` lists every command of the spec's table and the problem expint."""
        res = quadx("-e", "help")
        self.assertOk(res)
        commands, problems, _ = help_topics()
        self.assertEqual(sorted(commands), sorted(SPEC_COMMANDS))
        self.assertIn("expint", problems)

    def test_help_page_for_each_topic(self):
        """`help NAME` prints a non-empty page for every listed command and problem."""
        commands, problems, _ = help_topics()
        self.assertTrue(commands and problems)
        for name in commands + problems:
            with self.subTest(topic=name):
                res = quadx("-e", "help " + name)
                self.assertOk(res)
                self.assertTrue(res.out.strip(), "empty help page for %s" % name)

    def test_help_page_for_other_topics(self):
        """`help NAME` also works for the "Other topics" that `help` lists."""
        for name in help_topics()[2]:
            with self.subTest(topic=name):
                res = quadx("-e", "help " + name)
                self.assertOk(res)
                self.assertTrue(res.out.strip(), "empty help page for %s" % name)

    def test_help_unknown_topic(self):
        """`help nosuch` is one clear error."""
        res = quadx("-e", "help nosuch")
        self.assertOneError(res, 1, ["'nosuch'"])

    def variants(self, problem):
        """The variants of problem and their one-line help, from `help variants`."""
        res = quadx("-e", "use %s; help variants" % problem)
        self.assertOk(res)
        return re.findall(r"^  (\S+)\s+(?:cpu\+gpu|cpu|gpu)\s*\n      (.+)$", res.out, re.M)

    def test_help_variant(self):
        """`help variant VARIANT`, and `help VARIANT` where VARIANT is no setting, work for
        every variant of every problem, from another problem where the name is that problem's
        own only (else from its own; help variant shows the current problem's): the variant's line of its
        problem's table and its paragraph of the problem's page. A variant named like a
        setting (block, streams): `help NAME` is the setting's, naming `help variant NAME`."""
        settings = setting_names()
        expint = [n for n, _ in self.variants("expint")]
        for problem in help_topics()[1]:
            own = own_settings(problem)
            names = self.variants(problem)
            self.assertTrue(names, problem)
            for name, first_line in names:
                with self.subTest(problem=problem, variant=name):
                    head = "%s - variant of %s (" % (name, problem)
                    # names are unique within a problem: from expint unless expint has one
                    use = "use %s; " % ("expint" if name not in expint else problem)
                    res = quadx("-e", use + "help variant " + name)
                    self.assertOk(res)
                    self.assertTrue(res.out.startswith(head), res.out[:200])
                    self.assertIn(first_line.strip(), res.out)
                    res = quadx("-e", use + "help " + name)
                    self.assertOk(res)
                    out = res.out
                    if name in settings or name in own:
                        self.assertTrue(out.startswith(name + " - a setting"), out[:200])
                        self.assertIn("help variant %s (the variant of %s)" % (name, problem),
                                      out)
                        continue
                    if name in help_topics()[2]:
                        # a topic of its own (coursework): the topic's page, then the variant's
                        self.assertTrue(out.startswith(name + " - "), out[:200])
                        self.assertIn("\n\n" + head, out)
                        out = out[out.index(head):]
                    self.assertTrue(out.startswith(head), out[:200])
                    self.assertIn(first_line.strip(), out)
                    page = out.split("DESCRIPTION (from help %s)\n" % problem)[1]
                    self.assertEqual(page.split()[0], name)
                    self.assertIn("\nSEE ALSO\n    help %s, help variants" % problem, res.out)

    def test_pages_name_every_setting_and_problem(self):
        """help, set and settings name every setting (use every shared one), help names every
        problem, and eval documents the arguments of every problem's eval."""
        names = {}
        for problem in help_topics()[1]:
            err = quadx("-e", "use %s; set nosuch 1" % problem).err
            names[problem] = re.search(r"names are (.*)$", err, re.M).group(1).split(", ")
        lists = list(names.values())
        settings = []
        while all(len(l) > len(settings) for l in lists) and \
                len({l[-1 - len(settings)] for l in lists}) == 1:
            settings.insert(0, lists[0][-1 - len(settings)])
        self.assertIn("block", settings)
        self.assertNotIn("streams", settings)  # expint's own setting, not a shared one
        pages = {t: quadx("-e", "help " + t).out for t in ("help", "set", "settings", "use",
                                                             "eval")}
        for topic in ("help", "set", "settings", "use"):
            for name in settings:
                if topic == "use" and name == "variant":
                    continue  # each problem keeps its own
                with self.subTest(page=topic, setting=name):
                    self.assertRegex(pages[topic], r"\b%s\b" % name)
        for problem in help_topics()[1]:
            with self.subTest(problem=problem):
                self.assertRegex(pages["help"], r"\b%s\b" % problem)
                err = quadx("-e", "use %s; eval" % problem).err
                usage = re.search(r"arguments: ?(.*)$", err, re.M).group(1).strip()
                self.assertIn("eval " + usage, pages["eval"])

    def test_sweep_page_names_the_best_rule(self):
        """help sweep describes the best row the way sweep_pick_best picks it."""
        self.assertIn("highest throughput", quadx("-e", "help sweep").out)


# --------------------------------------------------------------------------------------------
# 10. A newcomer's first commands: the command line, --json, help and eval


class CommandLineTest(QuadxTestCase):
    """Several -e and -f run in order; mixes that would be ignored are refused."""

    def test_every_e_runs_in_order(self):
        """-e 'show params' -e 'eval 2 0': both run, in order, not only the last."""
        res = quadx("--json", "-e", "show params", "-e", "eval 2 0")
        self.assertOk(res)
        self.assertEqual([o["type"] for o in json_lines(res)],
                         ["params", "eval", "eval", "eval", "eval"])

    def test_e_line_numbers_go_on_across_options(self):
        """Each ;-separated command of -e is a line (help scripts), counting on into the next
        -e."""
        res = quadx("-e", "set n 5; set m 0")
        self.assertOneError(res, 2, ["m"])
        self.assertRegex(res.err_lines[0], r"^quadx: command 2 of -e: bad value '0' for m")
        res = quadx("-e", "set n 5", "-e", "set m 6; set n 0")
        self.assertOneError(res, 3, ["n"])
        self.assertRegex(res.err_lines[0], r"^quadx: command 3 of -e: ")
        # a script from stdin keeps its lines: two commands on line 1, one on line 2
        res = session("set n 5; set m 6\nset n 0\n")
        self.assertEqual(len(res.err_lines), 1, res)
        self.assertRegex(res.err_lines[0], r"^quadx: line 2: bad value '0' for n")
        res = session("set n 5; set m 0\n")
        self.assertRegex(res.err_lines[0], r"^quadx: line 1: bad value '0' for m")
        self.assertIn("in -e 'set n 5; set m 0' the error is `quadx: command 2 of -e: ...`",
                      " ".join(quadx("-e", "help scripts").out.split()))

    def test_f_and_e_run_in_the_order_given(self):
        """-f then -e runs the file first, then the commands; the file's errors name it."""
        script = os.path.join(FIXTURES, "newcomer_setup.qx")
        res = quadx("--json", "-f", script, "-e", "show params")
        self.assertOk(res)
        params = json_lines(res)[-1]
        self.assertEqual((params["n"], params["m"]), (7, 8))
        res = quadx("-e", "set n 9", "-f", script, "-e", "show params")
        self.assertIn("m                8", res.out)
        res = quadx("-e", "show params", "-f", os.path.join(FIXTURES, "newcomer_bad.qx"))
        self.assertNotEqual(res.rc, 0)
        self.assertEqual(res.err_lines, ["quadx: %s: line 2: bad value '0' for n: expected an "
                                         "integer in 1..1000000"
                                         % os.path.join(FIXTURES, "newcomer_bad.qx")])

    def test_coursework_flags_refuse_what_they_would_ignore(self):
        """-e, -f and --json with the coursework flags, and -e with --tui: one line, exit 2,
        nothing run."""
        for args in (["-n", "10", "-e", "run cpu"], ["-n", "10", "-f", "x.qx"],
                     ["--json", "-n", "10", "-m", "10", "-g"], ["--tui", "-e", "quit"]):
            with self.subTest(args=args):
                res = quadx(*args)
                self.assertEqual(res.rc, 2, res)
                self.assertEqual(len(res.err_lines), 1, res)
                self.assertRegex(res.err, r"^quadx: .*(coursework|--tui)")
                self.assertEqual(res.out, "")


class JsonEverywhereTest(QuadxTestCase):
    """--json: every line on stdout is a JSON object, errors and help pages included."""

    def test_help_is_json(self):
        objs = self.run_json("help; help set")
        self.assertEqual([o["type"] for o in objs], ["help", "help"])
        self.assertIn("Commands", objs[0]["text"])
        self.assertEqual(objs[1]["topic"], "set")
        self.assertTrue(objs[1]["text"].startswith("set - "), objs[1])

    def test_errors_are_json_too(self):
        """An error is an object with "error" and "line" on stdout, besides stderr's line."""
        res = quadx("--json", "--keep-going", "-e", "show params; set n 0; help nosuch")
        self.assertEqual(res.rc, 1, res)
        objs = json_lines(res)
        errors = [o for o in objs if o["type"] == "error"]
        self.assertEqual([(e["command"], e["source"]) for e in errors], [(2, "-e"), (3, "-e")])
        self.assertNotIn("line", errors[0])
        self.assertEqual(["quadx: command %d of -e: %s" % (e["command"], e["error"])
                          for e in errors], res.err_lines)
        res = session("show params\nset n 0; help nosuch\n", "--json", "--keep-going")
        errors = [o for o in json_lines(res) if o["type"] == "error"]
        self.assertEqual([e["line"] for e in errors], [2])
        self.assertEqual(["quadx: line %d: %s" % (e["line"], e["error"]) for e in errors],
                         res.err_lines)

    def test_a_whole_session_is_json(self):
        """Every command's output in a JSON script parses, the GPU row of eval too."""
        res = quadx("--json", "--keep-going", "-e",
                    "set n 20 m 20 repeat 1 warmup 0; run cpu; show last; errors 2; "
                    "sweep threads 1,2 on cpu; help; help block; help variant block; eval 3 1.5; "
                    "eval 1 1e-300; show device; use longman; eval 0.7 2.5; run gpu; set x 1")
        objs = json_lines(res)
        self.assertEqual(sum(o["type"] == "help" for o in objs), 3)
        # one error object per error line of stderr (its other lines are sweep progress);
        # the worst points of `errors` are of their own type
        self.assertEqual(sum(o["type"] == "error" for o in objs),
                         sum(bool(ERROR_RE.match(line)) for line in res.err_lines))
        self.assertEqual(sum(o["type"] == "worst" for o in objs), 2)


class ValuesTest(QuadxTestCase):
    """`values` lists what a run of many values computed; `export values` writes them all."""

    def test_values_json_and_text(self):
        """values 3 1: indices 1..3 with their coordinates, value and reference, in order; the
        text rows name them too; a FIRST past the run is one error naming the range."""
        objs = self.run_json("set n 2 m 3 precision float; run cpu; values 3 1")
        vals = [o for o in objs if o["type"] == "value"]
        self.assertEqual([v["index"] for v in vals], [1, 2, 3])
        for v in vals:
            self.assertEqual(set(v), {"type", "index", "n", "x", "value", "reference"}, v)
            self.assertAlmostEqual(v["value"], v["reference"], delta=1e-6 * abs(v["reference"]))
        self.assertEqual((vals[0]["n"], vals[2]["n"]), (1, 2))
        res = quadx("-e", "set n 2 m 3; run cpu; values 2")
        self.assertOk(res)
        self.assertRegex(res.out, r"(?m)^  index 0  n 1  x [0-9.]+  value [0-9.e+-]+  "
                                  r"reference [0-9.e+-]+\n  index 1 ")
        res = quadx("-e", "set n 2 m 3; run cpu; values 1 6")
        self.assertOneError(res, line=3, words=("FIRST 6", "0..5"))

    def test_export_values(self):
        """export values FILE.csv and FILE.json hold every value of the last run."""
        with tempfile.TemporaryDirectory() as d:
            res = quadx("-e", "set n 3 m 4; run cpu; export values %s/v.csv; "
                        "export values %s/v.json" % (d, d))
            self.assertOk(res)
            with open(os.path.join(d, "v.csv")) as f:
                rows = list(csv.DictReader(f))
            with open(os.path.join(d, "v.json")) as f:
                doc = json.load(f)
        self.assertEqual(len(rows), 12)
        self.assertEqual(len(doc["values"]), 12)
        self.assertEqual(doc["quadx_export"], "values")
        for r, v in zip(rows, doc["values"]):  # cJSON may print the last bit differently
            self.assertEqual(int(r["index"]), v["index"])
            self.assertAlmostEqual(float(r["value"]), v["value"], delta=4e-16 * abs(v["value"]))


class ExportDeviceTest(QuadxTestCase):
    """`export` to a device (/dev/stdout) writes it directly, whatever its name."""

    def test_export_to_stdout(self):
        """Text format: the CSV of the runs on stdout, then `wrote /dev/stdout`; --json: each
        export one JSON line among the others, so stdout stays JSON Lines."""
        res = quadx("-e", "set n 2 m 2 repeat 1; run cpu; export /dev/stdout")
        self.assertOk(res)
        rows = list(csv.DictReader(io.StringIO(res.out[res.out.index("type,problem"):]
                                               .replace("wrote /dev/stdout\n", ""))))
        self.assertEqual([r["problem"] for r in rows], ["expint"])
        self.assertTrue(res.out.endswith("wrote /dev/stdout\n"), res.out)
        res = quadx("--json", "-e", "set n 2 m 2 repeat 1; run cpu; export values /dev/stdout; "
                    "export /dev/stdout")
        self.assertOk(res)
        objs = json_lines(res)
        self.assertEqual([o.get("type") or o["quadx_export"] for o in objs],
                         ["run", "values", "runs"])
        self.assertEqual(len(objs[1]["values"]), 4)


class HelpPrecedenceTest(QuadxTestCase):
    def test_help_block_is_the_setting(self):
        """help block: the block-size setting (not longman's variant), pointing to
        `help variant block`, which shows the variant."""
        res = quadx("-e", "help block")
        self.assertOk(res)
        self.assertTrue(res.out.startswith("block - a setting"), res.out[:200])
        self.assertIn("GPU threads per block", res.out)
        self.assertIn("help variant block", res.out)
        self.assertNotIn("- variant of longman", res.out)
        res = quadx("-e", "help variant block")
        self.assertOk(res)
        self.assertTrue(res.out.startswith("block - variant of longman (gpu only)"), res.out)

    def test_every_setting_has_its_page(self):
        for name in setting_names():
            with self.subTest(setting=name):
                res = quadx("-e", "help " + name)
                self.assertOk(res)
                self.assertTrue(res.out.startswith(name + " - a setting"), res.out[:100])

    def test_own_settings_on_the_problems_page(self):
        """A problem's own setting (expint's streams) is on its page, not among the shared
        ones of help settings; `help NAME` shows that paragraph from any problem, pointing to
        the variant of the same name; every own setting on a page is one `set` takes."""
        self.assertEqual(own_settings("expint"), ["streams"])
        settings = quadx("-e", "help settings").out
        self.assertNotRegex(settings, r"(?m)^    streams  ")
        self.assertIn("expint's streams (help expint, help streams)", settings)
        for current, usage in (("expint", "set streams VALUE"),
                               ("longman", "use expint; set streams VALUE")):
            with self.subTest(current=current):
                res = quadx("-e", "use %s; help streams" % current)
                self.assertOk(res)
                self.assertTrue(res.out.startswith(
                    "streams - a setting of expint (from help expint)\n\n"
                    "      streams  CUDA streams of the chunked GPU variants"), res.out[:200])
                self.assertIn("USAGE\n    %s\n" % usage, res.out)
                self.assertIn("help expint, help set, help variant streams (the variant of "
                              "expint)", res.out)
                self.assertNotIn("Algorithms", res.out)  # the paragraph only
        for problem in help_topics()[1]:
            names = quadx("-e", "use %s; set nosuch 1" % problem).err
            for name in own_settings(problem):
                with self.subTest(problem=problem, setting=name):
                    self.assertRegex(names, r"names are .*\b%s\b" % name)
                    self.assertNotIn(name, setting_names())

    def test_bad_help_variant(self):
        self.assertOneError(quadx("-e", "help variant nosuch"), 1, ["nosuch", "help variants"])
        self.assertOneError(quadx("-e", "help set run"), 1, ["variant NAME"])


class EvalRepresentableTest(QuadxTestCase):
    """eval never fails because one precision cannot represent an argument or the result:
    that row says `not representable` and why; underflow and out-of-range alike."""

    def test_underflow_and_out_of_range_alike(self):
        for cmd, note in (("eval 5 700", "E_5(700) underflows float"),
                          ("eval 1 1e-300", "X = 1e-300 is outside the range of float"),
                          ("eval 0 1e-39", "overflows float")):
            with self.subTest(cmd=cmd):
                res = quadx("-e", cmd)
                self.assertOk(res)
                rows = [l for l in res.out_lines if " cpu " in l]
                self.assertEqual(len(rows), 2, res)
                self.assertRegex(rows[0], r"cpu double  \d")
                self.assertRegex(rows[1], r"cpu float   not representable: ")
                self.assertIn(note, rows[1])

    def test_double_underflow_is_a_row_too(self):
        res = quadx("--json", "-e", "eval 5 800; eval 3 1.5")
        self.assertOk(res)
        rows = [o for o in json_lines(res) if o["backend"] == "cpu"]
        self.assertEqual([(o["precision"], o.get("status")) for o in rows[:2]],
                         [("double", "not representable"), ("float", "not representable")])
        self.assertIn("underflows double", rows[0]["note"])
        self.assertLess(rel(rows[2]["value"], E3_15), 1e-14)  # the next eval ran

    def test_csv_row(self):
        res = quadx("-e", "format csv; eval 5 700")
        self.assertOk(res)
        self.assertIn("eval,expint,5 700,cpu,float,,not representable,"
                      "E_5(700) underflows float (smallest 1.4013e-45)", res.out_lines)


def setUpModule():
    if not os.access(QUADX, os.X_OK):
        raise RuntimeError("%s not found: run `make` first" % QUADX)



class PipedProgressTest(QuadxTestCase):
    def test_no_progress_line_in_a_pipe(self):
        """A run of over a second piped through stdin prints no progress line or estimate:
        they are for a terminal only (stderr a tty); stdout has the result alone."""
        res = session("use longman\nset M 300000 warmup 1 repeat 1\nrun cpu\n")
        self.assertOk(res)
        self.assertNotIn("values/s", res.out)
        self.assertNotIn("Ctrl-C", res.out)
        self.assertTrue(res.out.startswith("cpu longman"), res)


class ConditionTest(QuadxTestCase):
    def test_default_longman_run_says_why_float_is_off(self):
        """`use longman; run cpu`, the first thing a teacher runs: the values over the
        threshold are float's rounding times their condition, and the output says so."""
        res = quadx("-e", "use longman; set M 5000; run cpu")
        self.assertOk(res)
        flat = re.sub(r"\n +", " ", res.out)  # the rows of a wrapped line joined
        over = int(re.search(r"over 1e-05: (\d+) of 5000", flat).group(1))
        self.assertGreater(over, 0, res)
        self.assertRegex(flat, r"condition  all %d over 1e-05 are within float rounding x "
                                  r"their condition: the terms summed are up to [0-9.e+]+ "
                                  r"times larger" % over)
        err = [o for o in self.run_json("use longman; set M 5000; run cpu")
               if o.get("type") == "run"][0]["error"]
        self.assertEqual(err["over_within_rounding"], err["over_threshold"])
        self.assertGreater(err["condition_max"], 1e3)

    def test_truncation_is_not_called_rounding(self):
        """Errors of a method cut short (N 2, direct) are not rounding: they stay flagged."""
        res = quadx("-e", "use longman; set M 2000 N 2 method direct precision double; run cpu")
        self.assertOk(res)
        self.assertRegex(re.sub(r"\n +", " ", res.out),
                         r"condition  0 of the 2000 over 1e-05 are within double "
                                  r"rounding x their condition; 2000 are not")


class WidthTest(QuadxTestCase):
    def test_run_lines_fit_80_columns(self):
        """Run lines fit 80 columns (stdout no terminal), broken between items or words,
        never inside one: joined again they give the parameters whole."""
        res = quadx("-e", "use longman; set M 3000; run cpu; set precision double; run cpu")
        self.assertOk(res)
        self.assertEqual([l for l in res.out_lines if len(l) > 80], [], res.out)
        words = " ".join(res.out.split())
        self.assertIn("cpu longman M=3000 N=16 g=10 lambda=0.05:0.5 omega=5:15 spread=grid "
                      "seed=1 a=0 integrand=cos method=auto math=precise lanes=0 float "
                      "variant packed threads 1", words)
        self.assertRegex(words, r"max_rel \S+ mean_rel \S+ max_abs \S+ mean_abs \S+ over "
                                r"1e-05: 0 of 3000 vs exact values")

    def test_cpu_sweep_table_has_no_empty_columns(self):
        """A CPU sweep's table leaves out the GPU's columns, which are all '-' there, and fits
        80 columns."""
        res = quadx("-e", "use longman; set M 500 repeat 1 warmup 0; sweep N 4,8 on cpu")
        self.assertEqual(res.rc, 0, res)
        header = [l for l in res.out_lines if " on " in l and "total ms" in l]
        self.assertEqual(len(header), 1, res.out)
        for column in ("kernel", "d2h", "regs", "blk/SM", "occ", "auto", "speedup"):
            self.assertNotIn(column, header[0].split())
        self.assertEqual(header[0].split(), ["N", "on", "total", "ms", "min", "max",
                                             "integrals/s", "max_rel"])
        self.assertEqual([l for l in res.out_lines if len(l) > 80], [], res.out)

    def test_sweep_throughput_is_the_problems_work_unit(self):
        """A sweep's throughput is the problem's work per second (kde: pairs, n x m per run),
        in the table's column named after the unit and in the JSON rows, beside the values
        per second."""
        res = quadx("--json", "-e", "use kde; set n 2000 at grid G 100 repeat 1 warmup 0; "
                                    "sweep threads 1,2 on cpu")
        self.assertEqual(res.rc, 0, res)
        rows = [json.loads(l) for l in res.out_lines]
        rows = [r for r in rows if "work_per_s" in r and "config" in json.dumps(r)]
        self.assertEqual(len(rows), 2, res.out)
        for r in rows:
            self.assertEqual(r["work_unit"], "pairs")
            total_s = r["time_ms"]["total"] * 1e-3
            self.assertAlmostEqual(r["work_per_s"] * total_s / (2000 * 100), 1, places=6)
            self.assertAlmostEqual(r["evals_per_s"] * total_s / 100, 1, places=6)
        res = quadx("-e", "use kde; set n 2000 at grid G 100 repeat 1 warmup 0; "
                          "sweep threads 1,2 on cpu")
        self.assertEqual(res.rc, 0, res)
        header = [l for l in res.out_lines if " on " in l and "total ms" in l]
        self.assertEqual(len(header), 1, res.out)
        self.assertIn("pairs/s", header[0].split())

    def test_size_sweep_names_no_best(self):
        """A sweep over an axis that changes the problem's size (its count of values, from
        the problem's table: n, m, M) marks no row best: it compares sizes, not settings."""
        for cmds, axis in (("set m 20 repeat 1 warmup 0; sweep n 10,20 on cpu", "n"),
                           ("use longman; set repeat 1 warmup 0; sweep M 100,200 on cpu", "M")):
            with self.subTest(axis=axis):
                res = quadx("-e", cmds)
                self.assertEqual(res.rc, 0, res)
                self.assertIn("best: none: %s sets the problem's size" % axis, res.out)
                self.assertNotRegex(res.out, r"(?m)^\* ")
        res = quadx("-e", "use longman; set M 200 repeat 1 warmup 0; sweep N 4,8 on cpu")
        self.assertRegex(res.out, r"\nbest: N=[48] on cpu")  # N changes work, not size

class SmallDefectsTest(unittest.TestCase):
    """A range an error states is the range that is checked (rel is in (0, 1)), and -0 is
    shown as 0."""

    def test_rel_range_as_said(self):
        """rel is in (0, 1): a bad word and 1 itself get the same error, which says so."""
        for word in ("zzz", "1"):
            p = qxtest.commands(f"use cubature; set rel {word}")
            self.assertEqual(p.returncode, 1)
            self.assertIn(f"bad value '{word}' for rel: expected a number in (0, 1)\n",
                          p.stderr)

    def test_minus_zero_is_zero(self):
        p = qxtest.commands("use kde; set seed -0; use longman; set a -0; show params; "
                            "use kde; show params", "--json")
        params = [o for o in qxtest.json_lines(p.stdout) if o.get("type") == "params"]
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(len(params), 2, p.stdout)
        self.assertIn('"a":0,', p.stdout)
        self.assertIn('"seed":0,', p.stdout)
        text = qxtest.commands("use kde; set seed -0; show params").stdout
        self.assertRegex(text, r"(?m)^  seed +0$")


class RefusedRunTest(unittest.TestCase):
    """A run that fails keeps the last good result: `show last` and `errors` still show it."""

    def test_refused_run_keeps_the_last(self):
        rc, objs, err = qxtest.json_commands(
            "use longman; set M 1000 repeat 1 warmup 0 integrand j0; run cpu; "
            "set precision double variant qawf; run cpu")
        self.assertNotEqual(rc, 0)
        self.assertIn("variant qawf does not apply to integrand j0", err)
        p = qxtest.run(["--json", "--keep-going", "-e",
                        "use longman; set M 1000 repeat 1 warmup 0 integrand j0; run cpu; "
                        "set precision double variant qawf; run cpu; show last; errors 2"])
        objs = qxtest.json_lines(p.stdout)
        runs = [o for o in objs if o.get("type") == "run"]
        self.assertEqual(len(runs), 2, p.stdout)  # the run, then show last
        self.assertEqual(runs[1]["precision"], "float")
        self.assertEqual(runs[0]["error"], runs[1]["error"])
        self.assertEqual(p.stderr.count("quadx:"), 1, p.stderr)  # only the refused run
        self.assertEqual(len([o for o in objs if "rank" in o]), 2, p.stdout)


class ParamTextTest(QuadxTestCase):
    """The texts of parameter values (integrands, data file names) are the session's own: any
    number of distinct ones in one process, each kept intact for the values that hold it."""

    def test_more_than_512_distinct_integrands(self):
        """600 distinct cubature integrands set one after the other, none refused; the last
        evaluates as itself, and the first, set again, too."""
        lines = ["use cubature", "set dim 1"]
        lines += ["set integrand x+%d" % i for i in range(1, 601)]
        lines += ["eval 0.25", "show params", "set integrand x+1", "eval 0.25"]
        res = session("\n".join(lines) + "\n", "--json")
        self.assertOk(res)
        objs = json_lines(res)
        evals = [o["value"] for o in objs if o.get("type") == "eval" and
                 o["backend"] == "cpu" and o["precision"] == "double"]
        self.assertEqual(evals, [600.25, 1.25], res.out)
        shown = [o for o in objs if o.get("type") == "params"]
        self.assertEqual(len(shown), 1, res.out)
        self.assertEqual(shown[0]["integrand"], "x+600", res.out)

    def test_a_run_keeps_its_data_file_name(self):
        """A run's data file name is still its own after 300 other names were set: the export
        names the file the run read."""
        with tempfile.TemporaryDirectory() as tmp:
            data = os.path.join(tmp, "data.csv")
            with open(data, "w") as f:
                f.write("".join("%g\n" % math.sin(i) for i in range(50)))
            names = [os.path.join(tmp, "link%d.csv" % i) for i in range(300)]
            for name in names:
                os.symlink(data, name)
            out = os.path.join(tmp, "runs.json")
            lines = ["use kde", "set repeat 1 warmup 0", "set data " + names[0], "run cpu"]
            lines += ["set data " + name for name in names[1:]]
            lines += ["run cpu", "export " + out]
            res = session("\n".join(lines) + "\n")
            self.assertEqual(res.rc, 0, res)
            with open(out) as f:
                runs = json.load(f)["runs"]
            self.assertEqual([r["params"]["data"] for r in runs], [names[0], names[-1]])


class Utf8Test(unittest.TestCase):
    """Every --json line, and an exported JSON file, is valid JSON in UTF-8 whatever bytes the
    input holds: a byte outside well-formed UTF-8 is written as the text \\xHH."""

    def test_invalid_bytes_are_escaped(self):
        text = (b"use \xff\xfe\nuse caf\xc3\xa9\nuse \xc0\x80\nuse \xed\xa0\x80\n"
                b"use \xf4\x90\x80\x80\nuse \xe2\x82\n")
        p = subprocess.run([QUADX, "--json", "--keep-going"], input=text, capture_output=True,
                           timeout=qxtest.TIMEOUT)
        errors = [json.loads(line.decode("utf-8", errors="strict"))["error"]
                  for line in p.stdout.splitlines()]
        self.assertEqual(len(errors), 6, p.stdout)
        self.assertIn("'\\xFF\\xFE'", errors[0])
        self.assertIn("'caf\u00e9'", errors[1])  # well-formed UTF-8 is kept as it is
        for err, raw in zip(errors[2:], ("\\xC0\\x80", "\\xED\\xA0\\x80",
                                         "\\xF4\\x90\\x80\\x80", "\\xE2\\x82")):
            self.assertIn(raw, err)

    def test_export_json_is_utf8(self):
        """A data file whose name is not UTF-8: the export's JSON still is."""
        with tempfile.TemporaryDirectory() as tmp:
            data = os.path.join(os.fsencode(tmp), b"\xff.csv")
            with open(data, "w") as f:
                f.write("".join(f"{i / 10}\n" for i in range(100)))
            out = os.path.join(tmp, "runs.json").encode()
            p = subprocess.run([os.fsencode(QUADX), b"-e", b"use kde; set data " + data +
                                b" repeat 1 warmup 0; run cpu; export " + out],
                               capture_output=True, timeout=qxtest.TIMEOUT)
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(out, "rb") as f:
                doc = json.loads(f.read().decode("utf-8", errors="strict"))
            self.assertIn("\\xFF.csv", json.dumps(doc))


class OutputErrorTest(unittest.TestCase):
    """A write to standard output that fails (a full disk, a closed descriptor) ends quadx
    with one message naming standard output and status 1, never a silent exit 0."""

    def check_failed(self, p):
        self.assertEqual(p.returncode, 1, p.stderr)
        lines = p.stderr.splitlines()
        self.assertEqual(len(lines), 1, p.stderr)
        self.assertIn("cannot write to standard output", lines[0])

    def test_full_device(self):
        with open("/dev/full", "w") as full:
            for args in (["--json", "-e", "show device"], ["-e", "show params; help"],
                         ["--version"]):
                self.check_failed(subprocess.run([QUADX, *args], stdout=full,
                                                 stderr=subprocess.PIPE, text=True,
                                                 timeout=qxtest.TIMEOUT))

    def test_script_stops_at_the_first_lost_output(self):
        """A script writing to a full device stops there, with no error per later line."""
        with open("/dev/full", "w") as full:
            p = subprocess.run([QUADX, "--json", "--keep-going"],
                               input="help\n" * 200 + "bogus\n", stdout=full,
                               stderr=subprocess.PIPE, text=True,
                               timeout=qxtest.TIMEOUT)
        self.check_failed(p)

    @unittest.skipIf(os.environ.get("QUADX_VG"),
                     "under valgrind the closed descriptor becomes valgrind's own log file")
    def test_closed_stdout(self):
        """quadx started with its standard output closed fails with one message."""
        self.check_failed(subprocess.run([QUADX, "-e", "show params"], stdout=None,
                                         stderr=subprocess.PIPE, text=True,
                                         timeout=qxtest.TIMEOUT,
                                         preexec_fn=lambda: os.close(1)))


if __name__ == "__main__":
    unittest.main(verbosity=2)
