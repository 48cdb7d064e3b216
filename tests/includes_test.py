#!/usr/bin/env python3
"""The include graph of src/ has no circle: no two modules include each other, directly or
through others, so the modules stand in layers. A module is a .c file with its .h (run.c and
run.h); a header without a .c of its own (shell.h, qx.h, output_internal.h) passes on what it
includes to whoever includes it. Run from the repository root."""

import os
import re
import sys
import unittest

SRC = "src"
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def sources():
    """Every .c and .h file under src/, as paths relative to the repository root."""
    for root, _, files in os.walk(SRC):
        for name in files:
            if name.endswith((".c", ".h")):
                yield os.path.normpath(os.path.join(root, name))


def includes(path):
    """The files of src/ that path includes with quotes, resolved against its folder."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    for name in INCLUDE.findall(text):
        target = os.path.normpath(os.path.join(os.path.dirname(path), name))
        if os.path.isfile(target):
            yield target


def module_graph():
    """Maps each module (a path without its extension, with a .c) to the modules it uses."""
    files = set(sources())
    edges = {f: set(includes(f)) for f in files}
    modules = {os.path.splitext(f)[0] for f in files if f.endswith(".c")}

    def reached(header, seen):
        """The modules a header without a .c of its own brings in (through its includes)."""
        out = set()
        for t in edges.get(header, ()):
            stem = os.path.splitext(t)[0]
            if stem in modules:
                out.add(stem)
            elif t not in seen:
                seen.add(t)
                out |= reached(t, seen)
        return out

    graph = {}
    for m in modules:
        deps = set()
        for f in (m + ".c", m + ".h"):
            if f in edges:
                deps |= reached(f, {f})
        deps.discard(m)
        graph[m] = deps
    return graph


def find_circle(graph):
    """Returns one circle of graph as a list of modules (the first again at the end), or []."""
    state = {}
    stack = []

    def visit(m):
        state[m] = 1
        stack.append(m)
        for d in sorted(graph[m]):
            if state.get(d) == 1:
                return stack[stack.index(d):] + [d]
            if d not in state:
                circle = visit(d)
                if circle:
                    return circle
        stack.pop()
        state[m] = 2
        return []

    for m in sorted(graph):
        if m not in state:
            circle = visit(m)
            if circle:
                return circle
    return []


class IncludeGraphTest(unittest.TestCase):
    def test_no_circle(self):
        circle = find_circle(module_graph())
        self.assertEqual(circle, [], "modules include each other: " + " -> ".join(circle))

    def test_interpreter_below_the_table(self):
        """The interpreter, the script reader and help need no command table of quadx's."""
        graph = module_graph()
        for m in ("src/interp", "src/script", "src/help"):
            self.assertNotIn("src/commands", graph[m], m)

    def test_finds_a_circle(self):
        self.assertEqual(find_circle({"a": {"b"}, "b": {"c"}, "c": {"a"}}), ["a", "b", "c", "a"])
        self.assertEqual(find_circle({"a": {"b"}, "b": set()}), [])


if __name__ == "__main__":
    if not os.path.isdir(SRC):
        sys.exit("run from the repository root")
    unittest.main()
