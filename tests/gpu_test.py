#!/usr/bin/env python3
"""GPU tests for quadx: GPU results against the CPU reference, every variant, precision and a
range of block sizes, the coursework sizes, single evaluations and error paths.

Run from the repository root: `python3 tests/gpu_test.py`. Without a usable GPU every test is
reported as skipped, unless QUADX_REQUIRE_GPU=1 (make test-gpu), which makes that a failure."""
import unittest

import qxtest


quadx = qxtest.gpu_quadx


GPU = qxtest.gpu_or_exit("gpu_test")


@unittest.skipIf(GPU is None, "no usable GPU")
class GpuTest(unittest.TestCase):
    def runs(self, cmds):
        """Runs cmds and returns the run result objects; fails on a non-zero exit."""
        return qxtest.run_objects(self, cmds)

    def test_device_facts(self):
        """show device names the GPU and the context creation time."""
        _, out, _ = quadx("show device")
        self.assertGreater(out[0]["sms"], 0)
        self.assertGreaterEqual(out[0]["context_ms"], 0)
        print(f"\n  device: {GPU}, {out[0]['sms']} SMs, cc {out[0]['compute_capability']}")

    def test_coursework_sizes(self):
        """n = m = 5000 on the GPU matches the CPU reference in float and double, both variants."""
        for prec, tol in (("float", 1e-5), ("double", 1e-13)):
            for variant in ("fast", "coursework"):
                r = self.runs(f"set n 5000 m 5000 precision {prec} variant {variant} repeat 2 "
                              f"threads 16; run gpu")[0]
                print(f"\n  {prec:6} {variant:10} total {r['time_ms']['total']:.3f} ms  "
                      f"kernel {r['time_ms']['kernel']:.3f}  max_rel {r['error']['max_rel']:.3g}")
                self.assertLess(r["error"]["max_rel"], tol)
                self.assertEqual(r["error"]["over_threshold"], 0)
                self.assertEqual(r["evals"], 25_000_000)
                t = r["time_ms"]
                for phase in ("alloc", "h2d", "kernel", "d2h", "free", "total"):
                    self.assertGreaterEqual(t[phase], 0)
                self.assertGreater(t["total"], 0)
                if variant == "coursework":  # one kernel, then one copy: the phases add up
                    self.assertLessEqual(t["kernel"], t["total"])
                    self.assertLessEqual(t["alloc"] + t["kernel"] + t["d2h"] + t["free"],
                                         t["total"] * 1.001 + 0.01)

    def test_coursework_large_sizes(self):
        """The report's larger sizes (8192, 16384, 20000 squared) match the CPU reference."""
        for size, prec, tol in ((8192, "float", 1e-5), (16384, "float", 1e-5),
                                (20000, "float", 1e-5), (20000, "double", 1e-13)):
            r = self.runs(f"set n {size} m {size} precision {prec} repeat 1 warmup 1 "
                          f"threads 16; run gpu")[0]
            print(f"\n  {size}^2 {prec:6} total {r['time_ms']['total']:.2f} ms  "
                  f"max_rel {r['error']['max_rel']:.3g}")
            self.assertLess(r["error"]["max_rel"], tol)
            self.assertEqual(r["error"]["over_threshold"], 0)

    def test_block_sizes(self):
        """Every block size from 1 to 1024, odd ones included, gives the same values."""
        for block in (1, 32, 64, 100, 128, 256, 512, 1000, 1024):
            for prec, tol in (("float", 1e-5), ("double", 1e-13)):
                r = self.runs(f"set n 70 m 999 block {block} precision {prec} repeat 1 "
                              f"warmup 0; run gpu")[0]
                self.assertLess(r["error"]["max_rel"], tol, f"block {block} {prec}")
                self.assertEqual(r["block"], block)

    def test_chunk_edges(self):
        """Grids that are not a whole number of chunks or rows (m above and below a chunk), in
        the 4 Mi-point chunks of one stream and the 16 Mi-point chunks of the kernels queued
        ahead of the copies (2 streams)."""
        edges = ((1, 5_000_001), (3, 4_194_305), (1, 16_777_217), (2, 16_777_215),
                 (4097, 1025), (1, 1))
        for streams in (1, 2):
            for n, m in edges:
                r = self.runs(f"set n {n} m {m} precision double streams {streams} repeat 1 "
                              f"warmup 0 threads 16; run gpu")[0]
                self.assertLess(r["error"]["max_rel"], 1e-13, f"{n}x{m} streams {streams}")
                self.assertEqual(r["error"]["over_threshold"], 0)

    def test_speedup_reported(self):
        """run both (threads 1) gives the GPU result a speedup over the serial CPU."""
        r = self.runs("set n 200 m 200 threads 1; run both")
        self.assertEqual([x["backend"] for x in r], ["cpu", "gpu"])
        self.assertGreater(r[1]["speedup"]["vs_cpu_serial"], 0)

    def test_eval_matches_cpu(self):
        """eval on the GPU agrees with the CPU in both precisions, across the branches."""
        for n, x in ((3, 1.5), (1, 0.5), (0, 2.0), (5, 0.0), (40, 3.0), (300, 7.0), (20000, 10.0)):
            rc, out, err = quadx(f"eval {n} {x}")
            self.assertEqual(rc, 0, err)
            vals = {(o["backend"], o["precision"]): o["value"] for o in out}
            for prec, tol in (("double", 1e-14), ("float", 1e-6)):
                cpu, gpu = vals[("cpu", prec)], vals[("gpu", prec)]
                self.assertLessEqual(abs(cpu - gpu), tol * abs(cpu), f"E_{n}({x}) {prec}")

    def test_gpu_errors_are_reported(self):
        """Non-convergence on the GPU is an error naming the point; the session goes on."""
        p = qxtest.commands("set iters 3; run gpu; set iters 1000; run gpu", "--keep-going")
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("did not converge", p.stderr)
        self.assertEqual(p.stderr.count("quadx: command "), 1, p.stderr)
        self.assertIn("gpu expint", p.stdout)

    def test_too_big_is_refused(self):
        """A grid larger than GPU memory (coursework variant) is refused before allocating."""
        p = qxtest.commands("set variant coursework n 1000000 m 100000; run gpu", timeout=60)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("run refused", p.stderr)

    def sweep_rows(self, cmds):
        """Runs cmds ending in a sweep and returns its row objects; fails on a non-zero exit."""
        rc, out, err = quadx(cmds)
        self.assertEqual(rc, 0, err)
        return [o for o in out if o.get("type") == "sweep"]

    def test_variants_match_reference(self):
        """Every GPU variant (and streams 1, 3, 16) matches the CPU reference over many chunks."""
        cases = [(v, 4) for v in ("fast", "coursework", "shared", "constant", "streams")]
        cases += [("streams", 1), ("streams", 3), ("fast", 16)]
        for prec, tol in (("float", 1e-5), ("double", 1e-13)):
            for variant, streams in cases:
                r = self.runs(f"set n 4100 m 5000 precision {prec} variant {variant} "
                              f"streams {streams} repeat 1 warmup 0 threads 16; run gpu")[0]
                print(f"\n  {prec:6} {variant:10} streams {streams:2}  total "
                      f"{r['time_ms']['total']:.3f} ms  h2d {r['time_ms']['h2d']:.4f}  "
                      f"max_rel {r['error']['max_rel']:.3g}")
                self.assertLess(r["error"]["max_rel"], tol, f"{variant} {prec} {streams}")
                self.assertEqual(r["error"]["over_threshold"], 0)
                self.assertEqual(r["streams"], streams)
                self.assertEqual(r["overlapped"], variant in ("fast", "streams"))

    def test_sweep_every_variant_and_block(self):
        """sweep variant block: every GPU variant at every block size checks against the
        reference, with occupancy from the CUDA API and one best row."""
        blocks = [1, 32, 64, 100, 128, 256, 512, 1000, 1024]
        for prec, tol in (("float", 1e-5), ("double", 1e-13)):
            rows = self.sweep_rows(f"set n 70 m 9999 precision {prec} repeat 2 warmup 1; "
                                   f"sweep variant block {','.join(map(str, blocks))}")
            variants = sorted({r["config"]["variant"] for r in rows})
            self.assertEqual(variants, ["constant", "coursework", "fast", "shared", "streams"])
            self.assertEqual(len(rows), 5 * len(blocks))
            self.assertEqual(sum(r["best"] for r in rows), 1)
            for r in rows:
                what = f"{prec} {r['config']}"
                self.assertTrue(r["ok"], what)
                self.assertEqual(r["block"], r["config"]["block"], what)
                self.assertLess(r["max_rel"], tol, what)
                occ = r["occupancy"]
                self.assertGreater(occ["regs_per_thread"], 0, what)
                self.assertGreaterEqual(occ["blocks_per_sm"], 1, what)
                self.assertGreater(occ["theoretical"], 0, what)
                self.assertLessEqual(occ["theoretical"], 1, what)
                self.assertIn(occ["suggested_block"], range(32, 1025, 32), what)
                t = r["time_ms"]
                self.assertLessEqual(r["time_ms_min"]["total"], t["total"], what)
                self.assertLessEqual(t["total"], r["time_ms_max"]["total"], what)
            shared = [r for r in rows if r["config"]["variant"] == "shared"]
            self.assertTrue(all(r["occupancy"]["shared_bytes"] > 0 for r in shared))

    def test_set_block_best_and_auto(self):
        """set block best takes the best row's block, set block auto the suggested block."""
        rc, out, err = quadx("set n 100 m 2000 repeat 2; sweep block 32,64,128,256,512; "
                             "set block best; show params; set block auto; show params")
        self.assertEqual(rc, 0, err)
        rows = [o for o in out if o.get("type") == "sweep"]
        params = [o for o in out if o.get("type") == "params"]
        best = [r for r in rows if r["best"]][0]
        self.assertEqual(int(params[0]["block"]), best["block"])
        self.assertEqual(int(params[1]["block"]), best["occupancy"]["suggested_block"])

    def test_sweep_both_has_speedup(self):
        """sweep ... on both runs the CPU once per CPU configuration; GPU rows get a speedup."""
        rows = self.sweep_rows("set n 500 m 2000 threads 4 repeat 2; sweep block 64,256 on both")
        self.assertEqual([r["backend"] for r in rows], ["cpu", "gpu", "gpu"])
        for r in rows[1:]:
            self.assertGreater(r["speedup"], 0)
            self.assertEqual(r["speedup_cpu_threads"], 4)

    def test_sweep_failure_is_listed(self):
        """A configuration that fails is listed with its error and the sweep goes on."""
        rows = self.sweep_rows("set n 20 m 200 repeat 1; sweep iters 3,1000 on gpu")
        self.assertFalse(rows[0]["ok"])
        self.assertIn("did not converge", rows[0]["error"])
        self.assertTrue(rows[1]["ok"])
        self.assertTrue(rows[1]["best"])

    def test_longman_occupancy(self):
        """longman's kernels answer the occupancy query at the block size they launch with."""
        rows = self.sweep_rows("use longman; set M 2000 repeat 1; sweep variant on gpu")
        self.assertEqual(sorted(r["config"]["variant"] for r in rows), ["block", "packed"])
        for r in rows:
            self.assertTrue(r["ok"], r)
            self.assertGreater(r["occupancy"]["regs_per_thread"], 0)
            self.assertGreaterEqual(r["occupancy"]["blocks_per_sm"], 1)



if __name__ == "__main__":
    unittest.main(verbosity=2)
