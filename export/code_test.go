package export

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	compositev3 "github.com/envoyproxy/go-control-plane/envoy/extensions/clusters/composite/v3"
)

// The code formats' hedged(), run by python3 and by Node on scripted
// attempts: each case is a class whose attempts, in the order they are
// sent, take a scripted time (in units of codeUnit) and then answer,
// answer invalid or fail with a status. What must come out is the
// simulator's request (code.go): which attempt wins or how the call
// ends, when each attempt is sent, when the call ends, and which attempts
// are cancelled (still running when it ends).
//
// Times are checked to within codeSlack units; every scripted event is at
// least half a unit from any other, so a check cannot pass by accident
// with the wrong order. A harness whose event loop lagged more than
// codeMaxLag units while the cases ran cannot time them: the test skips,
// saying so.
const (
	codeUnit   = 100 * time.Millisecond
	codeSlack  = 0.3
	codeMaxLag = 0.2
)

// step is one scripted attempt: after units, its result: "ok", "invalid",
// or an HTTP status ("500", "429", "400", "504").
type step struct {
	After  float64 `json:"after"`
	Result string  `json:"result"`
}

// semanticsCase is a class, its script and what must come out: End is
// "answer:K", "failed:KIND", "deadline:open" or "deadline:closed"; At when
// the call ends and Starts when each attempt is sent, in units; Cancelled
// the attempts cancelled.
type semanticsCase struct {
	class     Class
	Script    []step    `json:"script"`
	End       string    `json:"end"`
	At        float64   `json:"at"`
	Starts    []float64 `json:"starts"`
	Cancelled []int     `json:"cancelled"`
}

