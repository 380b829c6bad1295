package export

import (
	"fmt"
	"strconv"
	"strings"
)

// writeTypeScript writes d as a TypeScript module without dependencies:
// the fixed runtime (tsRuntime: Copy, Policy, hedged, failureKind,
// HedgeFailed, HedgeDeadline), which needs only AbortController and
// timers (Node 18 and later, Deno, Bun, browsers), and a POLICIES record
// with one Policy per class, keyed by class name. Delays and timeouts are
// in milliseconds.
func writeTypeScript(d *Document, opt Options) ([]byte, []Note, error) {
	var all []Note
	var body strings.Builder
	body.WriteString("export const POLICIES: Readonly<Record<string, Policy>> = {\n")
	for i := range d.Classes {
		c := &d.Classes[i]
		n := &notes{class: c.Class}
		if err := codeNotes(n, c, "typescript", "hedged()", opt); err != nil {
			return nil, nil, err
		}
		if c.Winner == "first_token" {
			ttft := ""
			if c.Deadline > 0 {
				ttft = fmt.Sprintf(", so that the deadline (%s) is on time to first token", fdur(c.Deadline.D()))
			}
			n.add("first_token: call must resolve once the first token has arrived (the stream's first chunk read)%s", ttft)
		}
		all = append(all, n.list...)
		key := tsString(c.Class)
		if c.Class == "__proto__" {
			key = "[" + key + "]" // a computed key makes an own property, not the prototype
		}
		fmt.Fprintf(&body, "  // Class %s: %s.\n", commentText(tsString(c.Class)), commentText(codeDescribe(c)))
		fmt.Fprintf(&body, "  %s: {\n    name: %s,\n    primary: %s,\n    copies: [", key, tsString(c.Class), tsString(c.Primary))
		for j, cp := range c.Copies {
			if j > 0 {
				body.WriteString(", ")
			}
			fmt.Fprintf(&body, "{ target: %s, delayMs: %s", tsString(cp.Target), tsMillis(cp.Delay))
			if cp.Fallback {
				body.WriteString(", fallback: true")
			}
			body.WriteString(" }")
		}
		body.WriteString("],\n")
		fmt.Fprintf(&body, "    winner: %s,\n", tsString(c.Winner))
		for _, r := range codeRules(c) {
			fmt.Fprintf(&body, "    on%s: %s,\n", camel(r[0]), tsString(r[1]))
		}
		fmt.Fprintf(&body, "    attemptTimeoutMs: %s,\n    deadlineMs: %s,\n    onTimeout: %s,\n  },\n",
			tsMillis(c.AttemptTimeout), tsMillis(c.Deadline), tsString(c.OnTimeout))
	}
	body.WriteString("};\n")

	var out strings.Builder
	out.WriteString("// Hedge policies for TypeScript, written by hedgesim export --format typescript.\n")
	out.WriteString("// No dependencies: AbortController and timers (Node 18 or later, Deno, Bun, browsers).\n")
	class, models := usageNames(d)
	// In the doc's block comment, "*/" would end it: "*\/" is the same
	// string literal.
	quote := func(s string) string { return strings.ReplaceAll(tsString(s), "*/", `*\/`) }
	out.WriteString(strings.NewReplacer(
		"{{MODELS}}", usageModels(models, quote),
		"{{CLASS}}", quote(class),
	).Replace(tsDoc))
	out.WriteString(tsRuntime)
	fmt.Fprintf(&out, "\n// The scenario the policies come from, and which: %s.\nexport const SCENARIO = %s;\nexport const SOURCE = %s;\n\n", sourceText(d.Source), tsString(d.Scenario), tsString(d.Source))
	if len(all) > 0 {
		var sb strings.Builder
		codeComments(&sb, "// ", all)
		out.WriteString(sb.String())
	}
	out.WriteString(body.String())
	return []byte(out.String()), all, nil
}

// tsMillis writes a duration in milliseconds as a number literal.
func tsMillis(s Seconds) string {
	return strconv.FormatFloat(float64(s.D())/1e6, 'g', -1, 64)
}

// camel turns a snake_case rule kind into its TypeScript field suffix:
// "rate_limited" → "RateLimited".
func camel(s string) string {
	var b strings.Builder
	for _, p := range strings.Split(s, "_") {
		if p != "" {
			b.WriteString(strings.ToUpper(p[:1]) + p[1:])
		}
	}
	return b.String()
}

