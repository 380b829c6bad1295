#!/usr/bin/env python3
"""guard-check (scenarios/guard-check.toml) as a SimPy 4 model, the peer of bench/vs_simpy.py.

What it models
  A safety classifier behind a serverless API, checked once per chat turn:
  - turns arrive as a Poisson process, 20 a second;
  - a call's latency is bimodal: with probability 1/2 uniform on 0.1-0.3 s (fast
    path), otherwise uniform on 3-19 s (slow path);
  - hedging: while nothing has answered, a copy of the same call is sent every
    1 s, at most 3 calls in flight (at 0, 1 and 2 s);
  - the check has a 3 s deadline; the first answer ends it, and calls still in
    flight are cancelled;
  - on timeout the turn goes through without a verdict (fail open): the check
    counts as unanswered;
  - an error ends the check at once (errors are fatal, not hedged). The scenario's
    error rate is 0, so that path is modelled but never taken.

How it is written (idiomatic SimPy 4)
  Each call is a process that sleeps its latency with a Timeout, or raises
  CallError if it fails; each check is a process that waits with AnyOf on its
  deadline, its calls so far and, while copies remain, the next copy gap; when it
  ends it cancels the calls still alive with Process.interrupt(), which each call
  catches as simpy.Interrupt.

How its answer is checked
  Exact values: the check goes unanswered only when every call sent is slow
  (slow calls take at least 3 s, fast ones answer within 0.3 s of their start),
  so the answered share is 1 - 0.5**3 = 0.875. Calls per check are 1, 2 or 3 with
  probabilities 1/2, 1/4, 1/4: mean 1.75, variance 0.6875. Both figures must lie
  within five standard errors of N checks (sqrt(0.875 * 0.125 / N) and
  sqrt(0.6875 / N)); the script prints PASS or FAIL and exits 1 on FAIL.

Usage: python3 bench/simpy_guard_check.py [N] [SEED]    (defaults: 100000 checks, seed 1)
  SimPy is imported from wherever Python finds it; SIMPY_PATH names a directory
  holding the simpy package to put first on the path. Without SimPy the script
  prints one SKIP line and exits 0.
Output: one line of key=value fields: simpy (version), requests, seed, wall (seconds
  around env.run(), start-up excluded), requests_per_s, answered, calls_per_request,
  then PASS or FAIL.
"""
import math
import os
import random
import sys
import time

INSTALL = "pip install simpy==4.*"

# scenarios/guard-check.toml
RATE = 20.0                  # [arrivals] rate, checks per second
FAST, SLOW = (0.1, 0.3), (3.0, 19.0)   # latency mixture components, seconds, weights 0.5 each
COPY_GAP = 1.0               # [classes.hedge] delay, seconds
MAX_IN_FLIGHT = 3            # 1 + max_copies
DEADLINE = 3.0               # [[classes]] deadline, seconds
ERROR_RATE = 0.0             # [models.llama-guard] error_rate; on_error = "fatal"

# Expected values and their per-check variances (see the docstring).
ANSWERED, ANSWERED_VAR = 0.875, 0.875 * 0.125
CALLS, CALLS_VAR = 1.75, 0.6875


def load_simpy():
    """Return the simpy module (SIMPY_PATH first on the path), or None if there is none
    with the SimPy 3/4 API (SimPy 2 has no Environment)."""
    path = os.environ.get("SIMPY_PATH")
    if path:
        sys.path.insert(0, os.path.abspath(path))
    try:
        import simpy
    except ImportError:
        return None
    return simpy if hasattr(simpy, "Environment") and hasattr(simpy, "AnyOf") else None


def simpy_version(simpy):
    """The installed distribution's version, or a description of an unpackaged source tree."""
    v = getattr(simpy, "__version__", None)
    if v:
        return v
    return "4.x-source(" + os.path.dirname(os.path.dirname(os.path.abspath(simpy.__file__))) + ")"


def within(got, want, var, n):
    """True if got is within five standard errors (sqrt(var / n)) of want."""
    return abs(got - want) <= 5 * math.sqrt(var / n)


def check(answered, calls, n):
    """True if an answered share and calls per check match the exact values for n checks."""
    return within(answered, ANSWERED, ANSWERED_VAR, n) and \
        within(calls, CALLS, CALLS_VAR, n)


class CallError(Exception):
    """A call failed (quota, outage): fatal to its check."""


class Tally:
    __slots__ = ("answered", "calls", "errors")

    def __init__(self):
        self.answered = self.calls = self.errors = 0


def model(simpy, n, seed):
    """Build the guard-check model for n checks; returns (env, tally)."""
    env = simpy.Environment()
    rnd = random.Random(seed)
    tally = Tally()

    def latency():
        lo, hi = FAST if rnd.random() < 0.5 else SLOW
        return rnd.uniform(lo, hi)

    def call():
        """One call: answers after its latency, fails with CallError, or is cancelled."""
        try:
            yield env.timeout(latency())
        except simpy.Interrupt:
            return  # cancelled: the check has ended
        if ERROR_RATE and rnd.random() < ERROR_RATE:
            raise CallError()

    def check_turn():
        """One check: a call now, a copy every COPY_GAP while silent, until an answer,
        an error or the deadline."""
        deadline = env.timeout(DEADLINE)
        in_flight = []
        try:
            while True:
                in_flight.append(env.process(call()))
                tally.calls += 1
                wait = [deadline, *in_flight]
                if len(in_flight) < MAX_IN_FLIGHT:
                    wait.append(env.timeout(COPY_GAP))
                fired = yield simpy.AnyOf(env, wait)
                if deadline in fired:
                    break  # fail open: the turn goes through unchecked
                if any(p in fired for p in in_flight):
                    tally.answered += 1
                    break
                # the copy gap passed in silence: send another copy
        except CallError:
            tally.errors += 1  # fatal: the check ends at once, the turn goes through
        for p in in_flight:
            if p.is_alive:
                p.interrupt("check ended")

    def arrivals():
        for _ in range(n):
            yield env.timeout(rnd.expovariate(RATE))
            env.process(check_turn())

    env.process(arrivals())
    return env, tally


def main():
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0
    try:
        n = int(float(sys.argv[1])) if len(sys.argv) > 1 else 100_000
        seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
        if n < 1:
            raise ValueError(n)
    except ValueError:
        print(f"usage: {sys.argv[0]} [N] [SEED]: N a positive number of checks, SEED an integer",
              file=sys.stderr)
        return 2
    simpy = load_simpy()
    if simpy is None:
        print(f"SKIP: SimPy 4 not found ({INSTALL}, or set SIMPY_PATH to a directory holding simpy/)")
        return 0
    env, tally = model(simpy, n, seed)
    t0 = time.perf_counter()
    env.run()
    wall = time.perf_counter() - t0
    answered, calls = tally.answered / n, tally.calls / n
    ok = check(answered, calls, n)
    print(f"simpy={simpy_version(simpy)} requests={n} seed={seed} wall={wall:.3f}"
          f" requests_per_s={n / wall:.0f} answered={answered:.4f} calls_per_request={calls:.4f}"
          f" {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
