package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/sim"
)

// The python and typescript exports, run by their own runtimes against a
// loopback HTTP server of the scenario's models (modelServer), must
// behave as the simulator predicts: answered share, calls per request,
// cancelled attempts per request and p50/p90/p95, compared as
// compareE2EScaled does (each within its 3σ sampling interval, widened by
// the measured timer lateness).
//
// Time is scaled by 1/5: 1 simulated second = codeScale (200 ms) of real
// time, so guard-check's 3 s deadline is 600 ms and a copy goes out every
// 200 ms. A run lasts codeRequests/codeRate (5 s) plus one request
// whatever the scale, so the scale is chosen for the timing: a 10 ms
// stall of a busy machine is 0.05 simulated seconds. The semantics allow
// it: every policy time (delays, deadline) and
// every latency the server draws is scaled alike, and in these scenarios
// nothing depends on absolute time — the models have no capacity limit,
// rate limit, breaker or budget, so an attempt's latency does not depend
// on the load. For the same reason the requests arrive at a rate of the
// harness's choosing (codeRate per real second, Poisson), not the
// scenario's rate scaled: the comparison is per request. The rate is
// kept low enough that the harness's own work (an HTTP client in Python
// or Node, and its event loop) does not delay its timers.
//
// The server cancels an attempt when the client lets go of it; the
// simulation is run with cancel latency 0 to match (a cancel landing
// later is the provider's, not something the exported code sets).
const (
	codeScale    = 200 * time.Millisecond
	codeRate     = 200.0 // requests per real second
	codeRequests = 1000
)

// codeCase is a scenario class the code formats are run with.
type codeCase struct {
	name string
	cfg  *sim.Config
}

// codeCases are guard-check (field report 1: bimodal latency, copies
// every 1 s, at most 3, errors fatal, 3 s deadline failing open) and the
// two-model gateway's short class (a copy to a second model after 700 ms;
// errors and invalid answers non-fatal: the copy goes out at once).
func codeCases(t *testing.T) []codeCase {
	guard := loadShipped(t, "guard-check.toml")
	gw := loadShipped(t, "two-model-gateway.toml")
	short := gw.Classes[0]
	short.Share = 1
	gw.Classes = []sim.Class{short}
	for _, cfg := range []*sim.Config{guard, gw} {
		for i := range cfg.Classes {
			cfg.Classes[i].Policy.CancelLatency = 0
		}
	}
	return []codeCase{{"guard-check", guard}, {"two-model-gateway/short", gw}}
}

// codeArrivals draws n Poisson arrivals at rate per real second and the
// class's output tokens: the harness's input, a JSON list of {at_ns, out}.
func codeArrivals(cfg *sim.Config, n int, rate float64, seed uint64) []byte {
	src := rand.NewPCG(seed, 11)
	u := rand.New(src)
	type req struct {
		AtNS int64 `json:"at_ns"`
		Out  int   `json:"out"`
	}
	reqs := make([]req, n)
	at := 0.0
	for i := range reqs {
		at += u.ExpFloat64() / rate
		out := 0
		if d := cfg.Classes[0].OutputTokens; d != nil {
			out = int(math.Round(max(d.Rand(src), 0)))
		}
		reqs[i] = req{AtNS: int64(at * 1e9), Out: out}
	}
	b, _ := json.Marshal(reqs)
	return b
}

// simCodePrediction runs cfg as `hedgesim run` does and returns each
// request's time to a usable answer in simulated seconds (sorted, +Inf
// for a miss), and the attempts sent and cancelled per request.
func simCodePrediction(t *testing.T, cfg *sim.Config) (lat []float64, calls, cancelled float64) {
	t.Helper()
	c := *cfg
	c.Requests = e2eSimReqs
	res, err := sim.Run(&c)
	if err != nil {
		t.Fatal(err)
	}
	cr := res.Classes[0]
	n := float64(cr.Requests)
	return cr.Latencies(), float64(cr.Attempts.Sent) / n, float64(cr.Attempts.Cancelled) / n
}

// scaledDoc returns cfg's policies with every duration scaled to real
// time at codeScale.
func scaledDoc(cfg *sim.Config) *Document {
	d := ScenarioPolicies(cfg)
	scaleDoc(d, codeScale)
	return d
}

