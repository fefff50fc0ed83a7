"""Runs JAX's multi-controller tests (`jax-tests/multiprocess/`) as the ranks of one mpirun
job, on xlac or on jax's CPU backend, and counts each test's outcome.

Each file runs in its worker mode on every rank (`--multiprocess_test_worker_id` = the MPI
rank, `jax.distributed.initialize` on a local coordinator), `--devices` per process, with
`--xml_output_file` per rank; a test passes when it passes on every rank. On CPU the
collectives are gloo's (`--jax_cpu_collectives_implementation=gloo`).

    python scripts/jax_multiprocess_tests.py --tests ../shared/jax-tests \\
        --backend xlac --out target/jax-mp/xlac all_reduce_test.py ...
    python scripts/jax_multiprocess_tests.py --compare target/jax-mp/cpu target/jax-mp/xlac

xlac needs the plugin built with MPI (`XLAC_MPI=1 pip install ./python`, or
XLAC_PJRT_LIBRARY and PYTHONPATH pointing at a `--features mpi` build).
"""

import argparse
import json
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

WORKER = """#!/bin/sh
exec "$XLAC_MP_PYTHON" "$XLAC_MP_FILE" --num_processes="$XLAC_MP_RANKS" \\
  --multiprocess_test_worker_id="$OMPI_COMM_WORLD_RANK" \\
  --multiprocess_test_controller_address="127.0.0.1:$XLAC_MP_PORT" \\
  --xml_output_file="$XLAC_MP_OUT/rank$OMPI_COMM_WORLD_RANK.xml" $XLAC_MP_EXTRA
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def outcomes(xml_file):
    """{test id: 'pass' | 'fail' | 'skip'} from one rank's JUnit XML."""
    result = {}
    for case in ET.parse(xml_file).getroot().iter("testcase"):
        name = f"{case.get('classname')}.{case.get('name')}"
        if case.find("failure") is not None or case.find("error") is not None:
            result[name] = "fail"
        elif case.find("skipped") is not None or case.get("result") == "suppressed":
            result[name] = "skip"
        else:
            result[name] = "pass"
    return result


def run_file(args, path, out):
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        worker = pathlib.Path(tmp) / "worker.sh"
        worker.write_text(WORKER)
        worker.chmod(0o755)
        env = dict(os.environ)
        env.update(
            XLAC_MP_PYTHON=args.python, XLAC_MP_FILE=str(path), XLAC_MP_RANKS=str(args.ranks),
            XLAC_MP_PORT=str(free_port()), XLAC_MP_OUT=str(out), PYTHONDONTWRITEBYTECODE="1",
            JAX_NUM_GENERATED_CASES=env.get("JAX_NUM_GENERATED_CASES", "1"),
        )
        if args.backend == "xlac":
            # With the CPU backend beside it, as for the single-process files: host callbacks
            # place their inputs on a CPU device, and some tests name "cpu".
            env.update(JAX_PLATFORMS="xlac,cpu", XLAC_PJRT_OPTIONS=f"devices:{args.devices}")
            env["XLAC_MP_EXTRA"] = "--jax_test_dut=cpu"
        else:
            env.update(JAX_PLATFORMS="cpu")
            env["XLAC_MP_EXTRA"] = (
                "--jax_cpu_collectives_implementation=gloo "
                f"--jax_num_cpu_devices={args.devices}"
            )
        try:
            done = subprocess.run(
                ["mpirun", "--oversubscribe", "--allow-run-as-root", "-np", str(args.ranks),
                 str(worker)],
                env=env, cwd=path.parent, capture_output=True, text=True, timeout=args.timeout,
            )
            (out / "log.txt").write_text(done.stdout + done.stderr)
            code = done.returncode
        except subprocess.TimeoutExpired as e:
            (out / "log.txt").write_text(f"timeout after {args.timeout} s\n{e.stdout or ''}")
            code = "timeout"
    ranks = [outcomes(f) for f in sorted(out.glob("rank*.xml"))]
    tests = {}
    for r in ranks:
        for name, o in r.items():
            prev = tests.get(name, o)
            tests[name] = "fail" if "fail" in (prev, o) else ("skip" if "skip" in (prev, o) else o)
    if len(ranks) < args.ranks:
        # A rank that wrote no report: its tests count as failed.
        tests = {n: ("fail" if o == "pass" else o) for n, o in tests.items()}
    summary = {"file": path.name, "exit": code, "ranks_reported": len(ranks), "tests": tests}
    (out / "summary.json").write_text(json.dumps(summary, indent=1, sort_keys=True))
    return summary


def compare(cpu_dir, xlac_dir):
    total_cpu = total_both = 0
    for cpu_summary in sorted(pathlib.Path(cpu_dir).glob("*/summary.json")):
        cpu = json.loads(cpu_summary.read_text())
        x_path = pathlib.Path(xlac_dir) / cpu_summary.parent.name / "summary.json"
        xl = json.loads(x_path.read_text()) if x_path.exists() else {"tests": {}}
        passing = [n for n, o in cpu["tests"].items() if o == "pass"]
        both = [n for n in passing if xl["tests"].get(n) == "pass"]
        total_cpu += len(passing)
        total_both += len(both)
        print(f"{cpu['file']}: {len(both)} of {len(passing)} CPU passes pass on xlac")
        for n in sorted(set(passing) - set(both)):
            print(f"  {xl['tests'].get(n, 'missing')}: {n}")
    print(f"total: {total_both} of {total_cpu}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("files", nargs="*")
    p.add_argument("--tests", default="../shared/jax-tests")
    p.add_argument("--backend", choices=["xlac", "cpu"], default="xlac")
    p.add_argument("--out", default="target/jax-mp")
    p.add_argument("--ranks", type=int, default=4)
    p.add_argument("--devices", type=int, default=1, help="devices per process")
    p.add_argument("--timeout", type=int, default=900)
    p.add_argument("--python", default=sys.executable)
    p.add_argument("--compare", nargs=2, metavar=("CPU_DIR", "XLAC_DIR"))
    args = p.parse_args()
    if args.compare:
        compare(*args.compare)
        return
    if shutil.which("mpirun") is None:
        sys.exit("error: mpirun not found (apt-get install openmpi-bin)")
    for f in args.files:
        path = pathlib.Path(args.tests) / "multiprocess" / f
        # Absolute: the ranks run in the test's folder and write their reports under it.
        s = run_file(args, path.resolve(), pathlib.Path(args.out).resolve() / path.stem)
        counts = {o: sum(1 for v in s["tests"].values() if v == o) for o in ("pass", "fail", "skip")}
        print(f"{f}: exit {s['exit']}, ranks reported {s['ranks_reported']}, {counts}", flush=True)


if __name__ == "__main__":
    main()
