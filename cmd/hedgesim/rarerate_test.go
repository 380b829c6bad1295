package main

import (
	"strings"
	"testing"
)

// TestRareClassRateAlike: a class at a share of 10⁻⁹ of 10 requests/s,
// which no simulated request falls in, has a rate of 10⁻⁸ requests/s, and
// the spend tables of run and optimize both show it so ("1e-08"). Once,
// run showed 0 — the rate of a class without requests — and optimize
// 1e-08.
func TestRareClassRateAlike(t *testing.T) {
	// A provider's concurrency limit couples the classes, so optimize
	// sweeps them together and rare gets no requests, as in run.
	p := writeTestFile(t, t.TempDir(), "coupled.toml", `requests = 400
[arrivals]
rate = 10
[providers.api]
concurrency = 100
[models.m]
provider = "api"
latency = { kind = "lognormal", median = 1.0, p95 = 3.0 }
price_per_request = 0.001
[[classes]]
name = "big"
share = 1.0
[classes.hedge]
delay = "2s"
[[classes]]
name = "rare"
share = 1e-9
[classes.hedge]
delay = "1s"
`)
	for _, args := range [][]string{
		{"run", p},
		{"optimize", "--requests", "400", "--check-requests", "0", "--delays", "1s,2s", p},
	} {
		code, out, errOut := hedgesim(t, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", args[0], code, errOut)
		}
		row := spendRow(out, "rare")
		if len(row) < 2 || row[1] != "1e-08" {
			t.Errorf("%s: rare's spend row %q; want req/s 1e-08:\n%s", args[0], row, out)
		}
	}
}

// spendRow returns the fields of class's row in the spend table of out
// (the table whose header starts "spend"), or nil.
func spendRow(out, class string) []string {
	in := false
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) > 0 && f[0] == "spend":
			in = true
		case in && len(f) == 0:
			return nil
		case in && f[0] == class:
			return f
		}
	}
	return nil
}
