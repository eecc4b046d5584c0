#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Checks the layout rules docs/ARCHITECTURE.md states for the core crate.

1. No source file under core/src is longer than 800 lines.
2. No import circle between files of core/src: a file's dependencies are the modules its
   `use` and path expressions name (`crate::…`, `super::…`, `self::…`, a child module);
   a path through a `pub use` re-export counts as a dependency on the file that defines the
   item. Comments and `#[cfg(test)] mod tests { … }` blocks are ignored; test files are not.

Prints each violation and exits 1 if there is one. Usage: layout.py [CRATE_SRC] (default
core/src relative to the repository root).
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

MAX_LINES = 800

USE_PATH = re.compile(r"\b(crate|super|self)((?:::\w+)*)(::\{([^{}]*)\})?")
CHILD_USE = re.compile(r"^\s*(?:pub(?:\([a-z]+\))? )?use ([a-z_0-9]+)((?:::\w+)*)(::\{([^{}]*)\})?", re.M)
REEXPORT = re.compile(
    r"^\s*pub(?:\([a-z]+\))? use ((?:(?:crate|self|super|[a-z_0-9]+)::)*)(?:\{([^{}]*)\}|(\w+))", re.M
)
VISIBILITY = re.compile(r"pub\((?:in )?(?:super|crate|self)\)")
TESTS_BLOCK = re.compile(r"#\[cfg\(test\)\]\s*mod tests\s*\{")


def module_path(root: Path, f: Path) -> tuple[str, ...]:
    parts = list(f.relative_to(root).with_suffix("").parts)
    if parts[-1] in ("mod", "lib"):
        parts = parts[:-1]
    return tuple(parts)


def source_without_comments_and_tests(text: str) -> str:
    m = TESTS_BLOCK.search(text)
    if m:
        text = text[: m.start()]
    return "\n".join(line for line in text.split("\n") if not line.lstrip().startswith("//"))


def items(group: str | None) -> list[str]:
    return [i.strip().split(" as ")[0] for i in (group or "").split(",") if i.strip()]


def main() -> int:
    repo = Path(__file__).resolve().parent.parent
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else repo / "core" / "src"
    files = sorted(root.rglob("*.rs"))
    mods = {module_path(root, f): f for f in files}
    failures: list[str] = []

    for f in files:
        n = len(f.read_text().splitlines())
        if n > MAX_LINES:
            failures.append(f"{f.relative_to(repo)}: {n} lines (at most {MAX_LINES})")

    def longest_module(path: list[str]) -> tuple[str, ...] | None:
        for i in range(len(path), 0, -1):
            if tuple(path[:i]) in mods:
                return tuple(path[:i])
        return None

    # Where a name re-exported by a module is defined.
    reexports: dict[tuple[tuple[str, ...], str], tuple[str, ...]] = {}
    for f in files:
        cur = module_path(root, f)
        for m in REEXPORT.finditer(f.read_text()):
            prefix = [p for p in m.group(1).split("::") if p]
            base = list(cur)
            if prefix and prefix[0] == "crate":
                base, prefix = [], prefix[1:]
            elif prefix and prefix[0] == "super":
                base, prefix = list(cur[:-1]), prefix[1:]
            elif prefix and prefix[0] == "self":
                prefix = prefix[1:]
            for item in items(m.group(2)) or [m.group(3)]:
                target = longest_module(base + prefix + item.split("::"))
                if target and target != cur:
                    reexports[(cur, item.split("::")[-1])] = target

    def resolve(path: list[str]) -> tuple[str, ...] | None:
        for i in range(len(path), 0, -1):
            m = tuple(path[:i])
            if m in mods:
                if i < len(path) and (m, path[i]) in reexports:
                    return reexports[(m, path[i])]
                return m
        return None

    edges: dict[tuple[str, ...], set[tuple[str, ...]]] = {}
    for f in files:
        cur = module_path(root, f)
        src = VISIBILITY.sub("pub", source_without_comments_and_tests(f.read_text()))
        paths: list[tuple[str, list[str]]] = []
        for m in USE_PATH.finditer(src):
            head, prefix = m.group(1), m.group(2).split("::")[1:]
            line = src[src.rfind("\n", 0, m.start()) + 1 : m.start()]
            # `use super::…` inside an inline module names the file's own module.
            if head == "super" and line.startswith("    ") and line.lstrip().startswith("use"):
                head = "self"
            if m.group(4) is not None:
                for item in items(m.group(4)):
                    paths.append((head, prefix if item == "self" else prefix + item.split("::")))
            else:
                paths.append((head, prefix))
        for m in CHILD_USE.finditer(src):
            first = m.group(1)
            if first in ("crate", "super", "self", "std", "core", "alloc") or cur + (first,) not in mods:
                continue
            prefix = [first] + m.group(2).split("::")[1:]
            if m.group(4) is not None:
                for item in items(m.group(4)):
                    paths.append(("self", prefix if item == "self" else prefix + item.split("::")))
            else:
                paths.append(("self", prefix))
        deps = set()
        for head, rest in paths:
            base = [] if head == "crate" else list(cur) if head == "self" else list(cur[:-1])
            while rest and rest[0] == "super":
                rest, base = rest[1:], base[:-1]
            target = resolve(base + rest)
            if target is not None and target != cur:
                deps.add(target)
        edges[cur] = deps

    # Strongly connected components (Tarjan) of more than one file are circles.
    index: dict = {}
    low: dict = {}
    stack: list = []
    on_stack: set = set()
    counter = [0]
    circles: list[list[tuple[str, ...]]] = []
    sys.setrecursionlimit(10_000)

    def visit(v: tuple[str, ...]) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                circles.append(comp)

    for v in edges:
        if v not in index:
            visit(v)
    name = lambda m: "::".join(m) or "lib"  # noqa: E731
    for comp in circles:
        inside = [f"{name(a)} -> {name(b)}" for a in comp for b in sorted(edges[a]) if b in comp]
        failures.append(f"import circle: {', '.join(sorted(name(m) for m in comp))} ({'; '.join(inside)})")

    for line in failures:
        print(f"layout: {line}")
    print(f"layout: {len(files)} files in {root.relative_to(repo)}, {len(failures)} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
