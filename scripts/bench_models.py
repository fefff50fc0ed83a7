#!/usr/bin/env python3
"""Whole models: xlac beside XLA:CPU on the same machine, in one run.

    python3 scripts/bench_models.py                              # every model
    python3 scripts/bench_models.py gpt2_forward lstm_scan --iters 10
    python3 scripts/bench_models.py --xlac target/release/xlac --json results.json
    python3 scripts/bench_models.py --dump DIR                   # also xlac's dump per model

The models are written here from scratch in pure jax and initialized at random with a
fixed PRNG key (jax.random.PRNGKey(0), split per tensor); no weights are downloaded:

- gpt2_forward: a GPT-2-small-shaped decoder forward, 12 layers, d_model 768, 12 heads,
  seq 128, batch 1, vocab 50257, learned position embeddings, pre-layernorm blocks,
  causal attention, GELU (tanh form) MLP of 3072, final layernorm and logits through the
  tied token embedding (`x @ wte.T`): f32 logits [1, 128, 50257].
- resnet18_forward: ResNet-18 at 224x224, batch 1, NHWC activations and HWIO kernels
  (lax.conv_general_dilated), batchnorm in inference form (running mean and variance
  as parameters), 3x3/2 max pool, global average pool, 1000-way classifier.
- lstm_scan: a one-layer LSTM over lax.scan, 64 steps, batch 8, input 256, hidden 512
  (gates i, f, g, o from x @ Wx + h @ Wh + b); outputs every step's h and the final c.
- mlp_adam_step: a training step of an MLP 784-1024-1024-10 (ReLU) on a batch of 128:
  softmax cross-entropy, jax.grad, and Adam written by hand (no optax), from optimizer
  state of step 10 (m and v nonzero, so that the update is not the sign of the gradient,
  which would turn round-off in a near-zero gradient into an lr-sized difference).
- transformer_adam_step: a training step of a small decoder (4 layers, d_model 256,
  4 heads, MLP 1024, seq 128, batch 8, vocab 4096): next-token cross-entropy, jax.grad,
  the same Adam.

For each model, in order:

1. XLA's peak memory, in a child Python process (`--xla-memory-child NAME`): it imports
   jax and initializes the CPU backend, reads its resident set (the baseline: Python +
   jax with nothing compiled), makes the parameters on the device with jax.random, lowers,
   compiles and runs the model (--warmup + 3 runs), and reports its peak resident set
   (/proc/self/status VmHWM). XLA's figure is peak minus baseline.
2. In this process: the parameters again (the same key), XLA:CPU's compile (lower + compile
   wall time), the HLO text of the same lowering for xlac (what bench_vs_xla.py exports:
   the short parsable form, every constant printed), the inputs as `inputs.npz`.
3. --rounds alternating rounds, as bench_vs_xla.py does: --iters/rounds runs of XLA with
   block_until_ready, then one `xlac bench MODEL --input inputs.npz --iters N --json`
   process, and again. Medians are over each side's pooled runs; xlac's compile time is
   the median over its rounds; xlac's peak resident set is the largest maximum resident
   set of its `bench` processes (GNU time's %M), which includes reading inputs.npz; in
   parentheses, the peak of `xlac run MODEL --seed 0` (the same compile and one run on
   random inputs made in the process, no file), the figure to set beside XLA's, whose
   parameters are made on the device.
4. `xlac run MODEL --input inputs.npz --output out.npz`, compared with XLA's outputs with
   bench_vs_xla.py's policy (|xlac - xla| <= atol + rtol * |xla| elementwise).
5. With --dump DIR: `xlac run MODEL --dump-to DIR/NAME`, and a summary of the dump: dots
   refused output fusion and why (fusion-decisions.txt) and the thunk counts
   (thunk-sequence.txt).

Then a markdown table and the geometric mean of the ratios. When xlac fails on a model
the row says so ("xlac bench failed: <first line of stderr>") and the run goes on.
Timings are never asserted; this script only measures. The machine is usually shared:
quote the ratios, not the milliseconds.
"""

import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import bench_vs_xla as BV  # noqa: E402  (timing, xlac commands, output check, table cells)

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402

MODELS = {}


def model(name, description, iters):
    """Registers `make(key) -> (fn, args)`; `iters` is the default number of timed runs per
    side (the big models run fewer so that one run of the script takes minutes)."""

    def register(make):
        MODELS[name] = dict(name=name, description=description, iters=iters, make=make)
        return make

    return register


