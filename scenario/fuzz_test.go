package scenario

import (
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/scenarios"
	"github.com/hedgesim/hedgesim/sim"
)

// Limits of one fuzz input: no input of 1 MB or less may take longer or
// allocate more (the documented bound for any command is 10 s and 512 MB; the
// loader and a short simulation must stay far inside it).
const (
	fuzzMaxTime  = time.Second
	fuzzMaxAlloc = 256 << 20
	fuzzRequests = 200
)

// FuzzLoad feeds the scenario loader arbitrary files: parse, validate and,
// when the file is accepted, a 200-request simulation of it. It fails on a
// panic, an error that is not an *Error with the file's name, an accepted
// scenario the simulator rejects, more than 1 s of CPU time (the process's,
// so that a busy machine does not count; garbage collection does) or more
// than 256 MB allocated for one input, and ends the process on a hang
// (60 s of wall time). The corpus starts from every shipped scenario
// and every input of the bad-scenario tests. Run it with
//
//	go test -run XXX -fuzz FuzzLoad -fuzztime 10m ./scenario/
//
// (bench/fuzz.sh runs every fuzz target in turn). Without -fuzz, `go test`
// runs the seeds only.
func FuzzLoad(f *testing.F) {
	for _, name := range scenarios.Names() {
		data, err := fs.ReadFile(scenarios.FS, name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, tc := range parseBadCases {
		f.Add([]byte(tc.toml))
	}
	for _, tc := range optimizeBadCases {
		f.Add([]byte(twoClasses + tc.toml))
	}
	for _, s := range []string{
		minimal,
		"x = " + strings.Repeat("[", 200) + strings.Repeat("]", 200),
		"x = " + strings.Repeat("{a=", 200) + "1" + strings.Repeat("}", 200),
		strings.Repeat("a.", 200) + "a = 1",
		"[arrivals]\nprocess = \"replay\"\ntrace = \"/dev/zero\"\nformat = \"azure\"\n",
		"[arrivals]\nprocess = \"replay\"\ntrace = \"../scenarios/data/azure-llm-inference-2023/conv-first3000.csv\"\nformat = \"azure\"\n" +
			"[models.m]\nlatency = { kind = \"constant\", value = 1.0 }\n[[classes]]\nname = \"c\"\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		// A hang never returns to the checks below: the watchdog ends the
		// process, and the fuzzer keeps the input as a crasher.
		watchdog := time.AfterFunc(60*fuzzMaxTime, func() {
			panic(fmt.Sprintf("FuzzLoad: still running after %v on %d bytes", 60*fuzzMaxTime, len(src)))
		})
		defer watchdog.Stop()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := cpuTime()
		sc, err := Parse("fuzz.toml", src)
		if err == nil {
			cfg := sc.Config
			cfg.Requests = min(cfg.Requests, fuzzRequests)
			if _, rerr := sim.Run(&cfg); rerr != nil {
				t.Fatalf("accepted scenario rejected by the simulator: %v", rerr)
			}
		}
		elapsed := cpuTime() - start
		runtime.ReadMemStats(&after)
		if err != nil {
			var se *Error
			if !errors.As(err, &se) || se.File != "fuzz.toml" || se.Msg == "" {
				t.Fatalf("error %v (%T) is not an *Error about fuzz.toml", err, err)
			}
		}
		if elapsed > fuzzMaxTime {
			t.Fatalf("took %v of CPU time for %d bytes; limit %v", elapsed, len(src), fuzzMaxTime)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > fuzzMaxAlloc {
			t.Fatalf("allocated %d MB for %d bytes; limit %d MB", alloc>>20, len(src), fuzzMaxAlloc>>20)
		}
	})
}
