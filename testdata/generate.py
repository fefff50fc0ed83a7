#!/usr/bin/env python3
"""Generates xlac's golden test programs from real JAX code.

Run from the repository root with the pinned versions of testdata/requirements.txt:

    pip install -r testdata/requirements.txt
    python3 testdata/generate.py              # regenerate every program
    python3 testdata/generate.py mlp sort     # only the named programs
    python3 testdata/generate.py --meta-only  # only meta.json; warns about stale files

Every program is written to testdata/<name>/:

    model.hlo      jit's HLO text (short parsable form, all constants printed)
    model.mlir     jit's StableHLO text (the default MLIR text of the lowering)
    xla_opt.hlo    XLA:CPU's optimized HLO (fusions, layouts, schedule), all constants printed
    inputs.npz     the entry parameters in order (arr_0, arr_1, ...); bf16 stored as float32
    expected.npz   XLA:CPU's outputs, the flattened result leaves; bf16 stored as float32
    meta.json      name, description, x64, XLA:CPU's figures (xla_*), input/output types

Then testdata/README.md and testdata/opcodes.txt are rewritten from all program folders.
It is deterministic: inputs come from numpy generators seeded by the program's name, .npz files
have fixed zip timestamps, and source locations in xla_opt.hlo's metadata are reduced to
the base name and LINE NUMBERS of this file (see generate()).
"""

import io
import json
import os
import re
import sys
import zipfile
import zlib

import numpy as np

import jax
import jax.numpy as jnp
import ml_dtypes
from jax import lax
from jax._src.interpreters import mlir as jax_mlir
from jax._src.lib import hlo as hlo_lib
from jax._src.lib.mlir import ir
from jax._src.lib.mlir.dialects import hlo as stablehlo
from jax.extend.core import Primitive

jax.config.update("jax_platforms", "cpu")
# Source file names in HLO metadata become base names, so output does not depend on
# where the repository is checked out.
jax.config.update("jax_hlo_source_file_canonicalization_regex", r".*/")

HERE = os.path.dirname(os.path.abspath(__file__))
BF16 = jnp.bfloat16
PINNED = {"jax": "0.10.2", "jaxlib": "0.10.2"}

# --------------------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------------------

PROGRAMS = {}


def program(name, description, x64=False):
    """Registers `make(rng) -> (fn, args)`; fn takes the args positionally."""

    def register(make):
        assert name not in PROGRAMS, name
        PROGRAMS[name] = dict(name=name, description=description, x64=x64, make=make)
        return make

    return register


# --------------------------------------------------------------------------------------
# Input helpers
# --------------------------------------------------------------------------------------


def normal(rng, shape, scale=1.0, dtype=np.float32):
    return (rng.standard_normal(shape) * scale).astype(dtype)


def uniform(rng, shape, lo=-1.0, hi=1.0, dtype=np.float32):
    return rng.uniform(lo, hi, size=shape).astype(dtype)


def ints(rng, shape, lo, hi, dtype=np.int32):
    """Integers in [lo, hi)."""
    return rng.integers(lo, hi, size=shape).astype(dtype)


def bf16(a):
    return np.asarray(a, dtype=np.float32).astype(ml_dtypes.bfloat16)


def scalar(v, dtype):
    return np.array(v, dtype=dtype)


F32_SPECIALS = np.array(
    [0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, 1.0, -0.5, 0.5, 2.5, -2.5, 1.5, -1.5,
     3.7, -3.7, 1e-8, -1e-8, 1e-40, 100.0, -100.0, 88.0, -88.0, 1e30, -1e30,
     0.25, 7.0, 0.1, -0.1, 2.0, 1e-3, 5e-1 + 1e-7, 3.0],
    dtype=np.float32)

I32_EDGES = np.array(
    [0, 1, -1, 2, -2, 7, -7, 31, 32, 33, 100, -100, 2**31 - 1, -2**31, 2**30, -2**30,
     12345, -12345, 255, 256],
    dtype=np.int32)

# --------------------------------------------------------------------------------------
# Neural network building blocks
# --------------------------------------------------------------------------------------


def layer_norm(x, g, b, eps=1e-5):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean(jnp.square(x - mean), axis=-1, keepdims=True)
    return (x - mean) * lax.rsqrt(var + eps) * g + b


def max_pool(x, window, strides, padding="VALID"):
    return lax.reduce_window(x, -jnp.inf, lax.max, window, strides, padding)


# --------------------------------------------------------------------------------------
# Programs: models
# --------------------------------------------------------------------------------------


@program("mlp", "2-layer MLP: dot, bias broadcast, relu")
def _(rng):
    def f(x, w1, b1, w2, b2):
        h = jax.nn.relu(x @ w1 + b1)
        return h @ w2 + b2

    return f, [normal(rng, (8, 16)), normal(rng, (16, 32), 0.25), normal(rng, (32,), 0.1),
               normal(rng, (32, 10), 0.2), normal(rng, (10,), 0.1)]


@program("softmax", "jax.nn.softmax along the last axis, with large values and -inf")
def _(rng):
    def f(x):
        return jax.nn.softmax(x, axis=-1), jax.nn.log_softmax(x, axis=0)

    x = normal(rng, (4, 10), 2.0)
    x[1, 3] = 80.0
    x[2, :5] = -np.inf
    x[3, 7] = -90.0
    return f, [x]


@program("layernorm", "layer normalization: mean/variance reductions, rsqrt, affine")
def _(rng):
    def f(x, g, b):
        return layer_norm(x, g, b)

    return f, [normal(rng, (4, 32), 3.0) + 1.0, 1.0 + normal(rng, (32,), 0.1),
               normal(rng, (32,), 0.1)]


@program("attention", "single-head scaled dot-product attention with a boolean mask")
def _(rng):
    def f(q, k, v, mask):
        s = jnp.einsum("bqd,bkd->bqk", q, k) / jnp.sqrt(jnp.float32(q.shape[-1]))
        s = jnp.where(mask, s, -1e9)
        p = jax.nn.softmax(s, axis=-1)
        return jnp.einsum("bqk,bkd->bqd", p, v)

    b, t, d = 2, 8, 16
    causal = np.tril(np.ones((t, t), dtype=bool))
    mask = np.stack([causal, causal])
    mask[1, :, 6:] = False  # padding of the second sequence
    mask[1, :, 0] = True
    return f, [normal(rng, (b, t, d)), normal(rng, (b, t, d)), normal(rng, (b, t, d)), mask]


@program("transformer_block",
         "pre-LN transformer block: layernorm, 4-head causal attention, tanh-gelu MLP, residuals")
def _(rng):
    heads = 4

    def f(x, ln1_g, ln1_b, wq, wk, wv, wo, ln2_g, ln2_b, w1, b1, w2, b2):
        bsz, t, d = x.shape
        hd = d // heads
        h = layer_norm(x, ln1_g, ln1_b)

        def split(a):
            return a.reshape(bsz, t, heads, hd).transpose(0, 2, 1, 3)

        q, k, v = split(h @ wq), split(h @ wk), split(h @ wv)
        s = jnp.einsum("bhqd,bhkd->bhqk", q, k) / np.sqrt(hd).astype(np.float32)
        causal = jnp.tril(jnp.ones((t, t), dtype=bool))
        s = jnp.where(causal, s, jnp.finfo(jnp.float32).min)
        p = jax.nn.softmax(s, axis=-1)
        o = jnp.einsum("bhqk,bhkd->bhqd", p, v).transpose(0, 2, 1, 3).reshape(bsz, t, d)
        x = x + o @ wo
        h = layer_norm(x, ln2_g, ln2_b)
        h = jax.nn.gelu(h @ w1 + b1, approximate=True) @ w2 + b2
        return x + h

    d, ff = 32, 64
    sc = 1.0 / np.sqrt(d)
    args = [normal(rng, (2, 8, d)),
            1.0 + normal(rng, (d,), 0.1), normal(rng, (d,), 0.1),
            normal(rng, (d, d), sc), normal(rng, (d, d), sc), normal(rng, (d, d), sc),
            normal(rng, (d, d), sc),
            1.0 + normal(rng, (d,), 0.1), normal(rng, (d,), 0.1),
            normal(rng, (d, ff), sc), normal(rng, (ff,), 0.1),
            normal(rng, (ff, d), 1.0 / np.sqrt(ff)), normal(rng, (d,), 0.1)]
    return f, args


@program("cnn", "small CNN: two 3x3 NHWC convs + relu + reduce_window max pooling + dense")
def _(rng):
    dn = ("NHWC", "HWIO", "NHWC")

    def f(x, k1, c1, k2, c2, w, b):
        h = lax.conv_general_dilated(x, k1, (1, 1), "SAME", dimension_numbers=dn) + c1
        h = max_pool(jax.nn.relu(h), (1, 2, 2, 1), (1, 2, 2, 1))
        h = lax.conv_general_dilated(h, k2, (1, 1), "SAME", dimension_numbers=dn) + c2
        h = max_pool(jax.nn.relu(h), (1, 2, 2, 1), (1, 2, 2, 1))
        return h.reshape(h.shape[0], -1) @ w + b

    return f, [normal(rng, (2, 16, 16, 3)), normal(rng, (3, 3, 3, 8), 0.3),
               normal(rng, (8,), 0.1), normal(rng, (3, 3, 8, 16), 0.15),
               normal(rng, (16,), 0.1), normal(rng, (4 * 4 * 16, 10), 0.06),
               normal(rng, (10,), 0.1)]


@program("train_step", "jax.grad of an MLP cross-entropy loss and an SGD update")
def _(rng):
    def loss_fn(params, x, y):
        w1, b1, w2, b2 = params
        h = jnp.tanh(x @ w1 + b1)
        logits = h @ w2 + b2
        logp = jax.nn.log_softmax(logits)
        return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))

    def f(w1, b1, w2, b2, x, y):
        params = (w1, b1, w2, b2)
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        new = tuple(p - 0.1 * g for p, g in zip(params, grads))
        return new, loss

    return f, [normal(rng, (8, 16), 0.3), np.zeros((16,), np.float32),
               normal(rng, (16, 4), 0.3), np.zeros((4,), np.float32),
               normal(rng, (8, 8)), ints(rng, (8,), 0, 4)]


