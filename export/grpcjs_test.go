package export

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/hedgesim/hedgesim/sim"
)

// The grpc format's service config, run in grpc-js (the pinned
// @grpc/grpc-js, a runtime that carries out hedgingPolicy) against a
// loopback gRPC server whose handler draws latencies from the scenario's
// model, must behave as the simulator predicts: answered share, calls
// and cancelled attempts per request, p50/p90/p95, compared as the code
// formats' runs are (code_e2e_test.go: time scaled by codeScale, arrivals
// at codeRate). The server counts each request's attempts and the ones
// cancelled (grpc-js cancels the losers and, at the deadline, every
// attempt); the client knows only when its call ended.

// rawCodec passes messages through as bytes, so that the test server
// needs no generated code.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) { return *(v.(*[]byte)), nil }
func (rawCodec) Unmarshal(data []byte, v any) error {
	*(v.(*[]byte)) = append([]byte(nil), data...)
	return nil
}
func (rawCodec) Name() string { return "proto" }

// grpcModelServer serves every method on loopback as one call to model:
// the request is "REQ OUT" (request number, output tokens); the handler
// sleeps a latency drawn as modelServer does (time scaled by scale),
// then answers "ok", or fails with UNAVAILABLE (the grpc format's status
// for an error). It counts, per request, the attempts and the attempts
// cancelled before their answer.
type grpcModelServer struct {
	addr                string
	srv                 *grpc.Server
	mu                  sync.Mutex
	attempts, cancelled map[int]int
}

func newGRPCModelServer(t *testing.T, cfg *sim.Config, model string, seed uint64, scale time.Duration) *grpcModelServer {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := &grpcModelServer{addr: lis.Addr().String(), attempts: map[int]int{}, cancelled: map[int]int{}}
	draw := modelDraw(cfg, seed)
	handler := func(_ any, stream grpc.ServerStream) error {
		var msg []byte
		if err := stream.RecvMsg(&msg); err != nil {
			return err
		}
		var req, out int
		if _, err := fmt.Sscan(string(msg), &req, &out); err != nil {
			return status.Errorf(codes.InvalidArgument, "request %q: %v", msg, err)
		}
		gs.mu.Lock()
		gs.attempts[req]++
		gs.mu.Unlock()
		secs, failed, invalid, ok := draw(model, out)
		if !ok {
			return status.Errorf(codes.NotFound, "no model %q", model)
		}
		timer := time.NewTimer(time.Duration(secs * float64(scale)))
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-stream.Context().Done():
			gs.mu.Lock()
			gs.cancelled[req]++
			gs.mu.Unlock()
			return stream.Context().Err()
		}
		switch {
		case failed:
			return status.Error(codes.Unavailable, "model error")
		case invalid:
			return status.Error(codes.Internal, "invalid answer") // gRPC has no body check: not sent by these tests' models
		}
		answer := []byte("ok")
		return stream.SendMsg(&answer)
	}
	gs.srv = grpc.NewServer(grpc.ForceServerCodec(rawCodec{}), grpc.UnknownServiceHandler(handler))
	go gs.srv.Serve(lis)
	t.Cleanup(gs.srv.Stop)
	return gs
}

// counts returns, per request 0 … n−1, the attempts and the cancelled
// attempts the server saw.
func (gs *grpcModelServer) counts(n int) (attempts, cancelled []int) {
	gs.mu.Lock()
	defer gs.mu.Unlock()
	attempts, cancelled = make([]int, n), make([]int, n)
	for i := range n {
		attempts[i], cancelled[i] = gs.attempts[i], gs.cancelled[i]
	}
	return attempts, cancelled
}

// grpcJSHarness sends the requests at their arrival times as unary calls
// of argv[3] (a full method name) on a channel to argv[2] configured with
// the service config in the file argv[4]; it prints a JSON line per
// request as the code formats' harnesses do (attempts: 0, the server
// counts them).
const grpcJSHarness = `"use strict";
const fs = require("fs");
const grpc = require("@grpc/grpc-js");

const [, , addr, method, configFile] = process.argv;
const serviceConfig = fs.readFileSync(configFile, "utf8");
const client = new grpc.Client(addr, grpc.credentials.createInsecure(), {
  "grpc.service_config": serviceConfig,
  "grpc.service_config_disable_resolution": 1,
});
const now = () => performance.now() / 1000;
const sleep = (s) => new Promise((r) => setTimeout(r, Math.max(0, s * 1000)));
const pass = (b) => b;

function call(msg) {
  return new Promise((resolve) => {
    client.makeUnaryRequest(method, pass, pass, Buffer.from(msg), new grpc.Metadata(), {}, (err) =>
      resolve(err ? grpc.status[err.code] : "OK"),
    );
  });
}

async function main() {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  const reqs = JSON.parse(Buffer.concat(chunks).toString());
  await new Promise((resolve, reject) =>
    client.waitForReady(Date.now() + 5000, (err) => (err ? reject(err) : resolve())),
  );
  const results = new Array(reqs.length);
  const lags = [];
  let monitoring = true;
  const monitor = (async () => {
    while (monitoring) {
      const t = now();
      await sleep(0.001);
      lags.push([t, now() - t - 0.001]);
    }
  })();
  const start = now();
  const running = [];
  for (const [i, r] of reqs.entries()) {
    const at = start + r.at_ns / 1e9;
    if (at > now()) await sleep(at - now());
    running.push(
      (async () => {
        const t0 = now();
        const code = await call(i + " " + r.out);
        const t1 = now();
        results[i] = { latency_s: code === "OK" ? t1 - t0 : -1, attempts: 0, late_s: t0 - at, end: code, span: [t0, t1] };
      })(),
    );
  }
  await Promise.all(running);
  monitoring = false;
  await monitor;
  let lo = 0;
  const lines = [];
  for (const r of results) {
    const [t0, t1] = r.span;
    let late = r.late_s;
    while (lo < lags.length && lags[lo][0] < t0) lo++;
    for (let j = lo; j < lags.length && lags[j][0] <= t1; j++) late = Math.max(late, lags[j][1]);
    lines.push(JSON.stringify({ latency_s: r.latency_s, attempts: 0, late_s: late, end: r.end }));
  }
  process.stdout.write(lines.join("\n") + "\n");
  client.close();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
`

