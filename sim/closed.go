package sim

import (
	"math"
	"time"
)

// Closed-loop clients. A class with Clients ≥ 1 is driven by that many
// clients, each cycling through think → request → think: it sends its next
// request ThinkTime after its previous request ended (answered, failed or
// timed out), and thinks once before its first. The cycle makes every
// request of the class depend on the ones before it, so such runs always
// take the global event path. With N clients, throughput X, mean time
// until a request ends R and mean think time Z, Little's law over the
// cycle reads N = X·(R + Z) (Kleinrock, Queueing Systems I, §2.1; the
// machine-repairman model is its closed M/M/1 case).

// thinkStream is the stream of the think time that follows request i
// (request −1−c for client c's first think).
const thinkStream = 0xfd

// client is one closed-loop client.
type client struct {
	class     int32
	thinkFrom time.Duration // when its current think began
}

// loopStats is what a run measures of a class's throughput, for every
// class of a run with closed-loop clients.
type loopStats struct {
	meter  rateMeter
	thinks int64         // think times that led to a request
	think  time.Duration // their sum
}

// hasOpen reports whether any class takes open arrivals.
func (cfg *Config) hasOpen() bool {
	for i := range cfg.Classes {
		if cfg.Classes[i].Clients == 0 {
			return true
		}
	}
	return false
}

// closedLoop reports whether any class is driven by closed-loop clients.
func (cfg *Config) closedLoop() bool {
	for i := range cfg.Classes {
		if cfg.Classes[i].Clients > 0 {
			return true
		}
	}
	return false
}

// validateClients checks the closed-loop settings of every class.
func (cfg *Config) validateClients() error {
	total := 0
	for i := range cfg.Classes {
		c := &cfg.Classes[i]
		if c.Clients < 0 || c.Clients > MaxRequests {
			return invalid("class %q: clients %d: must be in [0, %d] (0 = open arrivals)", c.Name, c.Clients, MaxRequests)
		}
		total += c.Clients
		if c.Clients == 0 && c.ThinkTime != nil {
			return invalid("class %q: a think time needs clients ≥ 1", c.Name)
		}
		if c.ThinkTime != nil {
			if lo, _ := c.ThinkTime.Support(); !(lo >= 0) {
				return invalid("class %q: think time can take the value %v s: must stay ≥ 0", c.Name, lo)
			}
		}
	}
	if total > MaxRequests {
		return invalid("%d closed-loop clients in all: at most %d", total, MaxRequests)
	}
	if total > 0 && cfg.Arrivals.Process == Replay && cfg.hasOpen() {
		return invalid("closed-loop clients cannot be combined with replayed arrivals")
	}
	return nil
}

// setupClients creates the closed-loop clients of every class, in class
// order, and the throughput meters.
func (e *engine) setupClients() {
	for i := range e.cfg.Classes {
		for range e.cfg.Classes[i].Clients {
			e.clients = append(e.clients, client{class: int32(i)})
		}
	}
	e.loops = make([]loopStats, len(e.cfg.Classes)+1) // the last: every class
}

// startClients makes every client begin with a think.
func (e *engine) startClients() {
	for i := range e.clients {
		e.think(int32(i), -1-int64(i))
	}
}

// think starts client c's pause before its next request; key is the id
// of the request that just ended (or −1−c before the first), which keys
// the draw.
func (e *engine) think(c int32, key int64) {
	cl := &e.clients[c]
	cl.thinkFrom = e.now
	z := time.Duration(0)
	if d := e.cfg.Classes[cl.class].ThinkTime; d != nil {
		z = seconds(d.Rand(e.rng.at(key, thinkStream)))
	}
	e.schedule(e.now+z, evThink, c, 0, 0)
}

// clientSends ends client c's think: it sends its next request, if any is
// left to simulate.
func (e *engine) clientSends(c int32) {
	if !e.more() {
		return
	}
	cl := &e.clients[c]
	l := &e.loops[cl.class]
	l.thinks++
	l.think += e.now - cl.thinkFrom
	e.arriveFrom(c)
}

// setClient records that the request in slot was sent by client cl (−1:
// an open arrival).
func (e *engine) setClient(slot, cl int32) {
	for int(slot) >= len(e.slotClient) {
		e.slotClient = append(e.slotClient, -1)
	}
	e.slotClient[slot] = cl
}

// ended books the end of request r, in slot, for the throughput, and
// starts the think of its client, if it has one. A pipeline's call (r.pipe
// set) is no request of the run: the meters count its pipeline request
// when that ends (endPipeline calls meterEnd), and it belongs to no
// client — its slot's entry may be an earlier request's, or missing
// (startCall sets none).
func (e *engine) ended(slot int32, r *request) {
	if r.pipe != 0 {
		return
	}
	e.meterEnd(r.class)
	if cl := e.slotClient[slot]; cl >= 0 {
		e.think(cl, r.id)
	}
}

// meterEnd books the end of a request of class c now in c's throughput
// meter and the overall one. An end after the last request was sent
// belongs to the drain and is only counted apart.
func (e *engine) meterEnd(c int32) {
	drain := e.next >= e.end
	if e.next == e.pauseAt && e.grow != nil {
		e.grow.keepMeters(e) // an end in the drain of the run that stops at pauseAt (fork.go)
	}
	e.loops[c].meter.add(e.now, drain)
	e.loops[len(e.loops)-1].meter.add(e.now, drain)
}

