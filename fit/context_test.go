package fit

import (
	"context"
	"errors"
	"math"
	"sync/atomic"
	"testing"

	"github.com/hedgesim/hedgesim/readers"
)

// countdownCtx is a context whose Err turns to context.Canceled after n
// calls: it cancels a fit at a known point inside its loops.
type countdownCtx struct {
	context.Context
	n atomic.Int64
}

func (c *countdownCtx) Err() error {
	if c.n.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// TestFitStopsWhenCancelled: a fit whose context is cancelled — before it
// starts, or inside EM (after 30 checks: the EM loop of the first mixture
// checks once per iteration) — returns context.Canceled, not a result.
func TestFitStopsWhenCancelled(t *testing.T) {
	x := draw(synthetic(), 5000, 1)
	l := &readers.Log{File: "synthetic"}
	for _, v := range x {
		l.Add(readers.Request{Latency: v, TTFT: math.NaN(), InputTokens: math.NaN(), OutputTokens: math.NaN()})
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	inEM := &countdownCtx{Context: context.Background()}
	inEM.n.Store(30)
	for name, ctx := range map[string]context.Context{"before": cancelled, "in EM": inEM} {
		if r, err := FitLogContext(ctx, l, Options{}); !errors.Is(err, context.Canceled) || r != nil {
			t.Errorf("FitLog, cancelled %s: %v, %v; want context.Canceled", name, r, err)
		}
	}
	if inEM.n.Load() > 0 {
		t.Errorf("the fit ended before its 30th check")
	}
	var ub []float64
	for b := 0.05; b < 100; b *= 1.5 {
		ub = append(ub, b)
	}
	ub = append(ub, math.Inf(1))
	if h, err := FitHistogramContext(cancelled, binValues("bimodal", x, ub), Options{Model: ModelMixture2}); !errors.Is(err, context.Canceled) || h != nil {
		t.Errorf("FitHistogram, cancelled: %v, %v; want context.Canceled", h, err)
	}
	if rows, err := SplitHalfContext(cancelled, l, Options{}); !errors.Is(err, context.Canceled) || rows != nil {
		t.Errorf("SplitHalf, cancelled: %v, %v; want context.Canceled", rows, err)
	}
}