const tsDoc = `
/**
 * Hedged calls: copies of a call at fixed delays, the first usable answer wins.
 *
 * hedged(call, POLICIES[name]) calls call(target, signal) for the class's primary
 * model at once, and for each copy its delay after the previous send while nothing
 * has ended the call. The first usable answer wins (isValid decides, for winner
 * "first_valid"; "first_token": call resolves once the first token is in;
 * "first_response": any answer or failure), and every other attempt is aborted
 * through its AbortSignal. A failed attempt follows the class's rule for its kind
 * (failureKind maps an error to one: error, rate_limited, client_error,
 * upstream_timeout; an answer isValid rejects is invalid; an attempt past
 * attemptTimeoutMs is attempt_timeout): "fatal" rejects with HedgeFailed,
 * "nonfatal" sends the next copy at once, "ignore" keeps waiting for the others.
 * With nothing in flight and no copy left to send on a timer the call rejects
 * with HedgeFailed for the last failure. At deadlineMs the call fails open
 * (resolves to options.fallback) or closed (rejects with HedgeDeadline). Every
 * timer is cleared when the call ends.
 *
 * Usage with the OpenAI Node client (openai 4.x or later; its errors carry status):
 *
 *   import OpenAI from "openai";
 *   import { POLICIES, hedged } from "./hedging";
 *
 *   const client = new OpenAI({ maxRetries: 0 }); // each retry would be another call
 *   // scenario model -> the provider's model id: edit
 *   const MODELS: Record<string, string> = { {{MODELS}} };
 *
 *   export function check(messages: OpenAI.Chat.ChatCompletionMessageParam[]) {
 *     return hedged(
 *       async (target, signal) => {
 *         const r = await client.chat.completions.create(
 *           { model: MODELS[target], messages, max_tokens: 5 }, { signal });
 *         return r.choices[0]?.message.content ?? "";
 *       },
 *       POLICIES[{{CLASS}}],
 *       { isValid: (text) => text !== "" },
 *     ); // undefined: the deadline passed and the class fails open
 *   }
 *
 * A stream (winner "first_token") resolves once its first chunk is read; the
 * winner's stream reads on, the losers are aborted:
 *
 *   async (target, signal) => {
 *     const stream = await client.chat.completions.create(
 *       { model: MODELS[target], messages, stream: true }, { signal });
 *     const it = stream[Symbol.asyncIterator]();
 *     const first = await it.next();
 *     return { first, it };
 *   }
 *
 * A copy to another provider needs its own client: choose it in call by target.
 */
`

