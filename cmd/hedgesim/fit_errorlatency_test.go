package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/sim"
)

// TestFitErrorLatency is the user's command on the user's log shape
// (seeded): 2000 requests, successes lognormal around 0.4 s, 2.7 %
// failing (code 500) in U(10, 50) ms. The block gets an error_latency whose
// median is 30 ms within 4 standard errors of a sample median of m
// failures (20 ms/√m: 1/(2·f·√m) with f = 1/40 ms⁻¹); the JSON carries the
// same; and the block, pasted into a scenario, loads and simulates errors
// at that latency: the median time to the error of 20 000 requests
// without hedging is the block's error_latency median within 4 standard
// errors of a median of its k errors (k ≈ 20 000 × error_rate ≈ 650;
// 20 ms/√k, the error_latency being the failures' own values), where
// without error_latency it would be the call's ≈ 0.4 s.
func TestFitErrorLatency(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "log.csv")
	src := rand.NewPCG(10, 1)
	r := rand.New(src)
	ok := distuv.LogNormal{Mu: math.Log(0.4), Sigma: 0.3, Src: src}
	var b strings.Builder
	b.WriteString("ts,elapsed_ms,code\n")
	for i := range 2000 {
		if r.Float64() < 0.027 {
			fmt.Fprintf(&b, "%d,%.2f,500\n", i, 10+40*r.Float64())
		} else {
			fmt.Fprintf(&b, "%d,%.2f,200\n", i, 1000*ok.Rand())
		}
	}
	if err := os.WriteFile(logPath, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"fit", "--quiet", "--format", "csv", "--latency", "elapsed_ms", "--unit", "ms", "--status", "code", "--name", "m", logPath}
	code, out, errOut := hedgesim(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "\nerror_latency = {") || !strings.Contains(out, "# error latency: ") {
		t.Fatalf("no error_latency in:\n%s", out)
	}

	scPath := filepath.Join(dir, "fitted.toml")
	doc := "requests = 20000\n[arrivals]\nprocess = \"constant\"\nrate = 1\n\n" + out + "\n[[classes]]\nname = \"c\"\n"
	if err := os.WriteFile(scPath, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.Load(scPath)
	if err != nil {
		t.Fatalf("the fitted block does not load: %v\n%s", err, doc)
	}
	el := sc.Config.Models[0].ErrorLatency
	if el == nil {
		t.Fatal("the loaded model has no ErrorLatency")
	}
	m := strings.Count(b.String(), ",500\n")
	blockMed := 1000 * el.Quantile(0.5)
	tol := 4 * 20 / math.Sqrt(float64(m))
	t.Logf("m = %d failures; error_latency median %.2f ms (want 30 ± %.1f)", m, blockMed, tol)
	if math.Abs(blockMed-30) > tol {
		t.Errorf("error_latency median %.2f ms, want 30 ± %.1f ms", blockMed, tol)
	}

	res, err := sim.Run(&sc.Config)
	if err != nil {
		t.Fatal(err)
	}
	ends := res.Classes[0].MissEnds() // no hedging: every miss is an error
	if len(ends) < 300 {
		t.Fatalf("%d errors of 20000 requests; want about 650", len(ends))
	}
	simMed := 1000 * stat.Quantile(0.5, stat.Empirical, ends, nil)
	simTol := 4 * 20 / math.Sqrt(float64(len(ends)))
	t.Logf("%d simulated errors, median time to the error %.2f ms (want %.2f ± %.1f)", len(ends), simMed, blockMed, simTol)
	if math.Abs(simMed-blockMed) > simTol {
		t.Errorf("simulated errors surface at a median %.2f ms, want the block's %.2f ± %.1f ms", simMed, blockMed, simTol)
	}

	code, out, errOut = hedgesim(t, append([]string{"fit", "--json"}, args[1:]...)...)
	if code != 0 {
		t.Fatalf("--json: exit %d: %s", code, errOut)
	}
	var rep struct {
		ErrorLatency *struct {
			N       int     `json:"n"`
			Median  float64 `json:"median_s"`
			Differs bool    `json:"differs"`
			Written string  `json:"written"`
		} `json:"error_latency"`
		TOML string `json:"toml"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if e := rep.ErrorLatency; e == nil || e.N != m || !e.Differs || e.Written != "empirical" || math.Abs(1000*e.Median-30) > tol || !strings.Contains(rep.TOML, "\nerror_latency = {") {
		t.Errorf("JSON error_latency %+v", rep.ErrorLatency)
	}
}
