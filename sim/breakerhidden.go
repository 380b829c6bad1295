package sim

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// hiddenFailures counts, for one circuit breaker, the calls it let through
// whose outcome was drawn as a failure it counts (an error, a 429, an
// overload rejection: anything but an answer) but which were cancelled
// because their request ended — a hedge answered first, or the deadline
// passed — before that failure came back. The breaker never sees them (a
// cancelled call counts as neither success nor failure), so it judges the
// model or provider by the failures that came back in time (seen).
type hiddenFailures struct {
	n       int64         // failures cancelled before they came back
	age     time.Duration // their summed time out when cancelled
	late    time.Duration // their summed failure latency (send to failure), where known
	lateN   int64         // how many had a known failure latency
	classes uint64        // bit i: class i hid one (classes 0–63)
	seen    int64         // failures the breaker saw
}

// breakersMiss records, for attempt k of r's breakers, that it is being
// cancelled now, its request having ended, with its outcome drawn as a
// failure the breakers count. abandon calls it, only when the run has
// breakers (cancelLoser, answer's copy of abandon, never runs with them).
func (e *engine) breakersMiss(r *request, a *attempt) {
	if a.byBreaker || a.kind == outOK || a.kind == outInvalid {
		return
	}
	age := e.now - a.start
	late := time.Duration(-1)
	if a.started || a.kind == outRateLimited || a.kind == outRejected {
		late = a.end - a.start // the failure's time is drawn: when it would come back
	}
	add := func(b *breaker) {
		h := &b.hid
		h.n++
		h.age += age
		if late >= 0 {
			h.late += late
			h.lateN++
		}
		if r.class < 64 {
			h.classes |= 1 << uint(r.class)
		}
	}
	if b := e.breakers[a.model]; b != nil {
		add(b)
	}
	if e.provBreakers != nil {
		if b := e.provBreakers[a.prov]; b != nil {
			add(b)
		}
	}
}

// toOpen is the fewest failures breaker c needs to open once: Failures
// consecutive ones, or, for its failure ratio, ⌈FailureRatio × MinCalls⌉
// in a window of MinCalls calls; the smaller when both trips are set.
func (c *Breaker) toOpen() int64 {
	need := int64(math.MaxInt64)
	if c.Failures > 0 {
		need = int64(c.Failures)
	}
	if c.FailureRatio > 0 {
		need = min(need, int64(math.Ceil(c.FailureRatio*float64(c.MinCalls)-1e-9)))
	}
	return max(need, 1)
}

// hiddenWarning says, for breaker b, when the failures hidden from it are
// material: at least as many as it saw, and at least as many as it needs
// to open once (toOpen). Then at least half of the failures it would have
// counted never reached it, and those alone could have opened it: its
// state says less about the model or provider than the user may think.
// It returns "" otherwise.
func (e *engine) hiddenWarning(b *breaker) string {
	h := &b.hid
	if h.n == 0 || h.n < h.seen || h.n < b.cfg.toOpen() {
		return ""
	}
	var why []string
	for i := range e.cfg.Classes {
		if i >= 64 || h.classes>>uint(i)&1 == 0 {
			continue
		}
		cl := &e.cfg.Classes[i]
		var by []string
		if d := cl.Policy.Delays; len(d) > 0 && d[0] >= 0 && cl.Policy.Copies > 0 {
			by = append(by, "hedges after "+FormatSeconds(d[0].Seconds()))
		}
		if cl.Deadline > 0 {
			by = append(by, "has a deadline of "+FormatSeconds(cl.Deadline.Seconds()))
		}
		if len(by) > 0 {
			why = append(why, fmt.Sprintf("class %s %s", cl.Name, strings.Join(by, " and ")))
		}
	}
	cause := fmt.Sprintf("they were cancelled %s after they were sent, on average", FormatSeconds(h.age.Seconds()/float64(h.n)))
	if h.lateN > 0 {
		cause += fmt.Sprintf(", before their failure came back at %s on average", FormatSeconds(h.late.Seconds()/float64(h.lateN)))
	}
	if len(why) > 0 {
		cause += " (" + strings.Join(why, "; ") + ")"
	}
	return fmt.Sprintf("%d calls that were going to fail were cancelled before their failure came back (a hedge answered first, or the request's deadline passed), so it never counted them: it saw %d failures, needs %d to open, and opened %d times; %s. "+
		"It protects less than it seems: set the hedge delay above the failure latency, or an attempt timeout below the hedge delay (a timeout counts as a failure), so that the failures reach it, or, if your client's breaker can count a cancelled call as a failure, turn that on (the breaker modelled here cannot)",
		h.n, h.seen, b.cfg.toOpen(), b.opens, cause)
}

// HiddenWarning is the warning for breaker result b when calls cancelled
// before their failure came back hid failures from it that matter (see
// hiddenWarning for the rule), naming the breaker; "" otherwise.
func (b *BreakerResult) HiddenWarning() string {
	if b.hidden == "" {
		return ""
	}
	return fmt.Sprintf("the breaker on %s: %s", b.who(), b.hidden)
}

// who names the model or provider of breaker result b.
func (b *BreakerResult) who() string {
	if b.Provider != "" {
		return "provider " + b.Provider
	}
	return "model " + b.Model
}
