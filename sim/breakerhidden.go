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
// because their request ended — another call answered first, or the
// deadline passed — before that failure came back. The breaker never sees
// them (a cancelled call counts as neither success nor failure), so it
// judges the model or provider by the failures that came back in time
// (seen). by splits them by what cancelled them (hideCause).
type hiddenFailures struct {
	n       int64         // failures cancelled before they came back
	age     time.Duration // their summed time out when cancelled
	late    time.Duration // their summed failure latency (send to failure), where known
	lateN   int64         // how many had a known failure latency
	classes uint64        // bit i: class i hid one (classes 0–63)
	seen    int64         // failures the breaker saw
	by      [hideCauses]hiddenBy
}

// hideCause is what ended the request of a call whose failure was hidden
// from a breaker, cancelling the call.
type hideCause uint8

const (
	// hidByAnswer: another call of the request answered first (under
	// winner "first_response", any response that won it).
	hidByAnswer hideCause = iota
	// hidByDeadline: the request's deadline passed (for a pipeline's call,
	// its step's own deadline).
	hidByDeadline
	// hidByFailure: another call's failure ended the request, or a retry
	// sent the request again.
	hidByFailure
	// hidByPipeline: the call's pipeline went on or ended without it (its
	// stage was done by other calls, or a step failed the turn closed).
	hidByPipeline
	// hidByTurnDeadline: the call's pipeline reached its end-to-end
	// deadline.
	hidByTurnDeadline
	hideCauses
)

// hiddenBy counts the hidden failures of one cause: how many, how many
// were their request's first call (attempt 0, the primary) and the least
// time one of those had been out when cancelled, and the classes (bit i:
// class i, classes 0–63) whose requests cancelled them.
type hiddenBy struct {
	n, first int64
	firstAge time.Duration
	classes  uint64
}

