#!/usr/bin/env python3
"""The dashboard's GPU side under tmux, on a machine with a GPU: the Device panel's measured
copy bandwidth (also when the dashboard opens after a GPU run, whose values must stay intact),
a GPU run's total, phases, overlap marks and speedups in the Timing and Speedup panels as the
log printed them, the history chart, and a GPU block sweep in the Sweep panel with its best
marked. Run from the repository root: `python3 tests/tui_gpu_test.py`. Skipped without tmux or
without a usable GPU, unless QUADX_REQUIRE_GPU=1 (make test-gpu), which makes that a failure."""
import re
import unittest

import qxtest
from tui_test import SIDE, Dashboard, found

GPU = qxtest.gpu_or_exit("tui_gpu_test")


@unittest.skipIf(not GPU, "no usable GPU")
class GpuDashboardTest(Dashboard):
    def test_gpu_run_in_the_panels(self):
        """The copy bandwidth is measured as the dashboard opens; after run cpu and run gpu the
        Timing panel shows the GPU total and every phase as the log printed them (kernel and
        d2h marked as overlapping for the chunked default variant), the Speedup panel the
        GPU over CPU threads, and the history one point per GPU run."""
        self.start()
        self.screen(re.compile(r"copy d2h [\d.]+ GB/s"))
        self.type("set n 2000 m 2000 threads 2")
        self.type("run cpu")
        self.screen("cpu 2 thr ")
        self.idle()
        self.type("run gpu")
        m = self.screen(re.compile(
            r"phases ms +alloc (\S+) +h2d (\S+) +kernel (\S+) +d2h (\S+) +free (\S+)(.*)\n"
            r".*total +(\S+) ms(?:.*\n)+?.*speedup .*?(\S+)x vs cpu 2 threads"))
        alloc, h2d, kernel, d2h, free, note, total, speedup = m.groups()
        overlap = "overlap" in note
        mark = "~" if overlap else ""

        def gpu_panels(text):
            self.assertRegex(text, rf"gpu b256 .* {re.escape(total)} ms")
            for label, ms in (("alloc", alloc), ("h2d", h2d), (f"kernel{mark}", kernel),
                              (f"d2h{mark}", d2h), ("free", free)):
                self.assertRegex(text, rf"  {re.escape(label)} .* {re.escape(ms)} ms")
            self.assertEqual("~: overlap" in text, overlap)
            self.assertIn("gpu vs cpu 2 threads", text)
            shown = float(found(r"vs threads (\S+)x", text).group(1))
            self.assertAlmostEqual(shown, float(speedup), delta=0.01 * float(speedup))
            self.assertRegex(text, r"history \S\s")
        self.idle(gpu_panels)
        self.type("run gpu")  # a second point in the history
        self.screen(re.compile(r"history \S\S\s"))
        self.keys("F10")
        self.screen("EXITED 0")

    def test_bandwidth_after_a_gpu_run(self):
        """Opening the dashboard after a GPU run still measures the copy, and the run's values
        (in the session's pinned buffer) are left intact: the Error panel and `errors` agree
        that no point is over the threshold."""
        self.start(args="", cols=160)  # wide enough for a line of `errors` in the Log
        self.type("set n 500 m 500; run gpu")
        max_rel = self.screen(re.compile(r"max_rel (\S+) .* over 1e-05: 0 of 250000")).group(1)
        self.type("dashboard")
        self.screen(re.compile(r"copy d2h [\d.]+ GB/s"))
        self.screen(f"max rel {max_rel}")
        self.screen("over 1e-05: 0 of 250000")
        self.type("errors 1")  # the worst point, read again from the values
        worst = self.screen(re.compile(r"> errors 1 .*\n.*rel_error (\S+)")).group(1)
        self.assertEqual(worst, max_rel)
        self.keys("F10")
        self.gone("Log (")
        self.type("quit")
        self.screen("EXITED 0")

    def test_gpu_sweep_panel(self):
        """A GPU block sweep: one bar per block size, the best marked as in the table."""
        self.start()
        self.type("set n 1000 m 1000")
        self.type("sweep block 64,128,256 on gpu")
        best = self.screen(re.compile(r"best: block=(\d+) on gpu")).group(1)

        def sweep_shown(text):
            self.assertIn(f"block on gpu: 3 of 3 configurations; best {best} gpu", text)
            for block in ("64", "128", "256"):
                mark = r"\*" if block == best else " "
                self.assertRegex(text,
                                 rf"(?m)^{SIDE} {mark} {block} gpu +[▏▎▍▌▋▊▉█]+ +\S+ [kMGT]?/s")
        self.idle(sweep_shown)
        self.keys("F10")
        self.screen("EXITED 0")


if __name__ == "__main__":
    unittest.main(verbosity=2)
