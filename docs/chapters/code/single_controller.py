"""Chapter 13's lab: one controller (this script) drives `xlac serve` workers.

Starts a job of N workers (N > 1 runs them under mpirun, which needs xlac built with
`--features mpi`), connects with the shared token, compiles a program on every worker,
puts one shard per worker, executes, fetches, and prints the controller's log: the
workers only ever see requests, never this script.

    python docs/chapters/code/single_controller.py [--workers N]
"""

import argparse
import os
import secrets
import subprocess
import sys

import numpy as np

from jax_plugins.xlac.controller import Controller

PROGRAM = """HloModule axpy

ENTRY main {
  x = f32[4]{0} parameter(0)
  two = f32[] constant(2)
  b = f32[4]{0} broadcast(two), dimensions={}
  ROOT y = f32[4]{0} multiply(x, b)
}
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    token = secrets.token_hex(16)
    env = dict(os.environ, XLAC_SERVE_TOKEN=token)
    command = ["xlac", "serve", "--once", "--quiet", "--listen", "127.0.0.1:0"]
    if args.workers > 1:
        command = [
            "mpirun", "--allow-run-as-root", "--oversubscribe",
            "--mca", "btl_vader_single_copy_mechanism", "none", "-np", str(args.workers),
        ] + command
    job = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True)
    # Each worker prints one line: "xlac serve: worker R of N (pid P) listening on ADDR".
    addrs = [job.stdout.readline().split()[-1] for _ in range(args.workers)]
    c = Controller(addrs, token=token.encode())
    exe = c.compile(PROGRAM)
    x = c.put([np.arange(4, dtype=np.float32) + 10 * w for w in range(args.workers)])
    (y,) = c.execute(exe, [x])
    for w, shard in enumerate(c.fetch(y)):
        print(f"worker {w}: {shard}")
    c.close()
    job.wait(timeout=60)
    print("\n".join(c.log))
    return job.returncode


if __name__ == "__main__":
    sys.exit(main())