// grpcJS returns node and the pinned packages' node_modules with
// @grpc/grpc-js in it, or skips the test saying why.
func grpcJS(t *testing.T) (node, modules string) {
	t.Helper()
	node, _ = nodeTools(t)
	modules = nodeModules()
	if _, err := os.Stat(filepath.Join(modules, "@grpc", "grpc-js", "package.json")); err != nil {
		skipLine(t, "the pinned @grpc/grpc-js is not installed: run npm ci in export/testdata/node (.ci/run does)")
	}
	return node, modules
}

// TestGRPCJSHedges runs the grpc format's service config of guard-check
// (copies every 1 s, at most 3 attempts, errors fatal, a 3 s deadline)
// in grpc-js, and compares it with the simulation.
func TestGRPCJSHedges(t *testing.T) {
	if testing.Short() {
		t.Skip("runs grpc-js against a loopback gRPC server for a few seconds: not in -short")
	}
	t.Parallel() // waits on a real client or the go command: overlaps with the other round trips
	node, modules := grpcJS(t)
	cfg := codeCases(t)[0].cfg
	const service, method = "hedgesim.test.Guard", "Check"
	sc, _, err := Write(scaledDoc(cfg), "grpc", Options{Service: service, Method: method})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"harness.js": grpcJSHarness, "service-config.json": string(sc)})
	gs := newGRPCModelServer(t, cfg, cfg.Models[cfg.Classes[0].Policy.Primary].Name, 3, codeScale)
	cmd := exec.Command(node, "harness.js", gs.addr, "/"+service+"/"+method, "service-config.json")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
	cmd.Stdin = bytes.NewReader(codeArrivals(cfg, codeRequests, codeRate, 5))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("grpc-js harness: %v\n%s", err, stderr.String())
	}
	lat, _, late := parseHarness(t, out, codeScale)
	if len(lat) != codeRequests {
		t.Fatalf("%d results for %d requests\n%s", len(lat), codeRequests, stderr.String())
	}
	attempts, cancelled := gs.counts(codeRequests)
	simLat, simCalls, simCancelled := simCodePrediction(t, cfg)
	compareE2EScaled(t, "grpc-js", codeScale, simLat, simCalls, lat, attempts, late)
	compareCancelled(t, "grpc-js", simCancelled, cancelled, late)
}

// TestGRPCJSAcceptsEveryConfig: grpc-js's own service-config validation
// accepts the grpc format's output for every shipped scenario (written
// with Approximate where a class cannot be written faithfully) and for
// guard-check scaled to a 600 ms deadline, and reads each timeout as the
// deadline written, to the millisecond (grpc-js applies it in whole
// milliseconds).
func TestGRPCJSAcceptsEveryConfig(t *testing.T) {
	node, modules := grpcJS(t)
	docs := append(shippedDocs(t), scaledDoc(codeCases(t)[0].cfg))
	var configs []json.RawMessage
	var want [][]float64 // per config, per method config, the deadline in ms (0: none)
	for _, d := range docs {
		d = withoutAdaptive(d)
		if d == nil {
			continue
		}
		out, _, err := Write(d, "grpc", Options{Approximate: true})
		if ue := (*UnmappableError)(nil); errors.As(err, &ue) {
			continue // timed and fallback copies in one class: refused, as TestUnmappable checks
		} else if err != nil {
			t.Fatalf("%s: %v", d.Scenario, err)
		}
		configs = append(configs, out)
		var ms []float64
		for _, c := range d.Classes {
			ms = append(ms, math.Floor(float64(c.Deadline.D())/1e6))
		}
		want = append(want, ms)
	}
	all, _ := json.Marshal(configs)
	script := `"use strict";
const { validateServiceConfig } = require("@grpc/grpc-js/build/src/service-config");
const configs = JSON.parse(require("fs").readFileSync(0, "utf8"));
// The deadline as grpc-js applies it (resolving-call.js): whole milliseconds.
const ms = (t) => (t ? Math.floor(t.seconds * 1000 + t.nanos / 1e6) : 0);
console.log(JSON.stringify(configs.map((c) => validateServiceConfig(c).methodConfig.map((m) => ms(m.timeout)))));
`
	cmd := exec.Command(node, "-e", script)
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
	cmd.Stdin = bytes.NewReader(all)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("grpc-js rejects a service config: %v\n%s", err, out)
	}
	var got [][]float64
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(got) != len(want) || len(want) == 0 {
		t.Fatalf("grpc-js read %d configs; want %d", len(got), len(want))
	}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("config %d: grpc-js reads the timeouts as %v ms; want %v\n%s", i, got[i], want[i], configs[i])
		}
	}
}