// semanticsCases returns the cases; every duration in a class is in
// units (seconds × codeUnit), as the harnesses script them.
func semanticsCases() []semanticsCase {
	u := func(x float64) Seconds { return Seconds(time.Duration(x * float64(codeUnit))) }
	base := func(name string, copies int, delay float64) Class {
		c := Class{Class: name, Hedge: copies > 0, Primary: "m0", Copies: []Copy{}, Winner: "first_valid",
			OnError: "fatal", OnRateLimited: "fatal", OnInvalid: "nonfatal", OnAttemptTimeout: "nonfatal",
			CancelBilling: "none", OnTimeout: "fail_open", Deadline: u(20)}
		for j := 1; j <= copies; j++ {
			c.Copies = append(c.Copies, Copy{Target: fmt.Sprintf("m%d", j), Delay: u(delay)})
		}
		return c
	}
	var cs []semanticsCase
	add := func(c Class, script []step, end string, at float64, starts []float64, cancelled ...int) {
		cs = append(cs, semanticsCase{class: c, Script: script, End: end, At: at, Starts: starts, Cancelled: cancelled})
	}
	s := func(after float64, result string) step { return step{after, result} }

	// A fatal error ends the call at once and cancels the others.
	c := base("fatal error", 2, 1)
	add(c, []step{s(9, "ok"), s(0.5, "500")}, "failed:error", 1.5, []float64{0, 1}, 0)
	// A non-fatal error sends the next copy at once; the timer of the one
	// after restarts from that send (2 units later, after the answer).
	c = base("nonfatal error", 2, 2)
	c.OnError = "nonfatal"
	add(c, []step{s(0.5, "500"), s(1, "ok")}, "answer:1", 1.5, []float64{0, 0.5})
	// An ignored error keeps waiting: the copy goes out on its timer.
	c = base("ignored error", 2, 1)
	c.OnError = "ignore"
	add(c, []step{s(0.5, "500"), s(0.5, "ok")}, "answer:1", 1.5, []float64{0, 1})
	// An invalid answer (non-fatal) sends the next copy at once.
	c = base("invalid answer", 1, 3)
	add(c, []step{s(0.5, "invalid"), s(0.5, "ok")}, "answer:1", 1, []float64{0, 0.5})
	// first_response: an invalid answer wins; a failure ends the call.
	c = base("first response", 1, 1)
	c.Winner = "first_response"
	add(c, []step{s(0.5, "invalid")}, "answer:0", 0.5, []float64{0})
	c = base("first response failure", 1, 1)
	c.Winner, c.OnError = "first_response", "ignore"
	add(c, []step{s(1.5, "ok"), s(0.2, "500")}, "failed:error", 1.2, []float64{0, 1}, 0)
	// The deadline, failing open and closed, cancels what runs.
	c = base("deadline open", 1, 1)
	c.Deadline = u(2)
	add(c, []step{s(9, "ok"), s(9, "ok")}, "deadline:open", 2, []float64{0, 1}, 0, 1)
	c = base("deadline closed", 1, 1)
	c.Deadline, c.OnTimeout = u(2), "fail_closed"
	add(c, []step{s(9, "ok"), s(9, "ok")}, "deadline:closed", 2, []float64{0, 1}, 0, 1)
	// A fallback copy goes out only after a non-fatal failure.
	c = base("fallback", 1, 0)
	c.Copies[0].Fallback, c.OnError = true, "nonfatal"
	add(c, []step{s(1, "500"), s(0.5, "ok")}, "answer:1", 1.5, []float64{0, 1})
	// Every attempt failed and none is left: the call ends with the last
	// failure at once, not at the deadline.
	c = base("all failed", 1, 1)
	c.OnError = "ignore"
	add(c, []step{s(0.5, "500"), s(0.5, "500")}, "failed:error", 1.5, []float64{0, 1})
	// An attempt past its timeout is cancelled; non-fatal: the next copy
	// goes out at once.
	c = base("attempt timeout", 1, 3)
	c.AttemptTimeout = u(1)
	add(c, []step{s(9, "ok"), s(0.5, "ok")}, "answer:1", 1.5, []float64{0, 1}, 0)
	// Delay 0: every copy with the primary.
	c = base("all at once", 2, 0)
	add(c, []step{s(2, "ok"), s(1.5, "ok"), s(0.5, "ok")}, "answer:2", 0.5, []float64{0, 0, 0}, 0, 1)
	// Rules per status: a 429 non-fatal, a 400 fatal (the default).
	c = base("status rules", 2, 3)
	c.OnRateLimited = "nonfatal"
	add(c, []step{s(0.5, "429"), s(0.5, "400"), s(9, "ok")}, "failed:client_error", 1, []float64{0, 0.5})
	// An upstream timeout (504) follows on_upstream_timeout, not on_error.
	c = base("upstream timeout", 1, 1)
	c.OnUpstreamTimeout = "ignore"
	add(c, []step{s(0.5, "504"), s(0.5, "ok")}, "answer:1", 1.5, []float64{0, 1})
	// Hedging off: the primary alone.
	c = base("no hedging", 0, 0)
	add(c, []step{s(0.5, "ok")}, "answer:0", 0.5, []float64{0})
	return cs
}

// semanticsDoc is the cases' classes in one document.
func semanticsDoc(cs []semanticsCase) *Document {
	d := &Document{Format: DocumentFormat, Version: DocumentVersion, Scenario: "semantics", Source: FromScenario}
	for _, c := range cs {
		d.Classes = append(d.Classes, c.class)
	}
	return d
}

// semanticsInput is the harnesses' input: per case its class name and
// script.
func semanticsInput(cs []semanticsCase) []byte {
	type in struct {
		Class  string `json:"class"`
		Script []step `json:"script"`
	}
	var ins []in
	for _, c := range cs {
		ins = append(ins, in{c.class.Class, c.Script})
	}
	b, _ := json.Marshal(ins)
	return b
}

