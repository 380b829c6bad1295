package scenario

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/hedgesim/hedgesim/scenarios"
	"github.com/hedgesim/hedgesim/sim"
)

const replayScenario = "../scenarios/llmperf-azure-chat.toml"

// azureRows parses the shipped Azure extract independently of package fit
// (integer arithmetic on the timestamp text; every row is on 2023-11-16).
func azureRows(t *testing.T) (offs []time.Duration, in, out []float64) {
	t.Helper()
	data, err := os.ReadFile("../scenarios/data/azure-llm-inference-2023/conv-first3000.csv")
	if err != nil {
		t.Fatal(err)
	}
	var first int64
	for i, line := range strings.Split(strings.TrimRight(string(data), "\r\n"), "\r\n")[1:] {
		f := strings.Split(line, ",")
		_, clock, _ := strings.Cut(f[0], " ")
		hms, frac, _ := strings.Cut(clock, ".")
		p := strings.Split(hms, ":")
		var v int64
		for _, s := range p {
			n, _ := strconv.ParseInt(s, 10, 64)
			v = v*60 + n
		}
		ns, _ := strconv.ParseInt((frac + "000000000")[:9], 10, 64)
		v = v*1e9 + ns
		if i == 0 {
			first = v
		}
		offs = append(offs, time.Duration(v-first))
		a, _ := strconv.Atoi(f[1])
		b, _ := strconv.Atoi(f[2])
		in, out = append(in, float64(a)), append(out, float64(b))
	}
	return offs, in, out
}

