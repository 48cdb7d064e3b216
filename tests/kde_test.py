#!/usr/bin/env python3
"""Problem kde on the CPU, end to end: runs, the reference and its kind, eval against
an independent sum in Python, data files and their errors, refusals that leave the session
unchanged, the binned variant's error, and sweeps.

Run from the repository root after `make`:  python3 tests/kde_test.py
QUADX names the binary (default ./quadx). Standard library only; no timing is asserted.
"""

import math
import os
import shutil
import statistics
import tempfile
import unittest

import qxtest


def session(cmds, *args):
    """Runs quadx --json -e "use kde; CMDS"; returns (rc, JSON objects of stdout, stderr)."""
    p = qxtest.commands("use kde; " + cmds, "--json", *args)
    return p.returncode, qxtest.json_lines(p.stdout), p.stderr


def ok(test, cmds):
    """The JSON objects of a session that must succeed."""
    rc, objs, err = session(cmds)
    test.assertEqual((rc, err), (0, ""), cmds)
    return objs


def runs(objs):
    """The run results among objs."""
    return [o for o in objs if o.get("type") == "run"]


def density(samples, h, x):
    """The Gaussian KDE of 1-D samples with bandwidth h at x, summed in Python (math.fsum)."""
    return math.fsum(math.exp(-0.5 * ((x - s) / h) ** 2) for s in samples) / (
        len(samples) * h * math.sqrt(2 * math.pi))


def silverman(samples):
    """Silverman's rule (1-D): 0.9 min(sigma, IQR / 1.34) n^(-1/5), quartiles of type 7."""
    q = statistics.quantiles(samples, n=4, method="inclusive")
    return 0.9 * min(statistics.stdev(samples), (q[2] - q[0]) / 1.34) * len(samples) ** -0.2


class KdeTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def file(self, name, text):
        """Writes text into name in the test's directory; returns the path."""
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_run_counts_pairs_against_the_full_reference(self):
        """A float run at the samples: n outputs, n^2 pairs, its error against the double sum
        at every output, small; the CPU double run is the reference itself."""
        objs = runs(ok(self, "set n 3000 repeat 1 warmup 0; run cpu; set precision double; "
                             "run cpu"))
        f, d = objs
        self.assertEqual(f["evals"], 3000)
        self.assertEqual(f["work"], 3000 * 3000)
        self.assertEqual(f["against"], "cpu double sum at every output")
        self.assertEqual(f["compared"], 3000)
        self.assertLess(f["error"]["max_rel"], 1e-5)
        self.assertGreater(f["error"]["max_rel"], 0)
        self.assertTrue(d["reference"])
        self.assertNotIn("error", d)

    def test_large_runs_compare_an_exact_sample(self):
        """Past 2^30 pairs the reference is the double sum at an even sample of 2^30 / n
        outputs, and the result says so."""
        objs = runs(ok(self, "set n 1048576 at grid G 2048 variant binned repeat 1 warmup 0; "
                             "run cpu"))
        r = objs[0]
        self.assertEqual(r["against"], "cpu double sum at an exact sample of outputs")
        self.assertEqual(r["compared"], 1024)
        self.assertLess(r["error"]["max_rel"], 1e-1)

    def test_binned_error_is_shown(self):
        """The binned approximation at the grid: an error clearly above float rounding and
        clearly below the density's scale, in float and double."""
        for prec in ("float", "double"):
            e = runs(ok(self, f"set n 20000 at grid G 4096 variant binned precision {prec} "
                              "repeat 1 warmup 0; run cpu"))[0]["error"]
            self.assertGreater(e["max_abs"], 1e-9, prec)
            self.assertLess(e["max_abs"], 1e-3, prec)

    def test_eval_matches_an_independent_sum(self):
        """eval X on a data file: the density summed in Python, with h a number and with
        Silverman's rule computed here; float within float rounding."""
        xs = [0.5 * math.sin(3.1 * k) + 0.01 * k for k in range(200)]
        path = self.file("s.txt", "# samples\n" + "\n".join(repr(x) for x in xs) + "\n")
        for h, hv in (("0.25", 0.25), ("silverman", silverman(xs))):
            objs = ok(self, f"set data {path} h {h}; eval 0.3")
            by = {(o["backend"], o["precision"]): o for o in objs if o.get("type") == "eval"}
            want = density(xs, hv, 0.3)
            self.assertAlmostEqual(by[("cpu", "double")]["value"] / want, 1, delta=1e-13)
            self.assertAlmostEqual(by[("cpu", "float")]["value"] / want, 1, delta=1e-6)
            self.assertAlmostEqual(by[("cpu", "double")]["h"] / hv, 1, delta=1e-12)
            self.assertEqual(by[("cpu", "double")]["exact"], by[("cpu", "double")]["value"])

    def test_eval_in_two_dimensions(self):
        """eval X Y at dim 2 (CSV columns 2 and 3, a header) is the product kernel's sum; one
        coordinate is an error naming what dim 2 takes."""
        pts = [(math.cos(k), math.sin(2 * k)) for k in range(50)]
        path = self.file("p.csv", "id,a,b\n" + "".join(f"{k},{a!r},{b!r}\n"
                                                       for k, (a, b) in enumerate(pts)))
        objs = ok(self, f"set data {path} column 2 dim 2 h 0.5; eval 0.1 -0.2")
        v = [o for o in objs if o.get("type") == "eval"][0]["value"]
        want = math.fsum(math.exp(-0.5 * (((0.1 - a) / 0.5) ** 2 + ((-0.2 - b) / 0.5) ** 2))
                         for a, b in pts) / (50 * 0.25 * 2 * math.pi)
        self.assertAlmostEqual(v / want, 1, delta=1e-13)
        rc, _, err = session(f"set data {path} column 2 dim 2; eval 0.1")
        self.assertEqual(rc, 1)
        self.assertIn("eval for kde at dim 2 takes 2 coordinates (X Y), got 1", err)

    def test_data_file_run(self):
        """A data file sets the samples and their count; the run's error is shown."""
        path = self.file("d.csv", "x,y\n" + "".join(f"{k % 7},{k * 0.37 % 5}\n"
                                                    for k in range(300)))
        r = runs(ok(self, f"set data {path} column 2 repeat 1 warmup 0; run cpu"))[0]
        self.assertEqual(r["evals"], 300)
        self.assertEqual(r["params"]["data"], path)
        self.assertLess(r["error"]["max_rel"], 1e-5)

    def test_data_auto_column_skips_row_ids(self):
        """By default (column auto) a CSV's id column is not read as the samples: neither one
        named id in the header nor an unnamed column of the row numbers 1..n; the run names
        the column read and says auto chose it; `set column 1` reads the ids, as asked, with
        no note; a file of ids only is one error saying to set column."""
        rows = "".join(f"{k + 1},{k * 0.37 % 5},{k % 3}\n" for k in range(300))
        named, bare = self.file("n.csv", "id,x,c\n" + rows), self.file("b.csv", rows)
        for path in (named, bare):
            r = runs(ok(self, f"set data {path} repeat 1 warmup 0; run cpu"))[0]
            self.assertEqual(r["params"]["column"], "auto")
            self.assertEqual(r["error"]["column"], 2, path)
            self.assertIn("chosen by column auto", r["note"])
            self.assertLess(r["error"]["h"], 1, path)  # x's spread: about 1.4; the ids': 87
        r = runs(ok(self, f"set data {named} column 1 repeat 1 warmup 0; run cpu"))[0]
        self.assertEqual(r["error"]["column"], 1)
        self.assertNotIn("note", r)
        self.assertGreater(r["error"]["h"], 10)
        p = qxtest.commands(f"use kde; set data {named} repeat 1 warmup 0 dim 2; run cpu")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stdout, r"(?m)^cpu kde  data=\S+n\.csv column=auto ")
        self.assertRegex(p.stdout, r"samples 300  column 2\b")
        self.assertIn("note       data column chosen by column auto", p.stdout)
        ids = self.file("ids.csv", "id,row\n" + "".join(f"{k},{k}\n" for k in range(1, 9)))
        rc, _, err = session(f"set data {ids}")
        self.assertEqual(rc, 1)
        self.assertIn(f"{ids}: column auto: no 1 column without a row id", err)
        self.assertIn("set column N", err)
        rc, _, err = session("set column 1.5")
        self.assertEqual(rc, 1)
        self.assertIn("column 1.5: expected a column number 1..64 or auto", err)

    def test_data_file_says_what_is_used(self):
        """With a data file, n, dist and seed draw nothing: show params and the run's header
        leave them out (no `n=4000 dist=normal seed=1` beside the file), and setting one is one
        error saying why; `set data none` brings them back."""
        path = self.file("u.csv", "".join(f"{k * 0.37 % 5}\n" for k in range(50)))
        p = qxtest.commands(f"use kde; set data {path} repeat 1 warmup 0; show params; run cpu")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotRegex(p.stdout, r"(?m)^  (n|dist|seed) ")
        self.assertRegex(p.stdout, r"(?m)^cpu kde  data=\S+u\.csv column=auto ")
        self.assertNotRegex(p.stdout, r"\b(n|dist|seed)=")
        self.assertIn("samples 50", p.stdout)
        for name, value in (("n", "100"), ("dist", "uniform"), ("seed", "3")):
            rc, _, err = session(f"set data {path}; set {name} {value}")
            self.assertEqual(rc, 1)
            self.assertRegex(err, rf"^quadx: command 3 of -e: set: {name} has no effect: the samples "
                                  r"are the data file's \(set data none")
        ok(self, f"set data {path}; set data none n 100; show params")

    def test_json_chart(self):
        """--json: a 1-D run has the chart the dashboard draws. Its bars are the samples'
        histogram (ceil(sqrt(n)) bins over their range) as a density; its line is, at the grid,
        the grid's points and the density there (an independent sum), and at the samples the
        mean x and mean density of the samples in each of 256 bins over their range. A 2-D run
        has no chart."""
        xs = [round((k * 0.6180339887) % 1 * 4 + (2 if k % 3 == 0 else 0), 9) for k in range(400)]
        path = self.file("c.txt", "".join(f"{x!r}\n" for x in xs))
        h, g = 0.5, 100
        lo, hi = min(xs), max(xs)
        r = runs(ok(self, f"set data {path} h {h} at grid G {g} precision double repeat 1 "
                          "warmup 0; run cpu"))[0]
        bars, line = r["chart"]["series"]
        self.assertEqual(r["chart"]["xlabel"], "x")
        self.assertEqual((bars["kind"], line["kind"]), ("bars", "line"))
        width = (hi - lo) / 20
        counts = [0] * 20
        for x in xs:
            counts[min(int((x - lo) / width), 19)] += 1
        self.assertEqual(len(bars["x"]), 20)
        for b in range(20):
            self.assertAlmostEqual(bars["x"][b], lo + (b + 0.5) * width, delta=1e-12)
            self.assertAlmostEqual(bars["y"][b], counts[b] / (400 * width), delta=1e-12)
        self.assertAlmostEqual(sum(bars["y"]) * width, 1, delta=1e-12)
        self.assertEqual(len(line["x"]), g)
        for i, (x, y) in enumerate(zip(line["x"], line["y"])):
            self.assertAlmostEqual(x, lo - 3 * h + i * (hi - lo + 6 * h) / (g - 1), delta=1e-12)
            self.assertAlmostEqual(y, density(xs, h, x), delta=1e-12 * max(y, 1e-3))
        r = runs(ok(self, f"set data {path} h {h} at samples precision double repeat 1 "
                          "warmup 0; run cpu"))[0]
        line = r["chart"]["series"][1]
        bins = {}
        for x in xs:
            bins.setdefault(min(int((x - lo) / (hi - lo) * 256), 255), []).append(x)
        self.assertEqual(len(line["x"]), len(bins))
        for (x, y), k in zip(zip(line["x"], line["y"]), sorted(bins)):
            self.assertAlmostEqual(x, math.fsum(bins[k]) / len(bins[k]), delta=1e-12)
            want = math.fsum(density(xs, h, s) for s in bins[k]) / len(bins[k])
            self.assertAlmostEqual(y, want, delta=1e-12)
        r = runs(ok(self, "set data none n 200 dim 2 repeat 1 warmup 0; run cpu"))[0]
        self.assertNotIn("chart", r)

    def refused(self, cmds, message):
        """cmds fails on its last line with message, and show params is what it was."""
        before = ok(self, "show params")
        rc, objs, err = session(cmds + "; show params", "--keep-going")
        self.assertEqual(rc, 1, cmds)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertIn(message, err)
        self.assertEqual(objs[-1], before[-1], cmds)

    def test_bad_input_is_one_clear_error(self):
        """h <= 0, NaN or inf in data, an empty or unreadable file, a missing column, n or G
        beyond memory, a block or variant that cannot run: one error each, nothing changed."""
        bad = self.file("bad.txt", "1\n2\n nan\n")
        inf = self.file("inf.csv", "a,b\n1,2\n3,inf\n")
        empty = self.file("empty.txt", "# nothing\n\n")
        short = self.file("short.csv", "1,2\n3\n")
        one = self.file("one.txt", "4\n")
        cases = [
            ("set h 0", "bad value '0' for h: expected silverman|scott|a number in (0,"),
            ("set h -0.5", "bad value '-0.5' for h"),
            (f"set data {bad}", f"{bad}: line 3: 'nan'"),
            (f"set data {inf} column 2", f"{inf}: line 3: 'inf'"),
            (f"set data {empty}", f"{empty}: no samples"),
            (f"set data {short} column 2", f"{short}: line 2"),
            (f"set data {one}", "1 sample; a density needs at least 2"),
            (f"set data {self.dir.name}/nosuch", "cannot open: No such file or directory"),
            (f"set data {self.dir.name}", "Is a directory"),
            ("set n 17179869184", "n = 17179869184 samples (dim 1): needs"),
            ("set at grid G 65536 dim 3", "at G = 65536 points per axis (dim 3): needs"),
            ("set block 48", "bad block 48 for variant tiled: expected whole warps"),
            ("set variant seed precision double", "variant seed computes in float only"),
            ("set variant binned dim 2", "variant binned is 1-D"),
            ("set variant seed at grid", "variant seed runs the seed's experiment only"),
        ]
        for cmds, message in cases:
            with self.subTest(cmds=cmds):
                self.refused(cmds, message)

    def test_memory_refusal_names_both_sizes(self):
        """The refusal of n names the size it needs and the size available, each in the
        unit that reads (GiB here, not 13958643712.1 MiB)."""
        rc, _, err = session("set n 17179869184")
        self.assertRegex(err, r"needs \d+\.\d GiB of host memory, \d+\.\d [GM]iB is available")

    def test_sweep_over_n_and_threads(self):
        """A CPU sweep over n and threads: every row succeeds with its error shown."""
        rc, objs, err = session("set repeat 1 warmup 0; sweep n 500,1000 threads 1,2 on cpu")
        self.assertEqual(rc, 0, err)  # stderr has the progress lines
        rows = [o for o in objs if o.get("type") == "sweep"]
        self.assertEqual(len(rows), 4)
        for r in rows:
            self.assertTrue(r["ok"], r)
            self.assertLess(r["max_rel"], 1e-5)

    def test_variants_and_help(self):
        """help kde lists every variant and the seed's bugs; a GPU-only variant is refused on
        the CPU naming the CPU variants."""
        p = qxtest.commands("help kde")
        self.assertEqual(p.returncode, 0, p.stderr)
        for word in ("tiled (default)", "fast", "naive", "seed", "binned",
                     "`int xj = x[j]` truncates", "y is never zeroed", "h parameter is an int",
                     "block width in", "never applied"):
            self.assertIn(word, p.stdout)
        rc, _, err = session("set variant naive; run cpu")
        self.assertIn("variant naive has no cpu implementation (cpu variants: tiled, binned)",
                      err)

    def test_binned_err_core(self):
        """binned reports err_core, the largest relative error where the density is above 1e-3
        of its maximum: within the Gaussian KDE study's 1e-4 at G = 4096, below the error line's
        maximum (which the tails set)."""
        r = ok(self, "set n 100000 at grid G 4096 variant binned precision double repeat 1 "
                     "warmup 0; run cpu")[0]
        self.assertLessEqual(r["error"]["err_core"], 1e-4)
        self.assertGreater(r["error"]["err_core"], 0)
        self.assertLess(r["error"]["err_core"], r["error"]["max_rel"])

    def test_fast_is_kdes_variant(self):
        """`set variant fast` in kde is kde's (expint has a fast too); help variant fast shows
        the current problem's, and from a problem without one every problem's; a share the
        fast kernel is not built for is refused naming the built ones."""
        rc, _, err = session("set variant fast precision float")
        self.assertEqual(rc, 0, err)
        p = qxtest.commands("use kde; help variant fast")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(p.stdout.startswith("fast - variant of kde ("), p.stdout[:100])
        self.assertNotIn("variant of expint", p.stdout)
        p = qxtest.commands("use longman; help variant fast")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("fast - variant of expint (", p.stdout)
        self.assertIn("fast - variant of kde (", p.stdout)
        self.assertIn("use kde; set variant fast", p.stdout)
        rc, _, err = session("set share 0.3")
        self.assertEqual(rc, 1)
        self.assertIn("share 0.3: the fast variant is built for 0.125, 0.25 and 0.375", err)