// rateMeter estimates a throughput from the times requests end, in O(1)
// memory: it keeps the time of every step-th end before the drain,
// doubling step (and dropping every other mark) whenever 128 marks are
// held.
type rateMeter struct {
	n     int64         // ends before the drain
	last  time.Duration // the last of them
	all   int64         // every end, the drain's too
	end   time.Duration // the last end
	step  int64
	marks []time.Duration
}

func (m *rateMeter) add(t time.Duration, drain bool) {
	m.all++
	m.end = t
	if drain {
		return
	}
	if m.step == 0 {
		m.step = 1
	}
	m.n++
	m.last = t
	if m.n%m.step != 0 {
		return
	}
	m.marks = append(m.marks, t)
	if len(m.marks) == 128 {
		for i := range 64 {
			m.marks[i] = m.marks[2*i+1]
		}
		m.marks = m.marks[:64]
		m.step *= 2
	}
}

// Throughput is the rate at which a class's requests ended, over the
// run's steady span. The span ends before the drain — the ends after the
// last request was sent, when clients stop one by one and the rate falls
// off with the run's finite length, not with the system — at the last
// batch boundary (see CI95), so the estimate and its interval measure one
// span and the estimate is the interval's centre in duration (it always
// lies inside it).
type Throughput struct {
	// PerSecond is Requests ÷ Seconds, in requests per second.
	PerSecond float64 `json:"requests_per_s"`
	// CI95 is a 95 % interval for PerSecond by batch means: the span's
	// ends are cut into B ≥ 2 batches of equal request counts m (B is 64
	// to 127 on long runs), and the interval m ÷ (d̄ ∓ t₀.₉₇₅,B−1·s_d/√B)
	// is taken over the batch durations d (Law & Kelton, Simulation
	// Modeling and Analysis, §9.5.3); PerSecond = m ÷ d̄. NaN when there
	// are fewer than two batches.
	CI95 [2]float64 `json:"ci95"`
	// Requests is the number of ends in the span, and Seconds its length
	// (it starts at 0): B·m ends up to the last batch's end with two
	// batches or more, otherwise every end before the drain up to the
	// last of them, or, when none came before it, every end.
	Requests int64   `json:"requests"`
	Seconds  float64 `json:"span_s"`
	// Clients is the number of closed-loop clients (0 for open traffic).
	Clients int `json:"clients"`
	// MeanThink is the mean think time in seconds of the class's
	// clients, over the thinks that led to a request; 0 for open traffic.
	MeanThink float64 `json:"mean_think_s"`
}

// throughput returns the meter's estimate.
func (m *rateMeter) throughput() Throughput {
	t := Throughput{CI95: [2]float64{math.NaN(), math.NaN()}}
	b := len(m.marks)
	switch {
	case b >= 2:
		t.Requests, t.Seconds = int64(b)*m.step, m.marks[b-1].Seconds()
	case m.n > 0 && m.last > 0:
		t.Requests, t.Seconds = m.n, m.last.Seconds()
	case m.all > 0 && m.end > 0:
		t.Requests, t.Seconds = m.all, m.end.Seconds()
	default:
		return t
	}
	t.PerSecond = float64(t.Requests) / t.Seconds
	if b < 2 {
		return t
	}
	var sum, sq float64
	prev := time.Duration(0)
	for _, x := range m.marks {
		d := (x - prev).Seconds()
		prev = x
		sum += d
		sq += d * d
	}
	mean := sum / float64(b)
	sd := math.Sqrt(math.Max(sq/float64(b)-mean*mean, 0) * float64(b) / float64(b-1))
	h := tQuantile(float64(b-1), 0.95) * sd / math.Sqrt(float64(b))
	step := float64(m.step)
	t.CI95 = [2]float64{step / (mean + h), math.Inf(1)}
	if mean > h {
		t.CI95[1] = step / (mean - h)
	}
	return t
}

// throughputs fills the Throughput of every class result and the overall
// one, in a run with closed-loop clients.
func (e *engine) throughputs(res *Result) {
	var thinks int64
	var think time.Duration
	clients := 0
	for i := range res.Classes {
		l := &e.loops[i]
		t := l.meter.throughput()
		t.Clients = e.cfg.Classes[i].Clients
		if l.thinks > 0 {
			t.MeanThink = l.think.Seconds() / float64(l.thinks)
		}
		thinks += l.thinks
		think += l.think
		clients += t.Clients
		res.Classes[i].Throughput = &t
	}
	t := e.loops[len(e.loops)-1].meter.throughput()
	t.Clients = clients
	if thinks > 0 {
		t.MeanThink = think.Seconds() / float64(thinks)
	}
	res.Overall.Throughput = &t
}

// closedClass returns the class of a request sent by client cl, or, for an
// open arrival (cl < 0) in a run that also has closed-loop classes, the
// open class drawn by u over the cumulative shares (closed classes take
// none of them).
func (e *engine) closedClass(cl int32, u float64) int {
	if cl >= 0 {
		return int(e.clients[cl].class)
	}
	last := 0
	for i, s := range e.shares {
		if e.cfg.Classes[i].Clients > 0 {
			continue
		}
		last = i
		if u < s {
			return i
		}
	}
	return last
}
