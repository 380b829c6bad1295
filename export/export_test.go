package export

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestGolden compares the polly and json formats of two shipped scenarios
// with testdata/*.golden; -update rewrites them.
func TestGolden(t *testing.T) {
	for _, name := range []string{"guard-check", "two-model-gateway"} {
		for _, format := range []string{"polly", "json"} {
			d := ScenarioPolicies(loadShipped(t, name+".toml"))
			out, _, err := Write(d, format, Options{})
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", format+"-"+name+".golden")
			if *update {
				if err := os.WriteFile(golden, out, 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./export -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), string(out)); diff != "" {
				t.Errorf("%s differs (-golden +got); run go test ./export -update if the change is intended:\n%s", golden, diff)
			}
		}
	}
}

// TestJSONGatewayNamesSecondary: the json format of the two-model gateway
// names, per class, the primary and the secondary model of each copy.
func TestJSONGatewayNamesSecondary(t *testing.T) {
	out, notes, err := Write(ScenarioPolicies(loadShipped(t, "two-model-gateway.toml")), "json", Options{})
	if err != nil || len(notes) != 0 {
		t.Fatalf("err %v, notes %v; the json format expresses everything", err, notes)
	}
	d, err := Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"short": 0.7, "medium": 1.2, "long": 1.8, "strict-sla": 0.3}
	for _, c := range d.Classes {
		if c.Primary != "large-a" || len(c.Copies) != 1 || c.Copies[0].Target != "large-b" || c.Copies[0].Delay.D().Seconds() != want[c.Class] {
			t.Errorf("%s: primary %s, copies %+v; want large-a, one copy to large-b after %gs", c.Class, c.Primary, c.Copies, want[c.Class])
		}
	}
}

// TestDecodeRoundTrip: every shipped scenario's document reads back equal
// to what was written.
func TestDecodeRoundTrip(t *testing.T) {
	for _, d := range shippedDocs(t) {
		var b bytes.Buffer
		if err := d.Encode(&b); err != nil {
			t.Fatal(err)
		}
		got, err := Decode(&b)
		if err != nil {
			t.Fatalf("%s: %v", d.Scenario, err)
		}
		if diff := cmp.Diff(d, got); diff != "" {
			t.Errorf("%s: round trip (-written +read):\n%s", d.Scenario, diff)
		}
	}
}

// TestDecodeStrict: unknown fields, wrong types, trailing values and
// out-of-range values are errors naming the field.
func TestDecodeStrict(t *testing.T) {
	var b bytes.Buffer
	if err := ScenarioPolicies(loadShipped(t, "guard-check.toml")).Encode(&b); err != nil {
		t.Fatal(err)
	}
	good := b.String()
	cases := []struct{ name, old, new, want string }{
		{"unknown field", `"winner"`, `"winer": "first_valid", "winner"`, `unknown field "winer"`},
		{"wrong type", `"copies": [`, `"copies": 3, "x": [`, "copies"},
		{"negative seconds", `"deadline_s": 3`, `"deadline_s": -3`, "want seconds"},
		{"bad rule", `"on_error": "fatal"`, `"on_error": "fatl"`, `on_error: got "fatl"`},
		{"bad format", `"format": "hedgesim-policy"`, `"format": "other"`, "format"},
		{"hedge without copies", `"hedge": true`, `"hedge": false`, "copies"},
		{"trailing value", "\n}\n", "\n}\n{}", "more than one JSON value"},
	}
	for _, c := range cases {
		if !strings.Contains(good, c.old) {
			t.Fatalf("%s: %q not in the document", c.name, c.old)
		}
		bad := strings.Replace(good, c.old, c.new, 1)
		if c.name == "trailing value" {
			bad = strings.TrimSuffix(good, "\n") + "\n{}"
		}
		_, err := Decode(strings.NewReader(bad))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v; want one containing %q", c.name, err, c.want)
		}
	}
}

// timeSpan parses what pollyTimeSpan writes.
func timeSpan(t *testing.T, s string) time.Duration {
	t.Helper()
	m := regexp.MustCompile(`^(-?)(?:(\d+)\.)?(\d\d):(\d\d):(\d\d)(?:\.(\d{7}))?$`).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("%q is not a .NET TimeSpan", s)
	}
	n := func(x string) time.Duration { v, _ := strconv.Atoi(x); return time.Duration(v) }
	d := n(m[2])*24*time.Hour + n(m[3])*time.Hour + n(m[4])*time.Minute + n(m[5])*time.Second + n(m[6])*100
	if m[1] == "-" {
		d = -d
	}
	return d
}

