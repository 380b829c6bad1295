package scenario

import (
	"errors"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/dist"
)

// closedMinimal is the smallest closed-loop scenario.
const closedMinimal = `
[models.m]
latency = { kind = "constant", value = 1 }
[[classes]]
name = "batch"
clients = 8
`

func TestParseClosedLoop(t *testing.T) {
	for _, tt := range []struct {
		name, think string
		mean        float64
	}{
		{"no think time", "", 0},
		{"duration", `think_time = "1.5s"`, 1.5},
		{"zero duration", `think_time = "0s"`, 0},
		{"distribution", `think_time = { kind = "exponential", rate = 0.5 }`, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse("c.toml", []byte(closedMinimal+tt.think+"\n"))
			if err != nil {
				t.Fatal(err)
			}
			cl := s.Config.Classes[0]
			if cl.Clients != 8 || cl.Share != 0 {
				t.Errorf("clients %d, share %v; want 8, 0", cl.Clients, cl.Share)
			}
			var mean float64
			if cl.ThinkTime != nil {
				mean = cl.ThinkTime.(dist.Dist).Mean()
			}
			if mean != tt.mean {
				t.Errorf("mean think time %v s; want %v s", mean, tt.mean)
			}
		})
	}
	// An open class beside a closed one takes all the open arrivals.
	s, err := Parse("m.toml", []byte(closedMinimal+`
[arrivals]
rate = 5
[[classes]]
name = "chat"
`))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Config.Classes[1].Share; got != 1 {
		t.Errorf("open class share %v; want 1 (the only open class)", got)
	}
}

func TestParseClosedLoopBad(t *testing.T) {
	for _, tt := range []struct {
		name, toml string
		line       int
		key, msg   string
	}{
		{"think time without a unit", closedMinimal + "think_time = 2\n", 7, "classes[0].think_time", "want a duration string with a unit"},
		{"think time bad duration", closedMinimal + "think_time = \"2 s\"\n", 7, "classes[0].think_time", "invalid duration"},
		{"think time negative", closedMinimal + "think_time = \"-1s\"\n", 7, "classes[0].think_time", "negative duration"},
		{"think time dist below 0", closedMinimal + "think_time = { kind = \"uniform\", min = -1, max = 1 }\n", 7, "classes[0].think_time", "must stay ≥ 0"},
		{"think time dist unknown key", closedMinimal + "think_time = { kind = \"exponential\", rat = 1 }\n", 7, "classes[0].think_time.rat", "unknown key"},
		{"zero clients", strings.Replace(closedMinimal, "clients = 8", "clients = 0", 1), 6, "classes[0].clients", "want an integer in [1, 50000000]"},
		{"more clients than MaxRequests", strings.Replace(closedMinimal, "clients = 8", "clients = 50000001", 1), 6, "classes[0].clients", "out of range"},
		{"clients not an integer", strings.Replace(closedMinimal, "clients = 8", "clients = 2.5", 1), 6, "classes[0].clients", "want an integer"},
		{"share with clients", closedMinimal + "share = 0.5\n", 7, "classes[0].share", "does not apply to a closed-loop class"},
		{"think time without clients", minimal + "think_time = \"1s\"\n", 8, "classes[0].think_time", "applies only to a closed-loop class"},
		{"arrivals with only closed classes", "[arrivals]\nrate = 3\n" + closedMinimal, 1, "arrivals", "every class is closed-loop"},
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
}

// TestParseZeroCycleClosedLoop: a closed loop with no think time over a
// model that answers in 0 s has no finite throughput: an error at clients
// (or at a 0 s think_time); a think time or a latency > 0 is fine.
func TestParseZeroCycleClosedLoop(t *testing.T) {
	const model = "requests = 50\n[models.m]\nlatency = { kind = \"constant\", value = 0 }\n[[classes]]\nname = \"w\"\nclients = 3\n"
	for _, tt := range []struct {
		name, toml string
		line       int
		key        string
	}{
		{"no think time", model, 6, "classes[0].clients"},
		{"0s think time", model + "think_time = \"0s\"\n", 7, "classes[0].think_time"},
		{"streamed, no tokens", "requests = 50\n[models.m]\nttft = { kind = \"constant\", value = 0 }\ntokens_per_s = { kind = \"constant\", value = 10 }\n[[classes]]\nname = \"w\"\nclients = 3\noutput_tokens = { kind = \"constant\", value = 0 }\n", 7, "classes[0].clients"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("bad.toml", []byte(tt.toml))
			var e *Error
			if !errors.As(err, &e) || e.Line != tt.line || e.Key != tt.key || !strings.Contains(e.Msg, "no finite throughput") {
				t.Errorf("got %v; want bad.toml:%d: %s: …no finite throughput…", err, tt.line, tt.key)
			}
		})
	}
	for _, ok := range []string{model + "think_time = \"1s\"\n", strings.Replace(model, "value = 0 }", "value = 0.1 }", 1)} {
		if _, err := Parse("ok.toml", []byte(ok)); err != nil {
			t.Errorf("%v\n%s", err, ok)
		}
	}
}
