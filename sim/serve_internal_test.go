package sim

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
)

// TestServePlainIsServeAt checks servePlain against serveAt, the general
// path it shortens, on the attempts plainServe hands it: for each winner
// rule, at a provider without stages and at one whose degraded periods
// (a minute apart on average, 20 s long, 3 times slower) stretch the work
// but fail nothing, 2 000 attempts from a fixed seed (a third of them
// streamed) — sent at a random time before
// now (a queue wait, or none), with a random time to first token (0 among
// them, a response due now) and decoding, answering validly or not — each
// started by both on two engines made alike, holding the same events. The
// attempts, the provider's wait sum and counts, the sequence number, the
// heap and the events due now must be equal, field for field.
func TestServePlainIsServeAt(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 8))
	degraded := &Degraded{MeanNormal: time.Minute, MeanDegraded: 20 * time.Second, Slowdown: 3}
	for _, c := range []struct {
		w WinnerRule
		d *Degraded
	}{{FirstValid, nil}, {FirstToken, nil}, {FirstResponse, nil}, {FirstValid, degraded}, {FirstToken, degraded}} {
		w := c.w
		cfg := &Config{
			Name: "serve", Seed: 1, Requests: 10,
			Arrivals:  Arrivals{Process: Poisson, Rate: 1},
			Models:    []Model{{Name: "m", Provider: "p", Latency: dist.Constant{Value: 1}}},
			Providers: []Provider{{Name: "p", Concurrency: 4, Degraded: c.d}},
			Classes: []Class{{Name: "c", Share: 1,
				InputTokens: dist.Constant{Value: 10}, OutputTokens: dist.Constant{Value: 10},
				Policy: Policy{Winner: w}}},
		}
		for i := range 2000 {
			var engines [2]*engine
			var as [2]*attempt
			now := time.Duration(rng.Int64N(int64(time.Hour)))
			a := attempt{
				model: 0, prov: 0, kind: outOK, state: attInFlight, queued: false, serving: true,
				start:      now - time.Duration(rng.Int64N(int64(time.Minute)))*time.Duration(rng.IntN(2)),
				workFirst:  time.Duration(rng.Int64N(int64(2 * time.Second))),
				workDecode: time.Duration(rng.Int64N(int64(3 * time.Second))),
				workErr:    -1, degU: rng.Float64(),
			}
			if rng.IntN(4) == 0 {
				a.workFirst = 0 // under FirstToken, a response due now
			}
			if rng.IntN(4) == 0 {
				a.kind = outInvalid
			}
			a.streamed = rng.IntN(3) == 0
			// Events already queued, due around the response.
			var queued []time.Duration
			for range rng.IntN(6) {
				queued = append(queued, now+time.Duration(rng.Int64N(int64(4*time.Second))))
			}
			k := rng.IntN(2)
			for j := range engines {
				e := newEngine(cfg)
				e.now = now
				e.noHead()
				e.noArrival()
				e.slots = append(e.slots, request{gen: 7, sent: 2, inflight: 1, live: 1})
				for _, at := range queued {
					e.scheduleResponse(at, 0, 1, 0)
				}
				r := &e.slots[0]
				r.att[k] = a
				pv := &e.provs[0]
				pv.busy = 1
				if !e.plainServe(&r.att[k], pv) {
					t.Fatalf("winner %v, degraded %v, attempt %d: plainServe = false for %+v", w, c.d != nil, i, a)
				}
				if j == 0 {
					e.servePlain(0, r, k, &r.att[k], pv)
				} else {
					e.serveAt(0, r, k, &r.att[k], pv, nil)
				}
				engines[j], as[j] = e, &r.att[k]
			}
			p, g := engines[0], engines[1]
			if *as[0] != *as[1] {
				t.Fatalf("winner %v, degraded %v, attempt %d: servePlain made\n%+v\nserveAt\n%+v", w, c.d != nil, i, *as[0], *as[1])
			}
			if p.provs[0].waitSum != g.provs[0].waitSum || !reflect.DeepEqual(p.provs[0].stats, g.provs[0].stats) {
				t.Fatalf("winner %v, degraded %v, attempt %d: provider's waits and counts differ: %+v %+v against %+v %+v", w, c.d != nil, i,
					p.provs[0].waitSum, p.provs[0].stats, g.provs[0].waitSum, g.provs[0].stats)
			}
			if p.seq != g.seq || p.q.n != g.q.n || !reflect.DeepEqual(p.q.ev[:p.q.n], g.q.ev[:g.q.n]) || !reflect.DeepEqual(p.soon, g.soon) {
				t.Fatalf("winner %v, degraded %v, attempt %d: events differ:\nservePlain %d %v %v\nserveAt    %d %v %v", w, c.d != nil, i,
					p.seq, p.q.ev[:p.q.n], p.soon, g.seq, g.q.ev[:g.q.n], g.soon)
			}
		}
	}
}

// TestShapedStreamsAreNotPlain checks that plainServe leaves a streamed
// attempt to serveAt, which shapes its stream, when some class cuts
// streams or some model stalls, and takes a plain one all the same.
func TestShapedStreamsAreNotPlain(t *testing.T) {
	for _, shaped := range []Config{
		{Models: []Model{{Name: "m", Provider: "p", Latency: dist.Constant{Value: 1}, Stalls: Stalls{Rate: 0.1}}}},
		{Classes: []Class{{Policy: Policy{StreamCuts: StreamCuts{InterTokenTimeout: time.Second}}}}},
	} {
		cfg := &Config{
			Name: "shaped", Seed: 1, Requests: 10,
			Arrivals:  Arrivals{Process: Poisson, Rate: 1},
			Models:    []Model{{Name: "m", Provider: "p", Latency: dist.Constant{Value: 1}}},
			Providers: []Provider{{Name: "p", Concurrency: 4}},
			Classes: []Class{{Name: "c", Share: 1,
				InputTokens: dist.Constant{Value: 10}, OutputTokens: dist.Constant{Value: 10}}},
		}
		if shaped.Models != nil {
			cfg.Models = shaped.Models
		}
		if shaped.Classes != nil {
			cfg.Classes[0].Policy = shaped.Classes[0].Policy
		}
		e := newEngine(cfg)
		pv := &e.provs[0]
		if a := (attempt{kind: outOK, streamed: true}); e.plainServe(&a, pv) {
			t.Errorf("%+v, %+v: a streamed attempt is plain", cfg.Models[0].Stalls, cfg.Classes[0].Policy.StreamCuts)
		}
		if a := (attempt{kind: outOK}); !e.plainServe(&a, pv) {
			t.Errorf("%+v, %+v: a plain attempt is not", cfg.Models[0].Stalls, cfg.Classes[0].Policy.StreamCuts)
		}
	}
}
