package export

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/sim"
)

// The exported failsafe-go policy, run by a real net/http client against
// a loopback server whose handlers sleep for latencies drawn from the
// scenario's models, must behave as the simulator predicts.
//
// Time is scaled: 1 simulated second = e2eScale of real time (50 ms), so
// field report 1's 3 s deadline is 150 ms, and 1500 requests at its
// arrival rate (20/s, i.e. 400/s real) take about 4 s. The harness is a small
// program built in a temporary module with the exported snippet; it sends
// requests at Poisson arrival times (the scenario's rate, scaled), runs
// each through failsafe.With(ClassPolicies...), sends the original call
// to ClassPrimary and copies (exec.IsHedge()) to ClassHedgeTarget, and
// records per request the latency to a usable answer (+Inf for a miss)
// and the attempts it sent.
//
// Each measure must lie within its 99.7 % (3σ) sampling interval of the
// simulator's prediction (100 000 simulated requests; the real sample's
// size sets the interval), widened by allowances for what the simulator
// does not model, measured in the run itself: every latency may be late by
// e2eJitter (2 ms of loopback round trips) plus the p99 lateness of the
// harness's own timers; the answered share may differ by 1 point and calls
// per request by 0.02 (answers landing within that jitter of a timer or
// the deadline), each plus twice the share of requests the harness
// launched more than e2eStall late (a stall can flip an answer or a copy).
// When the machine is so busy that the p99 lateness exceeds e2eMaxLate,
// the comparison means nothing and the test skips, saying so.
const (
	e2eScale    = 50 * time.Millisecond
	e2eJitter   = 2 * time.Millisecond
	e2eStall    = 10 * time.Millisecond
	e2eMaxLate  = 10 * time.Millisecond
	e2eRequests = 1500
	e2eSimReqs  = 100_000
	e2eZ        = 3.0
)

const e2eHarness = `package main

import (
	"encoding/json"
	"math"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"io"

	"github.com/failsafe-go/failsafe-go"

	"hedgingtest/policy"
)

type request struct {
	AtNS int64 ` + "`json:\"at_ns\"`" + `
	Out  int   ` + "`json:\"out\"`" + `
}

type result struct {
	Latency  float64 ` + "`json:\"latency_s\"`" + `
	Attempts int     ` + "`json:\"attempts\"`" + `
	Late     float64 ` + "`json:\"late_s\"`" + `
}

func main() {
	var reqs []request
	if err := json.NewDecoder(os.Stdin).Decode(&reqs); err != nil {
		panic(err)
	}
	url := os.Args[1]
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4096, MaxIdleConns: 4096}}
	executor := failsafe.With(policy.CLASSPolicies...)
	results := make([]result, len(reqs))
	var wg sync.WaitGroup
	start := time.Now()
	for i, rq := range reqs {
		at := start.Add(time.Duration(rq.AtNS))
		time.Sleep(time.Until(at))
		wg.Add(1)
		go func() {
			defer wg.Done()
			var attempts atomic.Int32
			t0 := time.Now()
			late := t0.Sub(at).Seconds()
			resp, err := executor.GetWithExecution(func(exec failsafe.Execution[*http.Response]) (*http.Response, error) {
				attempts.Add(1)
				target := policy.CLASSPrimary
				if exec.IsHedge() {
					target = policy.CLASSHedgeTarget
				}
				req, err := http.NewRequestWithContext(exec.Context(), "GET", url+"/"+target+"?out="+strconv.Itoa(rq.Out), nil)
				if err != nil {
					return nil, err
				}
				return client.Do(req)
			})
			lat := time.Since(t0).Seconds()
			if err != nil || resp.StatusCode != http.StatusOK {
				lat = math.Inf(1)
			}
			if resp != nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			results[i] = result{Latency: lat, Attempts: int(attempts.Load()), Late: late}
		}()
	}
	wg.Wait()
	enc := json.NewEncoder(os.Stdout)
	for _, r := range results {
		if math.IsInf(r.Latency, 1) {
			r.Latency = -1
		}
		enc.Encode(r)
	}
}
`