# --------------------------------------------------------------------------------------
# Programs: control flow
# --------------------------------------------------------------------------------------


@program("scan", "lax.scan RNN over 6 steps, carrying a hidden state and a running sum")
def _(rng):
    def f(xs, wx, wh, b, h0):
        def step(carry, x):
            h, acc = carry
            h = jnp.tanh(x @ wx + h @ wh + b)
            return (h, acc + jnp.sum(h)), h

        (h, acc), hs = lax.scan(step, (h0, jnp.float32(0)), xs)
        return h, acc, hs

    return f, [normal(rng, (6, 2, 4)), normal(rng, (4, 8), 0.5), normal(rng, (8, 8), 0.3),
               normal(rng, (8,), 0.1), np.zeros((2, 8), np.float32)]


@program("fori_loop", "lax.fori_loop with static bounds, loop index used in the body")
def _(rng):
    def f(x, m):
        def body(i, c):
            x, s = c
            x = jnp.tanh(x @ m) + i.astype(jnp.float32) * 0.1
            return x, s + i

        return lax.fori_loop(0, 5, body, (x, jnp.int32(0)))

    return f, [normal(rng, (4, 4)), normal(rng, (4, 4), 0.5)]


@program("while_loop", "lax.while_loop whose trip count comes from an input integer")
def _(rng):
    def f(n, x):
        def cond(c):
            i, _, _ = c
            return i < n

        def body(c):
            i, x, s = c
            x = x * 1.5 - 0.25
            return i + 1, x, s + jnp.sum(x)

        return lax.while_loop(cond, body, (jnp.int32(0), x, jnp.float32(0)))

    return f, [scalar(7, np.int32), normal(rng, (5,))]


@program("cond", "lax.cond on a computed predicate and on an input bool (both branches taken)")
def _(rng):
    def f(x, y, p):
        a = lax.cond(jnp.sum(x) > 0, lambda u, v: u * v + 1.0, lambda u, v: u - jnp.exp(v), x, y)
        b = lax.cond(p, lambda u: jnp.sin(u), lambda u: jnp.cos(u), y)
        c = lax.cond(jnp.logical_not(p), lambda u: jnp.sin(u), lambda u: u * 3.0, y)
        return a, b, c

    x = normal(rng, (6,))
    x = np.abs(x)
    return f, [x, normal(rng, (6,)), scalar(True, np.bool_)]


@program("switch", "lax.switch with 3 branches; indices in range, negative and too large (clamped)")
def _(rng):
    branches = [lambda x: x * 2.0, lambda x: jnp.sin(x), lambda x: x - 10.0]

    def f(i, j, k, x):
        return (lax.switch(i, branches, x), lax.switch(j, branches, x),
                lax.switch(k, branches, x))

    return f, [scalar(1, np.int32), scalar(-3, np.int32), scalar(7, np.int32),
               normal(rng, (5,))]


# --------------------------------------------------------------------------------------
# Programs: indexing
# --------------------------------------------------------------------------------------


@program("gather", "fancy indexing x[idx] (negative and out-of-range indices), "
                   "take_along_axis, take with mode='fill'")
def _(rng):
    def f(x, idx, idx2):
        return (x[idx], x[idx, 2:5], jnp.take_along_axis(x, idx2, axis=1),
                jnp.take(x, idx, axis=0, mode="fill", fill_value=-1.0), x[:, idx[:2]])

    x = normal(rng, (10, 6))
    idx = np.array([0, 3, -1, 12, 5], dtype=np.int32)
    idx2 = ints(rng, (10, 3), 0, 6)
    return f, [x, idx, idx2]


@program("scatter", "x.at[idx].add/.set/.max/.min/.mul with duplicate and out-of-range indices")
def _(rng):
    def f(x, idx, uniq, u):
        return (x.at[idx].add(u), x.at[uniq].set(u), x.at[idx].max(u), x.at[idx].min(u),
                x.at[uniq].multiply(u), x.at[idx, 1].add(u[:, 0]))

    x = normal(rng, (10, 4))
    idx = np.array([1, 3, 1, 12, -2, 3], dtype=np.int32)
    uniq = np.array([0, 2, 4, 6, 8, 9], dtype=np.int32)
    return f, [x, idx, uniq, normal(rng, (6, 4))]


@program("segment_sum", "jax.ops.segment_sum/segment_max with an empty segment and an "
                        "out-of-range id")
def _(rng):
    def f(data, ids):
        return (jax.ops.segment_sum(data, ids, num_segments=5),
                jax.ops.segment_max(data, ids, num_segments=5),
                jax.ops.segment_sum(jnp.ones_like(ids), ids, num_segments=5))

    ids = np.array([0, 0, 1, 3, 3, 3, 1, 0, 7, 1, 3, 0], dtype=np.int32)  # 2, 4 empty; 7 dropped
    return f, [normal(rng, (12, 3)), ids]


@program("sort", "jnp.sort on both axes with NaN/-0/inf, integer sort, multi-operand lax.sort "
                 "with num_keys=1 and 2")
def _(rng):
    def f(x, k1, k2, v):
        s0 = jnp.sort(x, axis=0)
        s1 = jnp.sort(x, axis=1)
        si = jnp.sort(k1, axis=-1)
        a = lax.sort((k1, v), dimension=1, num_keys=1, is_stable=True)
        b = lax.sort((k1, k2, v), dimension=1, num_keys=2, is_stable=True)
        return s0, s1, si, a, b

    x = normal(rng, (5, 8))
    x[0, 2] = np.nan
    x[1, 1] = -0.0
    x[1, 5] = 0.0
    x[2, 3] = np.inf
    x[3, 0] = -np.inf
    x[4, 4] = np.nan
    k1 = ints(rng, (3, 8), 0, 3)
    k2 = ints(rng, (3, 8), -5, 5)
    return f, [x, k1, k2, normal(rng, (3, 8))]


@program("argsort", "stable jnp.argsort ascending and descending with ties")
def _(rng):
    def f(x, k):
        return (jnp.argsort(x, axis=-1, stable=True), jnp.argsort(k, axis=0, stable=True),
                jnp.argsort(k, axis=-1, stable=True, descending=True))

    x = np.round(normal(rng, (4, 9)), 0)
    return f, [x, ints(rng, (6, 5), 0, 3)]


@program("top_k", "lax.top_k on the last axis with duplicates, f32 and s32")
def _(rng):
    def f(x, k):
        return lax.top_k(x, 3), lax.top_k(k, 4)

    x = np.round(normal(rng, (4, 10)), 1)
    x[0, :4] = 1.0
    return f, [x, ints(rng, (3, 7), 0, 5)]


@program("dynamic_slice", "lax.dynamic_slice with input indices, in range and out of range (clamped)")
def _(rng):
    def f(x, i, j):
        return (lax.dynamic_slice(x, (i, j), (3, 4)),
                lax.dynamic_slice(x, (j, i), (2, 8)),
                lax.dynamic_slice_in_dim(x, i + 100, 5, axis=1),
                lax.dynamic_index_in_dim(x, j, axis=0, keepdims=False))

    return f, [normal(rng, (8, 8)), scalar(6, np.int32), scalar(-2, np.int32)]


@program("dynamic_update_slice", "lax.dynamic_update_slice with in-range, negative and too-large "
                                 "indices (clamped)")
def _(rng):
    def f(x, u, i, j):
        return (lax.dynamic_update_slice(x, u, (i, j)),
                lax.dynamic_update_slice(x, u, (j, i)),
                lax.dynamic_update_slice(x, u, (i - 3, j + 3)),
                lax.dynamic_update_index_in_dim(x, u[0, :4].reshape(1, 4) * 0 + u[0, 0],
                                                i, axis=0)[:, :4])

    return f, [normal(rng, (8, 8)), normal(rng, (3, 4)), scalar(6, np.int32),
               scalar(-1, np.int32)]


@program("pad_concat_reverse", "lax.pad with negative and interior padding, concatenate, "
                               "flip/rev, slices with strides")
def _(rng):
    def f(x, y):
        return (lax.pad(x, jnp.float32(-7.0), [(1, -1, 1), (-2, 2, 0)]),
                lax.pad(x, jnp.float32(0.0), [(0, 0, 2), (3, 1, 1)]),
                jnp.concatenate([x, y], axis=0),
                jnp.concatenate([x, y.T[:4, :2], x], axis=1),
                jnp.flip(x, axis=0), jnp.flip(x), lax.rev(y, (1,)),
                x[::2, 1::3])

    return f, [normal(rng, (4, 5)), normal(rng, (3, 5))]


@program("one_hot", "jax.nn.one_hot with negative and out-of-range labels")
def _(rng):
    def f(labels):
        return jax.nn.one_hot(labels, 5), jax.nn.one_hot(labels, 5, dtype=jnp.int32, axis=0)

    return f, [np.array([0, 4, 2, -1, 5, 3, 1, 9], dtype=np.int32)]


@program("argmax", "jnp.argmax/argmin on both axes with ties and NaNs, and on ints")
def _(rng):
    def f(x, k):
        return (jnp.argmax(x, axis=0), jnp.argmax(x, axis=1), jnp.argmin(x, axis=0),
                jnp.argmin(x, axis=1), jnp.argmax(k, axis=1), jnp.argmin(k, axis=0))

    x = np.round(normal(rng, (4, 6)), 0)
    x[1, 3] = np.nan
    x[2, 0] = np.nan
    x[2, 4] = np.nan
    return f, [x, ints(rng, (5, 4), -2, 3)]


@program("reduce_variadic", "lax.reduce with two operands (value, index) argmax-like; "
                            "product/min reductions; multi-dim reduce")
