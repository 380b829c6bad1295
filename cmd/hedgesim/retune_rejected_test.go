package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRetuneRejectedFitKeepsModel is a user's report: `hedgesim retune
// bi.toml --from api2.json --model m --unit s --write-scenario new.toml`,
// api2.json a Prometheus API histogram of m in 6 buckets (its 350, 350,
// 150 and 150 calls in (0, 0.2], (0.2, 0.3], (3, 4] and (4, 5] s, below)
// whose only fit, a lognormal, its own test rejects and which explains the
// counts worse than the scenario's model, wrote that lognormal as m's
// latency and re-picked class y's policy on it (a 1.51 s hedge at +20.4 %
// cost, its p99 20.4 s where no call took over 5 s). Now m is shifted
// (exit 3) but not refitted: nothing is re-checked, the scenario is
// written unchanged and standard error says why, and the report says
// why under the model and in its JSON.
func TestRetuneRejectedFitKeepsModel(t *testing.T) {
	// The user's bi.toml.
	scen := biScenario("5", `primary = "m"
targets = ["n"]
delay = "1s"
on_error = "nonfatal"
`, `primary = "m"
`)
	// The user's api2.json: cumulative counts per upper bound.
	api := `{"status": "success", "data": {"resultType": "vector", "result": [` +
		`{"metric": {"le": "0.2", "model": "m"}, "value": [1700000000, "350"]}, {"metric": {"le": "0.3", "model": "m"}, "value": [1700000000, "700"]}, ` +
		`{"metric": {"le": "3", "model": "m"}, "value": [1700000000, "700"]}, {"metric": {"le": "4", "model": "m"}, "value": [1700000000, "850"]}, ` +
		`{"metric": {"le": "5", "model": "m"}, "value": [1700000000, "1000"]}, {"metric": {"le": "+Inf", "model": "m"}, "value": [1700000000, "1000"]}]}}`
	path, from, m, recheck, errOut := retuneRejected(t, scen, api, "api2.json")
	if m.Drift.Verdict != "shifted" || m.Applied || !strings.Contains(m.NotApplied, "no model of the live latency to re-plan on") ||
		!strings.Contains(m.FitRejected, "mixture-2 and mixture-3 not tried on these 6 buckets") {
		t.Errorf("model m: verdict %s, applied %v, not_applied %q, fit_rejected %q; want shifted, not applied, saying why",
			m.Drift.Verdict, m.Applied, m.NotApplied, m.FitRejected)
	}
	if recheck != "null" {
		t.Errorf("recheck %s, want null: no policy is re-picked on a rejected fit", recheck)
	}
	want := "nothing was refitted and no policy re-picked: shifted but not refitted: m (its live fit (lognormal) is rejected by its own test and explains the live counts no better than the scenario's model)"
	if !strings.Contains(strings.Join(strings.Fields(errOut), " "), want) {
		t.Errorf("standard error %q lacks %q", errOut, want)
	}
	_, text, _ := hedgesim(t, "retune", path, "--from", from, "--model", "m", "--unit", "s", "--requests", "2000", "--quiet")
	text = strings.Join(strings.Fields(text), " ")
	for _, w := range []string{"not refitted: the live fit (lognormal) is rejected by its own test",
		"shifted, without a model of the live latency: m;"} {
		if !strings.Contains(text, w) {
			t.Errorf("the text lacks %q:\n%s", w, text)
		}
	}
}

// biScenario is a user's bi.toml with seed, and x and y the [classes.hedge]
// tables of its classes x (60 %, a 4 s deadline) and y (40 %): model m
// bimodal (0.9 of calls in 0.1–0.3 s, 0.1 in 3–5 s), model n on another
// provider failing 5 % of calls.
func biScenario(seed, x, y string) string {
	return "name = \"bi\"\nseed = " + seed + "\nrequests = 20000\n[arrivals]\nrate = 10\n" + `[models.m]
latency = { kind = "mixture", weights = [0.9, 0.1], components = [ { kind = "uniform", min = 0.1, max = 0.3 }, { kind = "uniform", min = 3.0, max = 5.0 } ] }
price_per_request = 0.01
[models.n]
provider = "other"
latency = { kind = "uniform", min = 0.2, max = 0.6 }
price_per_request = 0.02
error_rate = 0.05
` +
		"[[classes]]\nname = \"x\"\nshare = 0.6\ndeadline = \"4s\"\n[classes.hedge]\n" + x +
		"[[classes]]\nname = \"y\"\nshare = 0.4\n[classes.hedge]\n" + y
}

