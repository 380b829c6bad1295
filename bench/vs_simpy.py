#!/usr/bin/env python3
"""hedgesim against SimPy 4 on field report 1 (scenarios/guard-check.toml).

Usage: python3 bench/vs_simpy.py [N] [REPEATS]     (defaults: 200000 requests, 3)

SimPy is a dependency, not part of this repository: it is imported from wherever
Python finds it (`pip install simpy==4.*`), or from the directory named by
$SIMPY_PATH, put first on the path. Without SimPy 4 the script prints one SKIP
line and exits 0.

Builds cmd/hedgesim (or uses the binary named by $HEDGESIM), then times, on the same
machine in one run:
  - `hedgesim run --json --requests N guard-check`: the whole process (start-up,
    the hedged run, its no-hedging baseline, the report), best wall time of
    REPEATS runs;
  - bench/simpy_guard_check.py N: the same model written in SimPy 4 (see its
    docstring), wall time around env.run() as the script prints it (start-up and
    import excluded), best of REPEATS runs.
Both must answer 0.875 of requests at 1.75 calls per request, within five
standard errors of N requests; the script prints both results, the SimPy version
and the speed ratio, and exits 1 if either model is off. It also prints each
side's least CPU time (user + system) for its whole process, which a machine busy
with other jobs distorts less than wall time; hedgesim's is summed over the cores
it uses.
"""
import json
import math
import os
import re
import resource
import subprocess
import sys
import tempfile
import time

import simpy_guard_check as peer

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FIELD = re.compile(r"(\w+)=(\S+)")


def report(name, answered, calls, n):
    ok = peer.check(answered, calls, n)
    print(f"{name:9s} answered {answered:.4f} (want {peer.ANSWERED})  calls/request {calls:.4f}"
          f" (want {peer.CALLS})  {'ok' if ok else 'OFF'}")
    return ok


def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def args():
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0)
    try:
        n = int(float(sys.argv[1])) if len(sys.argv) > 1 else 200_000
        repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
        if n < 1 or repeats < 1 or len(sys.argv) > 3:
            raise ValueError
    except ValueError:
        print(f"usage: {sys.argv[0]} [N] [REPEATS]: N requests (a positive number, 1e6 allowed),"
              " REPEATS runs of each side (a positive integer)", file=sys.stderr)
        sys.exit(2)
    return n, repeats


def main():
    n, repeats = args()
    simpy = peer.load_simpy()
    if simpy is None:
        print(f"SKIP: SimPy 4 not found; install it with `{peer.INSTALL}`"
              " or set SIMPY_PATH to a directory holding simpy/")
        return 0
    env = dict(os.environ)
    if env.get("SIMPY_PATH"):
        env["SIMPY_PATH"] = os.path.abspath(env["SIMPY_PATH"])
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.environ.get("HEDGESIM") or os.path.join(tmp, "hedgesim")
        if not os.environ.get("HEDGESIM"):
            subprocess.run(["go", "build", "-o", exe, "./cmd/hedgesim"], cwd=ROOT, check=True)
        best_h, cpu_h, rep = math.inf, math.inf, None
        for _ in range(repeats):
            c0, t0 = child_cpu(), time.perf_counter()
            out = subprocess.run([exe, "run", "--json", "--requests", str(n), "guard-check"],
                                 check=True, capture_output=True, text=True).stdout
            best_h = min(best_h, time.perf_counter() - t0)
            cpu_h = min(cpu_h, child_cpu() - c0)
            rep = json.loads(out)
    best_s, cpu_s, got = math.inf, math.inf, None
    for _ in range(repeats):
        c0 = child_cpu()
        run = subprocess.run([sys.executable, os.path.join(HERE, "simpy_guard_check.py"), str(n)],
                             env=env, capture_output=True, text=True)
        cpu_s = min(cpu_s, child_cpu() - c0)
        fields = dict(FIELD.findall(run.stdout))
        if run.returncode not in (0, 1) or "wall" not in fields:
            sys.exit(f"simpy_guard_check.py failed (exit {run.returncode}): {run.stdout}{run.stderr}")
        if float(fields["wall"]) < best_s:
            best_s, got = float(fields["wall"]), fields
    ov = rep["overall"]
    ok = report("hedgesim", ov["answered_share"], ov["attempts_per_request"], n)
    ok = report("simpy", float(got["answered"]), float(got["calls_per_request"]), n) and ok
    print(f"hedgesim  {best_h:.3f} s for {n} requests, whole process, hedged run and baseline"
          f" ({n / best_h:,.0f} requests/s)")
    print(f"simpy     {best_s:.3f} s for {n} requests, env.run() only ({n / best_s:,.0f} requests/s),"
          f" SimPy {got['simpy']}, Python {sys.version.split()[0]}")
    print(f"ratio     {best_s / best_h:.0f}x  (best of {repeats} each)")
    print(f"cpu       hedgesim {cpu_h:.3f} s, simpy {cpu_s:.3f} s (whole processes, user + system,"
          f" least of {repeats}): {cpu_s / cpu_h:.0f}x")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
