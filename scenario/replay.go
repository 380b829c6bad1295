package scenario

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path"
	"path/filepath"
	"strings"

	"github.com/hedgesim/hedgesim/readers"
	"github.com/hedgesim/hedgesim/sim"
)

// Trace replay: [arrivals] process = "replay" plays back a recorded trace
// (readers.ReadTrace: arrival times and token counts), and [[classes]] match
// rules on token counts assign each replayed request to a class:
//
//	[arrivals]
//	process = "replay"
//	trace = "data/azure-llm-inference-2023/conv-first3000.csv"  # relative to this file
//	format = "azure"                                           # or "mooncake"
//	time_scale = 0.5                                           # twice as fast
//
//	[[classes]]
//	name = "short"
//	match = { output_max = 150 }
//
//	[[classes]]
//	name = "long"                                              # no match: the rest

// matchTable is a class's match rule: inclusive bounds on a replayed
// request's token counts.
type matchTable struct {
	InputMin  *int64 `toml:"input_min"`
	InputMax  *int64 `toml:"input_max"`
	OutputMin *int64 `toml:"output_min"`
	OutputMax *int64 `toml:"output_max"`
}

// opener opens a file named relative to the scenario file for reading;
// shown is the name to use in messages.
type opener func(rel string) (r io.ReadCloser, shown string, err error)

// osOpener opens files relative to the directory of the scenario file:
// regular files of at most maxBytes bytes (readers.Open).
func osOpener(scenarioFile string, maxBytes int64) opener {
	return func(rel string) (io.ReadCloser, string, error) {
		p := rel
		if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(scenarioFile), filepath.FromSlash(rel))
		}
		f, err := readers.Open(p, maxBytes)
		return f, p, err
	}
}

// fsOpener opens files of fsys relative to the directory of name.
func fsOpener(fsys fs.FS, name string) opener {
	return func(rel string) (io.ReadCloser, string, error) {
		p := path.Join(path.Dir(name), rel)
		if !fs.ValidPath(p) || path.IsAbs(rel) {
			return nil, rel, fmt.Errorf("%q is outside the embedded scenario directory; run the scenario from its file path instead", rel)
		}
		f, err := fsys.Open(p)
		return f, p, err
	}
}

// replay is what the checker knows about a replayed trace.
type replay struct {
	// trace is nil when it could not be read (a problem already
	// recorded): then only what the file itself says is checked.
	trace *readers.Trace
	// byRule is set when a class has a match rule: classes are then
	// assigned by the rules and their shares come from the trace.
	byRule bool
}

