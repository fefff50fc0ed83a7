#!/usr/bin/env python3
"""xlac beside XLA:CPU on the same machine, in one run.

    python3 scripts/bench_vs_xla.py                          # all of testdata/bench/
    python3 scripts/bench_vs_xla.py matmul softmax --iters 50
    python3 scripts/bench_vs_xla.py --xlac target/release/xlac --json results.json

What it does, in order:

1. A STREAM-style triad `a = b + s*c` with numpy on three float64 arrays far larger than
   the caches (--triad-mib each), split into L2-sized blocks so that the temporary `s*c`
   stays in cache and memory sees exactly read b, read c, write a (24 bytes per element,
   STREAM's count); and STREAM's Add `a = b + c`, the same traffic in one numpy call, which
   shows whether numpy's per-block work held the triad back. Both on one thread and on
   every core; the best rate of either is "the machine's bandwidth" (STREAM reports best
   rates too), the denominator of the "% triad" columns.
2. For every benchmark program of testdata/bench/ (testdata/generate_bench.py): make the
   inputs with the program's own `make(rng)` and seed, compile XLA:CPU through jax (lower
   + compile wall time is its compile time), save the inputs as a temporary `inputs.npz`
   (numpy.savez: arr_0, arr_1, ...), then time both sides in --rounds alternating rounds:
   --iters/rounds runs of XLA with block_until_ready (warm-up runs first), then `xlac
   bench MODEL --input inputs.npz --iters N --json` (one JSON line: compile_ms,
   run_ms_median, run_ms_min, iters, run_ms = every run), and again; a burst of load
   from the machine's other tenants then falls on both sides. Medians and mins are over
   each side's pooled runs (--iters in all); xlac's compile time is the median of its
   rounds. Last `xlac run MODEL --input inputs.npz --output out.npz --quiet`, whose
   outputs are compared with XLA's (|xlac - xla| <= atol + rtol * |xla| elementwise).
3. A markdown table: times, the ratio xlac/XLA, compile times, whether the outputs match,
   and for memory-bound programs the bandwidth reached (bytes of inputs + outputs / median
   time) as a share of the triad; then the geometric mean of the ratios.

When xlac fails (not built, `xlac bench` missing, an unsupported op) the row says so
("xlac bench failed: <first line of stderr>") and the run goes on, so the XLA half always
works. Timings are never asserted; this script only measures.
"""

import argparse
import concurrent.futures
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "testdata"))
import generate_bench as GB  # noqa: E402  (the programs and their inputs)

import jax  # noqa: E402

# --------------------------------------------------------------------------------------
# Triad
# --------------------------------------------------------------------------------------

TRIAD_BLOCK = 32 * 1024  # float64 elements per block: 256 KiB, well inside L2


def _triad_part(a, b, c, s, lo, hi):
    """a[lo:hi] = b[lo:hi] + s * c[lo:hi], block by block through an in-cache temporary."""
    tmp = np.empty(TRIAD_BLOCK)
    for i in range(lo, hi, TRIAD_BLOCK):
        j = min(i + TRIAD_BLOCK, hi)
        t = tmp[: j - i]
        np.multiply(c[i:j], s, out=t)
        np.add(b[i:j], t, out=a[i:j])


def _add_part(a, b, c, s, lo, hi):
    """STREAM's Add, a = b + c: the triad's traffic in one numpy call (no temporary)."""
    np.add(b[lo:hi], c[lo:hi], out=a[lo:hi])


