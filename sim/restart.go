package sim

import (
	"fmt"
	"io"
	"math"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/hedgesim/hedgesim/textfit"
)

// Replicas that restart — a rolling deploy, a crash and reschedule —
// leave the balancer's set for a while and come back as new processes:
// cold, when the pool has a cold-start model, and without the latency
// statistics a latency-aware balancer ranks them by. A latency_ewma
// balancer that ranks an unmeasured replica as the fastest floods it
// (elastic/elasticsearch#147579: adaptive replica selection sends a new
// or restarted node a disproportionate share until its statistics
// converge); Pool.Unmeasured says how it ranks one instead
// (unmeasured.go).
//
// What a restart does: from its At the balancer leaves the replica out
// of every pick (as it does a replica holding another attempt of the
// request; when every replica is out, none is left out). Attempts
// already queued or in service there are served to their end — a drain,
// as Kubernetes' termination grace period gives. At At + For the replica
// rejoins: its latency average and count of observations start afresh
// (a drained attempt that responds after the rejoin counts towards the
// new ones); with a cold-start model it is cold, so the first attempt that reaches
// it while nothing is in service there pays a cold start.
//
// When it acts: lazily, at the start of each pick of the pool and of each
// latency observation (sync), the restarts' boundaries due by then are
// applied in time order. Its cost: O(1) per pick with nothing due, O(log
// restarts) per boundary, and the left-out set per pick is O(out). Where
// it enters the loop: pick (the left-out replicas) and observe; the
// boundaries applied and the left-out lists built count towards the run's
// next look at its context (engine.chargeWork).

// Restarts are a pool's replica restarts (Pool.Restarts): scheduled ones,
// and, when MeanUp > 0, random ones.
type Restarts struct {
	// Scheduled lists restarts at given times.
	Scheduled []Restart
	// MeanUp, when > 0, restarts every replica at random: after up times
	// drawn from an exponential distribution of mean MeanUp (from time 0,
	// and from each rejoin), it is out of service for Down; ≥
	// MinDegradedPeriod. Down > 0 is then required. The draws of replica
	// i come from a stream of the seed and i alone — common random
	// numbers: pools with the same MeanUp and Down restart their replica
	// i at the same times, so pools that differ in their balancer see
	// the same restarts.
	MeanUp, Down time.Duration
	// Window is how long after a replica rejoins its share of the pool's
	// attempts is reported (RestartResult); > 0.
	Window time.Duration
}

// Restart takes one replica out of service at At for For.
type Restart struct {
	// Replica is the replica's index, in [0, Pool.Replicas).
	Replica int
	// At is when it leaves the balancer's set, ≥ 0; For how long until it
	// rejoins, > 0.
	At, For time.Duration
}

// validate checks rs for a pool of n replicas.
func (rs *Restarts) validate(n int) error {
	if rs.Window <= 0 {
		return fmt.Errorf("pool: restarts' report window %v: must be > 0", rs.Window)
	}
	if rs.MeanUp != 0 || rs.Down != 0 {
		if rs.MeanUp < MinDegradedPeriod || rs.Down <= 0 {
			return fmt.Errorf("pool: random restarts with mean up time %v and down %v: want a mean up time ≥ %v and down > 0", rs.MeanUp, rs.Down, MinDegradedPeriod)
		}
	}
	for _, r := range rs.Scheduled {
		if r.Replica < 0 || r.Replica >= n {
			return fmt.Errorf("pool: a restart of replica %d: must be in [0, %d)", r.Replica, n)
		}
		if r.At < 0 || r.For <= 0 || r.At > math.MaxInt64-r.For {
			return fmt.Errorf("pool: replica %d restarting at %v for %v: want a time ≥ 0 and a length > 0", r.Replica, r.At, r.For)
		}
	}
	return nil
}

// RestartResult is what became of one restart of a replica.
type RestartResult struct {
	Replica int `json:"replica"`
	// Left is when it left the balancer's set, in seconds of simulated
	// time. Joined is when it rejoined; when the run ended first
	// (Rejoined false), when it was due to rejoin, after the run's end.
	// JoinedJSON is Joined on the wire, null when it did not rejoin.
	Left       float64  `json:"left_s"`
	JoinedJSON *float64 `json:"joined_s"`
	Joined     float64  `json:"-"`
	Rejoined   bool     `json:"-"`
	// WindowS is the length of the window after Joined reported on, in
	// seconds: Restarts.Window, or less when the run ended first.
	WindowS float64 `json:"window_s"`
	// Sent is the attempts the balancer sent it in the window, PoolSent
	// those it sent to the whole pool, and Share Sent ÷ PoolSent (null
	// when PoolSent is 0); a fair share is 1 ÷ replicas.
	Sent     int64    `json:"sent"`
	PoolSent int64    `json:"pool_sent"`
	Share    *float64 `json:"share"`
	// Random says whether the restart was a random one.
	Random bool `json:"random"`
	// open says whether the window is still open; joined is Joined;
	// windowCfg is Restarts.Window in seconds.
	open      bool
	joined    time.Duration
	windowCfg float64
}

