package export

import (
	"fmt"
	"strings"
)

// PythonMinVersion is the oldest Python the python format's module runs
// on (asyncio.get_running_loop, dataclasses).
const PythonMinVersion = "3.8"

// writePython writes d as a Python module for asyncio, standard library
// only: the fixed runtime (pythonRuntime: Copy, Policy, hedged,
// failure_kind, HedgeFailed, HedgeDeadline) and a POLICIES dict with one
// Policy per class, keyed by class name. Delays and timeouts are in
// seconds.
func writePython(d *Document, opt Options) ([]byte, []Note, error) {
	var all []Note
	var body strings.Builder
	body.WriteString("POLICIES: Dict[str, Policy] = {\n")
	for i := range d.Classes {
		c := &d.Classes[i]
		n := &notes{class: c.Class}
		if err := codeNotes(n, c, "python", "hedged()", opt); err != nil {
			return nil, nil, err
		}
		if c.Winner == "first_token" {
			ttft := ""
			if c.Deadline > 0 {
				ttft = fmt.Sprintf(", so that the deadline (%s) is on time to first token", fdur(c.Deadline.D()))
			}
			n.add("first_token: call must return once the first token has arrived (the stream's first chunk read)%s", ttft)
		}
		all = append(all, n.list...)
		fmt.Fprintf(&body, "    # Class %s: %s.\n", commentText(pyString(c.Class)), commentText(codeDescribe(c)))
		fmt.Fprintf(&body, "    %s: Policy(\n", pyString(c.Class))
		fmt.Fprintf(&body, "        name=%s,\n        primary=%s,\n        copies=(", pyString(c.Class), pyString(c.Primary))
		for j, cp := range c.Copies {
			if j > 0 {
				body.WriteString(", ")
			}
			fmt.Fprintf(&body, "Copy(%s, %s", pyString(cp.Target), codeSeconds(cp.Delay))
			if cp.Fallback {
				body.WriteString(", fallback=True")
			}
			body.WriteString(")")
		}
		if len(c.Copies) == 1 {
			body.WriteString(",") // a one-element tuple
		}
		body.WriteString("),\n")
		fmt.Fprintf(&body, "        winner=%s,\n", pyString(c.Winner))
		for _, r := range codeRules(c) {
			fmt.Fprintf(&body, "        on_%s=%s,\n", r[0], pyString(r[1]))
		}
		fmt.Fprintf(&body, "        attempt_timeout_s=%s,\n        deadline_s=%s,\n        on_timeout=%s,\n    ),\n",
			codeSeconds(c.AttemptTimeout), codeSeconds(c.Deadline), pyString(c.OnTimeout))
	}
	body.WriteString("}\n")

	var out strings.Builder
	out.WriteString("# Hedge policies for Python asyncio, written by hedgesim export --format python.\n")
	fmt.Fprintf(&out, "# Standard library only; Python %s or later.\n", PythonMinVersion)
	class, models := usageNames(d)
	out.WriteString(strings.NewReplacer(
		"{{MODELS}}", usageModels(models, pyString),
		"{{CLASS}}", pyString(class),
	).Replace(pythonDoc))
	out.WriteString(pythonRuntime)
	fmt.Fprintf(&out, "\n# The scenario the policies come from, and which: %s.\nSCENARIO = %s\nSOURCE = %s\n\n", sourceText(d.Source), pyString(d.Scenario), pyString(d.Source))
	if len(all) > 0 {
		var sb strings.Builder
		codeComments(&sb, "# ", all)
		out.WriteString(sb.String())
	}
	out.WriteString(body.String())
	return []byte(out.String()), all, nil
}

// codeDescribe says in words what class c sends: describeCopies for a
// hedging class with timed copies.
func codeDescribe(c *Class) string {
	s := "hedging off"
	switch {
	case c.Hedge && c.fallbacks() == len(c.Copies):
		s = fmt.Sprintf("up to %d cop%s to %s, each only after a non-fatal failure", len(c.Copies), map[bool]string{true: "y", false: "ies"}[len(c.Copies) == 1], targetsOf(c))
	case c.Hedge && c.fallbacks() > 0:
		s = fmt.Sprintf("%d copies to %s, timed and after failures", len(c.Copies), targetsOf(c))
	case c.Hedge:
		ds := c.delays()
		s = fmt.Sprintf("up to %d cop%s to %s, %s after each previous send", len(c.Copies), map[bool]string{true: "y", false: "ies"}[len(c.Copies) == 1], targetsOf(c), fdurs(ds))
	}
	if c.Deadline > 0 {
		s += fmt.Sprintf("; deadline %s, %s", fdur(c.Deadline.D()), strings.ReplaceAll(c.OnTimeout, "_", " "))
	}
	return s
}

