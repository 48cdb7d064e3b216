#!/usr/bin/env python3
"""Script tests of the user's own integrand on the CPU (problem cubature): integrals with
known values over finite and infinite boxes in dims 1..3, on every CPU variant and both
precisions, each within its own error estimate; parameters (set, sweep); the exact value that
belongs to one integral; the compiled code cached in the session; every bad expression's one
error, with the session keeping its integrand.

Run from the repository root: `python3 tests/user_integrand_test.py`."""
import math
import os
import unittest

import qxtest


def quadx(cmds, env=None, timeout=300):
    """Runs quadx --json -e CMDS; returns (exit code, parsed stdout lines, stderr)."""
    p = qxtest.commands(cmds, "--json", env=env, timeout=timeout)
    return p.returncode, qxtest.json_lines(p.stdout), p.stderr


def runs(out):
    """The run records of a script's output."""
    return [o for o in out if o.get("type") == "run"]


# (expression, dim, bounds, exact): known integrals and a 3-D Gaussian over R^3.
KNOWN = [
    ("exp(-x^2-y^2)", 2, "-inf:inf", math.pi),
    ("1/(1+x*y)", 2, "0:1", math.pi ** 2 / 12),
    ("log(x)/(1+x)", 1, "0:1", -math.pi ** 2 / 12),
    ("x^3/expm1(x)", 1, "0:inf", math.pi ** 4 / 15),
    ("exp(-sum(i, x[i]^2))", 3, "-inf:inf", math.pi ** 1.5),
    ("exp(-x)*y", 2, "0:inf 0:2", 2.0),
]


