package scenario

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/sim"
)

const stalledModel = `
[arrivals]
rate = 1
[models.m]
ttft = { kind = "constant", value = 0.5 }
tokens_per_s = { kind = "constant", value = 50 }
`

func TestParseStalls(t *testing.T) {
	s, err := Parse("s.toml", []byte(stalledModel+`stalls = { rate = 0.05, duration = { kind = "constant", value = 60 }, at = "first_token" }
[[classes]]
name = "c"
[classes.hedge]
delay = "fallback"
max_copies = 1
winner = "first_token"
attempt_timeout = "5s"
on_attempt_timeout = "ignore"
inter_token_timeout = "3s"
min_tokens_per_s = 10
`))
	if err != nil {
		t.Fatal(err)
	}
	st := s.Config.Models[0].Stalls
	if st.Rate != 0.05 || st.At != sim.BeforeFirstToken || st.Duration == nil || st.Duration.Quantile(0.5) != 60 {
		t.Errorf("stalls %+v", st)
	}
	// speed_window defaults to 2 s; on_stall to on_attempt_timeout.
	want := sim.StreamCuts{InterTokenTimeout: 3 * time.Second, MinTokensPerSecond: 10, SpeedWindow: 2 * time.Second, OnStall: sim.Ignore}
	if p := s.Config.Classes[0].Policy; p.StreamCuts != want {
		t.Errorf("stream cuts %+v, want %+v", p.StreamCuts, want)
	}
	s, err = Parse("s.toml", []byte(stalledModel+"stalls = { rate = 1, duration = { kind = \"uniform\", min = 1, max = 2 } }\n[[classes]]\nname = \"c\"\n[classes.hedge]\nmin_tokens_per_s = 5\nspeed_window = \"500ms\"\non_stall = \"fatal\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if st := s.Config.Models[0].Stalls; st.At != sim.MidStream {
		t.Errorf("default stall point %v, want mid_stream", st.At)
	}
	if p := s.Config.Classes[0].Policy; p.SpeedWindow != 500*time.Millisecond || p.OnStall != sim.Fatal {
		t.Errorf("stream cuts %+v", p.StreamCuts)
	}
}

// TestParseStallsBad: every bad value is reported at its line, with its key
// and what is allowed — all at once.
func TestParseStallsBad(t *testing.T) {
	tail := "[[classes]]\nname = \"c\"\n"
	hedge := "[[classes]]\nname = \"c\"\n[classes.hedge]\n"
	for _, tt := range []struct {
		name, toml string
		line       int
		key, msg   string
	}{
		{"latency form", failuresModel + "stalls = { rate = 0.1, duration = { kind = \"constant\", value = 1 } }\n" + tail, 6, "models.m.stalls", "latency form"},
		{"missing rate", stalledModel + "stalls = { duration = { kind = \"constant\", value = 1 } }\n" + tail, 7, "models.m.stalls.rate", "missing"},
		{"rate out of range", stalledModel + "stalls = { rate = 1.5, duration = { kind = \"constant\", value = 1 } }\n" + tail, 7, "models.m.stalls.rate", "not a probability"},
		{"missing duration", stalledModel + "stalls = { rate = 0.1 }\n" + tail, 7, "models.m.stalls.duration", "missing"},
		{"negative duration", stalledModel + "stalls = { rate = 0.1, duration = { kind = \"uniform\", min = -1, max = 1 } }\n" + tail, 7, "models.m.stalls.duration", "must stay ≥ 0"},
		{"duration as a string", stalledModel + "stalls = { rate = 0.1, duration = \"60s\" }\n" + tail, 7, "models.m.stalls.duration", ""},
		{"unknown point", stalledModel + "stalls = { rate = 0.1, duration = { kind = \"constant\", value = 1 }, at = \"end\" }\n" + tail, 7, "models.m.stalls.at", `allowed: "mid_stream", "first_token"`},
		{"unknown key", stalledModel + "stalls = { rate = 0.1, duration = { kind = \"constant\", value = 1 }, length = 1 }\n" + tail, 7, "models.m.stalls.length", "unknown key"},
		{"bare gap", stalledModel + hedge + "inter_token_timeout = 3\n", 10, "classes[0].hedge.inter_token_timeout", "with a unit"},
		{"negative gap", stalledModel + hedge + "inter_token_timeout = \"-1s\"\n", 10, "classes[0].hedge.inter_token_timeout", "negative"},
		{"negative floor", stalledModel + hedge + "min_tokens_per_s = -1\n", 10, "classes[0].hedge.min_tokens_per_s", "want a decode speed ≥ 0"},
		{"window alone", stalledModel + hedge + "speed_window = \"1s\"\n", 10, "classes[0].hedge.speed_window", "needs min_tokens_per_s"},
		{"empty window", stalledModel + hedge + "min_tokens_per_s = 5\nspeed_window = \"0s\"\n", 11, "classes[0].hedge.speed_window", "want a duration > 0"},
		{"bad rule", stalledModel + hedge + "on_stall = \"retry\"\n", 10, "classes[0].hedge.on_stall", `allowed: "fatal", "nonfatal", "ignore"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("bad.toml", []byte(tt.toml))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T); want a *scenario.Error", err, err)
			}
			if e.Line != tt.line || e.Key != tt.key || !strings.Contains(e.Msg, tt.msg) {
				t.Errorf("got  %v\nwant bad.toml:%d: %s: …%s…", err, tt.line, tt.key, tt.msg)
			}
		})
	}
	// Several bad values: every one is reported, in line order.
	_, err := Parse("bad.toml", []byte(stalledModel+"stalls = { rate = 2, duration = { kind = \"constant\", value = 1 } }\n"+hedge+"min_tokens_per_s = -3\non_stall = \"x\"\n"))
	var es Errors
	if !errors.As(err, &es) || len(es) != 3 || es[0].Line != 7 || es[1].Line != 11 || es[2].Line != 12 {
		t.Errorf("got %v; want three errors, on lines 7, 11 and 12", err)
	}
}