const pythonDoc = `"""Hedged calls: copies of a call at fixed delays, the first usable answer wins.

hedged(call, POLICIES[name]) awaits call(target) for the class's primary model at
once, and for each copy its delay after the previous send while nothing has ended
the call. The first usable answer wins (is_valid decides, for winner
"first_valid"; "first_token": call returns once the first token is in;
"first_response": any answer or failure), and every other attempt is cancelled
(its task is cancelled and awaited). A failed attempt follows the class's rule
for its kind (failure_kind maps an exception to one: error, rate_limited,
client_error, upstream_timeout; an answer is_valid rejects is invalid; an attempt
past attempt_timeout_s is attempt_timeout): "fatal" ends the call with
HedgeFailed, "nonfatal" sends the next copy at once, "ignore" keeps waiting for
the others. With nothing in flight and no copy left to send on a timer the call
ends with HedgeFailed for the last failure. At deadline_s the call fails open
(returns default) or closed (raises HedgeDeadline).

Usage with the OpenAI Python client (openai 1.x; its errors carry status_code):

    import openai
    from hedging import POLICIES, hedged

    client = openai.AsyncOpenAI(max_retries=0)  # each retry would be another call
    MODELS = {{{MODELS}}}  # scenario model -> the provider's model id: edit

    async def check(messages):
        async def call(target):
            resp = await client.chat.completions.create(
                model=MODELS[target], messages=messages, max_tokens=5)
            return resp.choices[0].message.content
        verdict = await hedged(call, POLICIES[{{CLASS}}], is_valid=lambda text: bool(text))
        return verdict  # None: the deadline passed and the class fails open

A stream (winner "first_token") returns once its first chunk is read:

        async def call(target):
            stream = await client.chat.completions.create(
                model=MODELS[target], messages=messages, stream=True)
            first = await stream.__anext__()
            return first, stream  # the winner's stream reads on; losers are cancelled

A copy to another provider needs its own client: choose it in call by target.
"""

`