// TestPollyValidates: the polly output of every shipped scenario (under
// Approximate, which writes the classes Polly cannot express exactly in
// their nearest form) is JSON once its comment lines are dropped, uses the
// documented keys only, and
// passes the rules of the library's options validator
// (HttpStandardHedgingResilienceOptionsCustomValidator) and Polly's ranges.
func TestPollyValidates(t *testing.T) {
	for _, d := range shippedDocs(t) {
		out, _, err := Write(d, "polly", Options{Approximate: true})
		if err != nil {
			if _, ok := err.(*UnmappableError); ok {
				continue
			}
			t.Fatalf("%s: %v", d.Scenario, err)
		}
		var lines []string
		for _, l := range strings.Split(string(out), "\n") {
			if !strings.HasPrefix(l, "//") {
				lines = append(lines, l)
			}
		}
		var doc map[string]map[string]PollyOptions
		dec := json.NewDecoder(strings.NewReader(strings.Join(lines, "\n")))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&doc); err != nil {
			t.Fatalf("%s: %v", d.Scenario, err)
		}
		for _, c := range d.Classes {
			o, ok := doc[PollySection][c.Class]
			if !ok {
				t.Fatalf("%s: no section for class %s", d.Scenario, c.Class)
			}
			total, attempt := timeSpan(t, o.TotalRequestTimeout.Timeout), timeSpan(t, o.Endpoint.Timeout.Timeout)
			sampling := 30 * time.Second
			if o.Endpoint.CircuitBreaker != nil {
				sampling = timeSpan(t, o.Endpoint.CircuitBreaker.SamplingDuration)
			}
			delay := timeSpan(t, o.Hedging.Delay)
			switch {
			case attempt > total:
				t.Errorf("%s/%s: attempt timeout %s > total %s", d.Scenario, c.Class, attempt, total)
			case sampling < 2*attempt || sampling > 24*time.Hour:
				t.Errorf("%s/%s: sampling duration %s for attempt timeout %s", d.Scenario, c.Class, sampling, attempt)
			case o.Hedging.MaxHedgedAttempts < 1 || o.Hedging.MaxHedgedAttempts > 10:
				t.Errorf("%s/%s: MaxHedgedAttempts %d outside [1, 10]", d.Scenario, c.Class, o.Hedging.MaxHedgedAttempts)
			case delay > 0 && time.Duration(o.Hedging.MaxHedgedAttempts)*delay > total:
				t.Errorf("%s/%s: %d × %s > total %s", d.Scenario, c.Class, o.Hedging.MaxHedgedAttempts, delay, total)
			case total < 10*time.Millisecond || total > 24*time.Hour:
				t.Errorf("%s/%s: total timeout %s outside [10ms, 1 day]", d.Scenario, c.Class, total)
			case !c.Hedge && delay != -time.Millisecond:
				t.Errorf("%s/%s: hedging off written with Delay %s; want -1 ms (fallback mode)", d.Scenario, c.Class, delay)
			}
		}
	}
}

// optimizeReport runs optimize on a shipped scenario with n requests per
// candidate and returns its JSON report.
func optimizeReport(t *testing.T, name string, n int, edit func(*scenario.Scenario)) ([]byte, *optimize.Report, *scenario.Scenario) {
	t.Helper()
	sc, err := scenario.LoadFS(scenarios.FS, name)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(sc)
	}
	s := sc.Optimize
	s.Requests = n
	// A short grid keeps the test fast: copies every 0.5 s or 1 s, up to
	// 5, at any cost.
	s.Search.Delays = []time.Duration{500 * time.Millisecond, time.Second}
	s.Search.Copies = []int{2, 5}
	s.Search.Objective.MaxAddedCostPct = math.Inf(1)
	rep, err := optimize.Run(&sc.Config, s, optimize.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), rep, sc
}