def _(rng):
    def f(x, k):
        idx = lax.broadcasted_iota(jnp.int32, x.shape, 1)

        def comb(a, b):
            av, ai = a
            bv, bi = b
            pick_a = (av > bv) | ((av == bv) & (ai < bi))
            return jnp.where(pick_a, av, bv), jnp.where(pick_a, ai, bi)

        mv, mi = lax.reduce((x, idx), (jnp.float32(-jnp.inf), jnp.int32(0)), comb, (1,))
        return (mv, mi, jnp.prod(x, axis=0), jnp.min(x, axis=(0, 1)), jnp.max(k, axis=(0, 2)),
                jnp.sum(k, axis=(1,)), jnp.any(x > 1.0, axis=1), jnp.all(k >= 0, axis=(0, 1)))

    return f, [normal(rng, (4, 7)), ints(rng, (2, 3, 4), -5, 6)]


# --------------------------------------------------------------------------------------
# Programs: integer semantics
# --------------------------------------------------------------------------------------


@program("int_bitops", "int32 and/or/xor/not, shifts with amounts <0 and >=32, popcount, clz, "
                       "div/rem by zero and INT_MIN/-1, overflow")
def _(rng):
    def f(a, b, s):
        return (a & b, a | b, a ^ b, ~a,
                lax.shift_left(a, s), lax.shift_right_arithmetic(a, s),
                lax.shift_right_logical(a, s),
                lax.population_count(a), lax.clz(a),
                lax.div(a, b), lax.rem(a, b), jnp.floor_divide(a, b), jnp.remainder(a, b),
                a + b, a - b, a * b, -a, jnp.abs(a), jnp.maximum(a, b), jnp.minimum(a, b),
                jnp.sign(a))

    a = np.array([0, 1, -1, 7, -7, 2**31 - 1, -2**31, -2**31, 12345, -12345, 100, 255,
                  2**30, -100, 5, -5], dtype=np.int32)
    b = np.array([0, 0, 3, 2, 2, -1, -1, 1, -7, 7, 0, 16, 2**30, -3, -5, 2**31 - 1],
                 dtype=np.int32)
    s = np.array([0, 1, 31, 32, 33, -1, 3, 100, -32, 4, 2, 8, 1, 31, 16, 2**31 - 1],
                 dtype=np.int32)
    return f, [a, b, s]


@program("uint_bitops", "uint8 and uint32 arithmetic with wraparound, div/rem by zero, shifts "
                        ">= width, popcount, clz, bitwise ops")
def _(rng):
    def ops(a, b, s):
        return (a + b, a - b, a * b, lax.div(a, b), lax.rem(a, b), a & b, a | b, a ^ b, ~a,
                lax.shift_left(a, s), lax.shift_right_logical(a, s),
                lax.shift_right_arithmetic(a, s), lax.population_count(a), lax.clz(a),
                jnp.maximum(a, b), a < b, -a)

    def f(a8, b8, s8, a32, b32, s32):
        return ops(a8, b8, s8), ops(a32, b32, s32)

    a8 = np.array([0, 1, 255, 128, 200, 7, 100, 254], dtype=np.uint8)
    b8 = np.array([0, 255, 1, 128, 100, 0, 3, 2], dtype=np.uint8)
    s8 = np.array([0, 1, 7, 8, 9, 255, 3, 4], dtype=np.uint8)
    a32 = np.array([0, 1, 2**32 - 1, 2**31, 3000000000, 7, 123456789, 2**31 - 1],
                   dtype=np.uint32)
    b32 = np.array([0, 2**32 - 1, 1, 2**31, 2000000000, 0, 10, 3], dtype=np.uint32)
    s32 = np.array([0, 1, 31, 32, 33, 2**32 - 1, 4, 16], dtype=np.uint32)
    return f, [a8, b8, s8, a32, b32, s32]


@program("int64_math", "x64: int64/uint64 arithmetic with overflow wrap, div/rem edge cases, "
                       "shifts, popcount, conversions", x64=True)
def _(rng):
    def f(a, b, s, u, v):
        return (a + b, a - b, a * b, lax.div(a, b), lax.rem(a, b), lax.shift_left(a, s),
                lax.shift_right_arithmetic(a, s), lax.shift_right_logical(a, s),
                lax.population_count(a), lax.clz(a), a.astype(jnp.float64),
                a.astype(jnp.int32),
                u + v, u * v, u - v, lax.div(u, v), lax.rem(u, v), u.astype(jnp.float64),
                u.astype(jnp.int64), jnp.sum(a), jnp.cumsum(u))

    i64 = np.iinfo(np.int64)
    a = np.array([0, 1, -1, i64.max, i64.min, i64.min, 2**40 + 3, -2**40, 9, -9, 2**62,
                  123456789012345], dtype=np.int64)
    b = np.array([0, 0, 5, 1, -1, 2, 2**30, 7, -4, 4, 4, -1000], dtype=np.int64)
    s = np.array([0, 1, 63, 64, 65, -1, 3, 40, 2, 1, 1, 8], dtype=np.int64)
    u = np.array([0, 1, 2**64 - 1, 2**63, 2**63 + 5, 10, 2**32, 12345678901234567890, 3,
                  4, 5, 6], dtype=np.uint64)
    v = np.array([0, 2**64 - 1, 1, 2, 2**63, 0, 2**32, 10, 3, 1, 2, 7], dtype=np.uint64)
    return f, [a, b, s, u, v]


# --------------------------------------------------------------------------------------
# Programs: random numbers
# --------------------------------------------------------------------------------------


@program("random_threefry", "jax.random with the default threefry key: split, normal, uniform, "
                            "bernoulli, randint")
def _(rng):
    def f(seed):
        key = jax.random.key(seed)
        k1, k2, k3, k4 = jax.random.split(key, 4)
        return (jax.random.normal(k1, (4, 8)),
                jax.random.uniform(k2, (16,), minval=-1.0, maxval=1.0),
                jax.random.bernoulli(k3, 0.3, (16,)),
                jax.random.randint(k4, (10,), 0, 100))

    return f, [scalar(42, np.int32)]


@program("random_rbg", "rng-bit-generator: jax.random with impl='rbg', and lax.rng_bit_generator "
                       "with the default, threefry and philox algorithms")
def _(rng):
    def f(seed, state):
        key = jax.random.key(seed, impl="rbg")
        k1, k2 = jax.random.split(key)
        out = [jax.random.normal(k1, (4, 8)), jax.random.uniform(k2, (16,))]
        for alg in (lax.RandomAlgorithm.RNG_DEFAULT, lax.RandomAlgorithm.RNG_THREE_FRY,
                    lax.RandomAlgorithm.RNG_PHILOX):
            new_state, bits = lax.rng_bit_generator(state, (4, 6), dtype=jnp.uint32,
                                                    algorithm=alg)
            out += [new_state, bits]
        s2, b8 = lax.rng_bit_generator(state, (10,), dtype=jnp.uint8,
                                       algorithm=lax.RandomAlgorithm.RNG_PHILOX)
        return out + [s2, b8]

    state = np.array([1, 2, 3, 0xDEADBEEF], dtype=np.uint32)
    return f, [scalar(7, np.int32), state]


# --------------------------------------------------------------------------------------
# Programs: floating-point types
# --------------------------------------------------------------------------------------


@program("bf16_mixed", "bf16 matmul with f32 accumulation, bf16 elementwise ops and casts")
def _(rng):
    def f(x, w, b):
        acc = jnp.dot(x, w, preferred_element_type=jnp.float32)
        y = jnp.tanh(acc.astype(BF16) + b)
        z = jnp.sum(y.astype(jnp.float32), axis=0)
        return y, acc, z, x * x + b[:16], jnp.dot(x, w)

    return f, [bf16(normal(rng, (8, 16))), bf16(normal(rng, (16, 24), 0.3)),
               bf16(normal(rng, (24,), 0.1))]


@program("f16_mixed", "f16 matmul with f32 accumulation, f16 elementwise with overflow to inf")
def _(rng):
    def f(x, w, big):
        acc = jnp.dot(x, w, preferred_element_type=jnp.float32)
        y = jax.nn.sigmoid(acc.astype(jnp.float16))
        return y, acc, big * big, jnp.exp(big), jnp.dot(x, w), jnp.mean(x, axis=1)

    big = np.array([1.0, 255.0, 256.0, 300.0, -400.0, 6e-5, 1e-7, 65504.0], dtype=np.float16)
    return f, [normal(rng, (8, 16)).astype(np.float16),
               normal(rng, (16, 8), 0.3).astype(np.float16), big]


@program("f64_math", "x64: f64 transcendental and arithmetic ops, reductions, matmul", x64=True)
def _(rng):
    def f(x, y, m):
        return (jnp.exp(x), jnp.log(jnp.abs(x)), jnp.tanh(x), jnp.sin(x), jnp.cos(x),
                jnp.sqrt(jnp.abs(x)), jnp.expm1(x), jnp.log1p(jnp.abs(x)), lax.erf(x),
                jnp.power(jnp.abs(x), y), jnp.arctan2(x, y), x / y, jnp.sum(x * y),
                m @ m.T, jax.nn.sigmoid(x), jnp.floor(x * 10), jnp.round(x * 10))

    x = normal(rng, (12,), 2.0, np.float64)
    x[0] = 0.0
    x[1] = 1e-300
    x[2] = 700.0
    return f, [x, normal(rng, (12,), 1.0, np.float64), normal(rng, (4, 5), 1.0, np.float64)]


@program("fp_contraction", "f32 multiply-add pairs XLA:CPU's LLVM contracts into one fma: a*b+c, "
                           "c+a*b, a*b-c, c-a*b, a*b+c*d, -(a*b)+c; not a product used twice or one in "
                           "another fusion; vector body with a scalar tail, short and 0-d arrays")
