#!/usr/bin/env python3
"""expint and kde over several GPUs (`set gpus`), on a host with 2 or more: every value on 2, 4
and all GPUs equals the 1-GPU value bit for bit (the exported values, 17 digits); the JSON has
each GPU's phases; kde's binned refuses gpus > 1 naming the variants that divide their work;
an injected fault on one GPU mid-run is one error naming the GPU, the next run works and
equals the 1-GPU values, and compute-sanitizer's leak check finds nothing left on any device.

Skipped with fewer than 2 GPUs (and without one, unless QUADX_REQUIRE_GPU=1, which makes no
GPU a failure). Run from the repository root: `python3 tests/expint_kde_multigpu_gpu_test.py`.
"""
import csv
import io
import re
import shutil
import unittest

import qxtest
from qxtest import FAULTS_BIN, require_faults_bin

SANITIZER = shutil.which("compute-sanitizer") or "/usr/local/cuda/bin/compute-sanitizer"
SMALL = "repeat 1 warmup 0 threads 2"

GPU = qxtest.gpu_or_exit("expint_kde_multigpu_gpu_test")
NGPUS = qxtest.device().get("gpus", 1) if GPU else 0
COUNTS = [g for g in (2, 4) if g <= NGPUS] + ([NGPUS] if NGPUS not in (2, 4) else [])

# expint: the streamed sequence (fast, streams: chunks on each GPU) and the serial one
# (coursework, shared, constant: one kernel a GPU), float and double, fewer orders than GPUs
EXPINT_CONFIGS = [
    "n 97 m 100003 precision float variant fast",
    "n 40 m 30011 precision double variant streams streams 3",
    "n 33 m 5000 precision float variant coursework",
    "n 20 m 4099 precision double variant constant",
    "n 9 m 2000 precision float variant shared block 128",
    "n 1 m 1000 precision double variant fast",
]
# kde: every variant that divides its outputs, at the samples, with enough outputs that tiled
# does not split an output's samples over more than 2 blocks (whose atomic additions in double
# would then come in the order the GPU runs them, on one GPU too): at block 256 that is n >=
# 2^18, at block 64 n >= 67584 (4 x 132 SMs / 2 blocks of 256 outputs)
KDE_CONFIGS = [
    "variant tiled precision float n 262144",
    "variant tiled precision double n 70000 dist mixture block 64",
    "variant tiled precision double dim 2 n 70000 block 64",
    "variant fast precision float n 262144 dist mixture",
    "variant fast precision float n 100000 dist student share 0.375 block 128",
    "variant naive precision float n 50000",
    "variant naive precision double n 30000",
]


quadx = qxtest.json_run


