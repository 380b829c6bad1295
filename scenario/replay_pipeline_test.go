package scenario

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/sim"
)

// replayPipeline is a replayed pipeline class of two steps, s1 and s2 (s2
// reads s1's output), over a model billed 1 USD per million input tokens
// and 1000 per million output tokens; s1's and s2's extra keys follow
// their names.
func replayPipeline(s1, s2 string) string {
	return `
[arrivals]
process = "replay"
trace = "t.csv"
format = "azure"
[models.m]
latency = { kind = "constant", value = 1 }
price_input_per_mtok = 1.0
price_output_per_mtok = 1000.0
[[classes]]
name = "p"
[[classes.steps]]
name = "s1"
` + s1 + `
[[classes.steps]]
name = "s2"
input_from = ["s1.output"]
input_tokens = { kind = "constant", value = 7 }
output_tokens = { kind = "constant", value = 5 }
` + s2
}

// TestReplayPipelineFirstStepTokens: under a replayed trace a pipeline's
// first call takes the trace's token counts, so input_tokens or
// output_tokens on a first step of one call apply to no call: an error
// with the file, line and key (validate once said ok and ignored them), as
// on a one-call class. On a fanned-out or repeated first step they give
// the calls after the first theirs, and a later step draws its own and
// adds what it reads. Checked by the steps' bills over the trace's three requests
// (input 100, 200, 3000; output 10, 200, 20 tokens).
func TestReplayPipelineFirstStepTokens(t *testing.T) {
	for _, tc := range []struct {
		name, s1 string
		line     int
		key      string
	}{
		{"output", "output_tokens = { kind = \"constant\", value = 100 }", 14, "classes[0].steps[0].output_tokens"},
		{"input", "input_tokens = { kind = \"constant\", value = 100 }", 14, "classes[0].steps[0].input_tokens"},
	} {
		_, err := loadReplay(replayPipeline(tc.s1, ""))
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: got %v, want an *Error", tc.name, err)
			continue
		}
		if e.File != "dir/s.toml" || e.Line != tc.line || e.Key != tc.key || !strings.Contains(e.Msg, "does not apply to replayed traffic: the trace gives the first step's call") {
			t.Errorf("%s: got %q (line %d, key %q), want line %d, key %q, does not apply to replayed traffic", tc.name, e.Error(), e.Line, e.Key, tc.line, tc.key)
		}
	}
	const in, out = 3300.0, 230.0 // the trace's tokens, summed
	for _, tc := range []struct {
		name, s1 string
		// bills in USD: s1's, then s2's
		s1USD, s2USD float64
	}{
		// s1: the trace's tokens; s2: 7 in + s1's output, 5 out, per request.
		{"one call", "", in*1e-6 + out*1e-3, (3*7+out)*1e-6 + 3*5*1e-3},
		// s1's second call: no input tokens, 50 output, read by s2 too.
		{"fanned out", "fan_out = 2\noutput_tokens = { kind = \"constant\", value = 50 }", in*1e-6 + (out+3*50)*1e-3, (3*7+out+3*50)*1e-6 + 3*5*1e-3},
		// s1's second iteration likewise.
		{"repeated", "repeat = { kind = \"constant\", value = 2 }\nmax_repeat = 2\noutput_tokens = { kind = \"constant\", value = 50 }", in*1e-6 + (out+3*50)*1e-3, (3*7+out+3*50)*1e-6 + 3*5*1e-3},
	} {
		sc, err := loadReplay(replayPipeline(tc.s1, ""))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		res, err := sim.Run(&sc.Config)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		steps := res.Classes[0].Pipeline.Steps
		for i, want := range []float64{tc.s1USD, tc.s2USD} {
			got := steps[i].CostCompletedUSD + steps[i].CostCancelledUSD
			if math.Abs(got-want) > 1e-9*want {
				t.Errorf("%s: step %s billed %.9g USD, want %.9g", tc.name, steps[i].Name, got, want)
			}
		}
	}
}