// TestRetuneSpreadUnresolvedKeepsModel: `hedgesim retune bi.toml --from
// api3.json --model m --write-scenario new.toml`, api3.json m's 400 calls
// in two buckets, 250 in (0.3, 1] and 150 in (1, 3] s, where the
// scenario's model puts none. The fit's own warning calls its σ and
// percentiles artefacts; it used to be written as m's latency and class
// y's policy re-picked on it. Now m is shifted (exit 3) but not refitted:
// nothing is re-checked, the scenario is written unchanged, and standard
// error and the JSON say why and ask for finer buckets.
func TestRetuneSpreadUnresolvedKeepsModel(t *testing.T) {
	scen := biScenario("5", `primary = "m"
targets = ["n"]
delay = "1s"
on_error = "nonfatal"
`, `primary = "m"
`)
	api := `{"status": "success", "data": {"resultType": "vector", "result": [` +
		`{"metric": {"le": "0.2", "model": "m"}, "value": [1700000000, "0"]}, {"metric": {"le": "0.3", "model": "m"}, "value": [1700000000, "0"]}, ` +
		`{"metric": {"le": "1", "model": "m"}, "value": [1700000000, "250"]}, {"metric": {"le": "3", "model": "m"}, "value": [1700000000, "400"]}, ` +
		`{"metric": {"le": "4", "model": "m"}, "value": [1700000000, "400"]}, {"metric": {"le": "5", "model": "m"}, "value": [1700000000, "400"]}, ` +
		`{"metric": {"le": "+Inf", "model": "m"}, "value": [1700000000, "400"]}]}}`
	_, _, m, recheck, errOut := retuneRejected(t, scen, api, "api3.json")
	if m.Drift.Verdict != "shifted" || m.Applied || !strings.Contains(m.FitRejected, "only 2 of its 7 buckets hold observations ((0.3, 1] s, (1, 3] s)") ||
		!strings.Contains(m.NotApplied, "artefacts of the fit") || !strings.Contains(m.NotApplied, "export finer buckets") {
		t.Errorf("model m: verdict %s, applied %v, not_applied %q, fit_rejected %q; want shifted, not applied, saying why",
			m.Drift.Verdict, m.Applied, m.NotApplied, m.FitRejected)
	}
	if recheck != "null" {
		t.Errorf("recheck %s, want null: no policy is re-picked on a fit of artefacts", recheck)
	}
	want := "shifted but not refitted: m (only 2 of its buckets hold observations, so its live fit's σ and percentiles are artefacts of the fit, not of the data)"
	if !strings.Contains(strings.Join(strings.Fields(errOut), " "), want) {
		t.Errorf("standard error %q lacks %q", errOut, want)
	}
}

// rejectedModel is a retune --json report's model, as the tests of
// rejected fits read it.
type rejectedModel struct {
	Applied     bool   `json:"applied"`
	NotApplied  string `json:"not_applied"`
	FitRejected string `json:"fit_rejected"`
	Drift       struct {
		Verdict string `json:"verdict"`
	} `json:"drift"`
}

// retuneRejected writes scenario scen as bi.toml and api, a Prometheus API
// histogram of model m, as from (a file name), in a temporary directory,
// and runs `hedgesim retune bi.toml --from FROM --model m --unit s
// --write-scenario new.toml --json` at 2 000 requests. It fails the test
// unless the exit is 3 (shifted), the report has one model and new.toml is
// scen unchanged; it returns the two paths, the model's report, the JSON's
// recheck (its text) and standard error.
func retuneRejected(t *testing.T, scen, api, from string) (path, fromPath string, m rejectedModel, recheck, errOut string) {
	t.Helper()
	dir := t.TempDir()
	path, fromPath, out := filepath.Join(dir, "bi.toml"), filepath.Join(dir, from), filepath.Join(dir, "new.toml")
	for p, text := range map[string]string{path: scen, fromPath: api} {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, errOut := hedgesim(t, "retune", path, "--from", fromPath, "--model", "m", "--unit", "s",
		"--requests", "2000", "--check-requests", "2000", "--write-scenario", out, "--json", "--quiet")
	if code != exitAction {
		t.Fatalf("exit %d, want %d: %s", code, exitAction, errOut)
	}
	var rep struct {
		Models  []rejectedModel `json:"models"`
		Recheck json.RawMessage `json:"recheck"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Models) != 1 {
		t.Fatalf("%d models, want 1", len(rep.Models))
	}
	written, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if string(written) != scen {
		t.Errorf("written scenario differs from the input:\n%s", written)
	}
	return path, fromPath, rep.Models[0], string(rep.Recheck), errOut
}