def _(rng):
    # Every output multiplies its own pair of inputs: a product shared between outputs
    # would have several users and not contract.
    def f(a, b, c, d, e, g, h, k, p, q, r, s0, s1, s2):
        twice = g * h
        other = b * k
        return (a * b + c,                          # fma(a, b, c)
                c + d * e,                          # fma(d, e, c)
                e * g - h,                          # fma(e, g, -h)
                h - k * a,                          # fma(-k, a, h)
                a * c + b * d,                      # fma(a, c, b*d): the left product
                (twice + e) * twice,                # twice has two users: rounded
                other + h, other,                   # other is its own fusion's output
                p * q + r,                          # 7 elements: scalar code only
                s0 * s1 + s2,                       # 0-d
                d * k + 0.3,                        # a scalar addend
                (c * g - c / (g + 3)) * 0.5,        # the jit test suite's `arithmetic`
                -(d * g) + b)                       # negate(multiply) + b: fma(-d, g, b)

    n = 1003  # 250 f32x4 vectors and a tail of 3
    big = [normal(rng, (n,)) for _ in range(8)]
    small = [normal(rng, (7,)) for _ in range(3)]
    scalars = [normal(rng, ()) for _ in range(3)]
    return f, big + small + scalars


@program("fp_contraction_f64", "x64: f64 a*b+c and c-a*b contract into one fma", x64=True)
def _(rng):
    def f(a, b, c, d, e, g):
        return a * b + c, d - e * g

    return f, [normal(rng, (1003,), 1.0, np.float64) for _ in range(6)]


@program("fp_contraction_f16", "f16 a*b+c and a*b-c contract (one f32 fma, rounded to f16 once); "
                               "bf16 a*b+c does not (bf16 compute rounds the product)")
def _(rng):
    def f(a, b, c, d, e, g, x, y, z):
        return a * b + c, d * e - g, x * y + z

    half = [normal(rng, (1003,)).astype(np.float16) for _ in range(6)]
    brain = [bf16(normal(rng, (1003,))) for _ in range(3)]
    return f, half + brain


@program("elementwise_math", "f32 unary/binary math over 0, -0, +-inf, NaN, negatives: exp, log, "
                             "tanh, erf, trig, pow, cbrt, rsqrt, rounding, is_finite, ...")
def _(rng):
    def f(x, y):
        return (jnp.exp(x), jnp.log(x), jnp.log1p(x), jnp.expm1(x), jnp.tanh(x),
                jax.nn.sigmoid(x), lax.logistic(x), lax.erf(x), jnp.sin(x), jnp.cos(x),
                jnp.tan(x), jnp.arctan2(x, y), jnp.power(x, y), lax.pow(x, y), jnp.cbrt(x),
                jnp.sqrt(x), lax.rsqrt(x), jnp.abs(x), jnp.sign(x), jnp.floor(x), jnp.ceil(x),
                lax.round(x, lax.RoundingMethod.AWAY_FROM_ZERO),
                lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN), jnp.isfinite(x), -x,
                x * y, x / y, x - y, jnp.square(x), jnp.exp2(x), jnp.log2(x),
                jnp.arctan(x), jnp.sinh(x), lax.integer_pow(x, 3), jnp.reciprocal(x))

    x = F32_SPECIALS.copy()
    y = np.roll(F32_SPECIALS, 5).copy()
    y[:8] = [2.0, 0.5, -1.0, 3.0, 0.0, -0.0, np.nan, np.inf]
    return f, [x, y]


@program("minmax_nan", "maximum/minimum/clamp with NaN and signed zeros, fmax/fmin, "
                       "max/min reductions over NaN")
def _(rng):
    def f(a, b, lo, hi):
        return (jnp.maximum(a, b), jnp.minimum(a, b), lax.clamp(lo, a, hi), jnp.clip(a, lo, hi),
                jnp.fmax(a, b), jnp.fmin(a, b), jnp.max(a.reshape(2, 6), axis=1),
                jnp.min(b.reshape(3, 4), axis=0), jnp.nanmax(a.reshape(3, 4), axis=1))

    nan = np.nan
    a = np.array([nan, 1.0, nan, -0.0, 0.0, np.inf, -np.inf, 2.0, 5.0, -3.0, 0.5, 1.0],
                 dtype=np.float32)
    b = np.array([1.0, nan, nan, 0.0, -0.0, nan, 3.0, -np.inf, 4.0, -4.0, 0.5, 2.0],
                 dtype=np.float32)
    lo = np.array([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, nan, -1.0, 1.0, 3.0],
                  dtype=np.float32)
    hi = np.array([1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 3.0, nan, 0.75, 2.0],
                  dtype=np.float32)
    return f, [a, b, lo, hi]


@program("compare_select", "all comparison directions on floats (NaN, -0, inf), signed and "
                           "unsigned ints; select, select_n, clamp on ints")
def _(rng):
    def cmp(a, b):
        return (a == b, a != b, a < b, a <= b, a > b, a >= b)

    def f(a, b, i, j, u, v):
        return (cmp(a, b), cmp(i, j), cmp(u, v), jnp.where(a < b, a, b),
                jnp.where(i > 0, a[:8], b[:8]), lax.select_n(jnp.clip(i, 0, 2), a[:8], b[:8],
                                                           a[:8] * 2.0),
                lax.clamp(jnp.int32(-3), i, jnp.int32(5)), jnp.where(u > v, u, v))

    nan = np.nan
    a = np.array([1.0, nan, nan, -0.0, np.inf, -np.inf, 2.0, 3.0, 1.0, -1.0], np.float32)
    b = np.array([nan, 1.0, nan, 0.0, np.inf, np.inf, 2.0, -3.0, 2.0, -1.5], np.float32)
    i = np.array([0, -1, 5, 2**31 - 1, -2**31, 3, 1, 2], np.int32)
    j = np.array([0, 1, -5, -2**31, 2**31 - 1, 3, 2, 1], np.int32)
    u = np.array([0, 1, 2**32 - 1, 2**31, 5, 7, 2**31 - 1, 3], np.uint32)
    v = np.array([0, 2**32 - 1, 1, 2**31 - 1, 5, 8, 2**31, 2], np.uint32)
    return f, [a, b, i, j, u, v]


@program("convert", "convert: float->int out of range/NaN, int->float rounding, f32->bf16/f16 "
                    "rounding, bool conversions, signed<->unsigned, narrowing ints")
def _(rng):
    def f(x, i, u, p, h):
        return (x.astype(jnp.int32), x.astype(jnp.uint32), x.astype(jnp.int8),
                x.astype(jnp.uint8), x.astype(jnp.int16), x.astype(BF16), x.astype(jnp.float16),
                x.astype(jnp.bool_), i.astype(jnp.float32), i.astype(jnp.uint32),
                i.astype(jnp.int8), i.astype(jnp.uint8), i.astype(jnp.bool_),
                i.astype(jnp.float16), u.astype(jnp.int32), u.astype(jnp.float32),
                u.astype(jnp.uint8), p.astype(jnp.float32), p.astype(jnp.int32),
                h.astype(jnp.float32), h.astype(BF16), h.astype(jnp.int32),
                x.astype(BF16).astype(jnp.float16))

    nan = np.nan
    x = np.array([0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 127.9, 128.0, 255.5, 256.0, -129.0,
                  3e9, -3e9, 2147483520.0, 4294967040.0, 5e9, nan, np.inf, -np.inf,
                  1.00390625, 1.01171875, 65519.0, 65520.0, 1e-8, 6e-8, -1.0, 40000.0],
                 dtype=np.float32)
    i = np.array([0, 1, -1, 127, 128, 255, 256, -129, 2**31 - 1, -2**31, 16777217, 2049,
                  65504, 65520, 100000, -300], dtype=np.int32)
    u = np.array([0, 1, 2**31, 2**32 - 1, 255, 256, 16777217, 3000000000], dtype=np.uint32)
    p = np.array([True, False, True, True], dtype=np.bool_)
    h = np.array([0.0, -0.0, 1.5, -2.5, 65504.0, np.inf, nan, 6e-8, 3.140625, -70.25],
                 dtype=np.float16)
    return f, [x, i, u, p, h]


@program("bitcast_convert", "lax.bitcast_convert_type f32<->s32/u32, f32->u8[4], u8[4]->f32, "
                            "f16<->s16")
def _(rng):
    def f(x, i, b, h):
        return (lax.bitcast_convert_type(x, jnp.int32), lax.bitcast_convert_type(x, jnp.uint32),
                lax.bitcast_convert_type(i, jnp.float32), lax.bitcast_convert_type(x, jnp.uint8),
                lax.bitcast_convert_type(b, jnp.float32), lax.bitcast_convert_type(h, jnp.int16),
                lax.bitcast_convert_type(lax.bitcast_convert_type(h, jnp.int16) + 1,
                                         jnp.float16))

    x = np.array([0.0, -0.0, 1.0, -2.5, np.inf, np.nan, 1e-40, 3.4e38], np.float32)
    i = np.array([0, 1, -1, 0x7F800000, 0x7FC00000, 0x3F800000, -2**31, 0x00800000], np.int32)
    b = ints(rng, (3, 4), 0, 256, np.uint8)
    h = np.array([0.0, -0.0, 1.0, 65504.0, np.inf, 6e-8], np.float16)
    return f, [x, i, b, h]


@program("reduce_precision", "lax.reduce_precision to f16-, bf16- and e4m3-like formats: "
                             "rounding, overflow, underflow, NaN")
def _(rng):
    def f(x):
        return (lax.reduce_precision(x, exponent_bits=5, mantissa_bits=10),
                lax.reduce_precision(x, exponent_bits=8, mantissa_bits=7),
                lax.reduce_precision(x, exponent_bits=4, mantissa_bits=3),
                lax.reduce_precision(x, exponent_bits=8, mantissa_bits=0))

    x = np.concatenate([F32_SPECIALS, np.array(
        [1.00390625, 1.01171875, 65519.0, 65520.0, 6e-8, 3e-8, 240.0, 250.0, 1e-3, 0.0078125],
        np.float32), normal(rng, (6,), 10.0)])
    return f, [x]