// breakersMiss records, for attempt a of r's breakers, that it is being
// cancelled now, its request having ended by cause, with its outcome drawn
// as a failure they count; first says a is r's first call. letGoAll calls it, only when the run has
// breakers (cancelLoser, answer's way of letting go, never runs with
// them).
func (e *engine) breakersMiss(r *request, a *attempt, first bool, cause hideCause) {
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
		by := &h.by[cause]
		by.n++
		if first {
			if by.first == 0 || age < by.firstAge {
				by.firstAge = age
			}
			by.first++
		}
		if r.class < 64 {
			h.classes |= 1 << uint(r.class)
			by.classes |= 1 << uint(r.class)
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

// endCause is why request r, ending now with outcome o (finish), lets go
// of the attempts it has in flight: its deadline (outTimeout), a response
// that wins it under its policy's winner rule (an answer), or another
// call's failure.
func (e *engine) endCause(r *request, o outcome) hideCause {
	switch {
	case o == outTimeout:
		return hidByDeadline
	case e.cfg.Classes[r.class].Policy.wins(o):
		return hidByAnswer
	}
	return hidByFailure
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
// It returns "" otherwise. The warning says what cancelled them
// (hideCause) and advises only what would let them reach the breaker
// (hiddenAdvice).
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
	return fmt.Sprintf("%d calls that were going to fail were cancelled before their failure came back (%s), so it never counted them: it saw %d failures, needs %d to open, and opened %d times; %s. "+
		"It protects less than it seems: %s",
		h.n, h.causes(), h.seen, b.cfg.toOpen(), b.opens, cause, e.hiddenAdvice(h))
}

// causeWords says what each hideCause did to a call.
var causeWords = [hideCauses]string{
	hidByAnswer:       "another call answered first",
	hidByDeadline:     "the request's deadline passed",
	hidByFailure:      "another call's failure ended the request, or a retry sent it again",
	hidByPipeline:     "their pipeline went on or ended without them",
	hidByTurnDeadline: "their pipeline's end-to-end deadline passed",
}

// causes says what cancelled the hidden failures of h: the cause alone
// when there is one, else each with its count.
func (h *hiddenFailures) causes() string {
	var out []string
	for c := range hideCauses {
		if n := h.by[c].n; n == h.n {
			return causeWords[c]
		} else if n > 0 {
			out = append(out, fmt.Sprintf("%d because %s", n, causeWords[c]))
		}
	}
	return strings.Join(out, ", ")
}

// only says, when h's hidden failures have more than one cause, that
// advice for cause c concerns only the ones by cancelled; "" otherwise.
func (h *hiddenFailures) only(c hideCause, by string) string {
	if h.by[c].n == h.n {
		return ""
	}
	return fmt.Sprintf(" for the %d %s cancelled", h.by[c].n, by)
}

// hiddenAdvice says what would let the failures hidden from a breaker
// (h) reach it, naming only what a scenario can set and the tool accepts:
//   - for those another call's answer cancelled, a hedge delay above their
//     mean failure latency L, for each class that hedges and has no
//     deadline or one above L (a delay at or past the deadline sends no
//     copy);
//   - for those the deadline cancelled, a deadline above L for each class
//     with one;
//   - for those that were their request's first call, but those their
//     pipeline let go of, an attempt timeout below the least time one of
//     them had been out when cancelled (hiddenBy.firstAge, > 0): every
//     one of them then times out first, a failure the breaker counts
//     (breakerSees), and the timeout is below the deadline, as the tool
//     requires. A first call is out at least the hedge delay when a
//     copy's answer cancels it, and until the deadline when the deadline
//     does; a copy can be cancelled just after it was sent, and a
//     pipeline's call sent late in a turn just before the end-to-end
//     deadline (hidByPipeline, hidByTurnDeadline), so no timeout worth
//     setting is bounded by them;
//   - a client breaker that counts a cancelled call as a failure, which
//     the one modelled here cannot.
func (e *engine) hiddenAdvice(h *hiddenFailures) string {
	late := -1.0
	if h.lateN > 0 {
		late = h.late.Seconds() / float64(h.lateN)
	}
	classes := func(mask uint64, ok func(i int, cl *Class) bool) string {
		var names []string
		for i := range e.cfg.Classes {
			if i < 64 && mask>>uint(i)&1 != 0 && ok(i, &e.cfg.Classes[i]) {
				names = append(names, e.cfg.Classes[i].Name)
			}
		}
		switch len(names) {
		case 0:
			return ""
		case 1:
			return "class " + names[0]
		}
		return "classes " + strings.Join(names, ", ")
	}
	var do []string
	if late >= 0 {
		hedges := classes(h.by[hidByAnswer].classes, func(i int, cl *Class) bool {
			d, dl := cl.Policy.Delays, e.deadlineOf(i)
			return len(d) > 0 && d[0] >= 0 && cl.Policy.Copies > 0 && (dl <= 0 || late < dl.Seconds())
		})
		if hedges != "" {
			do = append(do, "set the hedge delay above the failure latency ("+hedges+")"+h.only(hidByAnswer, "another call's answer"))
		}
		deadlines := classes(h.by[hidByDeadline].classes, func(_ int, cl *Class) bool { return cl.Deadline > 0 })
		if deadlines != "" {
			do = append(do, "set the deadline above the failure latency ("+deadlines+")"+h.only(hidByDeadline, "the deadline"))
		}
	}
	least, firsts := time.Duration(-1), int64(0)
	for _, c := range []hideCause{hidByAnswer, hidByDeadline, hidByFailure} {
		if by := &h.by[c]; by.first > 0 {
			firsts += by.first
			if least < 0 || by.firstAge < least {
				least = by.firstAge
			}
		}
	}
	switch {
	case least <= 0:
	case firsts == h.n:
		do = append(do, fmt.Sprintf("set an attempt timeout below %s, the least time one of those calls had been out (a timeout counts as a failure, a slow answer's too)", FormatSeconds(least.Seconds())))
	default:
		which := "that were their request's first call"
		if h.by[hidByPipeline].n+h.by[hidByTurnDeadline].n > 0 {
			which += ", not let go of by their pipeline"
		}
		do = append(do, fmt.Sprintf("set an attempt timeout below %s, the least time one of the %d %s had been out (a timeout counts as a failure, a slow answer's too)", FormatSeconds(least.Seconds()), firsts, which))
	}
	client := "if your client's breaker can count a cancelled call as a failure, turn that on (the breaker modelled here cannot)"
	if len(do) == 0 {
		return client
	}
	return strings.Join(do, ", or ") + ", so that the failures reach it, or, " + client
}

// deadlineOf is the deadline that ends the calls of class i: its own, or
// for a pipeline step's class the sooner of its own and its pipeline's
// end-to-end deadline; 0 for none.
func (e *engine) deadlineOf(i int) time.Duration {
	dl := e.cfg.Classes[i].Deadline
	if i < e.users || e.stepOwner == nil {
		return dl
	}
	if o := e.stepOwner[i-e.users]; o >= 0 {
		if pd := e.cfg.Classes[o].Deadline; pd > 0 && (dl <= 0 || pd < dl) {
			dl = pd
		}
	}
	return dl
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
