#!/usr/bin/env python3
"""Writes pjrt/src/debug_options.txt: the fields of XLA's `DebugOptions` as jaxlib's own
build knows them (name, single or repeated, type), read from the `xla/xla.proto` file
descriptor compiled into jaxlib's shared library. The plugin checks a compile's option
overrides (`jax.jit(f, compiler_options={...})`) against it as XLA's PJRT clients do.

Usage: python3 scripts/xla_debug_options.py [path/to/libjax_common.so]
(default: the one of the installed jaxlib).
"""

import os
import sys

TYPES = {1: "double", 2: "float", 3: "int64", 4: "uint64", 5: "int32", 8: "bool",
         9: "string", 11: "message", 12: "bytes", 13: "uint32", 14: "enum",
         17: "sint32", 18: "sint64"}


def varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return v, i


def fields(b):
    i = 0
    while i < len(b):
        k, i = varint(b, i)
        f, t = k >> 3, k & 7
        if t == 0:
            v, i = varint(b, i)
        elif t == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        elif t == 1:
            v, i = b[i:i + 8], i + 8
        elif t == 5:
            v, i = b[i:i + 4], i + 4
        else:
            raise ValueError(f"wire type {t}")
        yield f, v


def main():
    if len(sys.argv) > 1:
        lib = sys.argv[1]
    else:
        import jaxlib
        lib = os.path.join(os.path.dirname(jaxlib.__file__), "libjax_common.so")
    import jaxlib.version
    data = open(lib, "rb").read()
    # A FileDescriptorProto starts with its name, field 1.
    start = data.find(b"\n\rxla/xla.proto")
    if start < 0:
        sys.exit(f"{lib}: no xla/xla.proto descriptor")
    j = start
    rows = None
    while rows is None:
        k, j = varint(data, j)
        f, t = k >> 3, k & 7
        if t != 2:
            sys.exit("DebugOptions not found in the descriptor")
        n, j = varint(data, j)
        v, j = data[j:j + n], j + n
        if f != 4:  # message_type
            continue
        name = None
        found = []
        for ff, vv in fields(v):
            if ff == 1:
                name = vv.decode()
            elif ff == 2:
                d = dict(fields(vv))
                label = "repeated" if d.get(4) == 3 else "single"
                found.append((d[1].decode(), label, TYPES[d[5]]))
        if name == "DebugOptions":
            rows = found
    out = os.path.join(os.path.dirname(__file__), "..", "pjrt", "src", "debug_options.txt")
    with open(out, "w") as o:
        o.write(f"# XLA DebugOptions fields of jaxlib {jaxlib.version.__version__}: "
                "name, single|repeated, type.\n")
        o.write("# Written by scripts/xla_debug_options.py; do not edit.\n")
        for row in sorted(rows):
            o.write(" ".join(row) + "\n")
    print(f"{out}: {len(rows)} fields")


if __name__ == "__main__":
    main()