@program("remainder_float", "jnp.fmod / lax.rem and jnp.remainder on floats with negatives, zero, "
                            "inf and NaN")
def _(rng):
    def f(a, b):
        return jnp.fmod(a, b), lax.rem(a, b), jnp.remainder(a, b), jnp.floor_divide(a, b)

    a = np.array([5.5, -5.5, 5.5, -5.5, 0.0, -0.0, 1.0, np.inf, np.nan, 3.0, 7.25, -1e10,
                  1e-3, 2.0], np.float32)
    b = np.array([2.0, 2.0, -2.0, -2.0, 3.0, 3.0, 0.0, 2.0, 2.0, np.inf, -np.inf, 3.0,
                  1e-4, np.nan], np.float32)
    return f, [a, b]


@program("nextafter_erfinv", "lax.nextafter, erf_inv, lgamma, digamma, erfc, igamma "
                             "(CHLO in StableHLO, expanded in HLO)")
def _(rng):
    def f(x, y, p, g):
        return (lax.nextafter(x, y), jax.scipy.special.erfinv(p), lax.lgamma(g),
                lax.digamma(g), lax.erfc(p), jax.scipy.special.gammaln(jnp.abs(g) + 0.5),
                lax.igamma(jnp.abs(g) + 0.5, jnp.abs(p) * 3.0))

    x = np.array([0.0, -0.0, 1.0, 1.0, -1.0, np.inf, 3.4028235e38, 1e-45, np.nan, 2.0],
                 np.float32)
    y = np.array([1.0, -1.0, 2.0, 0.0, -np.inf, 0.0, np.inf, 0.0, 1.0, np.nan], np.float32)
    p = np.array([-1.0, 1.0, 0.0, -0.0, 0.5, -0.5, 0.999, -0.9999, 1.5, np.nan], np.float32)
    g = np.array([0.5, 1.0, 2.0, 3.5, 0.0, -0.5, -1.0, -2.5, 10.0, 1e-3], np.float32)
    return f, [x, y, p, g]


# --------------------------------------------------------------------------------------
# Programs: fft
# --------------------------------------------------------------------------------------


def cnormal(rng, shape, dtype=np.complex64):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def fft_cases(jnp_fft):
    """Every fft_type over 1-3 dimensions with batches, odd, prime and padded lengths."""
    f = jnp_fft

    def run(c, c3, r, r3, spec, odd_spec, z):
        return (f.fft(c, axis=-1), f.fft(c, n=12, axis=-1), f.fft(c, axis=0),
                f.ifft(c, axis=-1), f.fft2(c3), f.ifft2(c3), f.fftn(c3, axes=(0, 1, 2)),
                f.ifftn(c3), f.rfft(r), f.rfft(r, n=9), f.rfft2(r3), f.rfftn(r3, axes=(0, 1, 2)),
                f.irfft(spec), f.irfft(spec, n=9), f.irfftn(odd_spec, s=(3, 4, 7)),
                f.irfft2(odd_spec), f.hfft(spec[0]), f.fft(z))

    return run


@program("fft", "jnp.fft: fft/ifft/fft2/ifft2/fftn/ifftn on c64, rfft/rfft2/rfftn/irfft/"
                "irfftn/hfft on f32: batched, padded, odd and prime (97) lengths, axis 0, "
                "a zero-size batch")
def _(rng):
    def inputs(dc, dr):
        return [cnormal(rng, (3, 97), dc) * 0.25, cnormal(rng, (2, 3, 4, 6), dc),
                normal(rng, (4, 16), 1.0, dr), normal(rng, (2, 3, 4, 10), 0.1, dr),
                cnormal(rng, (3, 9), dc), cnormal(rng, (3, 4, 4), dc),
                np.zeros((0, 8), dc)]

    return fft_cases(jnp.fft), inputs(np.complex64, np.float32)


@program("fft_f64", "x64: the fft program's transforms on c128/f64", x64=True)
def _(rng):
    return fft_cases(jnp.fft), [cnormal(rng, (3, 97), np.complex128),
                                cnormal(rng, (2, 3, 4, 6), np.complex128),
                                normal(rng, (4, 16), 1.0, np.float64),
                                normal(rng, (2, 3, 4, 10), 1.0, np.float64),
                                cnormal(rng, (3, 9), np.complex128),
                                cnormal(rng, (3, 4, 4), np.complex128),
                                np.zeros((0, 8), np.complex128)]


# --------------------------------------------------------------------------------------
# Programs: linear algebra
# --------------------------------------------------------------------------------------


def spd(rng, n, dtype, batch=()):
    m = rng.standard_normal(batch + (n, n))
    a = m @ np.swapaxes(m, -1, -2) + n * np.eye(n)
    return a.astype(dtype)


@program("cholesky", "jnp.linalg.cholesky f32 (single and batched)")
def _(rng):
    def f(a, b):
        return jnp.linalg.cholesky(a), jnp.linalg.cholesky(b)

    return f, [spd(rng, 6, np.float32), spd(rng, 4, np.float32, (2,))]


@program("cholesky_f64", "x64: jnp.linalg.cholesky and cho_solve in f64", x64=True)
def _(rng):
    def f(a, b):
        l = jnp.linalg.cholesky(a)
        return l, jax.scipy.linalg.cho_solve((l, True), b)

    return f, [spd(rng, 6, np.float64), normal(rng, (6, 2), 1.0, np.float64)]


@program("triangular_solve", "jax.scipy.linalg.solve_triangular lower/upper/transposed/unit "
                             "diagonal, and a right-side lax.linalg.triangular_solve")
def _(rng):
    def f(a, b, c):
        lo = jnp.tril(a)
        up = jnp.triu(a)
        return (jax.scipy.linalg.solve_triangular(lo, b, lower=True),
                jax.scipy.linalg.solve_triangular(up, b, lower=False),
                jax.scipy.linalg.solve_triangular(lo, b, lower=True, trans=1),
                jax.scipy.linalg.solve_triangular(up, b, lower=False, unit_diagonal=True),
                lax.linalg.triangular_solve(lo, c, left_side=False, lower=True))

    a = normal(rng, (5, 5), 0.3) + 3.0 * np.eye(5, dtype=np.float32)
    return f, [a, normal(rng, (5, 3)), normal(rng, (2, 5))]


@program("einsum_batched", "jnp.einsum with batch dims (bij,bjk->bik; bhqd,bhkd->bhqk), "
                           "transposed contractions, vector dots")
def _(rng):
    def f(a, b, q, k, u, v):
        return (jnp.einsum("bij,bjk->bik", a, b), jnp.einsum("bhqd,bhkd->bhqk", q, k),
                jnp.einsum("bi,bi->b", u, v), jnp.einsum("ji,jk->ik", a[0], a[1]),
                jnp.einsum("bij,bkj->bki", a, a), jnp.einsum("i,j->ij", u[0], v[1]),
                jnp.einsum("bhqd->bqhd", q) * 2.0, jnp.vdot(u, v))

    return f, [normal(rng, (2, 3, 4)), normal(rng, (2, 4, 5)), normal(rng, (2, 2, 3, 4)),
               normal(rng, (2, 2, 5, 4)), normal(rng, (3, 6)), normal(rng, (3, 6))]


# --------------------------------------------------------------------------------------
# Programs: scans and windows
# --------------------------------------------------------------------------------------


@program("cumsum", "jnp.cumsum on both axes (f32 and s32) and reversed lax.cumsum")
def _(rng):
    def f(x, k):
        return (jnp.cumsum(x, axis=1), jnp.cumsum(x, axis=0), jnp.cumsum(k, axis=1),
                lax.cumsum(x, axis=1, reverse=True))

    return f, [normal(rng, (4, 8)), ints(rng, (3, 5), -10, 10)]


@program("cummax", "lax.cummax/cummin on both axes, with a NaN, and on ints")
def _(rng):
    def f(x, k):
        return (lax.cummax(x, axis=1), lax.cummax(x, axis=0), lax.cummin(x, axis=1),
                lax.cummax(k, axis=1, reverse=True))

    x = normal(rng, (4, 8))
    x[2, 3] = np.nan
    return f, [x, ints(rng, (3, 6), -10, 10)]


@program("cumprod", "jnp.cumprod f32 and s32, lax.cumlogsumexp")
def _(rng):
    def f(x, k):
        return jnp.cumprod(x, axis=1), jnp.cumprod(k, axis=0), lax.cumlogsumexp(x, axis=1)

    return f, [uniform(rng, (3, 8), 0.5, 1.5), ints(rng, (4, 3), -3, 4)]


@program("avgpool", "average pooling with reduce_window add: VALID 2x2/2 and SAME 3x3/1 with "
                    "count excluding padding")
def _(rng):
    def f(x):
        a = lax.reduce_window(x, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") / 4.0
        s = lax.reduce_window(x, 0.0, lax.add, (1, 3, 3, 1), (1, 1, 1, 1), "SAME")
        n = lax.reduce_window(jnp.ones_like(x), 0.0, lax.add, (1, 3, 3, 1), (1, 1, 1, 1),
                              "SAME")
        return a, s / n

    return f, [normal(rng, (2, 8, 8, 3))]


@program("maxpool", "max pooling with reduce_window: 3x3/2 with padding, window dilation, "
                    "base dilation, integer max")
def _(rng):
    def f(x, k):
        a = max_pool(x, (1, 3, 3, 1), (1, 2, 2, 1), ((0, 0), (1, 1), (1, 1), (0, 0)))
        b = lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 1, 1, 1), "VALID",
                              window_dilation=(1, 2, 2, 1))
        c = lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 1, 1, 1), "VALID",
                              base_dilation=(1, 2, 1, 1))
        d = lax.reduce_window(k, jnp.iinfo(jnp.int32).min, lax.max, (2, 2), (1, 2), "VALID")
        return a, b, c, d

    return f, [normal(rng, (2, 7, 7, 2)), ints(rng, (5, 6), -100, 100)]


