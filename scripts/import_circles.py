#!/usr/bin/env python3
"""Lists import circles between the files of one folder of src/ (a file that, through the
paths it names, reaches back to itself). A path is `crate::a::b`, `super::b` or `self::b`
in code or in a `use` (braces expanded); it counts as naming the deepest file it reaches.
Files of tests (`tests.rs`, `tests/`), comments and `macro_rules!` bodies are left out: test code may reach
across. A `mod.rs` naming its own children by their bare names (`use child::X`, its
re-exports) is not counted as reaching them.

Usage: scripts/import_circles.py runtime codegen cli  (exit 1 when any circle is found)
"""
import os
import re
import sys

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")


def module_of(path):
    """`src/runtime/library/dot.rs` -> ('runtime', 'library', 'dot')."""
    rel = os.path.relpath(path, SRC)[:-3].split(os.sep)
    if rel[-1] == "mod":
        rel = rel[:-1]
    if rel == ["lib"]:
        return ()
    return tuple(rel)


def file_of(module, files):
    """The deepest file a module path (a tuple) reaches."""
    for n in range(len(module), 0, -1):
        if module[:n] in files:
            return module[:n]
    return None


def expand_use(text):
    """Every path of a `use` tree, braces expanded."""
    text = re.sub(r"\s+as\s+\w+", "", text)
    text = re.sub(r"\s+", "", text)

    def expand(prefix, tree):
        if tree.startswith("{") and tree.endswith("}"):
            parts, depth, cur = [], 0, ""
            for ch in tree[1:-1]:
                if ch == "," and depth == 0:
                    parts.append(cur)
                    cur = ""
                    continue
                depth += ch == "{"
                depth -= ch == "}"
                cur += ch
            parts.append(cur)
            out = []
            for p in parts:
                if p:
                    out += expand(prefix, p)
            return out
        i = tree.find("::{")
        if i >= 0:
            return expand(prefix + tree[:i].split("::"), tree[i + 2 :])
        return [prefix + [s for s in tree.split("::") if s]]

    return expand([], text)


def without_macro_bodies(source):
    """`macro_rules!` bodies: their paths resolve where the macro expands."""
    out, i = [], 0
    for m in re.finditer(r"macro_rules!\s*\w+\s*\{", source):
        if m.start() < i:
            continue
        out.append(source[i : m.start()])
        depth, j = 0, m.end() - 1
        while j < len(source):
            depth += source[j] == "{"
            depth -= source[j] == "}"
            j += 1
            if depth == 0:
                break
        i = j
    out.append(source[i:])
    return "".join(out)


def paths_in(source):
    # Comments (doc links included) name paths without depending on them.
    source = without_macro_bodies(re.sub(r"//[^\n]*", "", source))
    uses = re.findall(r"\buse\s+((?:crate|super|self)[^;]*);", source)
    paths = []
    for u in uses:
        paths += expand_use(u)
    body = re.sub(r"\buse\s+[^;]*;", "", source)
    paths += [p.split("::") for p in re.findall(r"\b(?:crate|super|self)(?:::\w+)+", body)]
    return paths


def main(rooms):
    files = {}
    for root, dirs, names in os.walk(SRC):
        dirs[:] = [d for d in dirs if d != "tests"]
        for n in names:
            if n.endswith(".rs") and n != "tests.rs":
                p = os.path.join(root, n)
                files[module_of(p)] = p
    found = 0
    for room in rooms:
        members = {m for m in files if m[:1] == (room,)}
        edges = {m: set() for m in members}
        for m in members:
            src = open(files[m]).read()
            src = re.split(r"#\[cfg\(test\)\]\s*mod\s+tests\s*\{", src)[0]
            for path in paths_in(src):
                # A path is relative to the module the file is (foo.rs's `super` is foo's
                # parent, as mod.rs's is).
                base, rest = list(m), path
                if rest[0] == "crate":
                    base, rest = [], rest[1:]
                elif rest[0] == "self":
                    rest = rest[1:]
                while rest and rest[0] == "super":
                    base = base[:-1]
                    rest = rest[1:]
                target = tuple(base + rest)
                f = file_of(target, files)
                if f and f != m and f in members:
                    edges[m].add(f)
        # Tarjan's strongly connected components.
        index, low, stack, on, comps, counter = {}, {}, [], set(), [], [0]

        def visit(v):
            index[v] = low[v] = counter[0]
            counter[0] += 1
            stack.append(v)
            on.add(v)
            for w in edges[v]:
                if w not in index:
                    visit(w)
                    low[v] = min(low[v], low[w])
                elif w in on:
                    low[v] = min(low[v], index[w])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    comps.append(comp)

        sys.setrecursionlimit(10000)
        for v in sorted(members):
            if v not in index:
                visit(v)
        for comp in comps:
            found += 1
            names = sorted(os.path.relpath(files[c], os.path.join(SRC, "..")) for c in comp)
            print(f"{room}: circle of {len(comp)}: {', '.join(names)}")
        if not comps:
            print(f"{room}: no circle ({len(members)} files)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["runtime", "codegen", "cli"]))