// checkSemantics compares the harness's output (a JSON line per case,
// then a line {"max_lag": units}) with the cases.
func checkSemantics(t *testing.T, cs []semanticsCase, out []byte) {
	t.Helper()
	lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
	if len(lines) != len(cs)+1 {
		t.Fatalf("%d lines for %d cases:\n%s", len(lines), len(cs), out)
	}
	var lag struct {
		MaxLag float64 `json:"max_lag"`
	}
	if err := json.Unmarshal(lines[len(cs)], &lag); err != nil {
		t.Fatal(err)
	}
	if lag.MaxLag > codeMaxLag {
		skipLine(t, fmt.Sprintf("the machine is too busy to time the cases: the event loop lagged %.2f units (%s)", lag.MaxLag, time.Duration(lag.MaxLag*float64(codeUnit))))
	}
	for i, c := range cs {
		var got struct {
			Class     string    `json:"class"`
			End       string    `json:"end"`
			At        float64   `json:"at"`
			Starts    []float64 `json:"starts"`
			Cancelled []int     `json:"cancelled"`
		}
		if err := json.Unmarshal(lines[i], &got); err != nil {
			t.Fatalf("%s: %v", lines[i], err)
		}
		near := func(a, b float64) bool { return math.Abs(a-b) <= codeSlack }
		ok := got.Class == c.class.Class && got.End == c.End && near(got.At, c.At) && len(got.Starts) == len(c.Starts) &&
			slices.Equal(got.Cancelled, c.Cancelled)
		for j := 0; ok && j < len(c.Starts); j++ {
			ok = near(got.Starts[j], c.Starts[j])
		}
		if !ok {
			t.Errorf("%s: got end %s at %.2f, starts %.2f, cancelled %v; want %s at %g, starts %g, cancelled %v",
				c.class.Class, got.End, got.At, got.Starts, got.Cancelled, c.End, c.At, c.Starts, c.Cancelled)
		}
	}
}

// pySemantics runs the cases: each attempt sleeps its scripted time (in
// units of argv[1] seconds), then answers "ok:K", "invalid:K" or raises an
// exception with the status; it prints a JSON line per case and the
// event loop's worst lag in units.
const pySemantics = `import asyncio, json, sys

import hedging

U = float(sys.argv[1])


class StatusError(Exception):
    def __init__(self, status):
        super().__init__("HTTP %d" % status)
        self.status_code = status


async def run(case, loop):
    t0 = loop.time()
    starts, cancelled = [], []

    async def call(target):
        k = len(starts)
        starts.append((loop.time() - t0) / U)
        if target != "m%d" % k:
            raise RuntimeError("attempt %d went to %s" % (k, target))
        step = case["script"][k]
        try:
            await asyncio.sleep(step["after"] * U)
        except asyncio.CancelledError:
            cancelled.append(k)
            raise
        if step["result"] in ("ok", "invalid"):
            return "%s:%d" % (step["result"], k)
        raise StatusError(int(step["result"]))

    try:
        v = await hedging.hedged(call, hedging.POLICIES[case["class"]], is_valid=lambda a: a.startswith("ok:"), default="open")
        end = "deadline:open" if v == "open" else "answer:" + v.split(":")[1]
    except hedging.HedgeFailed as e:
        end = "failed:" + e.kind
    except hedging.HedgeDeadline:
        end = "deadline:closed"
    return {"class": case["class"], "end": end, "at": (loop.time() - t0) / U, "starts": starts, "cancelled": sorted(cancelled)}


async def main():
    cases = json.load(sys.stdin)
    loop = asyncio.get_running_loop()
    lags = [0.0]
    done = False

    async def monitor():
        while not done:
            t = loop.time()
            await asyncio.sleep(0.001)
            lags.append(loop.time() - t - 0.001)

    mon = asyncio.ensure_future(monitor())
    results = await asyncio.gather(*(run(c, loop) for c in cases))
    done = True
    await mon
    for r in results:
        print(json.dumps(r))
    print(json.dumps({"max_lag": max(lags) / U}))


asyncio.run(main())
`