@program("maxpool_grad", "jax.grad through 2x2 and overlapping 3x3 max pooling "
                         "(select-and-scatter) with ties")
def _(rng):
    def f(x, w):
        def loss(x):
            a = max_pool(x, (1, 2, 2, 1), (1, 2, 2, 1))
            b = max_pool(x, (1, 3, 3, 1), (1, 2, 2, 1), "SAME")
            return jnp.sum(a * w) + jnp.sum(b * b)

        return jax.grad(loss)(x)

    x = np.round(normal(rng, (2, 6, 6, 2)), 0)  # many ties
    return f, [x, normal(rng, (2, 3, 3, 2))]


@program("logsumexp", "jax.nn.logsumexp with large values, -inf rows and a where mask")
def _(rng):
    def f(x):
        return (jax.nn.logsumexp(x, axis=1), jax.nn.logsumexp(x, axis=0),
                jax.scipy.special.logsumexp(x), jax.nn.logsumexp(x, axis=1, where=x > 0))

    x = normal(rng, (4, 6), 3.0)
    x[0, 2] = 100.0
    x[1, :] = -np.inf
    x[2, 3] = np.inf
    return f, [x]


# --------------------------------------------------------------------------------------
# Programs: convolutions
# --------------------------------------------------------------------------------------


@program("conv_dilated", "lax.conv_general_dilated with strides, asymmetric padding, lhs "
                         "(transposed-conv) and rhs (atrous) dilation")
def _(rng):
    def f(x, k):
        dn = ("NHWC", "HWIO", "NHWC")
        a = lax.conv_general_dilated(x, k, (2, 1), ((1, 2), (0, 1)), lhs_dilation=(1, 2),
                                     rhs_dilation=(2, 1), dimension_numbers=dn)
        b = lax.conv_general_dilated(x, k, (1, 1), "SAME", rhs_dilation=(2, 2),
                                     dimension_numbers=dn)
        c = lax.conv_general_dilated(x, k, (1, 1), ((2, 2), (2, 2)), lhs_dilation=(2, 2),
                                     dimension_numbers=dn)
        return a, b, c

    return f, [normal(rng, (1, 9, 9, 2)), normal(rng, (3, 3, 2, 4), 0.4)]


@program("conv_grouped", "grouped (feature_group_count=2) and depthwise convolutions")
def _(rng):
    def f(x, k, dw):
        dn = ("NHWC", "HWIO", "NHWC")
        a = lax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=dn,
                                     feature_group_count=2)
        b = lax.conv_general_dilated(x, dw, (2, 2), "VALID", dimension_numbers=dn,
                                     feature_group_count=4)
        return a, b

    return f, [normal(rng, (2, 6, 6, 4)), normal(rng, (3, 3, 2, 6), 0.4),
               normal(rng, (3, 3, 1, 8), 0.4)]


@program("conv_batch_group", "batch_group_count > 1: a direct conv and the weight gradient of a "
                             "grouped conv")
def _(rng):
    dn = ("NHWC", "HWIO", "NHWC")

    def f(x, k, y):
        a = lax.conv_general_dilated(x, k, (1, 1), "VALID", dimension_numbers=dn,
                                     batch_group_count=2)

        def loss(w):
            out = lax.conv_general_dilated(y, w, (1, 1), "SAME", dimension_numbers=dn,
                                           feature_group_count=2)
            return jnp.sum(out * out)

        return a, jax.grad(loss)(k)

    return f, [normal(rng, (4, 5, 5, 3)), normal(rng, (3, 3, 3, 4), 0.4),
               normal(rng, (2, 5, 5, 6))]


@program("conv_nchw", "convolutions with NCHW/OIHW, NHWC/OIHW-like permuted and 1-D NCW "
                      "dimension numbers")
def _(rng):
    def f(x, k, k2, s, k1):
        a = lax.conv_general_dilated(x, k, (1, 2), ((1, 1), (0, 2)),
                                     dimension_numbers=("NCHW", "OIHW", "NCHW"))
        b = lax.conv_general_dilated(x, k2, (1, 1), "SAME",
                                     dimension_numbers=("NCHW", "HWIO", "NHWC"))
        c = lax.conv_general_dilated(s, k1, (1,), ((2, 0),),
                                     dimension_numbers=("NCH", "OIH", "NCH"))
        return a, b, c

    return f, [normal(rng, (2, 3, 6, 7)), normal(rng, (4, 3, 3, 2), 0.4),
               normal(rng, (3, 3, 3, 5), 0.4), normal(rng, (2, 2, 10)),
               normal(rng, (3, 2, 3), 0.4)]


# --------------------------------------------------------------------------------------
# Programs: shapes
# --------------------------------------------------------------------------------------


@program("iota_broadcast", "jnp.arange, broadcast_to, outer products, eye, tri, broadcasted_iota")
def _(rng):
    def f(x, v):
        a = jnp.arange(12, dtype=jnp.float32).reshape(3, 4) + x
        b = jnp.broadcast_to(v, (3, 5))
        c = jnp.outer(v, jnp.arange(4.0))
        d = jnp.eye(4, 6, k=1, dtype=jnp.int32)
        e = jnp.tri(3, 5, k=-1)
        g = lax.broadcasted_iota(jnp.int32, (2, 3, 4), 1) * 10 + lax.broadcasted_iota(
            jnp.int32, (2, 3, 4), 2)
        h = v[:, None, None] * x[None, :, :1]
        return a, b, c, d, e, g, h, jnp.linspace(0.0, 1.0, 7)

    return f, [normal(rng, (3, 4)), normal(rng, (5,))]


@program("reshape_transpose", "reshapes and transposes of a rank-4 array, expand/squeeze, "
                              "moveaxis")
def _(rng):
    def f(x):
        return (x.transpose(3, 1, 0, 2), x.reshape(6, 20), x.reshape(2, 3, 20).transpose(2, 0, 1),
                jnp.swapaxes(x, 1, 3).reshape(-1, 3), jnp.moveaxis(x, 0, -1)[None],
                x[:, :1, :, None].squeeze(1), x.transpose(0, 2, 1, 3).reshape(8, 15).T,
                jnp.ravel(x.transpose(1, 0, 3, 2)))

    return f, [normal(rng, (2, 3, 4, 5))]


# --------------------------------------------------------------------------------------
# Programs: map (a custom primitive lowered to stablehlo.map)
# --------------------------------------------------------------------------------------

_map_p = Primitive("xlac_map_fma")


def _map_abstract_eval(x, y):
    return jax.core.ShapedArray(x.shape, x.dtype)


def _map_lowering(ctx, x, y):
    aval = ctx.avals_out[0]
    scalar_t = jax_mlir.aval_to_ir_type(ctx.module_context, jax.core.ShapedArray((), aval.dtype))
    op = stablehlo.MapOp(jax_mlir.aval_to_ir_type(ctx.module_context, aval), [x, y],
                         dimensions=jax_mlir.dense_int_array(list(range(len(aval.shape)))))
    block = op.computation.blocks.append(scalar_t, scalar_t)
    with ir.InsertionPoint(block):
        a, b = block.arguments
        r = stablehlo.add(stablehlo.multiply(a, b), stablehlo.maximum(a, b))
        stablehlo.return_([r])
    return op.results


_map_p.def_abstract_eval(_map_abstract_eval)
jax_mlir.register_lowering(_map_p, _map_lowering)


@program("map", "HLO map: a primitive lowered to stablehlo.map computing a*b + max(a, b)")
def _(rng):
    def f(x, y):
        return _map_p.bind(x, y) + 1.0

    return f, [normal(rng, (3, 4)), normal(rng, (3, 4))]


# --------------------------------------------------------------------------------------
# Programs: HLO cholesky / triangular-solve ops. On CPU, jax lowers jnp.linalg.cholesky and
# solve_triangular to LAPACK custom calls; these primitives use jax's platform-independent
# lowering rules instead, so the HLO ops themselves appear.
# --------------------------------------------------------------------------------------

_hlo_cholesky_p = Primitive("xlac_hlo_cholesky")
_hlo_cholesky_p.def_abstract_eval(lambda a, *, lower: jax.core.ShapedArray(a.shape, a.dtype))
jax_mlir.register_lowering(
    _hlo_cholesky_p,
    lambda ctx, a, *, lower: [stablehlo.cholesky(a, lower=ir.BoolAttr.get(lower))])

_hlo_trsm_p = Primitive("xlac_hlo_triangular_solve")
_hlo_trsm_p.def_abstract_eval(
    lambda a, b, **kw: jax.core.ShapedArray(b.shape, b.dtype))


def _hlo_trsm_lowering(ctx, a, b, *, left_side, lower, unit_diagonal, transpose):
    return [stablehlo.triangular_solve(a, b, ir.BoolAttr.get(left_side), ir.BoolAttr.get(lower),
                                       ir.BoolAttr.get(unit_diagonal),
                                       stablehlo.TransposeAttr.get(transpose))]


jax_mlir.register_lowering(_hlo_trsm_p, _hlo_trsm_lowering)


def hlo_trsm(a, b, left_side=True, lower=True, unit_diagonal=False, transpose="NO_TRANSPOSE"):
    return _hlo_trsm_p.bind(a, b, left_side=left_side, lower=lower,
                            unit_diagonal=unit_diagonal, transpose=transpose)


@program("linalg_hlo", "HLO cholesky (lower/upper, batched, other triangle masked) and "
                       "triangular-solve (left/right, lower/upper, transpose, unit diagonal, "
                       "batched)")