class Keys:
    """A stream of PRNG keys split off one fixed key: the same model gets the same numbers."""

    def __init__(self, seed=0):
        self.key = jax.random.PRNGKey(seed)

    def __call__(self):
        self.key, sub = jax.random.split(self.key)
        return sub


def normal(keys, shape, scale):
    return jax.random.normal(keys(), shape, jnp.float32) * scale


def dense(keys, fan_in, fan_out):
    return {"w": normal(keys, (fan_in, fan_out), 1.0 / np.sqrt(fan_in)),
            "b": jnp.zeros((fan_out,), jnp.float32)}


def layernorm_params(d):
    return {"g": jnp.ones((d,), jnp.float32), "b": jnp.zeros((d,), jnp.float32)}


def layernorm(p, x, eps=1e-5):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean(jnp.square(x - mean), axis=-1, keepdims=True)
    return (x - mean) * lax.rsqrt(var + eps) * p["g"] + p["b"]


def linear(p, x):
    return x @ p["w"] + p["b"]


# --------------------------------------------------------------------------------------
# Decoder (GPT-2 shaped, and the small one of the training step)
# --------------------------------------------------------------------------------------


def decoder_params(keys, vocab, seq, d, layers, mlp):
    return {
        "wte": normal(keys, (vocab, d), 0.02),
        "wpe": normal(keys, (seq, d), 0.01),
        "blocks": [{"ln1": layernorm_params(d), "qkv": dense(keys, d, 3 * d),
                    "proj": dense(keys, d, d), "ln2": layernorm_params(d),
                    "fc": dense(keys, d, mlp), "out": dense(keys, mlp, d)}
                   for _ in range(layers)],
        "ln_f": layernorm_params(d),
    }


