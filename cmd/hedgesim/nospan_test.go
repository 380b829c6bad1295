package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReplayWithoutSpanHasNoSpend: a replayed trace whose requests all
// arrive at one instant has no arrival rate, so run and optimize give its
// spend as null in JSON and n/a in text, with a warning that says why,
// not $0; the cost per 1k requests stands.
func TestReplayWithoutSpanHasNoSpend(t *testing.T) {
	dir := t.TempDir()
	trace := "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.0,374,44\n2023-11-16 18:15:46.0,10,44\n2023-11-16 18:15:46.0,10,44\n"
	scen := `[arrivals]
process = "replay"
trace = "same.csv"
format = "azure"

[models.a]
ttft = { kind = "lognormal", median = 0.5, p95 = 2.0 }
tokens_per_s = { kind = "uniform", min = 40, max = 60 }
price_per_request = 0.01

[[classes]]
name = "c"
deadline = "30s"
[classes.hedge]
delay = "1s"
`
	for name, text := range map[string]string{"same.csv": trace, "same.toml": scen} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "same.toml")
	type spend struct {
		PerS  *float64 `json:"requests_per_s"`
		Month *float64 `json:"per_month"`
		NHDay *float64 `json:"no_hedging_per_day"`
	}
	check := func(what string, s spend, warnings []string) {
		t.Helper()
		if s.PerS != nil || s.Month != nil || s.NHDay != nil {
			t.Errorf("%s: spend %v/%v/%v; want null", what, s.PerS, s.Month, s.NHDay)
		}
		if !strings.Contains(strings.Join(warnings, "\n"), "spans no time") {
			t.Errorf("%s: no warning that the trace spans no time: %q", what, warnings)
		}
	}

	code, out, errOut := hedgesim(t, "run", "--json", path)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	var rep struct {
		Classes []struct {
			Spend     spend `json:"spend_usd"`
			CostPer1k struct {
				Total float64 `json:"total"`
			} `json:"cost_per_1k_usd"`
		} `json:"classes"`
		Overall struct {
			Spend spend `json:"spend_usd"`
		} `json:"overall"`
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	check("run class", rep.Classes[0].Spend, rep.Warnings)
	check("run overall", rep.Overall.Spend, rep.Warnings)
	if c := rep.Classes[0].CostPer1k.Total; c <= 0 {
		t.Errorf("cost per 1k %g; want it kept", c)
	}

	code, out, errOut = hedgesim(t, "run", path)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "n/a") || strings.Contains(out, "$0 ") {
		t.Errorf("run's text spend should read n/a, not $0:\n%s", out)
	}

	code, out, errOut = hedgesim(t, "optimize", "--json", "--requests", "3", "--check-requests", "3", path)
	if code != 0 {
		t.Fatalf("optimize: exit %d: %s", code, errOut)
	}
	var opt struct {
		Classes []struct {
			Spend    spend    `json:"spend_usd"`
			Warnings []string `json:"warnings"`
		} `json:"classes"`
	}
	if err := json.Unmarshal([]byte(out), &opt); err != nil {
		t.Fatal(err)
	}
	check("optimize", opt.Classes[0].Spend, opt.Classes[0].Warnings)
}