def _(rng):
    def f(a, ab, t, b, c, tb, bb):
        lo = jnp.tril(t)
        up = jnp.triu(t)
        return (jnp.tril(_hlo_cholesky_p.bind(a, lower=True)),
                jnp.triu(_hlo_cholesky_p.bind(a, lower=False)),
                jnp.tril(_hlo_cholesky_p.bind(ab, lower=True)),
                hlo_trsm(lo, b), hlo_trsm(up, b, lower=False),
                hlo_trsm(lo, b, transpose="TRANSPOSE"),
                hlo_trsm(up, b, lower=False, unit_diagonal=True),
                hlo_trsm(lo, c, left_side=False),
                hlo_trsm(up, c, left_side=False, lower=False, transpose="TRANSPOSE"),
                hlo_trsm(jnp.tril(tb), bb))

    t = normal(rng, (5, 5), 0.3) + 3.0 * np.eye(5, dtype=np.float32)
    tb = normal(rng, (2, 4, 4), 0.3) + 3.0 * np.eye(4, dtype=np.float32)
    return f, [spd(rng, 5, np.float32), spd(rng, 4, np.float32, (2,)), t, normal(rng, (5, 3)),
               normal(rng, (2, 5)), tb, normal(rng, (2, 4, 2))]


# --------------------------------------------------------------------------------------
# Programs: constants printed in full
# --------------------------------------------------------------------------------------


@program("constants", "large closed-over constants of many dtypes, including NaN, inf, -0 and "
                      "extreme values, so that the printers must write every element")
def _(rng):
    cf = normal(rng, (6, 7))
    cf[0, :5] = [np.nan, np.inf, -np.inf, -0.0, 1e-45]
    cf[1, :3] = [3.4028235e38, -1.1754944e-38, 0.1]
    ci = ints(rng, (20,), -1000, 1000)
    ci[:2] = [2**31 - 1, -2**31]
    cu = np.arange(12, dtype=np.uint32) * 0x1F1F1F1F
    cb = bf16(normal(rng, (12,)))
    ch = normal(rng, (12,)).astype(np.float16)
    ch[:3] = [np.inf, np.nan, 65504.0]
    cp = rng.random(11) > 0.5
    c8 = ints(rng, (3, 5), -128, 128, np.int8)

    def f(x, k):
        return (x + cf, k * ci, cu ^ k[:12].astype(jnp.uint32), cb * x[0, :1].astype(BF16) + 1,
                ch * x[0, 1].astype(jnp.float16), jnp.where(cp, 1.0, -1.0), c8.astype(jnp.int32) + k[:15].reshape(3, 5),
                jnp.float32(np.nan) + x[0, 0])

    return f, [normal(rng, (6, 7)), ints(rng, (20,), -5, 5)]


# --------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------

XLA_DTYPES = {
    "bool": "pred", "int8": "s8", "int16": "s16", "int32": "s32", "int64": "s64",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64", "float16": "f16",
    "bfloat16": "bf16", "float32": "f32", "float64": "f64", "complex64": "c64",
    "complex128": "c128",
}


def xla_dtype(dtype):
    return XLA_DTYPES[np.dtype(dtype).name]


def to_storable(a):
    a = np.asarray(a)
    return a.astype(np.float32) if a.dtype == ml_dtypes.bfloat16 else a


def npz_bytes(arrays):
    """The bytes of numpy.savez(path, *arrays), with fixed zip timestamps."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_STORED) as zf:
        for i, a in enumerate(arrays):
            info = zipfile.ZipInfo(f"arr_{i}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_STORED
            info.external_attr = 0o644 << 16
            with zf.open(info, "w", force_zip64=True) as fh:
                np.lib.format.write_array(fh, np.ascontiguousarray(a).reshape(np.shape(a)), allow_pickle=False)
    return buf.getvalue()


SHAPE_RE = re.compile(r"\b(pred|s8|s16|s32|s64|u8|u16|u32|u64|f16|bf16|f32|f64|c64|c128)"
                      r"\[([0-9,]*)\]")


def parse_shape(text):
    m = SHAPE_RE.match(text)
    assert m, text
    dims = [int(d) for d in m.group(2).split(",") if d]
    return m.group(1), dims


def entry_block(text):
    start = text.index("\nENTRY ")
    end = text.index("\n}", start)
    return text[start:end]


def entry_parameters(text):
    params = {}
    for m in re.finditer(r"^\s*%?[\w.\-]+ = (\S+) parameter\((\d+)\)", entry_block(text),
                         re.M):
        params[int(m.group(2))] = parse_shape(m.group(1))
    return [params[i] for i in range(len(params))]


def entry_result_shapes(text):
    header = text.split("\n", 1)[0]
    m = re.search(r"entry_computation_layout=\{\((.*)\)->(.*)\}", header)
    assert m, header
    return [(d, [int(x) for x in s.split(",") if x]) for d, s in SHAPE_RE.findall(m.group(2))]


def instruction_opcodes(text):
    """Opcode of every instruction line in an HLO module's text."""
    ops = []
    for line in text.splitlines():
        m = re.match(r"\s*(?:ROOT\s+)?%?[\w.\-]+\s*=\s*", line)
        if not m:
            continue
        rest = line[m.end():]
        # skip the shape: a tuple shape in balanced parentheses or one token
        if rest.startswith("("):
            depth = 0
            for k, ch in enumerate(rest):
                depth += ch == "("
                depth -= ch == ")"
                if depth == 0:
                    break
            rest = rest[k + 1:]
        else:
            sp = rest.find(" ")
            if sp < 0:
                continue
            rest = rest[sp:]
        om = re.match(r"\s*([a-z][a-z0-9\-]*)\(", rest)
        if om:
            ops.append(om.group(1))
    return ops


def hlo_text(module, default_options):
    opts = hlo_lib.HloPrintOptions() if default_options else hlo_lib.HloPrintOptions.short_parsable()
    if not default_options:
        opts.print_metadata = False
    opts.print_large_constants = True
    return module.to_string(opts)


def format_meta(meta):
    """meta.json in key order: one line per scalar and per input/output."""
    lines = []
    for key, value in meta.items():
        if isinstance(value, list) and value:
            items = ",\n".join(f"    {json.dumps(v, separators=(', ', ': '))}" for v in value)
            lines.append(f"  {json.dumps(key)}: [\n{items}\n  ]")
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value)}")
    text = "{\n" + ",\n".join(lines) + "\n}\n"
    assert json.loads(text) == meta
    return text


KEEP = set()  # files generate() does not write (it warns if they are stale); see main()
NOT_KERNELS = ("parameter", "constant", "tuple", "get-tuple-element", "bitcast")


def xla_stats(compiled, opt_hlo):
    """meta.json's XLA:CPU figures: memory_analysis() sizes, ENTRY ops not in NOT_KERNELS."""
    mem = compiled.memory_analysis()
    stats = {f"xla_{k}_size_in_bytes": getattr(mem, f"{k}_size_in_bytes")
             for k in ("argument", "output", "alias", "temp")}
    ops = instruction_opcodes(entry_block(opt_hlo))
    return {**stats, "xla_kernel_count": sum(op not in NOT_KERNELS for op in ops)}


def generate(name, programs=None, root=HERE, keep=KEEP):
    spec = (programs or PROGRAMS)[name]
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    with jax.enable_x64(spec["x64"]):
        fn, args = spec["make"](rng)
        args = [np.asarray(a) for a in args]
        jitted = jax.jit(fn, keep_unused=True)
        lowered = jitted.lower(*args)  # line 1296: in xla_opt.hlo's stack frames
        model_hlo = hlo_text(lowered._lowering.hlo().as_hlo_module(), default_options=False)
        plain = lowered.as_text(dialect="hlo")
        if "{...}" not in plain:
            assert plain == model_hlo, f"{name}: HLO text differs from as_text(dialect='hlo')"
        model_mlir = lowered.as_text()
        compiled = lowered.compile()
        modules = compiled._executable.xla_extension_executable().hlo_modules()
        assert len(modules) == 1, f"{name}: {len(modules)} optimized modules"
        opt_hlo = hlo_text(modules[0], default_options=True)
        outputs = jax.tree_util.tree_leaves(compiled(*args))
        outputs = [np.asarray(o) for o in outputs]

    # Checks.
    for label, text in (("model.hlo", model_hlo), ("xla_opt.hlo", opt_hlo)):
        assert text.startswith("HloModule"), f"{name}/{label} does not start with HloModule"
        assert "{...}" not in text, f"{name}/{label} has elided constants"
    assert "__elided__" not in model_mlir, f"{name}/model.mlir has elided constants"
    want_params = [(xla_dtype(a.dtype), list(a.shape)) for a in args]
    for label, text in (("model.hlo", model_hlo), ("xla_opt.hlo", opt_hlo)):
        got = entry_parameters(text)
        assert got == want_params, f"{name}/{label}: ENTRY params {got} != inputs {want_params}"
    want_outs = [(xla_dtype(o.dtype), list(o.shape)) for o in outputs]
    got_outs = entry_result_shapes(model_hlo)
    assert got_outs == want_outs, f"{name}: ENTRY result {got_outs} != outputs {want_outs}"
    if spec["x64"]:
        assert any(d in ("f64", "s64", "u64") for d, _ in want_params + want_outs), name

    meta = dict(name=name, description=spec["description"], x64=spec["x64"],
                **spec.get("meta", {}), **xla_stats(compiled, opt_hlo),
                inputs=[{"dtype": d, "shape": s} for d, s in want_params],
                outputs=[{"dtype": d, "shape": s} for d, s in want_outs])
    files = {"model.hlo": model_hlo, "model.mlir": model_mlir, "xla_opt.hlo": opt_hlo}
    files = {f: (t if t.endswith("\n") else t + "\n").encode() for f, t in files.items()}
    files["inputs.npz"] = npz_bytes([to_storable(a) for a in args])
    files["expected.npz"] = npz_bytes([to_storable(o) for o in outputs])
    files["meta.json"] = format_meta(meta).encode()
    os.makedirs(os.path.join(root, name), exist_ok=True)
    for fname, data in files.items():
        path = os.path.join(root, name, fname)
        if fname not in keep:
            with open(path, "wb") as fh:
                fh.write(data)
        elif os.path.exists(path) and read(path, "rb") != data:
            print(f"warning: {name}/{fname} is stale: a full run would rewrite it")
    print(f"{name}: {len(args)} inputs, {len(outputs)} outputs", flush=True)