// runCodeHarness runs cmd (a harness taking the server's URL as its last
// argument and the arrivals on standard input) against a server of cfg's
// models, and compares what it measured with the simulation.
func runCodeHarness(t *testing.T, name string, cfg *sim.Config, cmd *exec.Cmd) {
	t.Helper()
	ms := newModelServer(cfg, 3, codeScale)
	defer ms.srv.Close()
	cmd.Args = append(cmd.Args, ms.srv.URL)
	cmd.Stdin = bytes.NewReader(codeArrivals(cfg, codeRequests, codeRate, 5))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: harness: %v\n%s", name, err, stderr.String())
	}
	lat, attempts, late := parseHarness(t, out, codeScale)
	if len(lat) != codeRequests {
		t.Fatalf("%s: %d results for %d requests\n%s", name, len(lat), codeRequests, stderr.String())
	}
	simLat, simCalls, simCancelled := simCodePrediction(t, cfg)
	compareE2EScaled(t, name, codeScale, simLat, simCalls, lat, attempts, late)
	compareCancelled(t, name, simCancelled, ms.cancelled(codeRequests), late)
}

// compareCancelled checks the attempts cancelled per request (counted by
// the server) against the simulation's, within 3σ of the real sample's
// mean, plus 0.02 and twice the share of requests launched late (as calls
// per request in compareE2EScaled).
func compareCancelled(t *testing.T, name string, simCancelled float64, cancelled []int, late []float64) {
	t.Helper()
	n := float64(len(cancelled))
	var sum, sum2 float64
	for _, c := range cancelled {
		sum += float64(c)
		sum2 += float64(c * c)
	}
	mean := sum / n
	sd := math.Sqrt(max(sum2/n-mean*mean, 0))
	stalled := 0
	for _, l := range late {
		if l > (e2eStall * codeScale / e2eScale).Seconds() {
			stalled++
		}
	}
	tol := e2eZ*sd/math.Sqrt(n) + 0.02 + 2*float64(stalled)/n
	t.Logf("%s: cancelled attempts per request: simulated %.4f, real %.4f (± %.4f)", name, simCancelled, mean, tol)
	if math.Abs(mean-simCancelled) > tol {
		t.Errorf("%s: cancelled attempts per request %.4f real vs %.4f simulated; allowed ± %.4f", name, mean, simCancelled, tol)
	}
}

// python3 returns the path of python3, or skips the test saying why.
func python3(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("python3")
	if err != nil {
		skipLine(t, "python3 is not installed: the python export is not run")
	}
	return p
}

// skipLine skips t, also printing the reason on standard error, so that
// a plain `go test ./...` (which hides skips) shows what was not run.
func skipLine(t *testing.T, reason string) {
	t.Helper()
	fmt.Fprintf(os.Stderr, "SKIP: %s: %s\n", t.Name(), reason)
	t.Skip(reason)
}

