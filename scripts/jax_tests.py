#!/usr/bin/env python3
"""Runs JAX's own test files on jax's CPU backend and on xlac, and compares.

Each file runs twice in the same venv, under pytest with JUnit XML output:
`JAX_PLATFORMS=cpu`, then `JAX_PLATFORMS=xlac,cpu` with `XLAC_TEST_DUT=cpu` (the tests'
conftest then treats xlac as the CPU device under test). Of the tests that pass on CPU,
the table counts how many pass on xlac; every such test that fails on xlac is listed with
the first line of its failure.

    python3 scripts/jax_tests.py lax_test.py fft_test.py --x64 both --out target/jax-tests
    python3 scripts/jax_tests.py --files-from scripts/jax_tests_ci.txt --check

`--baseline FILE` reads which tests pass on CPU from FILE instead of running them on CPU
(one `file x64=N test_id` per line, as `--write-baseline FILE` writes it from a CPU run):
CI runs only the xlac side against the checked-in `scripts/jax_tests_cpu_baseline.txt`.

`--check` exits 1 when a test that passes on CPU fails on xlac and is not in the known
differences file (`scripts/jax_tests_known_differences.txt`: one test id per line, then
` # ` and the reason), and names each such test. `--devices N` runs both sides with N
devices (`--xla_force_host_platform_device_count=N` for CPU, `devices:N` for xlac).

Needs a Python with jax==0.10.2, jaxlib==0.10.2, pytest and absl-py, and the xlac plugin
installed (`pip install ./python`) or named by XLAC_PJRT_LIBRARY and PYTHONPATH.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

ROOT = pathlib.Path(__file__).resolve().parent.parent
DEFAULT_TESTS = ROOT.parent / "shared" / "jax-tests"
KNOWN = ROOT / "scripts" / "jax_tests_known_differences.txt"


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("files", nargs="*", help="test files, relative to --tests")
    p.add_argument("--files-from", type=pathlib.Path, help="a file listing test files, one per line")
    p.add_argument("--tests", type=pathlib.Path, default=DEFAULT_TESTS, help="a jax tests/ folder")
    p.add_argument("--x64", choices=["0", "1", "both"], default="0")
    p.add_argument("--devices", type=int, default=1)
    p.add_argument("--cases", type=int, default=1, help="JAX_NUM_GENERATED_CASES")
    p.add_argument("-k", dest="keyword", help="pytest -k expression")
    p.add_argument("--timeout", type=float, default=1800, help="seconds per pytest run")
    p.add_argument("--out", type=pathlib.Path, default=ROOT / "target" / "jax-tests")
    p.add_argument("--known", type=pathlib.Path, default=KNOWN)
    p.add_argument("--check", action="store_true", help="fail on unknown differences")
    p.add_argument("--python", default=sys.executable)
    p.add_argument("--baseline", type=pathlib.Path, help="the tests that pass on CPU, instead of a CPU run")
    p.add_argument("--write-baseline", type=pathlib.Path, help="write the CPU passes of this run here")
    args = p.parse_args()
    # pytest runs from a copy of the tests folder: every path it is handed must be absolute.
    # (abspath, not resolve: a venv's python is a symlink that must stay one.)
    args.python = os.path.abspath(args.python) if os.sep in args.python else args.python
    args.out = pathlib.Path(os.path.abspath(args.out))
    return args


def read_known(path: pathlib.Path) -> dict[str, str]:
    known = {}
    if path.exists():
        for line in path.read_text().splitlines():
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            test, _, reason = line.partition(" # ")
            known[test.strip()] = reason.strip()
    return known


def read_baseline(path: pathlib.Path) -> dict[tuple[str, str], list[str]]:
    """(file, x64) -> the test ids that pass there on CPU."""
    base: dict[tuple[str, str], list[str]] = {}
    for line in path.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        file, x64, test = line.split(" ", 2)
        base.setdefault((file, x64.removeprefix("x64=")), []).append(test)
    return base


# Skip messages of tests that need more devices than the run has (JAX's own CPU backend gets
# the devices the test files request with `jtu.request_cpu_devices`; xlac has `--devices`).
NEEDS_DEVICES = re.compile(r"requires >= ?\d+ devices|requires \d+ global devices|at least \d+ (local )?devices|with 1 device|more devices|device_count")


def outcomes(xml_path: pathlib.Path) -> dict[str, tuple[str, str]]:
    """test id -> (passed|failed|skipped, first line of the failure)."""
    result: dict[str, tuple[str, str]] = {}
    if not xml_path.exists():
        return result
    for case in ET.parse(xml_path).getroot().iter("testcase"):
        name = f"{case.get('classname', '')}::{case.get('name', '')}"
        state, message = "passed", ""
        for child in case:
            if child.tag in ("failure", "error"):
                state = "failed"
                text = (child.get("message") or child.text or "").strip()
                message = text.splitlines()[0][:300] if text else child.tag
                break
            if child.tag == "skipped":
                state = "skipped"
                if NEEDS_DEVICES.search(child.get("message") or ""):
                    state = "needs-devices"
        result[name] = (state, message)
    return result


def run_pytest(args, tests: pathlib.Path, file: str, backend: str, x64: str, xml: pathlib.Path) -> tuple[float, str]:
    env = dict(os.environ)
    env.update(
        JAX_NUM_GENERATED_CASES=str(args.cases),
        JAX_ENABLE_X64=x64,
        JAX_SKIP_SLOW_TESTS="true",
        PYTHONDONTWRITEBYTECODE="1",
    )
    env.pop("XLAC_TEST_DUT", None)
    if backend == "cpu":
        env["JAX_PLATFORMS"] = "cpu"
        if args.devices > 1:
            env["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={args.devices}"
    else:
        env["JAX_PLATFORMS"] = "xlac,cpu"
        env["XLAC_TEST_DUT"] = "cpu"
        if args.devices > 1:
            env["XLAC_PJRT_OPTIONS"] = f"devices:{args.devices}"
    cmd = [args.python, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={xml}", file]
    if args.keyword:
        cmd += ["-k", args.keyword]
    start = time.monotonic()
    try:
        proc = subprocess.run(cmd, cwd=tests, env=env, capture_output=True, text=True, timeout=args.timeout)
        tail = (proc.stdout + proc.stderr).strip().splitlines()[-1:] or [""]
        status = tail[0]
        if proc.returncode not in (0, 1, 5):
            status = f"pytest exited {proc.returncode}: {status}"
    except subprocess.TimeoutExpired:
        status = f"timed out after {args.timeout:.0f} s"
    return time.monotonic() - start, status


def main() -> int:
    args = parse_args()
    files = list(args.files)
    if args.files_from:
        files += [l.split("#")[0].strip() for l in args.files_from.read_text().splitlines() if l.split("#")[0].strip()]
    if not files:
        print("error: no test files given", file=sys.stderr)
        return 2
    if not args.tests.is_dir():
        print(f"error: {args.tests} is not a folder of jax tests", file=sys.stderr)
        return 2
    known = read_known(args.known)
    baseline = read_baseline(args.baseline) if args.baseline else None
    written: list[str] = []
    args.out.mkdir(parents=True, exist_ok=True)
    x64_modes = ["0", "1"] if args.x64 == "both" else [args.x64]
    rows, unexplained, all_failures = [], [], []
    # The tests folder may be read-only: run from a copy.
    with tempfile.TemporaryDirectory(prefix="jax-tests-") as tmp:
        tests = pathlib.Path(tmp) / "tests"
        shutil.copytree(args.tests, tests)
        for x64 in x64_modes:
            for file in files:
                stem = f"{pathlib.Path(file).stem}.x64_{x64}"
                cpu_xml, xlac_xml = args.out / f"{stem}.cpu.xml", args.out / f"{stem}.xlac.xml"
                if baseline is None:
                    cpu_time, cpu_status = run_pytest(args, tests, file, "cpu", x64, cpu_xml)
                    passing = [t for t, (s, _) in outcomes(cpu_xml).items() if s == "passed"]
                else:
                    cpu_time, cpu_status = 0.0, "from the baseline"
                    if (file, x64) not in baseline:
                        print(f"error: {args.baseline} has no CPU results for {file} x64={x64}", file=sys.stderr)
                        return 2
                    passing = baseline[(file, x64)]
                written += [f"{file} x64={x64} {t}" for t in passing]
                xlac_time, xlac_status = run_pytest(args, tests, file, "xlac", x64, xlac_xml)
                xlac = outcomes(xlac_xml)
                # Tests that skip on xlac for want of devices measure the fleet, not this run.
                devices = [t for t in passing if xlac.get(t, ("missing", ""))[0] == "needs-devices"]
                passing = [t for t in passing if t not in devices]
                both = [t for t in passing if xlac.get(t, ("missing", ""))[0] == "passed"]
                share = 100.0 * len(both) / len(passing) if passing else 100.0
                rows.append((file, x64, len(passing), len(both), share, cpu_time, xlac_time, len(devices)))
                for t in passing:
                    state, message = xlac.get(t, ("missing", "not run on xlac: " + xlac_status))
                    if state == "passed":
                        continue
                    line = f"{t} [x64={x64}] {state}: {message}"
                    all_failures.append(line)
                    if t not in known and f"{t} [x64={x64}]" not in known:
                        unexplained.append(line)
                print(f"{file} x64={x64}: {len(both)}/{len(passing)} ({share:.1f}%) "
                      f"cpu {cpu_time:.0f} s, xlac {xlac_time:.0f} s", flush=True)
    total_cpu = sum(r[2] for r in rows)
    total_both = sum(r[3] for r in rows)
    table = [
        "| file | x64 | pass on CPU | pass on xlac too | share | need more devices | CPU s | xlac s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for file, x64, n_cpu, n_both, share, t_cpu, t_xlac, n_dev in rows:
        table.append(f"| {file} | {x64} | {n_cpu} | {n_both} | {share:.1f}% | {n_dev} | {t_cpu:.0f} | {t_xlac:.0f} |")
    overall = 100.0 * total_both / total_cpu if total_cpu else 100.0
    table.append(f"| **all** | | {total_cpu} | {total_both} | {overall:.1f}% | {sum(r[7] for r in rows)} | | |")
    if args.write_baseline:
        header = "# Tests of JAX 0.10.2 that pass on jax's CPU backend (scripts/jax_tests.py --write-baseline)\n"
        args.write_baseline.write_text(header + "\n".join(written) + "\n")
    (args.out / "table.md").write_text("\n".join(table) + "\n")
    (args.out / "failures.txt").write_text("\n".join(all_failures) + ("\n" if all_failures else ""))
    print("\n".join(table))
    print(f"failures: {args.out / 'failures.txt'} ({len(all_failures)}, {len(unexplained)} not in {args.known.name})")
    if args.check and unexplained:
        print("error: tests that pass on CPU fail on xlac and are not known differences:", file=sys.stderr)
        for line in unexplained:
            print("  " + line, file=sys.stderr)
        return 1
    if args.check and total_cpu == 0:
        print("error: no test passed on CPU; the run measured nothing", file=sys.stderr)
        return 1
    # The plain closing line CI reads.
    print(f"jax-tests: {total_both} passed, {total_cpu - total_both} failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