// TestReplayExact is the acceptance test for trace replay: the
// shipped scenario replays the Azure extract, and the simulator sends
// every request's primary at the trace's arrival time with the trace's
// token counts, exactly (compared as integers of nanoseconds and tokens).
// Errors and hedging are switched off so every primary completes and is
// billed its full input and output tokens.
func TestReplayExact(t *testing.T) {
	sc, err := Load(replayScenario)
	if err != nil {
		t.Fatal(err)
	}
	cfg := sc.Config
	if cfg.Arrivals.Process != sim.Replay || cfg.Requests != 3000 {
		t.Fatalf("process %v, requests %d", cfg.Arrivals.Process, cfg.Requests)
	}
	cfg.Models = append([]sim.Model(nil), cfg.Models...)
	for i := range cfg.Models {
		cfg.Models[i].ErrorRate, cfg.Models[i].InvalidRate = 0, 0
	}
	base := sim.WithoutHedging(&cfg)
	for i := range base.Classes {
		base.Classes[i].Deadline = 0 // let hung primaries finish
	}
	offs, in, out := azureRows(t)
	type rec struct {
		start   time.Duration
		in, out float64
		class   string
	}
	got := map[int64]rec{}
	if _, err := sim.RunTrace(base, func(r *sim.AttemptRecord) {
		if r.Attempt == 0 {
			got[r.Request] = rec{r.Start, r.BilledInput, r.BilledOutput, r.Class}
		}
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(offs) {
		t.Fatalf("%d primaries, trace has %d requests", len(got), len(offs))
	}
	short := 0
	for i := range offs {
		r := got[int64(i)]
		if r.start != offs[i] || r.in != in[i] || r.out != out[i] {
			t.Fatalf("request %d: sent at %v with %v/%v tokens; trace says %v with %v/%v", i, r.start, r.in, r.out, offs[i], in[i], out[i])
		}
		want := "streamed"
		if out[i] <= 150 {
			want = "short"
			short++
		}
		if r.class != want {
			t.Fatalf("request %d (%v output tokens): class %s, want %s", i, out[i], r.class, want)
		}
	}
	if got, want := cfg.Classes[0].Share, float64(short)/3000; got != want {
		t.Errorf("short share %v, want %v", got, want)
	}
}

// TestReplayEmbedded: the embedded copy of the scenario reads its trace
// from the embedded FS, and gets the same config as the file.
func TestReplayEmbedded(t *testing.T) {
	a, err := LoadFS(scenarios.FS, "llmperf-azure-chat.toml")
	if err != nil {
		t.Fatal(err)
	}
	b, err := Load(replayScenario)
	if err != nil {
		t.Fatal(err)
	}
	ta, tb := a.Config.Arrivals.Trace, b.Config.Arrivals.Trace
	if len(ta.Arrivals) != len(tb.Arrivals) || ta.Arrivals[2999] != tb.Arrivals[2999] || ta.Class[17] != tb.Class[17] {
		t.Error("embedded and file scenarios differ")
	}
}

const traceCSV = "TIMESTAMP,ContextTokens,GeneratedTokens\n" +
	"2023-11-16 18:00:00.0000000,100,10\n" +
	"2023-11-16 18:00:01.5000000,200,200\n" +
	"2023-11-16 18:00:03.0000000,3000,20\n"

const replayModels = `
[models.m]
latency = { kind = "constant", value = 1 }
`

// loadReplay parses doc as s.toml next to the trace file t.csv (and a
// mooncake trace m.jsonl) in a MapFS.
func loadReplay(doc string) (*Scenario, error) {
	fsys := fstest.MapFS{
		"dir/s.toml":   {Data: []byte(doc)},
		"dir/t.csv":    {Data: []byte(traceCSV)},
		"dir/bad.csv":  {Data: []byte(traceCSV + "2023-11-16 18:00:04,abc,1\n")},
		"dir/m.jsonl":  {Data: []byte(`{"timestamp": 0, "input_length": 5, "output_length": 7}` + "\n" + `{"timestamp": 1000, "input_length": 6, "output_length": 8}` + "\n")},
		"outside.csv":  {Data: []byte(traceCSV)},
		"dir/README.x": {Data: nil},
	}
	return LoadFS(fsys, "dir/s.toml")
}

func TestReplayGood(t *testing.T) {
	sc, err := loadReplay(`
[arrivals]
process = "replay"
trace = "t.csv"
format = "azure"
time_scale = 0.5
` + replayModels + `
[[classes]]
name = "short"
match = { output_max = 20, input_max = 1000 }
[[classes]]
name = "rest"
`)
	if err != nil {
		t.Fatal(err)
	}
	tr := sc.Config.Arrivals.Trace
	if want := []time.Duration{0, 750 * time.Millisecond, 1500 * time.Millisecond}; tr.Arrivals[1] != want[1] || tr.Arrivals[2] != want[2] {
		t.Errorf("scaled arrivals %v, want %v", tr.Arrivals, want)
	}
	// Request 2 has 20 output tokens but 3000 input tokens: not short.
	if c := tr.Class; c[0] != 0 || c[1] != 1 || c[2] != 1 {
		t.Errorf("classes %v, want [0 1 1]", c)
	}
	if s := sc.Config.Classes[0].Share; s != 1.0/3 {
		t.Errorf("share %v, want 1/3", s)
	}
	// By share: no match, classes drawn at random, tokens from the trace.
	sc, err = loadReplay(`
requests = 2
[arrivals]
process = "replay"
trace = "m.jsonl"
format = "mooncake"
` + replayModels + `
[[classes]]
name = "a"
share = 0.5
[[classes]]
name = "b"
share = 0.5
`)
	if err != nil {
		t.Fatal(err)
	}
	if tr := sc.Config.Arrivals.Trace; tr.Class != nil || tr.Arrivals[1] != time.Second || tr.Output[1] != 8 || sc.Config.Requests != 2 {
		t.Errorf("mooncake replay: %+v, requests %d", tr, sc.Config.Requests)
	}
}

func TestReplayBad(t *testing.T) {
	arrivals := "[arrivals]\nprocess = \"replay\"\ntrace = \"t.csv\"\nformat = \"azure\"\n"
	one := "[[classes]]\nname = \"c\"\n"
	for _, tc := range []struct {
		name, doc string
		line      int
		key, msg  string
	}{
		{"rate with replay", "[arrivals]\nprocess = \"replay\"\nrate = 3\n" + replayModels + one, 3, "arrivals.rate", "does not apply"},
		{"no trace", "[arrivals]\nprocess = \"replay\"\nformat = \"azure\"\n" + replayModels + one, 1, "arrivals.trace", "missing"},
		{"no format", "[arrivals]\nprocess = \"replay\"\ntrace = \"t.csv\"\n" + replayModels + one, 1, "arrivals.format", `"azure" or "mooncake"`},
		{"unknown format", "[arrivals]\nprocess = \"replay\"\ntrace = \"t.csv\"\nformat = \"burst\"\n" + replayModels + one, 4, "arrivals.format", `unknown value "burst"`},
		{"bad scale", arrivals + "time_scale = 0\n" + replayModels + one, 5, "arrivals.time_scale", "want a finite factor > 0"},
		{"no such trace", "[arrivals]\nprocess = \"replay\"\ntrace = \"nope.csv\"\nformat = \"azure\"\n" + replayModels + one, 3, "arrivals.trace", "cannot read dir/nope.csv"},
		{"outside the FS dir", "[arrivals]\nprocess = \"replay\"\ntrace = \"../../x.csv\"\nformat = \"azure\"\n" + replayModels + one, 3, "arrivals.trace", "outside the embedded scenario directory"},
		{"bad trace row", "[arrivals]\nprocess = \"replay\"\ntrace = \"bad.csv\"\nformat = \"azure\"\n" + replayModels + one, 3, "arrivals.trace", `dir/bad.csv:5: ContextTokens: "abc" is not a number`},
		{"wrong format for file", "[arrivals]\nprocess = \"replay\"\ntrace = \"t.csv\"\nformat = \"mooncake\"\n" + replayModels + one, 3, "arrivals.trace", "dir/t.csv:1: not a JSON object"},
		{"trace with poisson", "[arrivals]\nrate = 1\ntrace = \"t.csv\"\n" + replayModels + one, 3, "arrivals.trace", `applies only to process = "replay"`},
		{"match without replay", "[arrivals]\nrate = 1\n" + replayModels + "[[classes]]\nname = \"c\"\nmatch = { output_max = 3 }\n", 8, "classes[0].match", "applies only to replayed traffic"},
		{"tokens with replay", arrivals + replayModels + "[[classes]]\nname = \"c\"\noutput_tokens = { kind = \"constant\", value = 3 }\n", 10, "classes[0].output_tokens", "the trace gives"},
		{"share with match", arrivals + replayModels + "[[classes]]\nname = \"a\"\nshare = 0.5\nmatch = { output_max = 3 }\n[[classes]]\nname = \"b\"\nshare = 0.5\n", 10, "classes[0].share", "does not apply when classes are assigned by match"},
		{"empty match", arrivals + replayModels + "[[classes]]\nname = \"c\"\nmatch = {}\n", 10, "classes[0].match", "empty"},
		{"min above max", arrivals + replayModels + "[[classes]]\nname = \"c\"\nmatch = { output_min = 9, output_max = 3 }\n", 10, "classes[0].match.output_min", "above output_max"},
		{"negative bound", arrivals + replayModels + "[[classes]]\nname = \"c\"\nmatch = { input_max = -1 }\n", 10, "classes[0].match.input_max", "negative"},
		{"misspelled bound", arrivals + replayModels + "[[classes]]\nname = \"c\"\nmatch = { output_maxx = 3 }\n", 10, "classes[0].match.output_maxx", `did you mean "output_max"`},
		{"request without class", arrivals + replayModels + "[[classes]]\nname = \"c\"\nmatch = { output_max = 100 }\n", 8, "classes", "dir/t.csv:3 (200 input, 200 output tokens) matches no class"},
		{"class taking none", arrivals + replayModels + "[[classes]]\nname = \"a\"\n[[classes]]\nname = \"b\"\nmatch = { output_max = 100 }\n", 12, "classes[1].match", "takes none of the 3 replayed requests"},
		{"too many requests", "requests = 4\n" + arrivals + replayModels + one, 1, "requests", "more than the 3 requests in the trace dir/t.csv"},
	} {
		_, err := loadReplay(tc.doc)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: got %v, want an *Error", tc.name, err)
			continue
		}
		if e.File != "dir/s.toml" || e.Line != tc.line || e.Key != tc.key || !strings.Contains(e.Msg, tc.msg) {
			t.Errorf("%s: got %q (line %d, key %q), want line %d, key %q, message containing %q", tc.name, e.Error(), e.Line, e.Key, tc.line, tc.key, tc.msg)
		}
	}
}

// TestReplayTraceErrorAlone: a trace that cannot be read is the only
// problem reported for classes assigned by match rules (their shares
// come from the trace: "share missing" would only follow from the trace
// error); classes without rules still need their shares, and other
// replay rules still apply.
func TestReplayTraceErrorAlone(t *testing.T) {
	arrivals := "[arrivals]\nprocess = \"replay\"\ntrace = \"nope.csv\"\nformat = \"azure\"\n"
	for _, tc := range []struct {
		name, doc string
		keys      []string
	}{
		{"by rule", arrivals + replayModels + "[[classes]]\nname = \"a\"\nmatch = { output_max = 3 }\n[[classes]]\nname = \"b\"\n",
			[]string{"arrivals.trace"}},
		{"by share, shares missing", arrivals + replayModels + "[[classes]]\nname = \"a\"\n[[classes]]\nname = \"b\"\n",
			[]string{"arrivals.trace", "classes[0].share", "classes[1].share"}},
		{"tokens with replay", arrivals + replayModels + "[[classes]]\nname = \"c\"\noutput_tokens = { kind = \"constant\", value = 3 }\n",
			[]string{"arrivals.trace", "classes[0].output_tokens"}},
	} {
		_, err := loadReplay(tc.doc)
		var keys []string
		var list Errors
		var one *Error
		switch {
		case errors.As(err, &list):
			for _, e := range list {
				keys = append(keys, e.Key)
			}
		case errors.As(err, &one):
			keys = []string{one.Key}
		}
		if strings.Join(keys, " ") != strings.Join(tc.keys, " ") {
			t.Errorf("%s: problems at %q, want %q: %v", tc.name, keys, tc.keys, err)
		}
	}
}

// TestReplayRelativeToFile: Parse reads the trace relative to the
// scenario file's directory on disk.
func TestReplayRelativeToFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/t.csv", []byte(traceCSV), 0o644); err != nil {
		t.Fatal(err)
	}
	doc := "[arrivals]\nprocess = \"replay\"\ntrace = \"t.csv\"\nformat = \"azure\"\n" + replayModels + "[[classes]]\nname = \"c\"\n"
	if err := os.WriteFile(dir+"/s.toml", []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := Load(dir + "/s.toml")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(sc.Config.Arrivals.Trace.Arrivals); n != 3 || sc.Config.Requests != 3 {
		t.Errorf("%d arrivals, %d requests; want 3", n, sc.Config.Requests)
	}
}

// TestReplayTooManyRequestsAlone: requests beyond a trace matched to its
// classes by rule is the one error: the classes, whose shares come from
// the trace, are not also blamed for a missing share.
func TestReplayTooManyRequestsAlone(t *testing.T) {
	doc := "requests = 4\n[arrivals]\nprocess = \"replay\"\ntrace = \"t.csv\"\nformat = \"azure\"\n" + replayModels +
		"[[classes]]\nname = \"short\"\nmatch = { output_max = 100 }\n[[classes]]\nname = \"long\"\n"
	_, err := loadReplay(doc)
	if err == nil || !strings.Contains(err.Error(), "more than the 3 requests in the trace") {
		t.Fatalf("got %v, want the requests error", err)
	}
	if strings.Contains(err.Error(), "share") {
		t.Errorf("the requests error comes with share errors:\n%v", err)
	}
}