# --------------------------------------------------------------------------------------
# README.md and opcodes.txt
# --------------------------------------------------------------------------------------


def read(path, mode="r"):
    with open(path, mode) as fh:
        return fh.read()


def write_indexes():
    names = [n for n in sorted(PROGRAMS) if os.path.isfile(os.path.join(HERE, n, "meta.json"))]
    model_ops, opt_ops, targets, kinds = {}, {}, {}, {}
    rows = []
    for n in names:
        model = read(os.path.join(HERE, n, "model.hlo"))
        opt = read(os.path.join(HERE, n, "xla_opt.hlo"))
        meta = json.loads(read(os.path.join(HERE, n, "meta.json")))
        mops = sorted(set(instruction_opcodes(model)))
        for op in mops:
            model_ops.setdefault(op, []).append(n)
        for op in sorted(set(instruction_opcodes(opt))):
            opt_ops.setdefault(op, []).append(n)
        for where, text in (("model.hlo", model), ("xla_opt.hlo", opt)):
            for t in sorted(set(re.findall(r'custom_call_target="([^"]+)"', text))):
                targets.setdefault((t, where), []).append(n)
        for k in sorted(set(re.findall(r"\bkind=(k\w+)", opt))):
            kinds.setdefault(k, []).append(n)
        rows.append(f"| `{n}` | {meta['description']} | {', '.join(mops)} |")

    all_ops = sorted(set(model_ops) | set(opt_ops))
    lines = ["# Opcodes used by the golden programs (generated by testdata/generate.py)", "#",
             "# opcode  programs-using-it-in-model.hlo  programs-using-it-in-xla_opt.hlo"
             "  programs-using-it-anywhere", ""]
    width = max(len(o) for o in all_ops)
    for op in all_ops:
        anywhere = set(model_ops.get(op, [])) | set(opt_ops.get(op, []))
        lines.append(f"{op:<{width}}  model={len(model_ops.get(op, [])):<3} "
                     f"opt={len(opt_ops.get(op, [])):<3} any={len(anywhere)}")
    lines += ["", "# custom_call_target values (file kind: programs)", ""]
    for (t, where), ns in sorted(targets.items()):
        lines.append(f"{t}  [{where}]  {len(ns)}: {' '.join(ns)}")
    lines += ["", "# fusion kinds in xla_opt.hlo (programs)", ""]
    for k, ns in sorted(kinds.items()):
        lines.append(f"{k}  {len(ns)}")
    with open(os.path.join(HERE, "opcodes.txt"), "w") as fh:
        fh.write("\n".join(lines) + "\n")

    readme = f"""# testdata: golden JAX programs

Real JAX programs lowered and run by XLA:CPU, for xlac's golden tests. Everything here but
`generate*.py`, `requirements.txt`, `bench/` (by `generate_bench.py`), `*/xla_dump/` (by `generate_xla_dumps.py`) and
`stablehlo-conformance/` (openxla/stablehlo's corpus, see its README) is written by `generate.py`; do not edit generated files.

## Regenerating

From the repository root, with Python 3.11:

```
pip install -r testdata/requirements.txt      # jax=={PINNED['jax']}, jaxlib=={PINNED['jaxlib']}
python3 testdata/generate.py                  # all programs, then README.md and opcodes.txt
python3 testdata/generate.py mlp sort         # only these programs (indexes are rewritten)
python3 testdata/generate.py --meta-only      # only meta.json; warns about other stale files
python3 testdata/generate_bench.py            # testdata/bench/ (see bench/README.md)
```

The output is deterministic: inputs come from `numpy.random.default_rng` seeded with the
CRC-32 of the program's name, and the `.npz` files carry fixed zip timestamps.
`xla_opt.hlo` carries metadata (op names and a stack-frame table with line numbers of
`generate.py`): keep the three lines marked "in xla_opt.hlo's stack frames" where they are.

## Files of one program `testdata/<name>/`

| file | what |
|---|---|
| `model.hlo` | `jax.jit(f, keep_unused=True).lower(*args)` as HLO text: the short parsable form of `as_text(dialect="hlo")`, but with every constant printed (`print_large_constants`); starts with `HloModule`; no `{{...}}` anywhere |
| `model.mlir` | the same lowering as StableHLO text (`lowered.as_text()`); may contain `chlo.*` ops and `stablehlo.custom_call` |
| `xla_opt.hlo` | XLA:CPU's optimized module (what `--xla_dump_to` writes as `*.cpu_after_optimizations.txt`), printed with default options plus all constants: fusions (XLA:CPU here makes only `kLoop` fusions, plus `kCustom` fusions with `backend_config={{..."fusion_config":{{"kind":"__ynn_fusion"}}}}` around dots), layouts, `is_scheduled=true`, metadata and the `FileNames`/`FunctionNames`/`FileLocations`/`StackFrames` tables |
| `inputs.npz` | the ENTRY parameters in order as `arr_0`, `arr_1`, ... (layout of `numpy.savez(path, *args)`); bf16 parameters are stored as float32 (exactly representable in bf16) |
| `expected.npz` | XLA:CPU's results: the result tuple flattened depth-first as `arr_0`, ...; bf16 leaves as float32 |
| `meta.json` | `name`, `description`, `x64`; XLA:CPU's figures for the program: `xla_argument_size_in_bytes`, `xla_output_size_in_bytes`, `xla_alias_size_in_bytes` and `xla_temp_size_in_bytes` (from `jax.jit(f).lower(*args).compile().memory_analysis()`; temp = the preallocated temp buffer), and `xla_kernel_count` (the ENTRY instructions of `xla_opt.hlo` that launch work: all but `parameter`, `constant`, `tuple`, `get-tuple-element`, `bitcast`; a fusion, custom-call, call or while counts as one); then `inputs`/`outputs` as `{{"dtype", "shape"}}` in XLA spellings (`pred`, `s8`..`s64`, `u8`..`u64`, `f16`, `bf16`, `f32`, `f64`) |

`opcodes.txt` counts, for each opcode, the programs whose `model.hlo` / `xla_opt.hlo`
use it, and lists every `custom_call_target` and fusion kind seen.

## Things a parser or interpreter meets in these files

- Tuple shapes longer than five elements carry `/*index=N*/` comments, in the header's
  `entry_computation_layout` and in instruction shapes (both `model.hlo` and `xla_opt.hlo`).
- `model.hlo` has many `call` instructions (jax's nested `jit`s such as `_where`, `clip`,
  `tril`), `to_apply=` computations named `region_N.M`, and no `%` sigils; `xla_opt.hlo`
  uses `%` sigils, prints parameter lists on computation headers and has inlined most calls.
- LAPACK custom calls (`lapack_?potrf_ffi`, `lapack_?trsm_ffi`) use
  `api_version=API_VERSION_TYPED_FFI`, `operand_layout_constraints={{f32[5,5]{{0,1}}, ...}}`
  (column-major), `output_to_operand_aliasing={{{{0}}: (0, {{}})}}`, `frontend_attributes`
  with an sdy sharding-rule string, and a `backend_config` written as an MLIR attribute
  dictionary: `backend_config={{diag = 78 : ui8, side = 76 : ui8, trans_x = 84 : ui8, uplo = 76 : ui8}}`
  (ASCII: `L`/`U`, `N`/`T`, `L`/`R`, `N`/`U`). potrf returns `(matrix, s32 info)`.
- `xla_opt.hlo`: `topk` becomes `custom-call(...), custom_call_target="TopK",
  called_computations={{...}}`; `rng-bit-generator` and `select-and-scatter` are expanded
  away; `reshape` becomes `bitcast`; `batch_group_count` convolutions are rewritten;
  dots sit in `kCustom` fusions with a JSON `backend_config`
  (`{{"outer_dimension_partitions":[],"fusion_config":{{"kind":"__ynn_fusion"}}}}`);
  `while` loops carry `backend_config={{"known_trip_count":{{"n":"5"}},...}}`; calls carry
  `frontend_attributes={{xla_cpu_small_call="true"}}`; dots carry
  `operand_precision={{highest,highest}}`; copies may carry `control-predecessors={{...}}`;
  non-default layouts such as `{{0,1}}` and `{{1,2,0}}` appear.
- Constants print `nan`, `inf`, `-inf`, `-0`; pred arrays print as `0`/`1`, pred scalars as
  `true`/`false`; bf16/f16 constants print with few digits (`0.7344`).
- `model.mlir` contains `chlo.*` ops (erf, erf_inv, lgamma, digamma, next_after, top_k,
  sinh, atan, square, erfc) where `model.hlo` already has them expanded or as HLO ops, and
  NaN/inf constants as hex (`0x7FC00000`).

## Programs ({len(names)})

The opcodes column lists the HLO opcodes in `model.hlo`.

| name | covers | opcodes in model.hlo |
|---|---|---|
""" + "\n".join(rows) + "\n"
    with open(os.path.join(HERE, "README.md"), "w") as fh:
        fh.write(readme)


def main(argv):
    if "--meta-only" in argv:
        KEEP.update(("model.hlo", "model.mlir", "xla_opt.hlo", "inputs.npz", "expected.npz"))
    names = [a for a in argv if a != "--meta-only"] or sorted(PROGRAMS)
    unknown = [n for n in names if n not in PROGRAMS]
    if unknown:
        sys.exit(f"unknown program(s): {' '.join(unknown)}; known: {' '.join(sorted(PROGRAMS))}")
    for n in names:
        generate(n)  # line 1476: in xla_opt.hlo's stack frames, like 1296
    write_indexes()


if __name__ == "__main__":
    main(sys.argv[1:])  # line 1481: in xla_opt.hlo's stack frames, like 1296