def stream(mib, runs, threads):
    """Best and median GB/s of the triad and of Add over `runs` runs on `threads` threads,
    counting 24 bytes per element (read b, read c, write a) as STREAM does."""
    n = mib * 1024 * 1024 // 8
    a, b, c = np.full(n, 1.0), np.full(n, 2.0), np.full(n, 0.5)  # pages touched up front
    # Contiguous chunks, one per thread, cut at block boundaries.
    blocks = -(-n // TRIAD_BLOCK)
    cuts = [min(n, (blocks * k // threads) * TRIAD_BLOCK) for k in range(threads + 1)]
    result = {"threads": threads, "array_mib": mib, "runs": runs}
    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        for label, part in (("triad", _triad_part), ("add", _add_part)):
            times = []
            for _ in range(runs):
                t0 = time.perf_counter()
                futures = [pool.submit(part, a, b, c, 3.0, cuts[k], cuts[k + 1])
                           for k in range(threads)]
                for f in futures:
                    f.result()
                times.append(time.perf_counter() - t0)
            want = 2.0 + 3.0 * 0.5 if label == "triad" else 2.5
            assert a[0] == want and a[-1] == want, f"{label} computed the wrong thing"
            result[f"{label}_best_gbs"] = 24 * n / min(times) / 1e9
            result[f"{label}_median_gbs"] = 24 * n / statistics.median(times) / 1e9
    return result


# --------------------------------------------------------------------------------------
# XLA:CPU through jax
# --------------------------------------------------------------------------------------


def time_calls(call, iters, warmup):
    """Wall milliseconds of each of `iters` runs of `call()` after `warmup` untimed ones."""
    for _ in range(warmup):
        call()
    times = []
    for _ in range(iters):
        t0 = time.perf_counter()
        call()
        times.append((time.perf_counter() - t0) * 1e3)
    return times


def compile_xla(name, fn, args):
    """XLA:CPU's executable for `fn` on `args`, its compile times, and the device inputs."""
    t0 = time.perf_counter()
    lowered = jax.jit(fn, keep_unused=True).lower(*args)
    t1 = time.perf_counter()
    compiled = lowered.compile()
    t2 = time.perf_counter()
    # The checked-in model.hlo must be what this jax lowers, or the two sides differ.
    model = GB.G.hlo_text(lowered._lowering.hlo().as_hlo_module(), default_options=False)
    on_disk = GB.G.read(os.path.join(GB.BENCH_DIR, name, "model.hlo"))
    stale = model.rstrip("\n") != on_disk.rstrip("\n")
    dev_args = [jax.device_put(a) for a in args]
    jax.block_until_ready(dev_args)
    info = {"compile_ms": (t2 - t0) * 1e3, "lower_ms": (t1 - t0) * 1e3,
            "backend_compile_ms": (t2 - t1) * 1e3, "model_hlo_stale": stale}
    return compiled, dev_args, info


def summarize(times):
    """Median and min of pooled run times, and how many."""
    return {"run_ms_median": statistics.median(times), "run_ms_min": min(times),
            "iters": len(times)}


# --------------------------------------------------------------------------------------
# xlac
# --------------------------------------------------------------------------------------


def first_line(text):
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[0].strip() if lines else "(no output)"


def run_xlac(cmd, timeout):
    """(stdout, None) or (None, one-line reason) for one xlac command."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except FileNotFoundError:
        return None, f"{cmd[0]} not found (build it: cargo build --release)"
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout} s"
    if p.returncode != 0:
        return None, f"exit {p.returncode}: {first_line(p.stderr or p.stdout)}"
    return p.stdout, None


def xlac_bench(xlac, model, inputs, iters, timeout):
    """(compile_ms and the list of run times, None) or (None, why) for one `xlac bench`."""
    out, err = run_xlac([xlac, "bench", model, "--input", inputs, "--iters", str(iters),
                         "--json"], timeout)
    if err:
        return None, f"xlac bench failed: {err}"
    for line in reversed(out.strip().splitlines()):
        if line.startswith("{"):
            try:
                r = json.loads(line)
                return {"compile_ms": float(r["compile_ms"]),
                        "run_ms": [float(t) for t in r["run_ms"]]}, None
            except (ValueError, KeyError, TypeError) as e:
                return None, f"xlac bench failed: bad JSON line ({e}): {line[:80]}"
    return None, f"xlac bench failed: no JSON line in: {first_line(out)}"


def compare(got, want, rtol, atol):
    """Output check like XLA's tests: every leaf within atol + rtol * |want|."""
    if len(got) != len(want):
        return {"match": False, "why": f"{len(got)} outputs, XLA has {len(want)}"}
    max_abs = max_rel = tol_used = 0.0
    ok = True
    for i, (g, w) in enumerate(zip(got, want)):
        if g.shape != w.shape:
            return {"match": False, "why": f"arr_{i}: shape {g.shape}, XLA {w.shape}"}
        g, w = g.astype(np.float64), w.astype(np.float64)
        if not (np.array_equal(np.isnan(g), np.isnan(w))):
            ok = False
        d = np.abs(np.where(np.isnan(w), 0.0, g - w))
        d = np.where(np.isnan(d), np.inf, d)
        if d.size:
            max_abs = max(max_abs, float(d.max()))
            big = np.abs(w) > atol  # relative error where it means something
            if big.any():
                max_rel = max(max_rel, float((d[big] / np.abs(w[big])).max()))
            allowed = atol + rtol * np.abs(np.nan_to_num(w))
            tol_used = max(tol_used, float((d / allowed).max()))
            ok = ok and bool(np.all(d <= allowed))
    # tol_used: the largest error as a share of what the tolerance allows (<= 1 passes).
    return {"match": ok, "max_abs": max_abs, "max_rel": max_rel, "tol_used": tol_used}


def xlac_run(xlac, model, inputs, out_path, timeout, want, rtol, atol):
    _, err = run_xlac([xlac, "run", model, "--input", inputs, "--output", out_path,
                       "--quiet"], timeout)
    if err:
        return {"match": None, "why": f"xlac run failed: {err}"}
    try:
        with np.load(out_path) as z:
            got = [z[f"arr_{i}"] for i in range(len(z.files))]
    except (OSError, ValueError, KeyError) as e:
        return {"match": None, "why": f"xlac run: cannot read {out_path}: {e}"}
    return compare(got, want, rtol, atol)


# --------------------------------------------------------------------------------------
# The run and its table
# --------------------------------------------------------------------------------------


def bench_one(name, opts, tmp):
    """Times both sides in `opts.rounds` alternating rounds (XLA, then xlac, and again), so
    that a burst of load from other tenants of the machine falls on both rather than one;
    each side's median and min are over all its runs pooled."""
    fn, args = GB.make_inputs(name)
    meta = json.loads(GB.G.read(os.path.join(GB.BENCH_DIR, name, "meta.json")))
    compiled, dev_args, xla = compile_xla(name, fn, args)
    call = lambda: jax.block_until_ready(compiled(*dev_args))  # noqa: E731
    want = [np.asarray(o) for o in jax.tree_util.tree_leaves(compiled(*dev_args))]
    row = {"name": name, "memory_bound": meta["memory_bound"],
           "bytes": sum(a.nbytes for a in args) + sum(o.nbytes for o in want)}
    per_round = -(-opts.iters // opts.rounds)
    folder = os.path.join(tmp, name)
    os.makedirs(folder, exist_ok=True)
    inputs = os.path.join(folder, "inputs.npz")
    model = os.path.join(GB.BENCH_DIR, name, opts.model_file)
    if not opts.no_xlac:
        np.savez(inputs, *args)
        np.savez(os.path.join(folder, "expected.npz"), *want)  # for looking at a mismatch
    xla_times, xlac_times, xlac_compile, xlac_error = [], [], [], None
    for r in range(opts.rounds):
        xla_times += time_calls(call, per_round, opts.warmup if r == 0 else 1)
        if opts.no_xlac or xlac_error:
            continue
        got, xlac_error = xlac_bench(opts.xlac, model, inputs, per_round, opts.timeout)
        if got:
            xlac_times += got["run_ms"]
            xlac_compile.append(got["compile_ms"])
    row["xla"] = {**xla, **summarize(xla_times)}
    if opts.no_xlac:
        return row
    row["xlac"] = None if xlac_error else {"compile_ms": statistics.median(xlac_compile),
                                           **summarize(xlac_times)}
    row["xlac_error"] = xlac_error
    row["check"] = xlac_run(opts.xlac, model, inputs, os.path.join(folder, "out.npz"),
                            opts.timeout, want, opts.rtol, opts.atol)
    return row


def fmt(x, digits=3):
    return "" if x is None else f"{x:.{digits}g}" if x < 100 else f"{x:.0f}"


def gbs_cell(row, side, triad_gbs):
    r = row.get(side)
    if not row["memory_bound"] or not r:
        return ""
    gbs = row["bytes"] / (r["run_ms_median"] * 1e-3) / 1e9
    return f"{gbs:.1f} ({100 * gbs / triad_gbs:.0f}%)" if triad_gbs else f"{gbs:.1f}"


def table(rows, triad_gbs):
    lines = ["| program | XLA median ms | XLA min ms | xlac median ms | xlac/XLA | XLA compile ms (backend) "
             "| xlac compile ms | outputs | XLA GB/s (% triad) | xlac GB/s (% triad) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    ratios = []
    for row in rows:
        x, c = row["xla"], row.get("xlac")
        ratio = c["run_ms_median"] / x["run_ms_median"] if c else None
        if ratio:
            ratios.append(ratio)
        check = row.get("check") or {}
        if check.get("match") is None:
            out = check.get("why", "not run")
        elif "why" in check:
            out = f"NO: {check['why']}"
        else:
            errs = (f"max abs {check['max_abs']:.1e}, rel {check['max_rel']:.1e}, "
                    f"{100 * check['tol_used']:.0f}% of tol")
            out = f"yes ({errs})" if check["match"] else f"NO ({errs})"
        xlac_ms = fmt(c["run_ms_median"]) if c else (row.get("xlac_error") or "skipped")
        stale = " (model.hlo stale!)" if x["model_hlo_stale"] else ""
        lines.append(f"| {row['name']}{stale} | {fmt(x['run_ms_median'])} | {fmt(x['run_ms_min'])} "
                     f"| {xlac_ms} | {fmt(ratio) if ratio else ''} | {fmt(x['compile_ms'])} "
                     f"({fmt(x['backend_compile_ms'])}) "
                     f"| {fmt(c['compile_ms']) if c else ''} | {out} "
                     f"| {gbs_cell(row, 'xla', triad_gbs)} | {gbs_cell(row, 'xlac', triad_gbs)} |")
    summary = []
    if ratios:
        geo = float(np.exp(np.mean(np.log(ratios))))
        summary.append(f"Geometric mean of xlac/XLA over {len(ratios)} programs: {geo:.3f} "
                       f"(worst {max(ratios):.2f}x)")
    else:
        summary.append("Geometric mean of xlac/XLA: no xlac timings")
    return "\n".join(lines), summary, ratios


def machine():
    model = platform.processor()
    try:
        with open("/proc/cpuinfo") as fh:
            model = next(ln.split(":", 1)[1].strip() for ln in fh if ln.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return {"cpu": model, "cores": os.cpu_count(), "python": platform.python_version(),
            "jax": jax.__version__, "numpy": np.__version__}


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("programs", nargs="*", help=f"subset of: {' '.join(GB.BENCH)}")
    ap.add_argument("--xlac", default=os.path.join(ROOT, "target", "release", "xlac"),
                    help="the xlac binary (default: target/release/xlac)")
    ap.add_argument("--model-file", default="model.hlo", choices=["model.hlo", "model.mlir"],
                    help="which file of testdata/bench/<name>/ xlac gets")
    ap.add_argument("--iters", type=int, default=50, help="timed runs per side (>= 30)")
    ap.add_argument("--rounds", type=int, default=3,
                    help="alternating rounds per program, each timing --iters/rounds runs "
                         "of XLA, then of xlac (one `xlac bench` process per round)")
    ap.add_argument("--warmup", type=int, default=5, help="untimed runs before timing XLA")
    ap.add_argument("--rtol", type=float, default=1e-3)
    ap.add_argument("--atol", type=float, default=1e-3)
    ap.add_argument("--timeout", type=float, default=600, help="seconds per xlac command")
    ap.add_argument("--triad-mib", type=int, default=256, help="MiB per triad array (3 arrays)")
    ap.add_argument("--triad-runs", type=int, default=10)
    ap.add_argument("--no-triad", action="store_true")
    ap.add_argument("--no-xlac", action="store_true", help="time XLA only")
    ap.add_argument("--keep", metavar="DIR", help="keep inputs/expected/out .npz files in DIR")
    ap.add_argument("--json", metavar="OUT", help="also write the raw results as JSON")
    opts = ap.parse_args(argv)
    unknown = [p for p in opts.programs if p not in GB.BENCH]
    if unknown:
        ap.error(f"unknown program(s) {' '.join(unknown)}; known: {' '.join(GB.BENCH)}")
    if opts.rounds < 1:
        ap.error("--rounds must be at least 1")
    if opts.iters < 30:
        print(f"note: --iters {opts.iters} is below the 30 runs a comparison needs", flush=True)

    info = machine()
    print("# " + " ".join(["python3", "scripts/bench_vs_xla.py"] + argv), flush=True)
    print(f"# {info['cpu']}, {info['cores']} cores; jax {info['jax']}, numpy {info['numpy']}",
          flush=True)
    results = {"machine": info, "triad": [], "programs": []}
    triad_gbs = None
    if not opts.no_triad:
        for threads in sorted({1, os.cpu_count() or 1}):
            t = stream(opts.triad_mib, opts.triad_runs, threads)
            results["triad"].append(t)
            print(f"{threads} thread(s), 3 x {opts.triad_mib} MiB: triad best "
                  f"{t['triad_best_gbs']:.2f} GB/s (median {t['triad_median_gbs']:.2f}), "
                  f"add best {t['add_best_gbs']:.2f} GB/s (median {t['add_median_gbs']:.2f})",
                  flush=True)
        triad_gbs = max(max(t["triad_best_gbs"], t["add_best_gbs"]) for t in results["triad"])

    jax.jit(lambda x: x + 1).lower(np.ones(4, np.float32)).compile()  # jax start-up, untimed
    tmp = opts.keep or tempfile.mkdtemp(prefix="bench_vs_xla_")
    try:
        for name in opts.programs or list(GB.BENCH):
            row = bench_one(name, opts, tmp)
            results["programs"].append(row)
            c = row.get("xlac")
            print(f"{name}: XLA {row['xla']['run_ms_median']:.3f} ms"
                  + (f", xlac {c['run_ms_median']:.3f} ms" if c else
                     f", {row.get('xlac_error') or 'xlac skipped'}"), flush=True)
    finally:
        if not opts.keep:
            shutil.rmtree(tmp, ignore_errors=True)

    text, summary, ratios = table(results["programs"], triad_gbs)
    print()
    if triad_gbs:
        print(f"Machine bandwidth (best triad or add, any thread count): {triad_gbs:.2f} GB/s\n")
    print(text)
    print()
    for line in summary:
        print(line)
    if ratios:
        results["geomean_ratio"] = float(np.exp(np.mean(np.log(ratios))))
    results["triad_gbs"] = triad_gbs
    if opts.json:
        with open(opts.json, "w") as fh:
            json.dump(results, fh, indent=1)
            fh.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