class DataFileTest(unittest.TestCase):
    """Data files as users have them: a FIFO (read once), a UTF-8 byte order mark (not part of
    the first number), hexadecimal floats (refused, as `set` refuses them), and Ctrl-C while a
    FIFO is read (cancelled, not a read error)."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="quadx-kde-data-")
        self.addCleanup(shutil.rmtree, self.dir)

    def file(self, name, data):
        path = os.path.join(self.dir, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def test_fifo_read_once(self):
        import threading
        fifo = os.path.join(self.dir, "samples")
        os.mkfifo(fifo)

        def write():
            with open(fifo, "w") as f:
                f.write("".join(f"{i / 7}\n" for i in range(200)))
        writer = threading.Thread(target=write)
        writer.start()
        objs = ok(self, f"set data {fifo} repeat 1 warmup 0; run cpu; run cpu")
        writer.join()
        self.assertEqual([r["compared"] for r in runs(objs)], [200, 200])

    def test_byte_order_mark(self):
        path = self.file("bom.csv", b"\xef\xbb\xbf1\n2\n3.5\n")
        objs = ok(self, f"set data {path} repeat 1 warmup 0; run cpu")
        self.assertEqual(runs(objs)[0]["compared"], 3)

    def test_hex_refused(self):
        path = self.file("hex.csv", b"1\n0x10\n3\n")
        rc, _, err = session(f"set data {path}")
        self.assertEqual(rc, 1)
        self.assertIn("line 2: '0x10' is not a number", err)

    def test_ctrl_c_while_reading_a_fifo(self):
        import signal
        import subprocess
        fifo = os.path.join(self.dir, "endless")
        os.mkfifo(fifo)
        p = subprocess.Popen([qxtest.QUADX, "-e", f"use kde; set data {fifo}"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        with open(fifo, "w") as f:  # returns once quadx has opened it for reading
            f.write("1\n2\n")
            f.flush()
            p.send_signal(signal.SIGINT)
            _, err = p.communicate(timeout=qxtest.TIMEOUT)
        self.assertEqual(p.returncode, 1, err)
        self.assertIn("reading cancelled", err)


class NotANumberTest(unittest.TestCase):
    """A run whose values are NaN or inf says so; a bandwidth whose 1/h^dim overflows a double
    is refused before the run."""

    def test_overflowing_bandwidth_refused(self):
        for cmds, least in (("set h 1e-310 n 100", "5.57e-309"),
                            ("set h 1e-200 n 100 dim 2", "2.98e-155")):
            rc, objs, err = session(cmds + " repeat 1 warmup 0; run cpu")
            self.assertEqual(rc, 1, err)
            self.assertIn("too small a bandwidth", err)
            self.assertIn(f"h at least {least}", err)
            self.assertEqual(runs(objs), [])

    def test_nonfinite_values_said(self):
        """h 1e-200 fits a double but its density's peak overflows a float: every value is
        inf, and the run says how many, in JSON and text."""
        objs = ok(self, "set h 1e-200 n 100 repeat 1 warmup 0; run cpu")
        self.assertEqual(runs(objs)[0]["nonfinite"], 100)
        p = qxtest.commands("use kde; set h 1e-200 n 100 repeat 1 warmup 0; run cpu")
        self.assertIn("values     100 of 100 are NaN or inf (not numbers)", p.stdout)
        objs = ok(self, "set n 100 repeat 1 warmup 0; run cpu")
        self.assertEqual(runs(objs)[0]["nonfinite"], 0)


if __name__ == "__main__":
    unittest.main()