// TestPythonSemantics runs the python format's hedged() on the scripted
// cases with python3.
func TestPythonSemantics(t *testing.T) {
	py := python3(t)
	cs := semanticsCases()
	mod, _, err := Write(semanticsDoc(cs), "python", Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"hedging.py": string(mod), "semantics.py": pySemantics})
	cmd := exec.Command(py, "semantics.py", fmt.Sprint(codeUnit.Seconds()))
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(semanticsInput(cs))
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("python3: %v\n%s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	checkSemantics(t, cs, out)
}

// tsSemantics is pySemantics for the typescript format: an attempt's
// sleep ends early, and it counts as cancelled, when its signal aborts
// while it sleeps.
const tsSemantics = `import { HedgeDeadline, HedgeFailed, POLICIES, hedged } from "./hedging";

interface Step {
  after: number;
  result: string;
}
interface Case {
  class: string;
  script: Step[];
}

class StatusError extends Error {
  constructor(readonly status: number) {
    super("HTTP " + status);
  }
}

const U = Number(process.argv[2]);
const now = () => performance.now() / 1000;

async function run(c: Case): Promise<object> {
  const t0 = now();
  const starts: number[] = [];
  const cancelled: number[] = [];
  const call = (target: string, signal: AbortSignal): Promise<string> => {
    const k = starts.length;
    starts.push((now() - t0) / U);
    if (target !== "m" + k) return Promise.reject(new Error("attempt " + k + " went to " + target));
    const step = c.script[k];
    if (step === undefined) return Promise.reject(new Error("attempt " + k + " is not scripted"));
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        signal.removeEventListener("abort", onAbort);
        if (step.result === "ok" || step.result === "invalid") resolve(step.result + ":" + k);
        else reject(new StatusError(Number(step.result)));
      }, step.after * U * 1000);
      const onAbort = () => {
        clearTimeout(timer);
        cancelled.push(k);
        reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort);
    });
  };
  let end: string;
  try {
    const v = await hedged(call, POLICIES[c.class]!, { isValid: (a) => a.startsWith("ok:"), fallback: "open" });
    end = v === "open" ? "deadline:open" : "answer:" + v.split(":")[1];
  } catch (e) {
    if (e instanceof HedgeFailed) end = "failed:" + e.kind;
    else if (e instanceof HedgeDeadline) end = "deadline:closed";
    else throw e;
  }
  return { class: c.class, end, at: (now() - t0) / U, starts, cancelled: cancelled.sort() };
}

async function main(): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const ch of process.stdin) chunks.push(ch as Buffer);
  const cases = JSON.parse(Buffer.concat(chunks).toString()) as Case[];
  let maxLag = 0;
  let done = false;
  const monitor = (async () => {
    while (!done) {
      const t = now();
      await new Promise((r) => setTimeout(r, 1));
      maxLag = Math.max(maxLag, now() - t - 0.001);
    }
  })();
  const results = await Promise.all(cases.map(run));
  done = true;
  await monitor;
  for (const r of results) console.log(JSON.stringify(r));
  console.log(JSON.stringify({ max_lag: maxLag / U }));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
`