class UserIntegrandTest(unittest.TestCase):
    def check_honest(self, r, exact, what):
        """r converged, its exact value is the one set, its error within its estimate."""
        self.assertEqual(r["error"]["converged"], 1, what)
        self.assertAlmostEqual(r["exact"], exact, delta=1e-15 * abs(exact), msg=what)
        self.assertLessEqual(abs(r["value"] - exact), r["error_estimate"], what)
        self.assertEqual(r["over_estimate"], 0, what)

    def check_cpu_runs(self, words, exact, float_rel, what):
        """The integral that `set` words make, with exact value exact, on the queue (1 and 2
        threads) and hcubature in double and on the queue in float at rel float_rel: four
        runs, each converged with its true error within its estimate."""
        rc, out, err = quadx(
            f'use cubature; set repeat 1 warmup 0 {words} exact {exact!r}; '
            'set precision double threads 1; run cpu; set threads 2; run cpu; '
            'set variant hcubature; run cpu; '
            f'set variant breadth precision float rel {float_rel}; run cpu')
        self.assertEqual(rc, 0, err)
        got = runs(out)
        self.assertEqual(len(got), 4, out)
        for r in got:
            self.check_honest(r, exact, f"{what} {r['variant']} {r['precision']}")

    def test_known_values(self):
        """Every example on breadth (1 and 2 threads), hcubature and in float: each converged
        with its true error within its estimate."""
        for expr, dim, bounds, exact in KNOWN:
            self.check_cpu_runs(f'rel 1e-6 maxeval 2e7 dim {dim} integrand "{expr}" '
                                f'bounds {bounds}', exact, "1e-4", expr)

    def test_box_from_a_and_b(self):
        """The box of a and b (no bounds set): x1*x2 over [0, 2]^2 is 4 and x over [-1, 3] is
        4, on the queue (serial and threaded), hcubature and in float; a box given per axis
        by bounds, finite and infinite, the same."""
        for words, exact in (('dim 2 integrand "x1*x2" a 0 b 2', 4.0),
                             ('dim 1 integrand "x" a -1 b 3', 4.0),
                             ('dim 2 integrand "x*exp(-y)" bounds 1:2 0:inf', 1.5)):
            self.check_cpu_runs(f"rel 1e-8 {words}", exact, "1e-5", words)

    def test_genz_family_as_expression(self):
        """show params writes a Genz family with its drawn c and w as an expression; set as the
        integrand it takes the built-in's evaluations and gives its value (to the last bit
        where the arithmetic is the same, within 2 units of the last place for productpeak,
        whose 1/c^2 the compiler may form differently)."""
        for fam in ("gaussian", "productpeak", "oscillatory", "c0"):
            rc, out, err = quadx(f"use cubature; set integrand {fam} dim 4; show params")
            self.assertEqual(rc, 0, err)
            text = [o for o in out if "as_expression" in o][0]["as_expression"]
            rc, out, err = quadx(
                f'use cubature; set dim 4 rel 1e-7 precision double repeat 1 warmup 0 '
                f'integrand {fam}; run cpu; set integrand "{text}"; run cpu')
            self.assertEqual(rc, 0, err)
            b, u = runs(out)
            self.assertEqual(u["error"]["evaluations"], b["error"]["evaluations"], fam)
            self.assertLessEqual(abs(u["value"] - b["value"]),
                                 4.5e-16 * abs(b["value"]), fam)
            if fam != "productpeak":
                self.assertEqual(u["value"].hex(), b["value"].hex(), fam)

    def test_parameters(self):
        """A parameter is passed to the compiled code: set and swept without recompiling;
        each value of k gives its own integral (e^k - 1) / k."""
        rc, out, err = quadx(
            'use cubature; set repeat 1 warmup 0 precision double rel 1e-9; '
            'set param k 1; set dim 1 integrand "exp(k*x)" bounds 0:1; run cpu; '
            'set k 2; run cpu; sweep k 1,2,3 on cpu')
        self.assertEqual(rc, 0, err)
        got = runs(out)
        self.assertGreaterEqual(len(got), 2, out)
        self.assertAlmostEqual(got[0]["value"], math.e - 1, delta=1e-9)
        self.assertAlmostEqual(got[1]["value"], (math.e ** 2 - 1) / 2, delta=1e-8)
        self.assertEqual(got[1]["error"]["compile_cached"], 1)
        rows = [o for o in out if o.get("type") == "sweep"]
        self.assertEqual([row["config"]["k"] for row in rows], [1, 2, 3], out)
        for row in rows:
            self.assertTrue(row["ok"], row)

    def test_exact_belongs_to_its_integral(self):
        """A new integrand forgets the exact value set for the old one: its run says it has
        none (no true error), never an error of 0."""
        rc, out, err = quadx(
            'use cubature; set repeat 1 warmup 0 precision double; '
            'set dim 2 integrand "x*y" bounds 0:1 exact 0.25; run cpu; '
            'set integrand "x+y"; run cpu')
        self.assertEqual(rc, 0, err)
        first, second = runs(out)
        self.check_honest(first, 0.25, "x*y")
        self.assertIsNone(second.get("exact"), second)
        self.assertIsNone(second.get("true_error"), second)
        self.assertAlmostEqual(second["value"], 1.0, delta=1e-12)

    def test_compiled_once(self):
        """The second run of an integrand compiles nothing; both say what compiling took."""
        rc, out, err = quadx('use cubature; set repeat 1 warmup 0 dim 2 integrand "x^2+y"; '
                             'run cpu; run cpu')
        self.assertEqual(rc, 0, err)
        a, b = runs(out)
        self.assertGreater(a["error"]["compile_ms"], 0)
        self.assertEqual(b["error"]["compile_cached"], 1)
        self.assertEqual(a["error"]["compile_ms"], b["error"]["compile_ms"])

    def test_builtin_as_expression(self):
        """f4 and f5 in dim 5 written as expressions: the built-in's evaluations within 5%,
        the same convergence, values within both estimates."""
        pairs = [("f4", "sin(prod(i, asin(x[i])))", "1e-4"),
                 ("f5", "sum(i, cos(10*x[i])) / (0.2*sin(10))", "1e-6")]
        for name, expr, rel in pairs:
            rc, out, err = quadx(
                f'use cubature; set repeat 1 warmup 0 precision double dim 5 rel {rel} '
                f'threads 2; set integrand {name}; run cpu; set integrand "{expr}"; run cpu')
            self.assertEqual(rc, 0, err)
            b, u = runs(out)
            nb, nu = b["error"]["evaluations"], u["error"]["evaluations"]
            self.assertLessEqual(abs(nu - nb), 0.05 * nb, name)
            self.assertEqual(u["error"]["converged"], b["error"]["converged"], name)
            self.assertLessEqual(abs(b["value"] - u["value"]),
                                 b["error_estimate"] + u["error_estimate"], name)

    def test_bad_expressions(self):
        """One error naming the column and what was expected, before any compiler runs; the
        session keeps its integrand."""
        cases = [
            ('set integrand "sin(q*x)"',
             "unknown name 'q' at column 5: the variables are x1..x3, no parameters"),
            ('set param k 2; set integrand "k*x + q"',
             "unknown name 'q' at column 7: the variables are x1..x3, parameters k"),
            ('set integrand "(x+y"', "')' expected at column 5"),
            ('set integrand "asin(x, y)"', "asin takes 1 argument, got 2"),
            ('set integrand "x4"', "unknown name 'x4' at column 1"),
            ('set integrand "' + "x+" * 2100 + 'x"', "at most 4096"),
            ('set bounds 0:1 0:1', "the bounds give 2 axes but dim is 3"),
            ('set bounds 1:0', "LO must be below HI"),
            ('set param dim 3', "'dim' is taken"),
            ('set param sin 3', "'sin' is taken"),
        ]
        for cmd, msg in cases:
            p = qxtest.script(f'use cubature\nset dim 3 integrand "x*y*z"\n{cmd}\nshow params\n')
            self.assertNotEqual(p.returncode, 0, cmd)
            self.assertIn(msg, p.stderr, cmd)
            self.assertEqual(p.stderr.count("quadx:"), 1, p.stderr)
            p = qxtest.script(
                f'use cubature\nset dim 3 integrand "x*y*z"\n{cmd}\n', "--json")
            keep = qxtest.commands(f'use cubature; set dim 3 integrand "x*y*z"; '
                                   f'show params', "--json")
            params = [o for o in qxtest.json_lines(keep.stdout) if o.get("type") == "params"]
            self.assertEqual(params[0]["integrand"], "x*y*z")

    def test_no_compiler(self):
        """Without a C compiler a run of an expression fails with one error saying what to
        install; a built-in integrand needs none."""
        env = {"QUADX_CC": "/nonexistent/cc"}
        p = qxtest.script('use cubature\nset repeat 1 warmup 0 dim 2 integrand "x+y"\nrun cpu\n',
                          env=env)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("no C compiler", p.stderr)
        self.assertEqual(p.stderr.count("quadx:"), 1, p.stderr)
        p = qxtest.script('use cubature\nset repeat 1 warmup 0 dim 2 integrand f5\nrun cpu\n',
                          env=env)
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_dim1_builtin(self):
        """dim 1 works for the built-ins too (Gauss-Kronrod 7/15): f5 on [0, 1] is 1/2."""
        rc, out, err = quadx('use cubature; set repeat 1 warmup 0 precision double dim 1 '
                             'integrand f5 rel 1e-10; run cpu')
        self.assertEqual(rc, 0, err)
        r = runs(out)[0]
        self.assertAlmostEqual(r["value"], 0.5, delta=1e-10)
        self.assertLessEqual(abs(r["value"] - 0.5), r["error_estimate"])


if __name__ == "__main__":
    unittest.main()