// boundary is a moment a restart changes the pool: a replica leaves,
// rejoins, or the report window of its rejoin ends.
type boundary struct {
	at   time.Duration
	rep  int32
	kind uint8
	// random says whether it belongs to a random restart; res indexes the
	// restart's result (rejoins and window ends).
	random bool
	res    int32
	// join is when a leaving replica rejoins.
	join time.Duration
}

const (
	bLeave uint8 = iota
	bJoin
	bWindowEnd
)

// churn is the run-time state of a pool's restarts.
type churn struct {
	cfg *Restarts
	// due holds the boundaries not yet applied, a min-heap on (at, seq
	// order of insertion).
	due []boundary
	// out counts, per replica, the restarts it is out for.
	out  []int32
	nOut int
	// left is the ascending list of replicas out of service, kept in
	// order as they leave and rejoin; scratch is the per-pick left-out set.
	left, scratch []int
	// work counts the units of work (engine.chargeWork) done since the pool's
	// takeWork last took them.
	work int
	res  []RestartResult
	// sentAt holds, per result, the replica's and the pool's attempts
	// sent when it rejoined.
	sentAt [][2]int64
	// src draws the random restarts' up times, per replica.
	src []splitMix
}

// restartKey is the stream key of a pool's random restarts.
const restartKey = 0x9005 << 32

// newChurn returns the run-time restarts of c for a pool of n replicas,
// or nil when c is.
func newChurn(c *Restarts, n int, seed uint64) *churn {
	if c == nil {
		return nil
	}
	ch := &churn{cfg: c, out: make([]int32, n), scratch: make([]int, 0, n+MaxCopies+2)}
	for _, r := range c.Scheduled {
		ch.push(boundary{at: r.At, rep: int32(r.Replica), kind: bLeave, join: r.At + r.For})
	}
	if c.MeanUp > 0 {
		ch.src = make([]splitMix, n)
		for i := range ch.src {
			ch.src[i].s = splitmix64(seed ^ restartKey ^ uint64(i))
			ch.randomLeave(i, 0)
		}
	}
	return ch
}

// randomLeave schedules replica i's next random restart after an up time
// from t.
func (ch *churn) randomLeave(i int, t time.Duration) {
	up := -math.Log(1-ch.src[i].float64()) * ch.cfg.MeanUp.Seconds()
	at := satAdd(t, seconds(up))
	ch.push(boundary{at: at, rep: int32(i), kind: bLeave, random: true, join: satAdd(at, ch.cfg.Down)})
}

// satAdd returns t + d, saturating at the largest duration.
func satAdd(t, d time.Duration) time.Duration {
	if t > math.MaxInt64-d {
		return math.MaxInt64
	}
	return t + d
}

// push adds b to the heap of due boundaries.
func (ch *churn) push(b boundary) {
	ch.due = append(ch.due, b)
	for j := len(ch.due) - 1; j > 0; {
		p := (j - 1) / 2
		if ch.due[p].at <= ch.due[j].at {
			break
		}
		ch.due[p], ch.due[j] = ch.due[j], ch.due[p]
		j = p
	}
}

// pop removes and returns the earliest due boundary.
func (ch *churn) pop() boundary {
	b := ch.due[0]
	last := len(ch.due) - 1
	ch.due[0] = ch.due[last]
	ch.due = ch.due[:last]
	for j := 0; ; {
		l, s := 2*j+1, j
		if l < last && ch.due[l].at < ch.due[s].at {
			s = l
		}
		if l+1 < last && ch.due[l+1].at < ch.due[s].at {
			s = l + 1
		}
		if s == j {
			break
		}
		ch.due[s], ch.due[j] = ch.due[j], ch.due[s]
		j = s
	}
	return b
}

// sync applies the boundaries of pl's restarts due by now, in time order.
func (pl *pool) sync(now time.Duration) {
	ch := pl.churn
	for len(ch.due) > 0 && ch.due[0].at <= now {
		b := ch.pop()
		i := int(b.rep)
		ch.work++
		switch b.kind {
		case bLeave:
			ch.out[i]++
			if ch.out[i] == 1 {
				ch.nOut++
				ch.setLeft(i, true)
			}
			ch.res = append(ch.res, RestartResult{Replica: i, Left: b.at.Seconds(), Joined: b.join.Seconds(), Random: b.random, joined: b.join, windowCfg: ch.cfg.Window.Seconds()})
			ch.sentAt = append(ch.sentAt, [2]int64{})
			ch.push(boundary{at: b.join, rep: b.rep, kind: bJoin, random: b.random, res: int32(len(ch.res) - 1)})
		case bJoin:
			ch.out[i]--
			if ch.out[i] == 0 {
				ch.nOut--
				ch.setLeft(i, false)
			}
			pl.rejoin(i)
			ch.res[b.res].open = true
			ch.sentAt[b.res] = [2]int64{pl.reps[i].stats.Sent, pl.sentAll}
			ch.push(boundary{at: satAdd(b.at, ch.cfg.Window), rep: b.rep, kind: bWindowEnd, res: b.res})
			if b.random {
				ch.randomLeave(i, b.at)
			}
		case bWindowEnd:
			ch.close(pl, int(b.res), ch.cfg.Window)
		}
	}
}