// TestTypeScriptSemantics runs the cases under Node with the typescript
// format compiled by the pinned tsc (tsBuild).
func TestTypeScriptSemantics(t *testing.T) {
	node, dir := tsBuild(t)
	cs := semanticsCases()
	cmd := exec.Command(node, filepath.Join("out", "semantics", "semantics.js"), fmt.Sprint(codeUnit.Seconds()))
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(semanticsInput(cs))
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("node: %v\n%s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	checkSemantics(t, cs, out)
}

// TestCodeStrings: the code formats' string literals and comments.
func TestCodeStrings(t *testing.T) {
	for _, c := range []struct{ in, py, ts string }{
		{`plain-name_1.2`, `"plain-name_1.2"`, `"plain-name_1.2"`},
		{"a\"b\\c\nd\r\te\x00\x7f", `"a\"b\\c\nd\r\te\x00\x7f"`, `"a\"b\\c\nd\r\te\x00\x7f"`},
		{"é\u2028😀", `"\u00e9\u2028\U0001f600"`, `"\u00e9\u2028\u{1f600}"`},
		{"`${x}`</script>", "\"`${x}`</script>\"", "\"`${x}`</script>\""},
	} {
		if got := pyString(c.in); got != c.py {
			t.Errorf("pyString(%q) = %s; want %s", c.in, got, c.py)
		}
		if got := tsString(c.in); got != c.ts {
			t.Errorf("tsString(%q) = %s; want %s", c.in, got, c.ts)
		}
	}
	if got, want := commentText("a\nb\r\u2028c\u0085é"), `a\nb\r\u2028c\u0085é`; got != want {
		t.Errorf("commentText = %s; want %s", got, want)
	}
	if strings.ContainsAny(commentText("x\n\r\u2028\u2029\x00"), "\n\r\u2028\u2029\x00") {
		t.Error("commentText left a line break")
	}
}

// TestUnfaithful: gRPC refuses copies to another model, gRPC and Envoy a
// deadline on time to first token, naming the formats that can say them;
// Approximate writes the nearest form with a note; the code formats
// write both faithfully, and Envoy the copies (TestEnvoyComposite).
func TestUnfaithful(t *testing.T) {
	d := ScenarioPolicies(loadShipped(t, "two-model-gateway.toml"))
	short, medium := *d, *d
	short.Classes = d.Classes[0:1]  // a copy to large-b
	medium.Classes = d.Classes[1:2] // and first_token with a 15 s deadline
	medium.Classes[0].Copies = []Copy{{Target: "large-a", Delay: Seconds(time.Second)}}
	type refusal struct {
		doc        *Document
		class      string
		limitation string
		formats    string
		note       string
	}
	otherModel := refusal{&short, "short", `its copies go to "large-b", another model than the primary "large-a"`, "python, typescript, envoy", `approximate: copies to "large-b" written as copies to where the primary ("large-a") goes`}
	ttft := refusal{&medium, "medium", "its deadline (15s) is on time to first token", "python, typescript, polly (when the server sends the response headers with the first token: its timeouts end at the headers), failsafe-go (when the server sends the response headers with the first token: its timeouts end at the headers), json", "approximate: the deadline 15s is on time to first token"}
	for f, refusals := range map[string][]refusal{"grpc": {otherModel, ttft}, "envoy": {ttft}} {
		for _, c := range refusals {
			var ue *UnfaithfulError
			_, _, err := Write(c.doc, f, Options{})
			if !errors.As(err, &ue) || ue.Class != c.class || !strings.Contains(ue.Limitation, c.limitation) || !strings.HasPrefix(ue.Formats, c.formats) ||
				!strings.Contains(err.Error(), "--approximate") {
				t.Errorf("%s, class %s: error %v; want an UnfaithfulError naming %q and the formats %s", f, c.class, err, c.limitation, c.formats)
			}
			_, notes, err := Write(c.doc, f, Options{Approximate: true})
			if err != nil {
				t.Fatalf("%s, class %s, approximate: %v", f, c.class, err)
			}
			wantNote(t, notes, c.class, c.note)
		}
	}
	for _, f := range []string{"python", "typescript"} {
		for _, doc := range []*Document{&short, &medium} {
			_, notes, err := Write(doc, f, Options{})
			if err != nil {
				t.Errorf("%s: %v", f, err)
			}
			if doc == &medium {
				wantNote(t, notes, "medium", "once the first token has arrived (the stream's first chunk read), so that the deadline (15s) is on time to first token")
			}
		}
	}
}

// TestGRPCRuntimesNote: the grpc format says, once, which runtimes carry
// out a hedgingPolicy and which ignore it, when it writes one.
func TestGRPCRuntimesNote(t *testing.T) {
	d := ScenarioPolicies(loadShipped(t, "guard-check.toml"))
	_, notes, err := Write(d, "grpc", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) == 0 || notes[0].Class != "" || notes[0].String() != GRPCRuntimes {
		t.Fatalf("first note %v; want the runtimes note", notes)
	}
	for _, s := range []string{"grpc-java", "grpc-dotnet", "grpc-js", "grpc-go", "C-core", "failsafegrpc.NewUnaryClientInterceptor"} {
		if !strings.Contains(GRPCRuntimes, s) {
			t.Errorf("the runtimes note does not name %s", s)
		}
	}
	d.Classes[0].Hedge, d.Classes[0].Copies = false, []Copy{}
	_, notes, err = Write(d, "grpc", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range notes {
		if n.Text == GRPCRuntimes {
			t.Errorf("the runtimes note with no hedgingPolicy written")
		}
	}
}

// TestEnvoyComposite: copies to other models go through a composite
// cluster listing the model of each attempt, which carries the class's
// budget (with two copies, noted: Envoy counts a request once); a class
// whose copies go to its primary keeps the primary's cluster, with
// max_retries unlimited, as it has no budget.
func TestEnvoyComposite(t *testing.T) {
	d := ScenarioPolicies(loadShipped(t, "two-model-gateway.toml"))
	d.Classes = d.Classes[:1]
	c := &d.Classes[0]
	c.Copies = append(c.Copies, Copy{Target: "large-a", Delay: c.Copies[0].Delay}) // Envoy has one delay
	c.Budget = Budget{MaxInFlightRatio: 0.2, MinInFlight: 3}
	out, notes, err := Write(d, "envoy", Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantNote(t, notes, "short", `copies to "large-b" go through the composite cluster "short-attempts"`)
	wantNote(t, notes, "short", "Envoy's circuit breaker counts a request with retries or hedges out once, however many of its 2 copies are out")
	routes, clusters := checkEnvoy(t, "composite", out)
	if got := routes[0].GetRoute().GetCluster(); got != "short-attempts" || len(clusters) != 1 || clusters[0].GetName() != got {
		t.Fatalf("route to %q, clusters %v; want one composite cluster short-attempts\n%s", got, clusters, out)
	}
	cc := &compositev3.ClusterConfig{}
	if err := clusters[0].GetClusterType().GetTypedConfig().UnmarshalTo(cc); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range cc.GetClusters() {
		names = append(names, e.GetName())
	}
	if !slices.Equal(names, []string{"large-a", "large-b", "large-a"}) || clusters[0].GetLbPolicy() != clusterv3.Cluster_CLUSTER_PROVIDED {
		t.Errorf("composite clusters %v, lb_policy %v; want large-a, large-b, large-a and CLUSTER_PROVIDED", names, clusters[0].GetLbPolicy())
	}
	if b := clusters[0].GetCircuitBreakers().GetThresholds()[0].GetRetryBudget(); b.GetBudgetPercent().GetValue() != 20 || b.GetMinRetryConcurrency().GetValue() != 3 {
		t.Errorf("retry budget %v; want 20 %%, 3 on the composite cluster", b)
	}
	guard := ScenarioPolicies(loadShipped(t, "guard-check.toml"))
	out, _, err = Write(guard, "envoy", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if routes, clusters := checkEnvoy(t, "guard", out); routes[0].GetRoute().GetCluster() != "llama-guard" || len(clusters) != 1 || clusters[0].GetName() != "llama-guard" ||
		clusters[0].GetCircuitBreakers().GetThresholds()[0].GetMaxRetries().GetValue() != EnvoyNoRetryLimit {
		t.Errorf("guard-check: route to %q with clusters %v; want llama-guard and its circuit breaker's max_retries %d", routes[0].GetRoute().GetCluster(), clusters, uint32(EnvoyNoRetryLimit))
	}
}