// writeFiles writes files (name → content) into dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// pyHarness is the python export's harness: it sends the requests at
// their arrival times, each through hedged() with the class's policy; an
// attempt is a GET of /MODEL?out=N&req=I on a new connection (closed
// when the attempt is cancelled); 200 is the answer "ok", 422 an answer
// is_valid rejects, another status an exception with status_code. It
// prints a JSON line per request: latency_s (-1 for a miss), attempts,
// late_s (how late it was launched or, if worse, the event loop's worst
// lag while it ran, sampled every millisecond), and end: how the request ended ("answer", "deadline", or
// "failed: " and the failure).
const pyHarness = `import asyncio, bisect, json, sys, urllib.parse

import hedging


class HTTPError(Exception):
    def __init__(self, status):
        super().__init__("HTTP %d" % status)
        self.status_code = status


async def get(host, port, path):
    reader, writer = await asyncio.open_connection(host, port)
    try:
        writer.write(("GET " + path + " HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n").encode())
        head = await reader.readuntil(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        body = await reader.read()
        return status, body.decode()
    finally:
        writer.close()


async def main():
    policy = hedging.POLICIES[sys.argv[1]]
    url = urllib.parse.urlsplit(sys.argv[2])
    reqs = json.load(sys.stdin)
    loop = asyncio.get_running_loop()
    results = [None] * len(reqs)
    miss = object()

    async def one(i, out, at):
        t0 = loop.time()
        attempts = 0

        async def call(target):
            nonlocal attempts
            attempts += 1
            path = "/%s?out=%d&req=%d" % (urllib.parse.quote(target, safe=""), out, i)
            status, body = await get(url.hostname, url.port, path)
            if status == 200:
                return body
            if status == 422:
                return "invalid"
            raise HTTPError(status)

        end = "answer"
        try:
            v = await hedging.hedged(call, policy, is_valid=lambda s: s == "ok", default=miss)
            lat = -1 if v is miss else loop.time() - t0
            if v is miss:
                end = "deadline"
        except hedging.HedgeFailed as e:
            lat, end = -1, "failed: " + str(e)
        except hedging.HedgeDeadline:
            lat, end = -1, "deadline"
        results[i] = {"latency_s": lat, "attempts": attempts, "late_s": t0 - at, "end": end, "span": (t0, loop.time())}

    # The event loop's lag, sampled every millisecond: a request is as
    # late as the worst lag while it ran.
    lags = []

    async def monitor():
        while True:
            t = loop.time()
            await asyncio.sleep(0.001)
            lags.append((t, loop.time() - t - 0.001))

    mon = asyncio.ensure_future(monitor())
    start = loop.time()
    tasks = []
    for i, r in enumerate(reqs):
        at = start + r["at_ns"] / 1e9
        if at > loop.time():
            await asyncio.sleep(at - loop.time())
        tasks.append(asyncio.ensure_future(one(i, r["out"], at)))
    await asyncio.gather(*tasks)
    mon.cancel()
    times = [t for t, _ in lags]
    for r in results:
        t0, t1 = r.pop("span")
        lo, hi = bisect.bisect_left(times, t0), bisect.bisect_right(times, t1)
        r["late_s"] = max([r["late_s"]] + [lag for _, lag in lags[lo:hi]])
        print(json.dumps(r))


asyncio.run(main())
`

// TestPythonBehavesAsSimulated runs the python export of guard-check and
// of the two-model gateway's short class with python3 against a loopback
// server of their models, and compares it with the simulation.
func TestPythonBehavesAsSimulated(t *testing.T) {
	if testing.Short() {
		t.Skip("runs python3 against a loopback server for a few seconds: not in -short")
	}
	t.Parallel() // waits on a real client or the go command: overlaps with the other round trips
	py := python3(t)
	for _, cc := range codeCases(t) {
		t.Run(cc.name, func(t *testing.T) {
			mod, _, err := Write(scaledDoc(cc.cfg), "python", Options{})
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"hedging.py": string(mod), "harness.py": pyHarness})
			cmd := exec.Command(py, "harness.py", cc.cfg.Classes[0].Name)
			cmd.Dir = dir
			runCodeHarness(t, cc.name, cc.cfg, cmd)
		})
	}
}

// nodeTools returns the paths of node and of the pinned tsc, installed
// by .ci/run (npm ci in export/testdata/node), or skips the test saying
// why.
func nodeTools(t *testing.T) (node, tsc string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		skipLine(t, "node is not installed: the typescript export is not run (Node 20 or later is needed)")
	}
	out, err := exec.Command(node, "-e", "process.stdout.write(process.versions.node.split('.')[0])").Output()
	if v, _ := strconv.Atoi(string(out)); err != nil || v < 20 {
		skipLine(t, fmt.Sprintf("node %s is older than 20: the typescript export is not run", out))
	}
	tsc, err = filepath.Abs(filepath.Join("testdata", "node", "node_modules", "typescript", "bin", "tsc"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tsc); err != nil {
		skipLine(t, "the pinned TypeScript compiler is not installed: run npm ci in export/testdata/node (.ci/run does)")
	}
	return node, tsc
}

// nodeModules is the absolute path of the pinned packages' node_modules.
func nodeModules() string {
	p, _ := filepath.Abs(filepath.Join("testdata", "node", "node_modules"))
	return p
}