// e2eServer serves the models of cfg at /MODEL: it draws the attempt's
// latency (whole-call, or TTFT + out ÷ decode speed) scaled by e2eScale,
// fails with 500 at the model's error rate, answers 422 for an invalid
// answer, and stops early when the client cancels.
func e2eServer(cfg *sim.Config, seed uint64) *httptest.Server {
	return newModelServer(cfg, seed, e2eScale).srv
}

// modelServer is e2eServer at any time scale (1 simulated second =
// scale). A request with a query parameter req=ID counts, per ID, the
// attempts the client cancelled before their response (cancelled).
type modelServer struct {
	srv     *httptest.Server
	mu      sync.Mutex
	cancels map[string]int
}

func newModelServer(cfg *sim.Config, seed uint64, scale time.Duration) *modelServer {
	ms := &modelServer{cancels: map[string]int{}}
	draw := modelDraw(cfg, seed)
	ms.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		out, _ := strconv.Atoi(r.URL.Query().Get("out"))
		secs, failed, invalid, ok := draw(strings.TrimPrefix(r.URL.Path, "/"), out)
		if !ok {
			http.NotFound(w, r)
			return
		}
		timer := time.NewTimer(time.Duration(secs * float64(scale)))
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-r.Context().Done():
			if id := r.URL.Query().Get("req"); id != "" {
				ms.mu.Lock()
				ms.cancels[id]++
				ms.mu.Unlock()
			}
			return
		}
		switch {
		case failed:
			w.WriteHeader(http.StatusInternalServerError)
		case invalid:
			w.WriteHeader(http.StatusUnprocessableEntity)
		default:
			w.Write([]byte("ok"))
		}
	}))
	return ms
}

// cancelled returns, per request 0 … n−1, the attempts the client
// cancelled (attempts still in their handler when the client let go).
func (ms *modelServer) cancelled(n int) []int {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	c := make([]int, n)
	for i := range c {
		c[i] = ms.cancels[strconv.Itoa(i)]
	}
	return c
}

// modelDraw returns a function drawing, for an attempt to model with out
// output tokens, its latency in simulated seconds (whole-call, or TTFT +
// out ÷ decode speed; the error latency for a failure) and whether it
// fails or answers invalid; ok is false for an unknown model. It is safe
// for concurrent use.
func modelDraw(cfg *sim.Config, seed uint64) func(model string, out int) (secs float64, failed, invalid, ok bool) {
	var mu sync.Mutex
	src := rand.NewPCG(seed, 7)
	models := map[string]*sim.Model{}
	for i := range cfg.Models {
		models[cfg.Models[i].Name] = &cfg.Models[i]
	}
	return func(model string, out int) (float64, bool, bool, bool) {
		m := models[model]
		if m == nil {
			return 0, false, false, false
		}
		mu.Lock()
		defer mu.Unlock()
		var secs float64
		if m.Latency != nil {
			secs = m.Latency.Rand(src)
		} else {
			secs = m.TTFT.Rand(src) + float64(out)/m.TokensPerSecond.Rand(src)
		}
		u := rand.New(src)
		failed, invalid := u.Float64() < m.ErrorRate, false
		if failed && m.ErrorLatency != nil {
			secs = m.ErrorLatency.Rand(src)
		} else if !failed {
			invalid = u.Float64() < m.InvalidRate
		}
		return secs, failed, invalid, true
	}
}