def attention(p, x, heads):
    b, t, d = x.shape
    q, k, v = jnp.split(linear(p["qkv"], x), 3, axis=-1)
    split = lambda a: a.reshape(b, t, heads, d // heads).transpose(0, 2, 1, 3)  # noqa: E731
    q, k, v = split(q), split(k), split(v)
    scores = (q @ k.transpose(0, 1, 3, 2)) / np.sqrt(d // heads).astype(np.float32)
    causal = jnp.tril(jnp.ones((t, t), bool))
    scores = jnp.where(causal, scores, jnp.finfo(jnp.float32).min)
    y = jax.nn.softmax(scores, axis=-1) @ v
    return linear(p["proj"], y.transpose(0, 2, 1, 3).reshape(b, t, d))


def decoder_logits(params, tokens, heads):
    x = params["wte"][tokens] + params["wpe"][: tokens.shape[1]]
    for blk in params["blocks"]:
        x = x + attention(blk, layernorm(blk["ln1"], x), heads)
        h = jax.nn.gelu(linear(blk["fc"], layernorm(blk["ln2"], x)), approximate=True)
        x = x + linear(blk["out"], h)
    return layernorm(params["ln_f"], x) @ params["wte"].T


@model("gpt2_forward", "GPT-2-small-shaped forward: 12 layers, d 768, 12 heads, seq 128, "
       "batch 1, vocab 50257, tied logits", iters=12)
def _(keys):
    params = decoder_params(keys, vocab=50257, seq=128, d=768, layers=12, mlp=3072)
    tokens = jax.random.randint(keys(), (1, 128), 0, 50257, jnp.int32)
    return (lambda params, tokens: decoder_logits(params, tokens, heads=12)), (params, tokens)


# --------------------------------------------------------------------------------------
# ResNet-18
# --------------------------------------------------------------------------------------


def conv_bn_params(keys, kh, cin, cout):
    return {"w": normal(keys, (kh, kh, cin, cout), np.sqrt(2.0 / (kh * kh * cin))),
            "gamma": 1.0 + normal(keys, (cout,), 0.1), "beta": normal(keys, (cout,), 0.1),
            "mean": normal(keys, (cout,), 0.1),
            "var": 1.0 + jnp.abs(normal(keys, (cout,), 0.1))}


def conv_bn(p, x, stride, relu, eps=1e-5):
    k = p["w"].shape[0]
    y = lax.conv_general_dilated(x, p["w"], (stride, stride), [(k // 2, k // 2)] * 2,
                                 dimension_numbers=("NHWC", "HWIO", "NHWC"))
    y = (y - p["mean"]) * (p["gamma"] * lax.rsqrt(p["var"] + eps)) + p["beta"]
    return jax.nn.relu(y) if relu else y


def resnet18_params(keys):
    params = {"stem": conv_bn_params(keys, 7, 3, 64), "stages": []}
    cin = 64
    for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
        blocks = []
        for i in range(2):
            s = stride if i == 0 else 1
            blk = {"c1": conv_bn_params(keys, 3, cin, cout), "c2": conv_bn_params(keys, 3, cout, cout)}
            if s != 1 or cin != cout:
                blk["down"] = conv_bn_params(keys, 1, cin, cout)
            blocks.append(blk)
            cin = cout
        params["stages"].append(blocks)
    params["fc"] = dense(keys, 512, 1000)
    return params


def resnet18(params, x):
    x = conv_bn(params["stem"], x, 2, relu=True)
    x = lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1),
                          ((0, 0), (1, 1), (1, 1), (0, 0)))
    for stage, blocks in enumerate(params["stages"]):
        for i, blk in enumerate(blocks):
            s = 2 if stage > 0 and i == 0 else 1
            y = conv_bn(blk["c2"], conv_bn(blk["c1"], x, s, relu=True), 1, relu=False)
            short = conv_bn(blk["down"], x, s, relu=False) if "down" in blk else x
            x = jax.nn.relu(y + short)
    return linear(params["fc"], jnp.mean(x, axis=(1, 2)))


@model("resnet18_forward", "ResNet-18 forward, 224x224x3, batch 1, NHWC, inference batchnorm",
       iters=30)
def _(keys):
    params = resnet18_params(keys)
    return resnet18, (params, normal(keys, (1, 224, 224, 3), 1.0))


# --------------------------------------------------------------------------------------
# LSTM over lax.scan
# --------------------------------------------------------------------------------------


def lstm(params, xs, h0, c0):
    def step(carry, x):
        h, c = carry
        z = x @ params["wx"] + h @ params["wh"] + params["b"]
        i, f, g, o = jnp.split(z, 4, axis=-1)
        c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
        h = jax.nn.sigmoid(o) * jnp.tanh(c)
        return (h, c), h

    (_, c), hs = lax.scan(step, (h0, c0), xs)
    return hs, c


@model("lstm_scan", "LSTM in lax.scan: 64 steps, batch 8, input 256, hidden 512", iters=30)
def _(keys):
    steps, batch, din, hidden = 64, 8, 256, 512
    params = {"wx": normal(keys, (din, 4 * hidden), 1.0 / np.sqrt(din)),
              "wh": normal(keys, (hidden, 4 * hidden), 1.0 / np.sqrt(hidden)),
              "b": jnp.zeros((4 * hidden,), jnp.float32)}
    xs = normal(keys, (steps, batch, din), 1.0)
    zeros = jnp.zeros((batch, hidden), jnp.float32)
    return lstm, (params, xs, zeros, zeros)


# --------------------------------------------------------------------------------------
# Training steps with Adam (by hand)
# --------------------------------------------------------------------------------------

ADAM = dict(lr=1e-3, b1=0.9, b2=0.999, eps=1e-8)


def adam_state(keys, params):
    """Optimizer state as of a few steps in: m ~ 1e-3, v ~ 1e-6 (nonzero everywhere)."""
    m = jax.tree_util.tree_map(lambda p: normal(keys, p.shape, 1e-3), params)
    v = jax.tree_util.tree_map(lambda p: jnp.square(normal(keys, p.shape, 1e-3)) + 1e-6, params)
    return {"m": m, "v": v, "t": jnp.array(10, jnp.int32)}


def adam_update(params, grads, state):
    t = state["t"] + 1
    tf = t.astype(jnp.float32)
    m = jax.tree_util.tree_map(lambda m, g: ADAM["b1"] * m + (1 - ADAM["b1"]) * g,
                               state["m"], grads)
    v = jax.tree_util.tree_map(lambda v, g: ADAM["b2"] * v + (1 - ADAM["b2"]) * g * g,
                               state["v"], grads)
    scale = ADAM["lr"] * jnp.sqrt(1 - ADAM["b2"] ** tf) / (1 - ADAM["b1"] ** tf)
    params = jax.tree_util.tree_map(lambda p, m, v: p - scale * m / (jnp.sqrt(v) + ADAM["eps"]),
                                    params, m, v)
    return params, {"m": m, "v": v, "t": t}


def cross_entropy(logits, labels):
    logp = jax.nn.log_softmax(logits, axis=-1)
    return -jnp.mean(jnp.take_along_axis(logp, labels[..., None], axis=-1))


def train_step(loss_fn):
    def step(params, state, *batch):
        loss, grads = jax.value_and_grad(loss_fn)(params, *batch)
        params, state = adam_update(params, grads, state)
        return params, state, loss

    return step


def mlp_loss(params, x, labels):
    h = x
    for layer in params[:-1]:
        h = jax.nn.relu(linear(layer, h))
    return cross_entropy(linear(params[-1], h), labels)


@model("mlp_adam_step", "MLP 784-1024-1024-10 training step, batch 128: loss, grad, Adam",
       iters=30)
def _(keys):
    params = [dense(keys, 784, 1024), dense(keys, 1024, 1024), dense(keys, 1024, 10)]
    params = [{"w": p["w"], "b": normal(keys, p["b"].shape, 0.01)} for p in params]
    x = normal(keys, (128, 784), 1.0)
    labels = jax.random.randint(keys(), (128,), 0, 10, jnp.int32)
    return train_step(mlp_loss), (params, adam_state(keys, params), x, labels)


def lm_loss(params, tokens, heads):
    logits = decoder_logits(params, tokens[:, :-1], heads)
    return cross_entropy(logits, tokens[:, 1:])


@model("transformer_adam_step", "decoder training step: 4 layers, d 256, 4 heads, seq 128, "
       "batch 8, vocab 4096: loss, grad, Adam", iters=20)
def _(keys):
    params = decoder_params(keys, vocab=4096, seq=128, d=256, layers=4, mlp=1024)
    tokens = jax.random.randint(keys(), (8, 129), 0, 4096, jnp.int32)
    loss = lambda params, tokens: lm_loss(params, tokens, heads=4)  # noqa: E731
    return train_step(loss), (params, adam_state(keys, params), tokens)


# --------------------------------------------------------------------------------------
# Memory
# --------------------------------------------------------------------------------------


def proc_status_kib(field):
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


def xla_memory_child(name, warmup):
    """In a fresh process: Python + jax with the CPU backend up and nothing compiled is the
    baseline; then make, compile and run the model; print one JSON line."""
    jax.devices()  # the CPU client exists before the baseline: it is not the model's
    baseline = proc_status_kib("VmRSS")
    fn, args = MODELS[name]["make"](Keys())
    args = jax.block_until_ready(args)
    compiled = jax.jit(fn, keep_unused=True).lower(*args).compile()
    for _ in range(warmup + 3):
        jax.block_until_ready(compiled(*args))
    print(json.dumps({"baseline_kib": baseline, "peak_kib": proc_status_kib("VmHWM")}))


def xla_memory(name, opts):
    """XLA's peak resident set minus the baseline, in MiB, from a child process."""
    p = subprocess.run([sys.executable, os.path.abspath(__file__), "--xla-memory-child", name,
                        "--warmup", str(opts.warmup)], capture_output=True, text=True,
                       timeout=opts.timeout)
    if p.returncode != 0:
        return {"error": f"memory child failed: {BV.first_line(p.stderr)}"}
    r = json.loads(p.stdout.strip().splitlines()[-1])
    return {"baseline_mib": r["baseline_kib"] / 1024, "peak_mib": r["peak_kib"] / 1024,
            "model_mib": (r["peak_kib"] - r["baseline_kib"]) / 1024}


TIME = "/usr/bin/time"


def run_measured(cmd, timeout):
    """(returncode, stdout, stderr, peak RSS in MiB) of one command, run under GNU time
    (`/usr/bin/time -f %M`, its maximum resident set). Not os.wait4 on a child of this
    process: Linux carries the forking process's peak into the child's ru_maxrss at exec
    (exec_mmap keeps the old mm's high-water mark), so a child of a Python process holding
    a model's parameters would report that Python's size. time is small."""
    if not os.access(TIME, os.X_OK):
        return None, "", f"{TIME} not found (GNU time measures xlac's peak RSS)", None
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss:
        # A session of its own, so that a timeout stops xlac too, not only time.
        p = subprocess.Popen([TIME, "-q", "-o", rss.name, "-f", "%M"] + cmd, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             start_new_session=True)
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
            return -9, "", f"timed out after {timeout} s", None
        lines = [ln for ln in rss.read().splitlines() if ln.strip().isdigit()]
    if p.returncode == 127 and not os.path.exists(cmd[0]):
        return None, "", f"{cmd[0]} not found (build it: cargo build --release)", None
    return p.returncode, out, err, int(lines[-1]) / 1024 if lines else None


def xlac_bench(xlac, model_path, inputs, iters, timeout):
    """({compile_ms, run_ms, rss_mib}, None) or (None, why) for one `xlac bench` process."""
    rc, out, err, rss = run_measured([xlac, "bench", model_path, "--input", inputs, "--iters",
                                      str(iters), "--json"], timeout)
    if rc != 0:
        why = err if rc is None or rc == -9 else f"exit {rc}: {BV.first_line(err or out)}"
        return None, f"xlac bench failed: {why}"
    for line in reversed(out.strip().splitlines()):
        if line.startswith("{"):
            r = json.loads(line)
            return {"compile_ms": float(r["compile_ms"]), "run_ms": [float(t) for t in r["run_ms"]],
                    "rss_mib": rss}, None
    return None, f"xlac bench failed: no JSON line in: {BV.first_line(out)}"


# --------------------------------------------------------------------------------------
# Dump summary
# --------------------------------------------------------------------------------------


DOT = re.compile(r"(dot|dot_general|convolution|conv_general_dilated)(\.\d+)?$")
DECISION = re.compile(r"\s+(fused|not fused)\s+(\S+) -> (\S+)(?: \(into \S+\))?: (.*)")


def dump_summary(folder):
    """From a dump folder: how many dots (and convolutions) were fused with their consumer
    as an output fusion, how many were not and why (fusion-decisions.txt), and the thunks
    by kind, in all and inside while bodies (thunk-sequence.txt)."""
    def find(suffix):
        hits = sorted(f for f in os.listdir(folder) if f.endswith(suffix))
        return os.path.join(folder, hits[0]) if hits else None

    summary = {}
    decisions = find("fusion-decisions.txt")
    if decisions:
        fused, refused = set(), {}
        with open(decisions) as fh:
            for line in fh:
                m = DECISION.match(line)
                if not m or not DOT.match(m.group(2)):
                    continue
                if m.group(1) == "fused":
                    fused.add(m.group(2))
                else:  # a dot with several users has a line per user: keep the first
                    refused.setdefault(m.group(2), re.sub(r"\b[\w\-]+\.\d+\b", "X", m.group(4)))
        for kind in ("dot", "conv"):
            mine = lambda name: name.startswith("conv") == (kind == "conv")  # noqa: E731
            reasons = {}
            for name, why in refused.items():
                if mine(name) and name not in fused:
                    reasons[why] = reasons.get(why, 0) + 1
            summary[f"{kind}_output_fused"] = sum(map(mine, fused))
            summary[f"{kind}_not_fused"] = dict(sorted(reasons.items(), key=lambda kv: -kv[1]))
    thunks = find("thunk-sequence.txt")
    if thunks:
        kinds, in_loops, body_indent = {}, {}, None
        with open(thunks) as fh:
            for line in fh:
                indent = len(line) - len(line.lstrip())
                word = line.split()[0] if line.strip() else ""
                if body_indent is not None and indent <= body_indent:
                    body_indent = None
                if word == "body:":
                    body_indent = indent
                    continue
                if word in ("sequence", "condition:", "") or word.endswith(":"):
                    continue
                kinds[word] = kinds.get(word, 0) + 1
                if body_indent is not None:
                    in_loops[word] = in_loops.get(word, 0) + 1
        summary["thunks"] = kinds
        summary["thunks_in_while_bodies"] = in_loops
    return summary


# --------------------------------------------------------------------------------------
# The run and its table
# --------------------------------------------------------------------------------------


def leaves(tree):
    return jax.tree_util.tree_leaves(tree)


def bench_one(name, opts, tmp):
    spec = MODELS[name]
    iters = opts.iters or spec["iters"]
    row = {"name": name, "description": spec["description"]}
    row["xla_memory"] = xla_memory(name, opts)
    fn, args = spec["make"](Keys())
    args = jax.block_until_ready(args)
    row["param_mib"] = sum(a.nbytes for a in leaves(args)) / 2**20
    t0 = time.perf_counter()
    lowered = jax.jit(fn, keep_unused=True).lower(*args)
    t1 = time.perf_counter()
    compiled = lowered.compile()
    t2 = time.perf_counter()
    row["xla"] = {"compile_ms": (t2 - t0) * 1e3, "lower_ms": (t1 - t0) * 1e3,
                  "backend_compile_ms": (t2 - t1) * 1e3}
    want = [np.asarray(o) for o in leaves(compiled(*args))]
    call = lambda: jax.block_until_ready(compiled(*args))  # noqa: E731

    folder = os.path.join(tmp, name)
    os.makedirs(folder, exist_ok=True)
    if opts.model_file == "hlo":
        text = BV.GB.G.hlo_text(lowered._lowering.hlo().as_hlo_module(), default_options=False)
    else:
        text = lowered.as_text()
    model_path = os.path.join(folder, f"model.{opts.model_file}")
    with open(model_path, "w") as fh:
        fh.write(text if text.endswith("\n") else text + "\n")
    inputs = os.path.join(folder, "inputs.npz")
    if not opts.no_xlac:
        np.savez(inputs, *[np.asarray(a) for a in leaves(args)])
        if opts.keep:
            np.savez(os.path.join(folder, "expected.npz"), *want)

    per_round = -(-iters // opts.rounds)
    xla_times, xlac_times, xlac_compile, xlac_rss, xlac_error = [], [], [], [], None
    for r in range(opts.rounds):
        xla_times += BV.time_calls(call, per_round, opts.warmup if r == 0 else 1)
        if opts.no_xlac or xlac_error:
            continue
        got, xlac_error = xlac_bench(opts.xlac, model_path, inputs, per_round, opts.timeout)
        if got:
            xlac_times += got["run_ms"]
            xlac_compile.append(got["compile_ms"])
            if got["rss_mib"] is not None:
                xlac_rss.append(got["rss_mib"])
    row["xla"].update(BV.summarize(xla_times))
    del compiled, call
    if opts.no_xlac:
        return row
    row["xlac"] = None if xlac_error else {"compile_ms": statistics.median(xlac_compile),
                                           "rss_mib": max(xlac_rss, default=None),
                                           **BV.summarize(xlac_times)}
    row["xlac_error"] = xlac_error
    # The same compile and run on random inputs of the parameters' shapes (`--seed`), no
    # .npz: the compiler and runtime's memory without the input file's reading.
    rc, _, err, rss = run_measured([opts.xlac, "run", model_path, "--seed", "0", "--quiet"],
                                   opts.timeout)
    row["xlac_seed_rss_mib"] = rss if rc == 0 else None
    row["check"] = BV.xlac_run(opts.xlac, model_path, inputs, os.path.join(folder, "out.npz"),
                               opts.timeout, want, opts.rtol, opts.atol)
    if opts.dump:
        dump = os.path.join(opts.dump, name)
        shutil.rmtree(dump, ignore_errors=True)
        _, err = BV.run_xlac([opts.xlac, "run", model_path, "--input", inputs, "--quiet",
                              "--dump-to", dump], opts.timeout)
        shutil.copy(model_path, os.path.join(opts.dump, f"{name}.{opts.model_file}"))
        row["dump"] = {"error": err} if err else dump_summary(dump)
    return row


def check_cell(check):
    if check.get("match") is None:
        return check.get("why", "not run")
    if "why" in check:
        return f"NO: {check['why']}"
    errs = (f"max abs {check['max_abs']:.1e}, rel {check['max_rel']:.1e}, "
            f"{100 * check['tol_used']:.0f}% of tol")
    return f"yes ({errs})" if check["match"] else f"NO ({errs})"


def table(rows):
    lines = ["| model | XLA median ms | xlac median ms | xlac/XLA | XLA compile ms | "
             "xlac compile ms | XLA peak RSS MiB | xlac peak RSS MiB (--seed) | params MiB | outputs |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    ratios = []
    for row in rows:
        x, c = row["xla"], row.get("xlac")
        ratio = c["run_ms_median"] / x["run_ms_median"] if c else None
        if ratio:
            ratios.append(ratio)
        mem = row["xla_memory"]
        xla_rss = f"{mem['model_mib']:.0f}" if "model_mib" in mem else mem["error"]
        xlac_ms = BV.fmt(c["run_ms_median"]) if c else (row.get("xlac_error") or "skipped")
        seed = row.get("xlac_seed_rss_mib")
        xlac_rss = f"{c['rss_mib']:.0f}" if c and c["rss_mib"] is not None else ""
        if c and seed:
            xlac_rss += f" ({seed:.0f})"
        lines.append(f"| {row['name']} | {BV.fmt(x['run_ms_median'])} | {xlac_ms} "
                     f"| {f'{ratio:.2f}' if ratio else ''} | {BV.fmt(x['compile_ms'])} "
                     f"| {BV.fmt(c['compile_ms']) if c else ''} | {xla_rss} "
                     f"| {xlac_rss} | {row['param_mib']:.0f} "
                     f"| {check_cell(row.get('check') or {})} |")
    if ratios:
        geo = float(np.exp(np.mean(np.log(ratios))))
        summary = (f"Geometric mean of xlac/XLA over {len(ratios)} models: {geo:.3f} "
                   f"(worst {max(ratios):.2f}x)")
    else:
        summary = "Geometric mean of xlac/XLA: no xlac timings"
    return "\n".join(lines), summary, ratios


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("models", nargs="*", help=f"subset of: {' '.join(MODELS)}")
    ap.add_argument("--xlac", default=os.path.join(ROOT, "target", "release", "xlac"),
                    help="the xlac binary (default: target/release/xlac)")
    ap.add_argument("--model-file", default="hlo", choices=["hlo", "mlir"],
                    help="what xlac gets: the HLO text or the StableHLO text of the lowering")
    ap.add_argument("--iters", type=int, default=0,
                    help="timed runs per side (default: per model, 12 for gpt2_forward, "
                         "20-30 for the others)")
    ap.add_argument("--rounds", type=int, default=3,
                    help="alternating rounds per model, each timing --iters/rounds runs "
                         "of XLA, then of xlac (one `xlac bench` process per round)")
    ap.add_argument("--warmup", type=int, default=3, help="untimed runs before timing XLA")
    ap.add_argument("--rtol", type=float, default=1e-3)
    ap.add_argument("--atol", type=float, default=1e-3)
    ap.add_argument("--timeout", type=float, default=900, help="seconds per child command")
    ap.add_argument("--no-xlac", action="store_true", help="time XLA only")
    ap.add_argument("--dump", metavar="DIR",
                    help="also write xlac's dump of each model to DIR/NAME and summarize it")
    ap.add_argument("--keep", metavar="DIR", help="keep model, inputs/expected/out .npz in DIR")
    ap.add_argument("--json", metavar="OUT", help="also write the raw results as JSON")
    ap.add_argument("--xla-memory-child", metavar="NAME", help=argparse.SUPPRESS)
    opts = ap.parse_args(argv)
    if opts.xla_memory_child:
        return xla_memory_child(opts.xla_memory_child, opts.warmup)
    unknown = [m for m in opts.models if m not in MODELS]
    if unknown:
        ap.error(f"unknown model(s) {' '.join(unknown)}; known: {' '.join(MODELS)}")
    if opts.rounds < 1:
        ap.error("--rounds must be at least 1")

    info = BV.machine()
    print("# " + " ".join(["python3", "scripts/bench_models.py"] + argv), flush=True)
    print(f"# {info['cpu']}, {info['cores']} cores; jax {info['jax']}, numpy {info['numpy']}",
          flush=True)
    results = {"machine": info, "models": []}
    jax.jit(lambda x: x + 1).lower(np.ones(4, np.float32)).compile()  # jax start-up, untimed
    tmp = opts.keep or tempfile.mkdtemp(prefix="bench_models_")
    try:
        for name in opts.models or list(MODELS):
            row = bench_one(name, opts, tmp)
            results["models"].append(row)
            c = row.get("xlac")
            print(f"{name}: XLA {row['xla']['run_ms_median']:.3f} ms"
                  + (f", xlac {c['run_ms_median']:.3f} ms" if c else
                     f", {row.get('xlac_error') or 'xlac skipped'}"), flush=True)
            if "dump" in row:
                print(f"  dump: {json.dumps(row['dump'])}", flush=True)
    finally:
        if not opts.keep:
            shutil.rmtree(tmp, ignore_errors=True)

    text, summary, ratios = table(results["models"])
    print()
    print(text)
    print()
    print(summary)
    if ratios:
        results["geomean_ratio"] = float(np.exp(np.mean(np.log(ratios))))
    if opts.json:
        with open(opts.json, "w") as fh:
            json.dump(results, fh, indent=1)
            fh.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