// replayArrivals builds the arrivals of process = "replay" from [arrivals].
func (c *checker) replayArrivals(a *arrivalsTable) (sim.Arrivals, error) {
	out := sim.Arrivals{Process: sim.Replay}
	// The traffic is replayed whether or not the trace can be read: the
	// classes are checked as replayed classes (replayUnread).
	c.replay = &replay{}
	if a.Rate != nil {
		return out, c.errorf("arrivals.rate", `does not apply to process = "replay": the trace gives the arrival times; use time_scale to replay it faster or slower`)
	}
	if a.Trace == nil || *a.Trace == "" {
		return out, c.errorf("arrivals.trace", `missing; process = "replay" needs the trace file, relative to the scenario file`)
	}
	if a.Format == nil {
		return out, c.errorf("arrivals.format", "missing; say how the trace is written: %s", strings.Join(quotedList(readers.TraceFormats), " or "))
	}
	known := false
	for _, f := range readers.TraceFormats {
		known = known || *a.Format == f
	}
	if !known {
		return out, c.errorf("arrivals.format", "unknown value %q; allowed: %s", *a.Format, strings.Join(quotedList(readers.TraceFormats), ", "))
	}
	scale := 1.0
	if a.TimeScale != nil {
		scale = *a.TimeScale
		if !(scale > 0) || math.IsInf(scale, 0) {
			return out, c.errorf("arrivals.time_scale", "%g is not allowed; want a finite factor > 0 (0.5 replays twice as fast)", scale)
		}
	}
	if c.open == nil {
		c.open = osOpener(c.file, DefaultLimits.MaxDataBytes)
	}
	f, shown, err := c.open(*a.Trace)
	if err == nil {
		var in io.Reader = f
		if c.hash != nil {
			in = io.TeeReader(f, c.hash)
		}
		var tr *readers.Trace
		tr, err = readers.ReadTrace(in, shown, *a.Format)
		f.Close()
		if err == nil {
			return c.replayTrace(out, tr, scale)
		}
		var ie *readers.InputError
		if errors.As(err, &ie) {
			return out, c.errorf("arrivals.trace", "%v", err)
		}
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return out, c.errorf("arrivals.trace", "cannot read %s: %v", shown, err)
}

// replayTrace builds the arrivals of a trace read for replay.
func (c *checker) replayTrace(out sim.Arrivals, tr *readers.Trace, scale float64) (sim.Arrivals, error) {
	var err error
	if tr, err = tr.Scaled(scale); err != nil {
		return out, c.errorf("arrivals.time_scale", "%v", err)
	}
	c.replay = &replay{trace: tr}
	out.Trace = &sim.Trace{Arrivals: tr.Arrivals, Input: tr.Input, Output: tr.Output}
	return out, nil
}

// noReplayKeys rejects the replay keys under another process.
func (c *checker) noReplayKeys(a *arrivalsTable, process sim.ArrivalProcess) error {
	for _, k := range []struct {
		key string
		set bool
	}{{"trace", a.Trace != nil}, {"format", a.Format != nil}, {"time_scale", a.TimeScale != nil}} {
		if k.set {
			return c.errorf("arrivals."+k.key, `applies only to process = "replay", not %q`, process.String())
		}
	}
	return nil
}

// replaySetup settles what a replayed trace implies for the whole file,
// once the arrivals are built: requests defaults to the trace's length and
// may not exceed it, and match rules switch class assignment to the rules.
func (c *checker) replaySetup(f *fileTable, cfg *sim.Config) error {
	if c.replay == nil {
		for i := range f.Classes {
			if f.Classes[i].Match != nil {
				return c.errorf(indexKey("classes", i)+".match", `applies only to replayed traffic ([arrivals] process = "replay")`)
			}
		}
		return nil
	}
	// Classes matched by rule take their shares from the trace, whatever
	// else is wrong here: set first, so that a bad requests is the one
	// error, not followed by every class's "share: missing".
	for i := range f.Classes {
		c.replay.byRule = c.replay.byRule || f.Classes[i].Match != nil
	}
	n := c.replay.trace.Len()
	if f.Requests == nil {
		cfg.Requests = n
	} else if cfg.Requests > n {
		return c.errorf("requests", "%d is more than the %d requests in the trace %s; omit requests to replay all of them", cfg.Requests, n, c.replay.trace.File)
	}
	return nil
}

// replayUnread settles, for a replay whose trace could not be read, what
// the file alone says: whether match rules assign the classes, so that
// the classes are not blamed for shares the trace would have given them.
func (c *checker) replayUnread(f *fileTable) {
	for i := range f.Classes {
		c.replay.byRule = c.replay.byRule || f.Classes[i].Match != nil
	}
}

// sharesFromTrace reports whether class shares come from the trace.
func (c *checker) sharesFromTrace() bool { return c.replay != nil && c.replay.byRule }

// replayClass checks a class's keys against the arrival process: token
// distributions do not apply to replayed requests (the trace has their
// counts), and share does not apply when classes are assigned by match.
func (c *checker) replayClass(key string, t *classTable) error {
	if c.replay == nil {
		return nil
	}
	// Each rule is checked on its own: every broken one is reported.
	var errs Errors
	if t.InputTokens != nil {
		errs = append(errs, c.errorf(key+".input_tokens", "does not apply to replayed traffic: the trace gives every request's input tokens"))
	}
	if t.OutputTokens != nil {
		errs = append(errs, c.errorf(key+".output_tokens", "does not apply to replayed traffic: the trace gives every request's output tokens"))
	}
	if c.replay.byRule && t.Share != nil {
		errs = append(errs, c.errorf(key+".share", "does not apply when classes are assigned by match rules: each class's share is what its rule selects from the trace"))
	}
	if m := t.Match; m != nil {
		if m.InputMin == nil && m.InputMax == nil && m.OutputMin == nil && m.OutputMax == nil {
			errs = append(errs, c.errorf(key+".match", "empty; give at least one of input_min, input_max, output_min, output_max, or omit match to take every request"))
		}
		for _, b := range []struct {
			name string
			v    *int64
		}{{"input_min", m.InputMin}, {"input_max", m.InputMax}, {"output_min", m.OutputMin}, {"output_max", m.OutputMax}} {
			if b.v != nil && *b.v < 0 {
				errs = append(errs, c.errorf(key+".match."+b.name, "%d is negative; want a token count ≥ 0", *b.v))
			}
		}
		for _, pair := range []struct {
			what     string
			min, max *int64
		}{{"input", m.InputMin, m.InputMax}, {"output", m.OutputMin, m.OutputMax}} {
			if pair.min != nil && pair.max != nil && *pair.min > *pair.max {
				errs = append(errs, c.errorf(key+".match."+pair.what+"_min", "%d is above %s_max (%d); no request could match", *pair.min, pair.what, *pair.max))
			}
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// replayFirstStep checks the token keys of a pipeline's first step, at
// key, built as s from t, against the arrival process: a replayed request's
// first call takes the trace's counts, so on a first step of one call (no
// fan_out, no repeat) input_tokens and output_tokens would apply to no
// call. With more calls they give the calls after the first theirs.
func (c *checker) replayFirstStep(key string, t *stepTable, s *sim.Step) error {
	if c.replay == nil || s.FanOut > 1 || s.Repeat != nil {
		return nil
	}
	var errs Errors
	if t.InputTokens != nil {
		errs = append(errs, c.errorf(key+".input_tokens", "does not apply to replayed traffic: the trace gives the first step's call its input tokens (later steps take their own)"))
	}
	if t.OutputTokens != nil {
		errs = append(errs, c.errorf(key+".output_tokens", "does not apply to replayed traffic: the trace gives the first step's call its output tokens (later steps take their own)"))
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// accepts reports whether the rule m (nil = everything) takes a request
// with in input and out output tokens.
func (m *matchTable) accepts(in, out float64) bool {
	if m == nil {
		return true
	}
	ok := func(v float64, lo, hi *int64) bool {
		return (lo == nil || v >= float64(*lo)) && (hi == nil || v <= float64(*hi))
	}
	return ok(in, m.InputMin, m.InputMax) && ok(out, m.OutputMin, m.OutputMax)
}

// assignClasses gives every replayed request the first class (in file
// order) whose match rule takes it, and sets each class's share to the
// fraction of the replayed requests it took. A request no class takes,
// and a class that takes none, are errors.
func (c *checker) assignClasses(tables []classTable, cfg *sim.Config) error {
	if !c.sharesFromTrace() || c.replay.trace == nil {
		return nil
	}
	tr := c.replay.trace.Head(cfg.Requests)
	n := tr.Len()
	class := make([]int, n)
	counts := make([]int, len(tables))
	for i := range n {
		j := 0
		for j < len(tables) && !tables[j].Match.accepts(tr.Input[i], tr.Output[i]) {
			j++
		}
		if j == len(tables) {
			return c.errorf("classes", "the request on %s:%d (%g input, %g output tokens) matches no class; add a last class without match to take the rest",
				tr.File, tr.Lines[i], tr.Input[i], tr.Output[i])
		}
		class[i] = j
		counts[j]++
	}
	for j, k := range counts {
		if k == 0 {
			key := indexKey("classes", j)
			if tables[j].Match != nil {
				key += ".match"
			}
			return c.errorf(key, "takes none of the %d replayed requests (earlier classes take theirs first); widen the rule or remove the class", n)
		}
		cfg.Classes[j].Share = float64(k) / float64(n)
	}
	cfg.Arrivals.Trace = &sim.Trace{Arrivals: tr.Arrivals, Input: tr.Input, Output: tr.Output, Class: class}
	return nil
}

func quotedList(xs []string) []string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = fmt.Sprintf("%q", x)
	}
	return q
}