// tsHarness is the typescript export's harness, the python harness's
// twin: each attempt is a GET of /MODEL?out=N&req=I with node:http (a
// keep-alive agent; lighter than fetch, so the harness's own work delays
// its timers less) and the attempt's AbortSignal, which destroys the
// request's connection when it aborts.
const tsHarness = `import * as http from "node:http";
import { HedgeDeadline, HedgeFailed, POLICIES, hedged } from "./hedging";

const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });

class HTTPError extends Error {
  constructor(readonly status: number) {
    super("HTTP " + status);
  }
}

interface Request {
  at_ns: number;
  out: number;
}

interface Result {
  latency_s: number;
  attempts: number;
  late_s: number;
  end: string;
  span: [number, number];
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString();
}

const now = () => performance.now() / 1000;
const sleep = (s: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, s * 1000)));

async function main(): Promise<void> {
  const policy = POLICIES[process.argv[2] ?? ""];
  if (policy === undefined) throw new Error("no policy " + process.argv[2]);
  const url = process.argv[3] ?? "";
  const reqs = JSON.parse(await readStdin()) as Request[];
  const results: Result[] = new Array(reqs.length);
  const miss = Symbol("miss");

  async function one(i: number, out: number, at: number): Promise<void> {
    const t0 = now();
    let attempts = 0;
    const call = (target: string, signal: AbortSignal): Promise<string> =>
      new Promise((resolve, reject) => {
        attempts++;
        const req = http.get(url + "/" + encodeURIComponent(target) + "?out=" + out + "&req=" + i, { signal, agent }, (res) => {
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (c: string) => (body += c));
          res.on("end", () => {
            if (res.statusCode === 200) resolve(body);
            else if (res.statusCode === 422) resolve("invalid");
            else reject(new HTTPError(res.statusCode ?? 0));
          });
          res.on("error", reject);
        });
        req.on("error", reject);
      });
    let latency = -1;
    let end = "answer";
    try {
      const v = await hedged(call, policy, { isValid: (s) => s === "ok", fallback: miss });
      if (v === miss) end = "deadline";
      else latency = now() - t0;
    } catch (e) {
      if (e instanceof HedgeFailed) end = "failed: " + e.message;
      else if (e instanceof HedgeDeadline) end = "deadline";
      else throw e;
    }
    results[i] = { latency_s: latency, attempts, late_s: t0 - at, end, span: [t0, now()] };
  }

  // The event loop's lag, sampled every millisecond: a request is as late
  // as the worst lag while it ran.
  const lags: Array<[number, number]> = [];
  let monitoring = true;
  const monitor = async () => {
    while (monitoring) {
      const t = now();
      await sleep(0.001);
      lags.push([t, now() - t - 0.001]);
    }
  };
  // Warm up the HTTP client and its connections.
  for (let k = 0; k < 20; k++) await new Promise((r) => http.get(url + "/warm-up", { agent }, (res) => res.resume().on("end", r)));
  const mon = monitor();
  const start = now();
  const running: Promise<void>[] = [];
  for (const [i, r] of reqs.entries()) {
    const at = start + r.at_ns / 1e9;
    if (at > now()) await sleep(at - now());
    running.push(one(i, r.out, at));
  }
  await Promise.all(running);
  monitoring = false;
  await mon;
  let lo = 0;
  const lines: string[] = [];
  for (const r of results) {
    const [t0, t1] = r.span;
    let late = r.late_s;
    while (lo < lags.length && (lags[lo]?.[0] ?? Infinity) < t0) lo++;
    for (let j = lo; j < lags.length && (lags[j]?.[0] ?? Infinity) <= t1; j++) late = Math.max(late, lags[j]?.[1] ?? 0);
    lines.push(JSON.stringify({ latency_s: r.latency_s, attempts: r.attempts, late_s: late, end: r.end }));
  }
  process.stdout.write(lines.join("\n") + "\n");
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
`

// TestTypeScriptBehavesAsSimulated runs the typescript export of
// guard-check and of the two-model gateway's short class, compiled with
// the pinned tsc (tsBuild), under Node against a loopback server of their
// models, and compares it with the simulation.
func TestTypeScriptBehavesAsSimulated(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Node against a loopback server for a few seconds: not in -short")
	}
	t.Parallel() // waits on a real client or the go command: overlaps with the other round trips
	node, dir := tsBuild(t)
	for i, cc := range codeCases(t) {
		t.Run(cc.name, func(t *testing.T) {
			cmd := exec.Command(node, filepath.Join("out", fmt.Sprintf("case%d", i), "harness.js"), cc.cfg.Classes[0].Name)
			cmd.Dir = dir
			runCodeHarness(t, cc.name, cc.cfg, cmd)
		})
	}
}
