package sim

import (
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
)

// TestGapBatchMatchesPoissonGap: the lane's gaps drawn ahead are
// poissonGap's, and its hashes the ones streams.at caches, over full
// batches and a short last one, from an engine that starts mid-run where
// gapSum puts it, as RunSplit's do.
func TestGapBatchMatchesPoissonGap(t *testing.T) {
	cfg := &Config{
		Name: "gaps", Seed: 99, Requests: 3*gapBatchLen + 5,
		Arrivals: Arrivals{Process: Poisson, Rate: 7},
		Models:   []Model{{Name: "m", Provider: "p", Latency: dist.Constant{Value: 0.1}}},
		Classes:  []Class{{Name: "c", Share: 1, InputTokens: dist.Constant{}, OutputTokens: dist.Constant{}}},
	}
	e, ref := newEngine(cfg), newEngine(cfg)
	e.next = 3
	var at time.Duration
	if got := ref.gapSum(1, 3); got != ref.poissonGap(1)+ref.poissonGap(2) {
		t.Fatalf("gapSum(1, 3) = %v, want %v", got, ref.poissonGap(1)+ref.poissonGap(2))
	}
	at = ref.gapSum(0, 3) // requests 0–2 arrived before this engine's first
	e.lastArr = at
	for ; e.next < e.end; e.next++ {
		at += ref.poissonGap(e.next)
		if got := e.laneArrival(); got != at {
			t.Fatalf("request %d arrives at %v, want %v", e.next, got, at)
		}
		if e.rng.last != uint64(e.next) || e.rng.hash != ref.rng.hash {
			t.Fatalf("request %d: cached hash %x of %d, want %x", e.next, e.rng.hash, e.rng.last, ref.rng.hash)
		}
	}
}
