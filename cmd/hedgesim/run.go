package main

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/hedgesim/hedgesim/sim"
)

// intFlag is an integer flag that remembers whether it was set.
type intFlag struct {
	v   int64
	set bool
}

func (f *intFlag) String() string { return fmt.Sprint(f.v) }

// Set accepts a decimal integer or an integral number in exponent form
// such as 1e6.
func (f *intFlag) Set(s string) error {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		x, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil || x != math.Trunc(x) {
			return fmt.Errorf("%q is not an integer", s)
		}
		if math.Abs(x) > 1<<62 {
			return fmt.Errorf("%s is out of range", s)
		}
		v = int64(x)
	}
	f.v, f.set = v, true
	return nil
}

func cmdRun(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("run", "run [flags] [SCENARIO]", stderr)
	var seed, requests intFlag
	fs.Var(&seed, "seed", "random seed `N` (integer ≥ 0); overrides the scenario's seed")
	fs.Var(&requests, "requests", "simulate `N` requests (≥ 1, 1e6 form allowed); overrides the scenario's requests")
	asJSON := fs.Bool("json", false, "write the report as JSON (field names documented in README.md)")
	tracePath := fs.String("trace", "", "also write one CSV row per attempt of the hedged run to `FILE` (for small runs)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	sc, err := scenarioArg(pos, seed, requests, sim.MaxRequests)
	if err != nil {
		return err
	}
	cfg := sc.Config
	if requests.set {
		cfg.Requests = int(requests.v)
	}
	var trace []byte
	if *tracePath != "" {
		dir := filepath.Dir(*tracePath)
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return usageError{err: fmt.Errorf("--trace %s: directory %s does not exist", *tracePath, dir)}
		}
		if st, err := os.Stat(*tracePath); err == nil && st.IsDir() {
			return usageError{err: fmt.Errorf("--trace %s is a directory; want a file name", *tracePath)}
		}
		trace = []byte(sim.TraceCSVHeader)
	}
	if err := cfg.Validate(); err != nil {
		if requests.set {
			return usageError{err: fmt.Errorf("--requests %d: %w", requests.v, err)}
		}
		return err
	}
	rep, err := simulate(&cfg, func(r *sim.AttemptRecord) { trace = r.AppendCSV(trace) }, trace != nil)
	if err != nil {
		return err
	}
	if trace != nil {
		if err := writeFileAtomic(filepath.Dir(*tracePath), filepath.Base(*tracePath), trace); err != nil {
			return fmt.Errorf("writing the trace: %w", err)
		}
	}
	var b bytes.Buffer
	if *asJSON {
		err = rep.WriteJSON(&b)
	} else {
		err = rep.WriteText(&b)
	}
	if err != nil {
		return err
	}
	_, err = stdout.Write(b.Bytes())
	return err
}

// simulate runs cfg and its no-hedging baseline and compares them; with
// traced set, fn sees every attempt of the hedged run.
func simulate(cfg *sim.Config, fn func(*sim.AttemptRecord), traced bool) (*sim.Report, error) {
	run := sim.Run
	if traced {
		run = func(c *sim.Config) (*sim.Result, error) { return sim.RunTrace(c, fn) }
	}
	hedged, err := run(cfg)
	if err != nil {
		return nil, err
	}
	base, err := sim.Run(sim.WithoutHedging(cfg))
	if err != nil {
		return nil, err
	}
	return sim.NewReport(cfg, hedged, base), nil
}
