#!/usr/bin/env python3
"""hedgesim against SimPy 4 on field report 1 (scenarios/guard-check.toml).

Usage: python3 bench/vs_simpy.py [N] [REPEATS]     (defaults: 200000 requests, 3)

SimPy is a dependency, not part of this repository: it is imported from wherever
Python finds it (`pip install simpy==4.*`), or from the directory named by
$SIMPY_PATH, put first on the path. Without SimPy 4 the script prints one SKIP
line and exits 0.

Builds cmd/hedgesim (or uses the binary named by $HEDGESIM), then times, on the same
machine in one run:
  - hedgesim's start-up: `hedgesim run --json --requests 100 guard-check`, the whole
    process (exec, the runtime, reading the scenario, the report) with next to no
    simulation, best wall time of REPEATS runs, and of at least 5;
  - `hedgesim run --json --requests N guard-check`: the whole process (start-up,
    the hedged run, its no-hedging baseline, the report), best wall time of
    REPEATS runs. At small N start-up is much of this;
  - the same at a size M >= N large enough that start-up is under 5 % of the best
    wall time (M = N when it already is; otherwise sizes are tried, each at least
    twice the last and estimated from its time per request, until the share is
    under 5 %, up to 10^7 requests; the script says if that bound stops it);
  - bench/simpy_guard_check.py N: the same model written in SimPy 4 (see its
    docstring), wall time around env.run() as the script prints it (Python's
    start-up and the import excluded: 0 % of its figure), best of REPEATS runs.
All runs must answer 0.875 of requests at 1.75 calls per request, within five
standard errors of their number of requests; the script prints the results, the
SimPy version and three speed ratios by wall time (requests per second, SimPy's
against hedgesim's): hedgesim's whole process at N, its whole process at M, and at M
with the measured start-up subtracted. It exits 1 if a model is off. It also prints
each side's least CPU time (user + system) per request for its whole process, which
a machine busy with other jobs distorts less than wall time; hedgesim's is summed
over the cores it uses.
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


STARTUP_N = 100        # requests of the start-up run: next to no simulation
MAX_SHARE = 0.05       # start-up's largest share of the large run's wall time
MAX_N = 10_000_000     # the largest run tried (about 100 MB of latencies)
STARTUP_REPEATS = 5    # start-up runs at least: each takes milliseconds


def run_hedgesim(exe, n, repeats):
    """Best wall time and least CPU time (user + system) of REPEATS whole
    `hedgesim run --json --requests n guard-check` processes, and the report."""
    best, cpu, rep = math.inf, math.inf, None
    for _ in range(repeats):
        c0, t0 = child_cpu(), time.perf_counter()
        out = subprocess.run([exe, "run", "--json", "--requests", str(n), "guard-check"],
                             check=True, capture_output=True, text=True).stdout
        best = min(best, time.perf_counter() - t0)
        cpu = min(cpu, child_cpu() - c0)
        rep = json.loads(out)
    return best, cpu, rep


def next_size(m, wall, startup):
    """The next size to try after a run of m requests that took wall, whose
    start-up share was too large: where that run's time per request says start-up
    falls under MAX_SHARE, with a margin, when the simulation was at least half of
    the run; else 8 m. At least 2 m, rounded up to two significant digits, at most
    MAX_N."""
    net = wall - startup
    want = 8 * m
    if net >= wall / 2:
        want = startup * (1 - MAX_SHARE) / MAX_SHARE / (net / m) * 1.25
    k = max(2 * m, int(want))
    digits = 10 ** max(len(str(k)) - 2, 0)
    return min(-(-k // digits) * digits, MAX_N)


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
        start, _, _ = run_hedgesim(exe, STARTUP_N, max(repeats, STARTUP_REPEATS))
        best_h, cpu_h, rep = run_hedgesim(exe, n, repeats)
        m, best_m, cpu_m, rep_m = n, best_h, cpu_h, rep
        while start / best_m >= MAX_SHARE and m < MAX_N:
            m = next_size(m, best_m, start)
            best_m, cpu_m, rep_m = run_hedgesim(exe, m, repeats)
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
    ok = True
    for name, r, k in (("hedgesim", rep, n), ("hedgesim", rep_m, m)):
        ov = r["overall"]
        ok = report(name, ov["answered_share"], ov["attempts_per_request"], k) and ok
    ok = report("simpy", float(got["answered"]), float(got["calls_per_request"]), n) and ok
    rate_s = n / best_s
    net = best_m - start
    print(f"start-up  hedgesim {start:.3f} s: the whole process at {STARTUP_N} requests,"
          f" best of {max(repeats, STARTUP_REPEATS)}")
    print(f"hedgesim  {best_h:.3f} s for {n} requests, whole process, hedged run and baseline"
          f" ({n / best_h:,.0f} requests/s; start-up {100 * start / best_h:.0f} % of it)")
    share = f"start-up {100 * start / best_m:.1f} % of it"
    if start / best_m >= MAX_SHARE:
        share += f", still not under {100 * MAX_SHARE:.0f} % at the largest size tried"
    print(f"hedgesim  {best_m:.3f} s for {m} requests, whole process ({m / best_m:,.0f} requests/s;"
          f" {share}); {net:.3f} s without start-up ({m / net:,.0f} requests/s)")
    print(f"simpy     {best_s:.3f} s for {n} requests, env.run() only ({rate_s:,.0f} requests/s;"
          f" start-up excluded), SimPy {got['simpy']}, Python {sys.version.split()[0]}")
    print(f"ratio     {n / best_h / rate_s:.0f}x with hedgesim's whole process at {n} requests;"
          f" {m / best_m / rate_s:.0f}x at {m}; {m / net / rate_s:.0f}x at {m} without start-up"
          f" (requests/s by wall, best of {repeats} each)")
    print(f"cpu       hedgesim {1e9 * cpu_m / m:.0f} ns a request at {m} ({cpu_m:.3f} s),"
          f" simpy {1e9 * cpu_s / n:,.0f} ns at {n} ({cpu_s:.3f} s) (whole processes, user + system,"
          f" least of {repeats}): {cpu_s / n / (cpu_m / m):.0f}x")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