// e2eArrivals draws n Poisson arrivals at cfg's rate (scaled) and the
// class's output tokens.
func e2eArrivals(cfg *sim.Config, n int, seed uint64) []byte {
	src := rand.NewPCG(seed, 11)
	u := rand.New(src)
	type req struct {
		AtNS int64 `json:"at_ns"`
		Out  int   `json:"out"`
	}
	reqs := make([]req, n)
	at := 0.0
	for i := range reqs {
		at += u.ExpFloat64() / cfg.Arrivals.Rate
		out := 0
		if d := cfg.Classes[0].OutputTokens; d != nil {
			out = int(math.Round(max(d.Rand(src), 0)))
		}
		reqs[i] = req{AtNS: int64(at * float64(e2eScale)), Out: out}
	}
	b, _ := json.Marshal(reqs)
	return b
}

// simPrediction runs cfg as `hedgesim run` does and returns each
// request's time to a usable answer in simulated seconds (sorted, +Inf for
// a miss) and the attempts sent per request.
func simPrediction(t *testing.T, cfg *sim.Config) (lat []float64, calls float64) {
	t.Helper()
	c := *cfg
	c.Requests = e2eSimReqs
	res, err := sim.Run(&c)
	if err != nil {
		t.Fatal(err)
	}
	cr := res.Classes[0]
	return cr.Latencies(), float64(cr.Attempts.Sent) / float64(cr.Requests)
}

// buildHarnesses builds, in one temporary module, a harness per
// configuration with its class's exported policy (time-scaled), and
// returns the binaries' paths.
func buildHarnesses(t *testing.T, cfgs []*sim.Config) []string {
	t.Helper()
	files := map[string]string{}
	var bins []string
	for i, cfg := range cfgs {
		doc := ScenarioPolicies(cfg)
		scaleDoc(doc, e2eScale)
		snippet, _, err := Write(doc, "failsafe-go", Options{})
		if err != nil {
			t.Fatal(err)
		}
		id := ident(cfg.Classes[0].Name)
		pkg := fmt.Sprintf("policy%d", i)
		files[pkg+"/hedging.go"] = strings.Replace(string(snippet), "package hedging", "package "+pkg, 1)
		main := strings.ReplaceAll(e2eHarness, "policy.CLASS", pkg+"."+id)
		files[fmt.Sprintf("harness%d/main.go", i)] = strings.Replace(main, `"hedgingtest/policy"`, `"hedgingtest/`+pkg+`"`, 1)
	}
	dir := failsafeModule(t, files)
	// One go command builds every harness (into bin/, each named by its
	// package's directory): the module's packages are loaded once.
	args := []string{"build", "-o", filepath.Join(dir, "bin") + string(filepath.Separator)}
	for i := range cfgs {
		args = append(args, fmt.Sprintf("./harness%d", i))
		bins = append(bins, filepath.Join(dir, "bin", fmt.Sprintf("harness%d", i)))
	}
	if out, err := goCmd(t, dir, args...); err != nil {
		t.Fatalf("building the harnesses: %v\n%s", err, out)
	}
	return bins
}

// runHarness runs a harness built for cfg against a server of cfg's
// models and returns, per request, the latency to a usable answer in
// simulated seconds (sorted, +Inf for a miss), the attempts sent, and
// how late the request was launched in real seconds (sorted).
func runHarness(t *testing.T, bin string, cfg *sim.Config) (lat []float64, attempts []int, late []float64) {
	t.Helper()
	srv := e2eServer(cfg, 3)
	defer srv.Close()
	cmd := exec.Command(bin, srv.URL)
	cmd.Stdin = bytes.NewReader(e2eArrivals(cfg, e2eRequests, 5))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("harness: %v\n%s", err, stderr.String())
	}
	return parseHarness(t, out, e2eScale)
}