@unittest.skipIf(NGPUS < 2, f"needs 2 or more GPUs (this host has {NGPUS})")
class ExpintKdeMultiGpuTest(qxtest.TempDirCase):
    def values_on(self, problem, config, gpus):
        """Runs problem's config on gpus GPUs; returns (the values file's text, the run)."""
        return self.exported_values(f"use {problem}; set {config} {SMALL} gpus {gpus}; run gpu",
                                    f"v{gpus}.csv")

    def assert_fast_equal(self, many, one):
        """kde fast: its double sums of sample slices are added atomically in the order the
        GPU runs the blocks, on one GPU as on several, so a float value may differ by its last
        bit where the double's last bits cross a rounding: every value equal but at most one
        in 10^4, those within 1 float ulp (2^-23 relative)."""
        if many == one:
            return
        a = list(csv.DictReader(io.StringIO(many)))
        b = list(csv.DictReader(io.StringIO(one)))
        self.assertEqual(len(a), len(b))
        diff = [(float(x["value"]), float(y["value"])) for x, y in zip(a, b)
                if x["value"] != y["value"]]
        print(f"\n  fast: {len(diff)} of {len(a)} values differ in the last bit", end="")
        self.assertLessEqual(len(diff), max(1, len(a) // 10000), diff[:5])
        for x, y in diff:
            self.assertLessEqual(abs(x - y), abs(y) * 2.0 ** -23, (x, y))

    def check_equal(self, problem, configs):
        for config in configs:
            one, r1 = self.values_on(problem, config, 1)
            self.assertEqual(r1["gpus"], 1)
            for g in COUNTS:
                with self.subTest(problem=problem, config=config, gpus=g):
                    many, rg = self.values_on(problem, config, g)
                    self.assertEqual(rg["gpus"], g)
                    self.assertEqual(len(rg["per_gpu"]), g)
                    if "fast" in config and problem == "kde":
                        self.assert_fast_equal(many, one)
                    else:
                        self.assertEqual(many, one)  # the same text: the same values
                        self.assertEqual(rg["error"]["max_abs"], r1["error"]["max_abs"])
                    print(f"\n  {problem} {config[:44]:44} {g} GPUs: "
                          f"{rg['time_ms']['total']:.3f} ms (1 GPU "
                          f"{r1['time_ms']['total']:.3f})", end="")

    def test_expint_equals_one_gpu_bit_for_bit(self):
        self.check_equal("expint", EXPINT_CONFIGS)

    def test_expint_several_chunks_a_gpu(self):
        """A grid of 82 M points, more than one 16 Mi-point chunk on a GPU on 2 and 4 GPUs (too
        large to compare as text): the same error against the CPU reference as on 1 GPU."""
        def run_on(g):
            rc, out, err = quadx(f"use expint; set n 8200 m 10000 precision float variant "
                                 f"fast {SMALL} threads 16 gpus {g}; run gpu")
            self.assertEqual(rc, 0, err)
            return [o for o in out if o.get("type") == "run"][0]
        one = run_on(1)
        self.assertLess(one["error"]["max_rel"], 1e-5)
        for g in COUNTS:
            with self.subTest(gpus=g):
                r = run_on(g)
                self.assertEqual(len(r["per_gpu"]), g)
                for key in ("max_abs", "max_rel", "over_threshold"):
                    self.assertEqual(r["error"][key], one["error"][key], key)

    def test_kde_equals_one_gpu_bit_for_bit(self):
        self.check_equal("kde", KDE_CONFIGS)

    def test_kde_seed_divides_its_outputs(self):
        """seed (its bugs kept: its values are NaN or whatever the device memory held) runs on
        every GPU count with a share a GPU."""
        for g in COUNTS:
            rc, out, err = quadx(f"use kde; set variant seed n 20000 {SMALL} gpus {g}; run gpu")
            self.assertEqual(rc, 0, err)
            r = [o for o in out if o.get("type") == "run"][0]
            self.assertEqual(len(r["per_gpu"]), g)

    def test_expint_phases_per_gpu(self):
        """Each GPU's phases: its kernel and copy; time_ms is the slowest's."""
        g = COUNTS[-1]
        rc, out, err = quadx(f"use expint; set n 64 m 200000 repeat 3 warmup 1 gpus {g}; "
                             "run gpu")
        self.assertEqual(rc, 0, err)
        r = [o for o in out if o.get("type") == "run"][0]
        for ph in r["per_gpu"]:
            self.assertGreater(ph["kernel"], 0)
            self.assertIn("d2h", ph)
        self.assertLessEqual(max(p["total"] for p in r["per_gpu"]),
                             r["time_ms_max"]["total"] + 1e-9)

    def test_kde_binned_refused(self):
        """binned on 2 GPUs: one error naming the variants that divide their work; the
        session unchanged (the next run, on 1 GPU, works)."""
        p = qxtest.commands(f"use kde; set variant binned n 20000 {SMALL} gpus 2; run gpu; "
                            "set gpus 1; run gpu", "--keep-going")
        self.assertEqual(p.returncode, 1)
        self.assertEqual(len(p.stderr.splitlines()), 1, p.stderr)
        self.assertRegex(p.stderr, r"variant binned runs on one GPU .*set gpus 1; tiled, fast, "
                                   r"naive and seed divide")
        self.assertEqual(len(re.findall(r"(?m)^gpu kde ", p.stdout)), 1, p.stdout)


@unittest.skipIf(NGPUS < 2, f"needs 2 or more GPUs (this host has {NGPUS})")
class ExpintKdeMultiGpuFaultTest(unittest.TestCase):
    """A failure on one GPU mid-run: one error naming the GPU, the next run works; under
    memcheck with leak check, nothing left on any device."""

    def setUp(self):
        require_faults_bin(self)

    def faulted(self, fault, problem, config, sanitize=False):
        """Runs `run gpu` twice on 2 GPUs under QUADX_FAULT=fault; returns (rc, out, err)."""
        cmds = f"use {problem}; set {config} {SMALL} gpus 2; run gpu; run gpu"
        argv = ["--keep-going", "-e", cmds]
        if sanitize:
            argv = ["--tool", "memcheck", "--leak-check", "full", "--error-exitcode", "99",
                    FAULTS_BIN, *argv]
        p = qxtest.run(argv, program=[SANITIZER] if sanitize else [FAULTS_BIN], timeout=900,
                       env={"QUADX_FAULT": fault})
        return p.returncode, p.stdout, p.stderr

    def check(self, fault, problem, config, sanitize=False):
        rc, out, err = self.faulted(fault, problem, config, sanitize)
        print(f"\n  {problem} QUADX_FAULT={fault}{' memcheck' if sanitize else ''}: rc {rc}; "
              + " | ".join(l for l in (out + err).splitlines() if "SUMMARY" in l)
              + " | " + " ".join(l for l in err.splitlines() if "injected" in l)[:160], end="")
        self.assertEqual(rc, 1, out[-3000:] + err[-3000:])
        self.assertEqual(err.count("injected fault"), 1, err[-3000:])
        self.assertRegex(err, r"quadx: command 3 of -e: GPU \d of 2: .*injected fault "
                              r"\(QUADX_FAULT\)")
        self.assertEqual(len(re.findall(rf"(?m)^gpu {problem} ", out)), 1, out)
        if sanitize:
            self.assertRegex(out + err, r"ERROR SUMMARY: 0 errors")

    def test_expint_fault_on_one_gpu(self):
        # GPU 1's share spans 2 chunks of the kernels queued ahead, so the first run makes at
        # least 3 launches
        for fault in ("launch:3", "cudaMalloc:4", "cudaMemcpy:5", "cudaEvent:9"):
            with self.subTest(fault=fault):
                self.check(fault, "expint", "n 128 m 300000 variant fast")
        self.check("cudaMalloc:3", "expint", "n 64 m 30000 variant coursework")

    def test_kde_fault_on_one_gpu(self):
        for fault in ("cudaMalloc:5", "cudaMemcpy:3", "cudaEvent:12"):
            for variant in ("tiled", "fast"):
                with self.subTest(fault=fault, variant=variant):
                    self.check(fault, "kde", f"variant {variant} n 50000")

    def test_memcheck_clean_after_faults(self):
        self.check("launch:3", "expint", "n 128 m 300000 variant fast", sanitize=True)
        self.check("cudaMemcpy:3", "kde", "variant fast n 50000", sanitize=True)


if __name__ == "__main__":
    unittest.main(verbosity=2)
