#!/usr/bin/env python3
"""`sweep gpus` on a host with 2 or more GPUs: `use longman; sweep gpus 1,2` with --json gives one
GPU row per count whose gpu_scaling fields (gpus, base_gpus 1, speedup, efficiency) agree with
the rows' median totals (speedup = T(1) / T(N), efficiency = speedup / N), the text table's
scaling lines agree with them too, `sweep gpus all` runs every count from 1 to the host's, a
list without 1 is measured against its fewest GPUs, and a count over the host's is refused
before anything runs; under tmux the dashboard's Timing and Device panels list each GPU of a
run over 2 GPUs with its time, the slowest marked. Speed itself is never asserted: only that
the figures are consistent with each other.

Skipped with fewer than 2 GPUs (and without one, unless QUADX_REQUIRE_GPU=1, which makes no
GPU a failure). Run from the repository root: `python3 tests/sweep_multigpu_gpu_test.py`."""
import math
import re
import shutil
import unittest

import qxtest

GPU = qxtest.gpu_or_exit("sweep_multigpu_gpu_test")
NGPUS = qxtest.device().get("gpus", 1) if GPU else 0
SMALL = "set M 200000 repeat 3 warmup 1"


def sweep_rows(cmds):
    """Runs quadx --json -e cmds; returns (exit code, its sweep rows, stderr)."""
    rc, out, err = qxtest.json_commands(cmds, timeout=600)
    return rc, [o for o in out if o.get("type") == "sweep"], err


@unittest.skipIf(NGPUS < 2, f"needs 2 or more GPUs (this host has {NGPUS})")
class SweepGpusTest(unittest.TestCase):
    def check_consistent(self, rows, counts, base):
        """The GPU rows of rows ran on counts, in order, each with speedup = T(base) / T(N)
        and efficiency = speedup x base / N from its own median totals."""
        gpu = [r for r in rows if r["backend"] == "gpu"]
        self.assertEqual([r["ok"] for r in gpu], [True] * len(counts), gpu)
        self.assertEqual([r["gpu_scaling"]["gpus"] for r in gpu], counts)
        t_base = gpu[0]["time_ms"]["total"]
        for r in gpu:
            sc, n, t = r["gpu_scaling"], r["gpu_scaling"]["gpus"], r["time_ms"]["total"]
            with self.subTest(gpus=n):
                self.assertEqual(sc["base_gpus"], base)
                self.assertTrue(math.isclose(sc["speedup"], t_base / t, rel_tol=1e-9), sc)
                self.assertTrue(math.isclose(sc["efficiency"], sc["speedup"] * base / n,
                                             rel_tol=1e-9), sc)
                self.assertGreater(sc["speedup"], 0)
        self.assertEqual(gpu[0]["gpu_scaling"]["speedup"], 1)

    def test_json_rows_are_consistent(self):
        """sweep gpus 1,2: speedup and efficiency agree with the rows' totals; the 1-GPU row
        is 1x and efficiency 1."""
        rc, rows, err = sweep_rows(f"use longman; {SMALL}; sweep gpus 1,2")
        self.assertEqual(rc, 0, err)
        self.assertEqual(len(rows), 2, rows)
        self.check_consistent(rows, [1, 2], 1)
        self.assertEqual(rows[0]["gpu_scaling"]["efficiency"], 1)

    def test_all_and_a_list_without_one(self):
        """sweep gpus all runs 1..N; sweep gpus 2,N (N > 2) is against 2 GPUs; with 2 GPUs
        `sweep gpus 2` alone is its own base."""
        rc, rows, err = sweep_rows(f"use longman; {SMALL}; sweep gpus all")
        self.assertEqual(rc, 0, err)
        self.check_consistent(rows, list(range(1, NGPUS + 1)), 1)
        counts = [2, NGPUS] if NGPUS > 2 else [2]
        rc, rows, err = sweep_rows(f"use longman; {SMALL}; sweep gpus "
                                   + ",".join(map(str, counts)))
        self.assertEqual(rc, 0, err)
        self.check_consistent(rows, counts, 2)

    def test_text_table_agrees(self):
        """The text table's scaling lines give each count's time, speedup and efficiency as
        the JSON has them (to the digits printed)."""
        p = qxtest.commands(f"use longman; {SMALL}; sweep gpus 1,2")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("GPU scaling: speedup = time on 1 GPU / time on N GPUs, "
                      "efficiency = speedup / N", p.stdout)
        lines = re.findall(r"(?m)^ +([12]) +(\S+) +(\S+)x +(\S+)$", p.stdout)
        self.assertEqual([l[0] for l in lines], ["1", "2"], p.stdout)
        t1 = float(lines[0][1])
        for n, t, sp, eff in lines:
            self.assertAlmostEqual(float(sp), t1 / float(t), delta=2e-3 * t1 / float(t) + 1e-3)
            self.assertAlmostEqual(float(eff), float(sp) / int(n), delta=1e-3)

    def test_more_than_the_host_is_refused(self):
        """A count over the host's GPUs is one error before any configuration runs."""
        p = qxtest.commands(f"use longman; {SMALL}; sweep gpus 1,{NGPUS + 1}")
        self.assertNotEqual(p.returncode, 0)
        self.assertIn(f"sweep: gpus {NGPUS + 1} refused: this host has {NGPUS} GPUs",
                      p.stderr)
        self.assertNotIn("sweep 1/", p.stderr)


@unittest.skipIf(NGPUS < 2, f"needs 2 or more GPUs (this host has {NGPUS})")
@unittest.skipIf(shutil.which("tmux") is None, "tmux is not installed")
class MultiGpuDashboardTest(qxtest.TmuxTestCase):
    TMUX_NAME = "sweep-multigpu-test"

    def test_per_gpu_lines(self):
        """After `run gpu` on 2 GPUs the Timing panel lists gpu0 and gpu1 with their totals,
        one marked '>' as the slowest (the run's total is its), and the Device panel lists both
        GPUs by index with a time."""
        self.tmux.start(f"env LANG=C.UTF-8 TERM=xterm-256color QUADX_HISTFILE={self.tmp}/h "
                        f"{qxtest.QUADX} --tui; echo EXITED $?; {qxtest.HOLD}", 120, 40)
        self.tmux.screen("Log (")
        self.tmux.type(f"use longman; {SMALL} gpus 2; run gpu")
        m = self.tmux.screen(re.compile(r">gpu([01]) (\S+) ms"))
        slow, slow_ms = m.group(1), m.group(2)
        other = "1" if slow == "0" else "0"

        def both_gpus(text):
            self.assertIn(" quadx dashboard ", text)
            self.assertRegex(text, rf" gpu{other} \S+ ms")
            self.assertIn(">: slowest GPU", text)
            self.assertRegex(text, rf">{slow} .*{re.escape(slow_ms)} ms")  # the Device panel
            self.assertRegex(text, rf" {other} .* \S+ ms")
        self.tmux.until(both_gpus)
        self.tmux.keys("F10")
        self.tmux.screen("EXITED 0")


if __name__ == "__main__":
    unittest.main(verbosity=2)
