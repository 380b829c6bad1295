package fit

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/hedgesim/hedgesim/readers"
)

// TestSortedContext: sortedContext gives sort.Float64s's order for sizes
// below, at and around multiples of its run length (with ties: values
// rounded to a grid of 1 000), leaves its input alone, and returns
// context.Canceled, not a result, when its context is done — before it
// starts, or in the merge passes (countdownCtx).
func TestSortedContext(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 1000, checkEvery - 1, checkEvery, checkEvery + 1, 3*checkEvery + 17, 5 * checkEvery} {
		x := make([]float64, n)
		for i := range x {
			x[i] = math.Round(1000*r.ExpFloat64()) + 1
		}
		in := slices.Clone(x)
		want := slices.Clone(x)
		sort.Float64s(want)
		got, err := sortedContext(context.Background(), x)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("n = %d: err %v, sorted %v", n, err, slices.Equal(got, want))
		}
		if !slices.Equal(x, in) {
			t.Errorf("n = %d: the input was changed", n)
		}
	}
	x := make([]float64, 5*checkEvery)
	for i := range x {
		x[i] = r.Float64() + 1
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	inMerge := &countdownCtx{Context: context.Background()}
	inMerge.n.Store(7) // 5 runs, then the merge passes' checks
	for name, ctx := range map[string]context.Context{"before": cancelled, "in the merge": inMerge} {
		if s, err := sortedContext(ctx, x); !errors.Is(err, context.Canceled) || s != nil {
			t.Errorf("cancelled %s: %d values, %v; want context.Canceled", name, len(s), err)
		}
	}
}

// TestLogLikContext: logLik is the sum of ln f(xᵢ) in the observations'
// order — the same float64, bit for bit, as the density's formula summed
// here over 3 runs of checks — and stops with context.Canceled.
func TestLogLikContext(t *testing.T) {
	m := LogNormalMixture{Weights: []float64{0.3, 0.7}, Mu: []float64{math.Log(0.2), math.Log(1.5)}, Sigma: []float64{0.3, 0.5}}
	r := rand.New(rand.NewPCG(3, 4))
	x := make([]float64, 3*checkEvery+5)
	for i := range x {
		x[i] = m.Dist().Rand(r)
	}
	var want float64
	for _, xi := range x {
		y := math.Log(xi)
		terms := make([]float64, m.K())
		for j := range terms {
			terms[j] = math.Log(m.Weights[j]) + distuv.Normal{Mu: m.Mu[j], Sigma: m.Sigma[j]}.LogProb(y)
		}
		want += floats.LogSumExp(terms) - y
	}
	if got, err := m.logLik(context.Background(), x); err != nil || got != want {
		t.Errorf("logLik %v, %v; want %v", got, err, want)
	}
	if got := m.LogLik(x); got != want {
		t.Errorf("LogLik %v; want %v", got, want)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.logLik(cancelled, x); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v; want context.Canceled", err)
	}
}

// TestSplitHalfStopsInItsSorts: SplitHalfContext cancelled at its last
// look at the context — the sort of a half, after half A's fit — returns
// context.Canceled and no rows, not the rows before it. The number of
// looks is counted first on a run that is never cancelled.
func TestSplitHalfStopsInItsSorts(t *testing.T) {
	x := draw(synthetic(), 5000, 1)
	l := &readers.Log{File: "synthetic"}
	for _, v := range x {
		l.Add(readers.Request{Latency: v, TTFT: math.NaN(), InputTokens: math.NaN(), OutputTokens: math.NaN()})
	}
	const lots = 1 << 40
	count := &countdownCtx{Context: context.Background()}
	count.n.Store(lots)
	if rows, err := SplitHalfContext(count, l, Options{}); err != nil || len(rows) != 1 {
		t.Fatalf("uncancelled: %v, %v", rows, err)
	}
	looks := lots - count.n.Load()
	last := &countdownCtx{Context: context.Background()}
	last.n.Store(looks - 1)
	if rows, err := SplitHalfContext(last, l, Options{}); !errors.Is(err, context.Canceled) || rows != nil {
		t.Errorf("cancelled at look %d of %d: %v, %v; want context.Canceled", looks, looks, rows, err)
	}
}