// pythonRuntime is the fixed part of the python format's module.
const pythonRuntime = `import asyncio
import dataclasses
from typing import Any, Awaitable, Callable, Dict, Optional, Tuple, TypeVar

__all__ = ["Copy", "Policy", "POLICIES", "HedgeFailed", "HedgeDeadline", "failure_kind", "hedged"]

T = TypeVar("T")

FAILURE_KINDS = ("error", "rate_limited", "client_error", "upstream_timeout", "invalid", "attempt_timeout")


@dataclasses.dataclass(frozen=True)
class Copy:
    """A copy beyond the primary: its target model and its delay in seconds after
    the previous send (0: with it). A fallback copy is sent only when an attempt
    fails under a "nonfatal" rule, never on a timer."""

    target: str
    delay_s: float
    fallback: bool = False


@dataclasses.dataclass(frozen=True)
class Policy:
    """A traffic class's hedge policy. Rules are "fatal", "nonfatal" or "ignore";
    winner is "first_valid", "first_token" or "first_response"; on_timeout is
    "fail_open" or "fail_closed"; 0 seconds is no timeout."""

    name: str
    primary: str
    copies: Tuple[Copy, ...]
    winner: str
    on_error: str
    on_rate_limited: str
    on_client_error: str
    on_upstream_timeout: str
    on_invalid: str
    on_attempt_timeout: str
    attempt_timeout_s: float
    deadline_s: float
    on_timeout: str

    def rule(self, kind: str) -> str:
        """The rule for a failed attempt of kind (one of FAILURE_KINDS)."""
        return getattr(self, "on_" + kind)


class HedgeFailed(Exception):
    """The call ended without a usable answer: a fatal failure, or every attempt
    failed. kind is the last failure's kind, cause its exception (None for an
    invalid answer or an attempt timeout) and answer the invalid answer, if any."""

    def __init__(self, kind: str, cause: Optional[BaseException] = None, answer: Any = None):
        super().__init__("hedged call failed: " + kind + ("" if cause is None else ": " + repr(cause)))
        self.kind, self.cause, self.answer = kind, cause, answer


class HedgeDeadline(asyncio.TimeoutError):
    """The deadline passed with no usable answer, for a class that fails closed."""


def failure_kind(exc: BaseException) -> str:
    """The kind of a failed attempt from its exception's HTTP status (exc.status_code,
    exc.response.status_code or exc.status): 429 rate_limited, 408 and 504
    upstream_timeout, another 4xx client_error; anything else is error."""
    status = getattr(exc, "status_code", None)
    if status is None:
        status = getattr(getattr(exc, "response", None), "status_code", None)
    if status is None:
        status = getattr(exc, "status", None)
    if not isinstance(status, int):
        return "error"
    if status == 429:
        return "rate_limited"
    if status in (408, 504):
        return "upstream_timeout"
    if 400 <= status < 500:
        return "client_error"
    return "error"


async def hedged(
    call: Callable[[str], Awaitable[T]],
    policy: Policy,
    *,
    is_valid: Optional[Callable[[T], bool]] = None,
    classify: Callable[[BaseException], str] = failure_kind,
    default: Any = None,
) -> Any:
    """Run call(target) under policy (see the module's doc) and return the winning
    answer, or default when the deadline passes and the class fails open.
    Raises HedgeFailed (a fatal failure, or nothing left to try) or HedgeDeadline
    (the deadline, failing closed). Cancelling the caller cancels every attempt."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + policy.deadline_s if policy.deadline_s > 0 else None
    copies = policy.copies
    running: Dict["asyncio.Future[T]", Optional[float]] = {}  # attempt -> when it times out
    order: Dict["asyncio.Future[T]", int] = {}  # attempt -> its index (0: the primary)
    stopped = []  # attempts cancelled at their timeout
    sent = 0  # attempts sent
    next_at: Optional[float] = None  # when the next timed copy goes out
    last: Tuple[str, Optional[BaseException], Any] = ("error", None, None)  # the last failure

    def send() -> None:
        # Sends the next attempt and arms the timer of the one after it (or
        # sends that too when its delay is 0).
        nonlocal sent, next_at
        while True:
            k = sent
            task = asyncio.ensure_future(call(policy.primary if k == 0 else copies[k - 1].target))
            running[task] = loop.time() + policy.attempt_timeout_s if policy.attempt_timeout_s > 0 else None
            order[task] = k
            sent, next_at = k + 1, None
            if k >= len(copies) or copies[k].fallback:
                return
            if copies[k].delay_s > 0:
                next_at = loop.time() + copies[k].delay_s
                return

    def fail(kind: str, cause: Optional[BaseException], answer: Any) -> None:
        nonlocal last
        last = (kind, cause, answer)
        rule = policy.rule(kind)
        if rule == "fatal" or policy.winner == "first_response":
            raise HedgeFailed(kind, cause, answer)
        if rule == "nonfatal" and sent <= len(copies):
            send()

    try:
        send()
        while True:
            if not running and (sent > len(copies) or next_at is None):
                raise HedgeFailed(*last)
            wakes = [t for t in [next_at, deadline, *running.values()] if t is not None]
            timeout = max(0.0, min(wakes) - loop.time()) if wakes else None
            if running:
                done, _ = await asyncio.wait(set(running), timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
            else:
                await asyncio.sleep(timeout or 0)
                done = set()
            for task in sorted(done, key=order.__getitem__):
                del running[task]
                if task.cancelled():
                    fail("error", asyncio.CancelledError(), None)
                elif task.exception() is not None:
                    exc = task.exception()
                    fail(classify(exc), exc, None)
                elif policy.winner == "first_response" or is_valid is None or is_valid(task.result()):
                    return task.result()
                else:
                    fail("invalid", None, task.result())
            now = loop.time()
            for task, at in sorted(running.items(), key=lambda kv: order[kv[0]]):
                if at is not None and at <= now:
                    del running[task]
                    task.cancel()
                    stopped.append(task)
                    fail("attempt_timeout", None, None)
            if deadline is not None and now >= deadline:
                if policy.on_timeout == "fail_open":
                    return default
                raise HedgeDeadline("hedged call: deadline of %gs passed" % policy.deadline_s)
            if next_at is not None and now >= next_at:
                send()
    finally:
        losers = list(running) + stopped
        for task in losers:
            task.cancel()
        if losers:
            await asyncio.gather(*losers, return_exceptions=True)

`