// tsRuntime is the fixed part of the typescript format's module.
const tsRuntime = `
export type Rule = "fatal" | "nonfatal" | "ignore";
export type Winner = "first_valid" | "first_token" | "first_response";
export type FailureKind =
  | "error"
  | "rate_limited"
  | "client_error"
  | "upstream_timeout"
  | "invalid"
  | "attempt_timeout";

/**
 * A copy beyond the primary: its target model and its delay in milliseconds
 * after the previous send (0: with it). A fallback copy is sent only when an
 * attempt fails under a "nonfatal" rule, never on a timer.
 */
export interface Copy {
  readonly target: string;
  readonly delayMs: number;
  readonly fallback?: boolean;
}

/** A traffic class's hedge policy; a timeout of 0 is none. */
export interface Policy {
  readonly name: string;
  readonly primary: string;
  readonly copies: readonly Copy[];
  readonly winner: Winner;
  readonly onError: Rule;
  readonly onRateLimited: Rule;
  readonly onClientError: Rule;
  readonly onUpstreamTimeout: Rule;
  readonly onInvalid: Rule;
  readonly onAttemptTimeout: Rule;
  readonly attemptTimeoutMs: number;
  readonly deadlineMs: number;
  readonly onTimeout: "fail_open" | "fail_closed";
}

/** The rule of policy for a failed attempt of kind. */
export function ruleOf(policy: Policy, kind: FailureKind): Rule {
  switch (kind) {
    case "error":
      return policy.onError;
    case "rate_limited":
      return policy.onRateLimited;
    case "client_error":
      return policy.onClientError;
    case "upstream_timeout":
      return policy.onUpstreamTimeout;
    case "invalid":
      return policy.onInvalid;
    case "attempt_timeout":
      return policy.onAttemptTimeout;
  }
}

/**
 * The call ended without a usable answer: a fatal failure, or every attempt
 * failed. kind is the last failure's kind, failure its error (undefined for an
 * invalid answer or an attempt timeout) and answer the invalid answer, if any.
 */
export class HedgeFailed extends Error {
  constructor(
    readonly kind: FailureKind,
    readonly failure?: unknown,
    readonly answer?: unknown,
  ) {
    super("hedged call failed: " + kind + (failure === undefined ? "" : ": " + String(failure)));
    this.name = "HedgeFailed";
  }
}

/** The deadline passed with no usable answer, for a class that fails closed. */
export class HedgeDeadline extends Error {
  constructor(readonly deadlineMs: number) {
    super("hedged call: deadline of " + deadlineMs + " ms passed");
    this.name = "HedgeDeadline";
  }
}

/**
 * The kind of a failed attempt from its error's HTTP status (err.status,
 * err.statusCode or err.response.status): 429 rate_limited, 408 and 504
 * upstream_timeout, another 4xx client_error; anything else is error.
 */
export function failureKind(err: unknown): FailureKind {
  const e = (typeof err === "object" && err !== null ? err : {}) as {
    status?: unknown;
    statusCode?: unknown;
    response?: { status?: unknown };
  };
  const status = e.status ?? e.statusCode ?? e.response?.status;
  if (typeof status !== "number") return "error";
  if (status === 429) return "rate_limited";
  if (status === 408 || status === 504) return "upstream_timeout";
  if (status >= 400 && status < 500) return "client_error";
  return "error";
}

export interface HedgeOptions<T, D> {
  /** Whether an answer is usable (winner "first_valid"); default: every answer. */
  isValid?: (answer: T) => boolean;
  /** The kind of a failed attempt's error; default failureKind. */
  classify?: (err: unknown) => FailureKind;
  /** What the call resolves to when the deadline passes and the class fails open. */
  fallback?: D;
  /** The caller's signal: aborting it aborts every attempt and rejects. */
  signal?: AbortSignal;
}

type Timer = ReturnType<typeof setTimeout>;

/**
 * Runs call(target, signal) under policy (see the module's doc) and resolves
 * to the winning answer, or to options.fallback when the deadline passes and
 * the class fails open. Rejects with HedgeFailed (a fatal failure, or nothing
 * left to try), HedgeDeadline (the deadline, failing closed) or the reason of
 * options.signal.
 */
export async function hedged<T, D = undefined>(
  call: (target: string, signal: AbortSignal) => Promise<T>,
  policy: Policy,
  options: HedgeOptions<T, D> = {},
): Promise<T | D> {
  const { isValid, classify = failureKind, signal } = options;
  const controllers: AbortController[] = []; // one per attempt, in send order
  const timers = new Set<Timer>();
  let winner = -1;
  let onAbort: (() => void) | undefined;
  try {
    return await new Promise<T | D>((resolve, reject) => {
      const copies = policy.copies;
      let sent = 0; // attempts sent
      let inFlight = 0;
      let ended = false;
      let next: Timer | undefined; // the timer of the next timed copy
      let last = new HedgeFailed("error");
      const later = (ms: number, f: () => void): Timer => {
        const t = setTimeout(() => {
          timers.delete(t);
          f();
        }, ms);
        timers.add(t);
        return t;
      };
      const clear = (t: Timer | undefined) => {
        if (t !== undefined) {
          clearTimeout(t);
          timers.delete(t);
        }
      };
      const end = (settle: () => void) => {
        if (!ended) {
          ended = true;
          settle();
        }
      };
      // With nothing in flight and no copy left to send on a timer, the
      // call ends with the last failure.
      const settle = () => {
        if (inFlight === 0 && (sent > copies.length || next === undefined)) end(() => reject(last));
      };
      const fail = (kind: FailureKind, failure?: unknown, answer?: unknown) => {
        last = new HedgeFailed(kind, failure, answer);
        const rule = ruleOf(policy, kind);
        if (rule === "fatal" || policy.winner === "first_response") {
          end(() => reject(last));
          return;
        }
        if (rule === "nonfatal" && sent <= copies.length) send();
        settle();
      };
      // Sends the next attempt and arms the timer of the one after it (or
      // sends that too when its delay is 0).
      const send = (): void => {
        clear(next);
        next = undefined;
        for (;;) {
          const k = sent++;
          const controller = new AbortController();
          controllers.push(controller);
          inFlight++;
          let live = true;
          const stop = () => {
            live = false;
            inFlight--;
          };
          const timeout =
            policy.attemptTimeoutMs > 0
              ? later(policy.attemptTimeoutMs, () => {
                  if (ended || !live) return;
                  stop();
                  controller.abort();
                  fail("attempt_timeout");
                })
              : undefined;
          let answer: Promise<T>;
          try {
            answer = Promise.resolve(call(k === 0 ? policy.primary : copies[k - 1].target, controller.signal));
          } catch (err) {
            answer = Promise.reject(err);
          }
          answer.then(
            (a) => {
              if (ended || !live) return;
              stop();
              clear(timeout);
              let usable: boolean;
              try {
                usable = policy.winner === "first_response" || isValid === undefined || isValid(a);
              } catch (err) {
                end(() => reject(err));
                return;
              }
              if (usable) {
                winner = k;
                end(() => resolve(a));
              } else {
                fail("invalid", undefined, a);
              }
            },
            (err: unknown) => {
              if (ended || !live) return;
              stop();
              clear(timeout);
              let kind: FailureKind;
              try {
                kind = classify(err);
              } catch (e) {
                end(() => reject(e));
                return;
              }
              fail(kind, err);
            },
          );
          if (k >= copies.length || copies[k].fallback) return;
          if (copies[k].delayMs > 0) {
            next = later(copies[k].delayMs, () => {
              next = undefined;
              if (!ended) send();
            });
            return;
          }
        }
      };
      if (signal?.aborted) {
        end(() => reject(signal.reason));
        return;
      }
      if (signal) {
        onAbort = () => end(() => reject(signal.reason));
        signal.addEventListener("abort", onAbort);
      }
      if (policy.deadlineMs > 0) {
        later(policy.deadlineMs, () =>
          end(() =>
            policy.onTimeout === "fail_open" ? resolve(options.fallback as D) : reject(new HedgeDeadline(policy.deadlineMs)),
          ),
        );
      }
      send();
    });
  } finally {
    timers.forEach((t) => clearTimeout(t)); // not for…of: compiles for an ES5 target too
    timers.clear();
    controllers.forEach((c, k) => {
      if (k !== winner) c.abort();
    });
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  }
}
`