// TestReportPicks: exporting an optimize report gives each class's pick
// (delay, copies, target) with the rest of the scenario's policy, and a
// class whose verdict is "don't hedge" exports hedging off.
func TestReportPicks(t *testing.T) {
	data, rep, sc := optimizeReport(t, "guard-check.toml", 5000, nil)
	d, err := ReportPicks(data, &sc.Config)
	if err != nil {
		t.Fatal(err)
	}
	// Correlation 1: a copy is exactly as slow as the original, so the
	// verdict must be "don't hedge".
	dataOff, repOff, scOff := optimizeReport(t, "guard-check.toml", 5000, func(s *scenario.Scenario) {
		s.Config.Correlation.SameModel = 1
	})
	off, err := ReportPicks(dataOff, &scOff.Config)
	if err != nil {
		t.Fatal(err)
	}
	if repOff.Classes[0].Verdict.Hedge {
		t.Fatalf("correlation 1 gave verdict hedge: %s", repOff.Classes[0].Verdict.Reason)
	}
	if c := off.Classes[0]; c.Hedge || len(c.Copies) != 0 || c.Reason == "" {
		t.Errorf("don't-hedge class exported as hedge %v, copies %v, reason %q; want hedging off with the verdict's reason", c.Hedge, c.Copies, c.Reason)
	}
	for _, doc := range []struct {
		d   *Document
		rep *optimize.Report
	}{{d, rep}, {off, repOff}} {
		for i, cr := range doc.rep.Classes {
			c, pick := doc.d.Classes[i], cr.Picked()
			if c.Class != cr.Class || c.Hedge != (cr.Verdict.Hedge && pick.Hedging) {
				t.Fatalf("%s: hedge %v; verdict %v", cr.Class, c.Hedge, cr.Verdict.Hedge)
			}
			if !c.Hedge {
				continue
			}
			if len(c.Copies) != pick.Copies {
				t.Errorf("%s: %d copies, pick has %d", cr.Class, len(c.Copies), pick.Copies)
			}
			for _, cp := range c.Copies {
				if cp.Delay.D() != pick.Delay || cp.Target != pick.Target {
					t.Errorf("%s: copy %+v; pick %s to %s", cr.Class, cp, pick.Delay, pick.Target)
				}
			}
			sp := ScenarioPolicies(&sc.Config).Classes[i]
			if c.OnError != sp.OnError || c.Winner != sp.Winner || c.Deadline != sp.Deadline || c.Primary != sp.Primary {
				t.Errorf("%s: the rest of the policy differs from the scenario's: %+v vs %+v", cr.Class, c, sp)
			}
		}
	}
	if d.Source != FromReport || !d.Classes[0].Hedge {
		t.Errorf("guard-check report: source %q, hedge %v; want %q and a hedge pick (field report 1)", d.Source, d.Classes[0].Hedge, FromReport)
	}
}

// TestReportRejects: documents that are not optimize reports, and reports
// that do not match the scenario, are errors.
func TestReportRejects(t *testing.T) {
	data, _, sc := optimizeReport(t, "guard-check.toml", 2000, nil)
	other := loadShipped(t, "two-model-gateway.toml")
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"a policy document", func() []byte {
			var b bytes.Buffer
			ScenarioPolicies(&sc.Config).Encode(&b)
			return b.Bytes()
		}(), "not a hedgesim optimize report"},
		{"a run report", []byte(`{"scenario": "x", "classes": [{"class": "a"}]}`), "not a hedgesim optimize report"},
		{"not JSON", []byte(`{"scenario": `), "not a hedgesim optimize report"},
		{"bad pick", regexp.MustCompile(`"pick": \d+`).ReplaceAll(data, []byte(`"pick": 99`)), "not one of its"},
	}
	for _, c := range cases {
		_, err := ReportPicks(c.data, &sc.Config)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v; want one containing %q", c.name, err, c.want)
		}
	}
	if _, err := ReportPicks(data, other); err == nil || !strings.Contains(err.Error(), "not a class of scenario") {
		t.Errorf("report against another scenario: error %v", err)
	}
}