// parseHarness reads a harness's output, a JSON line per request
// (latency_s, -1 for a miss; attempts; late_s) in real seconds at time
// scale (1 simulated second = scale), and returns the latencies in
// simulated seconds (sorted, +Inf for a miss), the attempts, and how late
// each request was launched in real seconds (sorted).
func parseHarness(t *testing.T, out []byte, scale time.Duration) (lat []float64, attempts []int, late []float64) {
	t.Helper()
	ends := map[string]int{} // how requests ended, if the harness says
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var r struct {
			Latency  float64 `json:"latency_s"`
			Attempts int     `json:"attempts"`
			Late     float64 `json:"late_s"`
			End      string  `json:"end"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if r.End != "" {
			ends[r.End]++
		}
		l := math.Inf(1)
		if r.Latency >= 0 {
			l = r.Latency / scale.Seconds() // back to simulated seconds
		}
		lat = append(lat, l)
		attempts = append(attempts, r.Attempts)
		late = append(late, r.Late)
	}
	if len(ends) > 0 {
		t.Logf("requests ended by: %v", ends)
	}
	slices.Sort(lat)
	slices.Sort(late)
	return lat, attempts, late
}

// scaleDoc scales every duration of d's policies to real time: 1
// simulated second becomes scale.
func scaleDoc(d *Document, scale time.Duration) {
	f := func(s *Seconds) { *s = Seconds(time.Duration(*s) * scale / time.Second) }
	for i := range d.Classes {
		c := &d.Classes[i]
		f(&c.Deadline)
		f(&c.AttemptTimeout)
		f(&c.CancelLatency)
		for j := range c.Copies {
			f(&c.Copies[j].Delay)
		}
		if a := c.Adaptive; a != nil {
			f(&a.Min)
			f(&a.Max)
			f(&a.WindowTime)
		}
	}
}

// quantile is the nearest-rank quantile of sorted xs.
func quantile(xs []float64, p float64) float64 {
	k := int(math.Ceil(p*float64(len(xs)))) - 1
	return xs[max(k, 0)]
}

// compareE2E checks the real measures against the simulator's. late
// holds, sorted, how late the harness launched each request (real
// seconds): the timer lateness of this machine during the run.
func compareE2E(t *testing.T, name string, simLat []float64, simCalls float64, lat []float64, attempts []int, late []float64) {
	t.Helper()
	compareE2EScaled(t, name, e2eScale, simLat, simCalls, lat, attempts, late)
}

// compareE2EScaled is compareE2E at time scale (1 simulated second =
// scale), with the stall and busy-machine thresholds scaled as at
// e2eScale (a fifth of it).
func compareE2EScaled(t *testing.T, name string, scale time.Duration, simLat []float64, simCalls float64, lat []float64, attempts []int, late []float64) {
	t.Helper()
	n := float64(len(lat))
	maxLate, stallAt := e2eMaxLate*scale/e2eScale, e2eStall*scale/e2eScale
	p99Late := time.Duration(quantile(late, 0.99) * 1e9)
	if p99Late > maxLate {
		t.Skipf("%s: the machine is too busy for a timing comparison: timer lateness p50 %s, p99 %s > %s", name,
			time.Duration(quantile(late, 0.5)*1e9), p99Late, maxLate)
	}
	// Allowances: every latency may be late by the loopback floor plus the
	// measured p99 timer lateness; a request stalled longer than
	// e2eStall may flip its answer or a copy.
	jitterReal := e2eJitter + p99Late
	jitter := jitterReal.Seconds() / scale.Seconds()
	stalled := 0
	for _, l := range late {
		if l > stallAt.Seconds() {
			stalled++
		}
	}
	stall := float64(stalled) / n
	t.Logf("%s: timer lateness p50 %s, p99 %s; %.2f%% of requests launched > %s late", name,
		time.Duration(quantile(late, 0.5)*1e9), p99Late, 100*stall, stallAt)
	answered := func(xs []float64) float64 {
		k := 0
		for _, x := range xs {
			if !math.IsInf(x, 1) {
				k++
			}
		}
		return float64(k) / float64(len(xs))
	}
	ps, pr := answered(simLat), answered(lat)
	tol := e2eZ*math.Sqrt(ps*(1-ps)/n) + e2eZ*math.Sqrt(ps*(1-ps)/float64(len(simLat))) + 0.01 + 2*stall
	t.Logf("%s: answered share: simulated %.4f, real %.4f (± %.4f)", name, ps, pr, tol)
	if math.Abs(ps-pr) > tol {
		t.Errorf("%s: answered share %.4f real vs %.4f simulated; allowed ± %.4f", name, pr, ps, tol)
	}
	var sum, sum2 float64
	for _, a := range attempts {
		sum += float64(a)
		sum2 += float64(a * a)
	}
	mean := sum / n
	sd := math.Sqrt(max(sum2/n-mean*mean, 0))
	tol = e2eZ*sd/math.Sqrt(n) + 0.02 + 2*stall
	t.Logf("%s: calls per request: simulated %.4f, real %.4f (± %.4f)", name, simCalls, mean, tol)
	if math.Abs(mean-simCalls) > tol {
		t.Errorf("%s: calls per request %.4f real vs %.4f simulated; allowed ± %.4f", name, mean, simCalls, tol)
	}
	for _, p := range []float64{0.5, 0.9, 0.95} {
		// Distribution-free interval of the real p-quantile: the order
		// statistics at ranks np ∓ 3·sqrt(np(1−p)).
		half := e2eZ * math.Sqrt(n*p*(1-p))
		lo := lat[max(int(math.Floor(n*p-half))-1, 0)]
		hi := lat[min(int(math.Ceil(n*p+half))-1, len(lat)-1)]
		s := quantile(simLat, p)
		t.Logf("%s: p%g: simulated %s, real %s, real interval [%s, %s] + jitter %.2fs", name, 100*p, fs(s), fs(quantile(lat, p)), fs(lo), fs(hi), jitter)
		if s < lo-jitter || s > hi+jitter {
			t.Errorf("%s: simulated p%g %s outside the real sample's interval [%s, %s] ± %.2fs jitter", name, 100*p, fs(s), fs(lo), fs(hi), jitter)
		}
	}
}

func fs(x float64) string {
	if math.IsInf(x, 1) {
		return "miss"
	}
	return fmt.Sprintf("%.3fs", x)
}

// TestExportedFailsafeBehavesAsSimulated runs the exported failsafe-go
// policy of guard-check (field report 1: copies every 1 s, at most 3, a
// 3 s deadline) and of the two-model gateway's short class (a copy to a
// second model after 700 ms) in a real client, and compares it with the
// simulation of the same scenario.
func TestExportedFailsafeBehavesAsSimulated(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real HTTP client for a few seconds: not in -short")
	}
	t.Parallel() // waits on a real client or the go command: overlaps with the other round trips
	guard := loadShipped(t, "guard-check.toml")

	gw := loadShipped(t, "two-model-gateway.toml")
	short := gw.Classes[0]
	short.Share = 1
	gw.Arrivals.Rate *= gw.Classes[0].Share
	gw.Classes = []sim.Class{short}
	// failsafe-go sends the next copy on its timer, not at once after a
	// failure (the export says so: non-fatal failures become ignored), so
	// the simulation the real client must match is the policy as exported.
	p := &gw.Classes[0].Policy
	p.OnError, p.OnInvalid, p.OnRateLimited = sim.Ignore, sim.Ignore, sim.Ignore

	cases := []struct {
		name string
		cfg  *sim.Config
	}{{"guard-check", guard}, {"two-model-gateway/short", gw}}
	bins := buildHarnesses(t, []*sim.Config{guard, gw})
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			simLat, simCalls := simPrediction(t, c.cfg)
			lat, attempts, late := runHarness(t, bins[i], c.cfg)
			if len(lat) != e2eRequests {
				t.Fatalf("%s: %d results for %d requests", c.name, len(lat), e2eRequests)
			}
			compareE2E(t, c.name, simLat, simCalls, lat, attempts, late)
		})
	}
}
