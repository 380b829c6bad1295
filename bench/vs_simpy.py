#!/usr/bin/env python3
"""hedgesim against SimPy 4 on field report 1 (scenarios/guard-check.toml).

Usage: python3 bench/vs_simpy.py [N] [REPEATS]     (defaults: 200000 requests, 3)

Builds cmd/hedgesim (or uses the binary named by $HEDGESIM), then times, on the same machine in one run:
  - `hedgesim run --json --requests N guard-check`: the whole process (start-up,
    the hedged run, its no-hedging baseline, the report), best wall time of
    REPEATS runs;
  - peers/simpy_guard_check.py N: the same model in SimPy 4 (peers/simpy, MIT
    licence in peers/simpy/LICENSE.rst), wall time around env.run() as the
    script prints it (start-up and import excluded), best of REPEATS runs.
Both must answer 0.875 of requests at 1.75 calls per request, within five
standard errors of N requests; the script prints both results and the speed
ratio, and exits 1 if either model is off. It also prints each side's least
CPU time (user + system) for its whole process, which a machine busy with
other jobs distorts less than wall time; hedgesim's is summed over the cores
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

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def check(name, answered, calls, n):
    # P(answered) = 1 − 0.5³; calls per request: 1 + 0.5 + 0.25, variance 0.6875 per request.
    ok_a = abs(answered - 0.875) <= 5 * math.sqrt(0.875 * 0.125 / n)
    ok_c = abs(calls - 1.75) <= 5 * math.sqrt(0.6875 / n)
    print(f"{name:9s} answered {answered:.4f} (want 0.875)  calls/request {calls:.4f} (want 1.75)"
          f"  {'ok' if ok_a and ok_c else 'OFF'}")
    return ok_a and ok_c


def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main():
    n = int(float(sys.argv[1])) if len(sys.argv) > 1 else 200_000
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
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
    best_s, cpu_s, line = math.inf, math.inf, None
    for _ in range(repeats):
        c0 = child_cpu()
        out = subprocess.run([sys.executable, os.path.join(HERE, "peers", "simpy_guard_check.py"), str(n)],
                             check=True, capture_output=True, text=True).stdout
        cpu_s = min(cpu_s, child_cpu() - c0)
        m = re.search(r"wall=([0-9.]+)s .*answered=([0-9.]+) calls_per_req=([0-9.]+)", out)
        if not m:
            sys.exit(f"unexpected SimPy output: {out!r}")
        if float(m.group(1)) < best_s:
            best_s, line = float(m.group(1)), m
    ov = rep["overall"]
    ok = check("hedgesim", ov["answered_share"], ov["attempts_per_request"], n)
    ok = check("simpy", float(line.group(2)), float(line.group(3)), n) and ok
    print(f"hedgesim  {best_h:.3f} s for {n} requests, whole process, hedged run and baseline"
          f" ({n / best_h:,.0f} requests/s)")
    print(f"simpy     {best_s:.3f} s for {n} requests, env.run() only ({n / best_s:,.0f} requests/s)")
    print(f"ratio     {best_s / best_h:.0f}x  (best of {repeats} each)")
    print(f"cpu       hedgesim {cpu_h:.3f} s, simpy {cpu_s:.3f} s (whole processes, user + system,"
          f" least of {repeats}): {cpu_s / cpu_h:.0f}x")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