// setLeft adds replica i to the ascending list of replicas out of
// service (out) or removes it, by a binary search and a shift: a unit of
// work (engine.chargeWork) per 64 replicas shifted.
func (ch *churn) setLeft(i int, out bool) {
	j, _ := slices.BinarySearch(ch.left, i)
	if out {
		ch.left = slices.Insert(ch.left, j, i)
	} else {
		ch.left = slices.Delete(ch.left, j, j+1)
	}
	ch.work += (len(ch.left) - j) / 64
}

// close ends the report window of result j, w long.
func (ch *churn) close(pl *pool, j int, w time.Duration) {
	r := &ch.res[j]
	r.open = false
	r.WindowS = w.Seconds()
	r.Sent = pl.reps[r.Replica].stats.Sent - ch.sentAt[j][0]
	r.PoolSent = pl.sentAll - ch.sentAt[j][1]
	if r.PoolSent > 0 {
		s := float64(r.Sent) / float64(r.PoolSent)
		r.Share = &s
	}
}

// rejoin makes replica i a new process: no latency observations, and,
// with a cold-start model, cold unless something is in service there.
func (pl *pool) rejoin(i int) {
	rp := &pl.reps[i]
	rp.avg, rp.obs = 0, 0
	if pl.cfg.ColdStart != nil && rp.busy == 0 {
		// Idle since long before any keep-warm time: cold (replica.cold).
		rp.idleSince, rp.warmAt = math.MinInt64/2, math.MinInt64/2
	}
}

// leaveOut returns the replicas a pick at now leaves out, ascending: ex
// (the request's own, ascending) and those out of service — or, when
// that leaves none, those out of service alone (the pick then counts as
// shared), or when every replica is out, ex alone.
func (pl *pool) leaveOut(now time.Duration, ex []int) []int {
	pl.sync(now)
	ch := pl.churn
	if ch.nOut == 0 {
		return ex
	}
	n := len(pl.reps)
	if ch.nOut >= n {
		return ex
	}
	// Merge the two ascending lists.
	u := ch.scratch[:0]
	i, j := 0, 0
	for i < len(ex) || j < len(ch.left) {
		switch {
		case j == len(ch.left) || i < len(ex) && ex[i] < ch.left[j]:
			u = append(u, ex[i])
			i++
		case i == len(ex) || ch.left[j] < ex[i]:
			u = append(u, ch.left[j])
			j++
		default:
			u = append(u, ex[i])
			i++
			j++
		}
	}
	ch.scratch = u
	ch.work += len(u)
	if len(u) >= n {
		if len(ex) > 0 {
			pl.shared++
		}
		return ch.left
	}
	return u
}

// restartResults returns what became of pl's restarts at the end of a
// run at end, closing the windows still open.
func (pl *pool) restartResults(end time.Duration) []RestartResult {
	ch := pl.churn
	if ch == nil {
		return nil
	}
	pl.sync(end)
	for j := range ch.res {
		r := &ch.res[j]
		if r.open {
			ch.close(pl, j, max(0, end-r.joined))
		}
		r.Rejoined, r.JoinedJSON = r.joined <= end, nil
		if r.Rejoined {
			at := r.Joined
			r.JoinedJSON = &at
		}
	}
	return ch.res
}

// maxRestartRows is how many restarts of a pool the text report lists.
const maxRestartRows = 20

// writeRestarts writes the restarts of pool p, when it has any: per
// restart its replica, when it left and rejoined, and its share of the
// pool's attempts in the window after it rejoined.
func writeRestarts(w io.Writer, p PoolResult) {
	if len(p.Restarts) == 0 {
		return
	}
	fmt.Fprintf(w, "restarts: each replica's share of the pool's attempts in its first %s back (fair share %s)\n",
		fsec(p.Restarts[0].windowCfg), pct(1/float64(len(p.Replicas))))
	tw := textfit.NewTable(w, tabwriter.AlignRight)
	fmt.Fprintln(tw, "replica\tleft\trejoined\twindow\tsent\tpool sent\tshare\t")
	for _, r := range p.Restarts[:min(len(p.Restarts), maxRestartRows)] {
		share, joined, win := "-", fsec(r.Joined), fsec(r.WindowS)
		if r.Share != nil {
			share = pct(*r.Share)
		}
		if !r.Rejoined {
			joined, win = "after the run", "-"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%d\t%s\t\n", r.Replica, fsec(r.Left), joined, win, r.Sent, r.PoolSent, share)
	}
	tw.Flush()
	if len(p.Restarts) > maxRestartRows {
		fmt.Fprintf(w, "(%d of %d restarts shown; every one is in the JSON report)\n", maxRestartRows, len(p.Restarts))
	}
}
