"""Soak of the plugin: many `jax.jit` calls from several threads, watching memory.

    python python/soak.py --calls 100000 --threads 8

Each thread cycles through a mix of calls on xlac: a jitted function called again (a
compile-cache hit), a fresh function (a miss: a new compile every `--miss-every` calls),
an array deleted by hand, a donating call, a host callback every `--callback-every`.
Peak RSS (VmHWM) is read after a warm-up tenth of the calls and at the end; the run
fails (exit 1) if it grew by more than `--max-growth` (5% by default), if any result is
wrong (one more call runs after `jax.clear_caches()`), or if the process does not exit
cleanly. The figures go to stdout as one JSON line (docs/testing.md, "Soak"), with the
current RSS at every tenth of the calls.
"""

from __future__ import annotations

import argparse
import json
import threading
import time

import jax
import jax.numpy as jnp
import numpy as np


def peak_rss_kib() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def rss_kib() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--calls", type=int, default=100_000, help="calls in all")
    p.add_argument("--threads", type=int, default=8)
    p.add_argument("--miss-every", type=int, default=500)
    p.add_argument("--callback-every", type=int, default=1000)
    p.add_argument("--max-growth", type=float, default=0.05)
    p.add_argument(
        "--platform", default="xlac", help="the backend to soak ('cpu': JAX's own, the yardstick)"
    )
    args = p.parse_args()

    device = jax.devices(args.platform)[0]
    hit = jax.jit(lambda x, k: jnp.tanh(x) * k + 1.0)
    donate = jax.jit(lambda x: x * 2.0, donate_argnums=0)
    seen = []

    def callback(v):
        seen.append(float(v))
        return np.float32(v)

    with_callback = jax.jit(
        lambda x: jax.pure_callback(callback, jax.ShapeDtypeStruct((), np.float32), x.sum())
    )
    per_thread = args.calls // args.threads
    warmup_done = threading.Barrier(args.threads + 1)
    errors: list[str] = []
    # Thread 0's progress in tenths, with the RSS then: the trend behind the two peaks.
    samples: list[tuple[int, float]] = []
    compiles = [0] * args.threads
    # Positive, so that the callback's sum has no cancellation to make its check ill-posed.
    base = np.linspace(0.25, 1.25, 256, dtype=np.float32)

    def worker(t: int) -> None:
        try:
            for i in range(per_thread):
                if i == per_thread // 10:
                    warmup_done.wait()
                if t == 0 and i % max(1, per_thread // 10) == 0:
                    samples.append((i * args.threads, round(rss_kib() / 1024, 1)))
                x = jax.device_put(base * (t + 1), device)
                kind = i % 4
                if i % args.miss_every == 0:
                    # A new function object: a compile, then the executable is dropped.
                    fresh = jax.jit(lambda v, c=i: v + np.float32(c % 7))
                    compiles[t] += 1
                    got = np.asarray(fresh(x))
                    want = base * (t + 1) + np.float32(i % 7)
                elif i % args.callback_every == 1:
                    got = np.asarray(with_callback(x))
                    want = np.float32((base * (t + 1)).sum())
                elif kind == 0:
                    got = np.asarray(hit(x, np.float32(t)))
                    want = np.tanh(base * (t + 1)) * np.float32(t) + 1.0
                elif kind == 1:
                    got = np.asarray(donate(x))
                    want = base * (t + 1) * 2.0
                    if not x.is_deleted():
                        raise AssertionError("a donated argument was not consumed")
                elif kind == 2:
                    y = hit(x, np.float32(2))
                    y.delete()
                    continue
                else:
                    got = np.asarray(x)
                    want = base * (t + 1)
                if not np.allclose(got, want, rtol=1e-5, atol=1e-4):
                    raise AssertionError(f"thread {t} call {i}: wrong result")
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(f"thread {t}: {e!r}")
            try:
                warmup_done.abort()
            except threading.BrokenBarrierError:
                pass

    start = time.monotonic()
    threads = [threading.Thread(target=worker, args=(t,)) for t in range(args.threads)]
    for th in threads:
        th.start()
    try:
        warmup_done.wait()
    except threading.BrokenBarrierError:
        pass
    after_warmup = peak_rss_kib()
    for th in threads:
        th.join()
    elapsed = time.monotonic() - start
    at_end = peak_rss_kib()
    jax.clear_caches()
    # The client still works after its caches are gone.
    after_clear = np.asarray(hit(jax.device_put(base, device), np.float32(1)))
    if not np.allclose(after_clear, np.tanh(base) + 1.0, rtol=1e-5, atol=1e-4):
        errors.append("wrong result after jax.clear_caches()")
    growth = (at_end - after_warmup) / after_warmup if after_warmup else 0.0
    report = {
        "platform": args.platform,
        "calls": per_thread * args.threads,
        "threads": args.threads,
        "seconds": round(elapsed, 1),
        "us_per_call": round(1e6 * elapsed / max(1, per_thread * args.threads), 1),
        "peak_rss_after_warmup_mib": round(after_warmup / 1024, 1),
        "peak_rss_at_end_mib": round(at_end / 1024, 1),
        "rss_after_clear_caches_mib": round(rss_kib() / 1024, 1),
        "growth": round(growth, 4),
        "compiles": sum(compiles),
        "callbacks": len(seen),
        "rss_samples_mib": samples,
        "errors": errors[:5],
    }
    print(json.dumps(report))
    if errors or growth > args.max_growth:
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