// TestUnmappable: an adaptive delay cannot be written for gRPC, Envoy or
// Polly, fallback copies not for gRPC, Envoy or failsafe-go; failsafe-go
// writes the adaptive delay as its quantile delay under --approximate
// only, since that is another estimate (TestFailsafeAdaptiveRefused).
func TestUnmappable(t *testing.T) {
	d := ScenarioPolicies(loadShipped(t, "guard-check.toml"))
	d.Classes[0].Adaptive = &Adaptive{Percentile: 0.9, Window: 500, WarmUp: 50, Source: "primaries"}
	for _, f := range []string{"grpc", "envoy", "polly"} {
		var ue *UnmappableError
		if _, _, err := Write(d, f, Options{}); !errors.As(err, &ue) || ue.Class != "check" {
			t.Errorf("%s with an adaptive delay: error %v; want an UnmappableError for class check", f, err)
		}
	}
	out, notes, err := Write(d, "failsafe-go", Options{Approximate: true})
	if err != nil || !bytes.Contains(out, []byte("NewBuilderWithDelayQuantile[*http.Response](0.9, 500, 50)")) {
		t.Errorf("failsafe-go with an adaptive delay: err %v\n%s", err, out)
	}
	wantNote(t, notes, "check", "approximate: the delay is the p90 of the last 500 primaries' latencies, from 50 samples on, but failsafe-go's quantile delay is a decaying estimate")

	d = ScenarioPolicies(loadShipped(t, "guard-check.toml"))
	for j := range d.Classes[0].Copies {
		d.Classes[0].Copies[j] = Copy{Target: "llama-guard", Fallback: true}
	}
	if out, _, err := Write(d, "polly", Options{}); err != nil || !bytes.Contains(out, []byte(`"Delay": "-00:00:00.0010000"`)) {
		t.Errorf("polly with fallback copies: err %v; want Delay -1 ms\n%s", err, out)
	}
	// Timed copies and fallback copies in one class: only Polly's single
	// Delay, gRPC's one policy per method, Envoy's one retry policy and
	// failsafe-go's hedge-or-retry cannot say it.
	d.Classes[0].Copies[0] = Copy{Target: "llama-guard", Delay: Seconds(time.Second)}
	for _, f := range []string{"grpc", "envoy", "failsafe-go", "polly"} {
		var ue *UnmappableError
		if _, _, err := Write(d, f, Options{}); !errors.As(err, &ue) {
			t.Errorf("%s with timed and fallback copies: error %v; want an UnmappableError", f, err)
		}
	}
}

// TestPollyNoAttemptTimeoutNote: a class without an attempt timeout (and
// without a deadline) gets a note saying so and what Endpoint.Timeout is
// written instead, not one about an attempt timeout it does not have.
func TestPollyNoAttemptTimeoutNote(t *testing.T) {
	d := variantDoc(t)
	d.Classes = d.Classes[1:2]
	if d.Classes[0].AttemptTimeout != 0 || d.Classes[0].Deadline != 0 {
		t.Fatalf("class %s: want neither attempt timeout nor deadline", d.Classes[0].Class)
	}
	_, notes, err := Write(d, "polly", Options{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, n := range notes {
		if strings.Contains(n.Text, "the attempt timeout is") {
			t.Errorf("note about an attempt timeout the class does not have: %s", n.Text)
		}
		found = found || strings.Contains(n.Text, "no attempt timeout") && strings.Contains(n.Text, "12:00:00")
	}
	if !found {
		t.Errorf("no note saying the class has no attempt timeout and Endpoint.Timeout 12:00:00 is written: %v", notes)
	}
}

// TestStreamCuts: a class's stream cuts go into the JSON document and back,
// and every runtime format says it does not write them.
func TestStreamCuts(t *testing.T) {
	d := ScenarioPolicies(loadShipped(t, "stream-stalls.toml"))
	agent := d.Classes[1]
	want := StreamCuts{InterTokenTimeout: Seconds(2 * time.Second), MinTokensPerSecond: 10, SpeedWindow: Seconds(3 * time.Second), OnStall: "nonfatal"}
	if agent.Class != "agent" || agent.StreamCuts == nil || *agent.StreamCuts != want || d.Classes[0].StreamCuts != nil {
		t.Fatalf("agent's stream cuts %+v, chat's %+v; want %+v and none", agent.StreamCuts, d.Classes[0].StreamCuts, want)
	}
	var b bytes.Buffer
	if err := d.Encode(&b); err != nil {
		t.Fatal(err)
	}
	back, err := Decode(&b)
	if err != nil || back.Classes[1].StreamCuts == nil || *back.Classes[1].StreamCuts != want {
		t.Fatalf("decoded %v, %+v", err, back)
	}
	for _, f := range []string{"grpc", "envoy", "failsafe-go", "polly"} {
		_, notes, err := Write(d, f, Options{Approximate: true})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		wantNote(t, notes, "agent", "inter-token timeout 2s / speed floor 10 tokens/s over 3s are not written")
	}
	agent.StreamCuts.OnStall = "retry"
	d.Classes[1] = agent
	if err := d.Validate(); err == nil || !strings.Contains(err.Error(), "stream_cuts.on_stall") {
		t.Errorf("a bad on_stall: %v", err)
	}
}
