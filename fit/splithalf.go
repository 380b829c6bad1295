package fit

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"

	"github.com/hedgesim/hedgesim/readers"
	"github.com/hedgesim/hedgesim/textfit"
)

// MinSplitHalf is the number of successful requests a log needs for the
// split-half check: 100, so each half has at least 50 observations and
// the held-out p95 interval is bounded.
const MinSplitHalf = 100

// SplitHalfRow is one line of the split-half check: a model fitted on one
// half of a log predicts the other half's p95.
type SplitHalfRow struct {
	// File is the log; Metric "ttft" or "latency" (end to end).
	File, Metric string
	// NA and NB are the sizes of the fitting half A and held-out half B.
	NA, NB int
	// Model names the model behind the prediction: the ttft model ("… +
	// prefill" when half A's fit has a prefill speed: base + input/speed,
	// simulated), or for a streamed log's latency "ttft-model +
	// speed-model" simulated.
	Model string
	// Check holds half B's observed p95 and its order-statistic interval,
	// with Model = the prediction from half A and Inside whether it lies
	// in the interval.
	Check QuantileCheck
	// Naive is half A's own sample p95, the prediction without a model,
	// and NaiveInside whether it lies in half B's interval.
	Naive       float64
	NaiveInside bool
}

// SplitHalf shuffles the successful requests of l with a PCG seeded by
// opt.Seed (stream 3), fits half A (the first ⌊n/2⌋) with FitLog, and
// checks the p95 it predicts against the held-out half B: for every
// log, the end-to-end latency; for a streamed log, also the TTFT. It
// returns an error wrapping ErrNoData when l has fewer than MinSplitHalf
// successful requests.
func SplitHalf(l *readers.Log, opt Options) ([]SplitHalfRow, error) {
	return SplitHalfContext(context.Background(), l, opt)
}

// SplitHalfContext is SplitHalf that stops when ctx is done, returning
// ctx's error.
func SplitHalfContext(ctx context.Context, l *readers.Log, opt Options) ([]SplitHalfRow, error) {
	opt, err := opt.check()
	if err != nil {
		return nil, err
	}
	ok := l.Successful()
	if len(ok) < MinSplitHalf {
		return nil, fmt.Errorf("%s: %w: %d successful requests; the split-half check needs %d", l.File, ErrNoData, len(ok), MinSplitHalf)
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 3))
	rng.Shuffle(len(ok), func(i, j int) { ok[i], ok[j] = ok[j], ok[i] })
	half := len(ok) / 2
	a := &readers.Log{File: l.File, Format: l.Format}
	b := &readers.Log{File: l.File, Format: l.Format}
	for i, r := range ok {
		if i < half {
			a.Add(r)
		} else {
			b.Add(r)
		}
	}
	ra, err := FitLogContext(ctx, a, opt)
	if err != nil {
		return nil, err
	}
	const p = 0.95
	var rows []SplitHalfRow
	// row adds the row of a metric; the halves' sorts look at ctx (an
	// error is kept in err, and the rows that follow are not added).
	row := func(metric, model string, predicted float64, av, bv []float64) {
		if err != nil {
			return
		}
		var as, bs []float64
		if bs, err = sortedContext(ctx, bv); err != nil {
			return
		}
		if as, err = sortedContext(ctx, av); err != nil {
			return
		}
		q := observedQuantile(bs, p)
		q.Model = predicted
		q.Inside = q.Lo <= predicted && predicted <= q.Hi
		naive := observedQuantile(as, p).Observed
		rows = append(rows, SplitHalfRow{
			File: l.File, Metric: metric, NA: len(av), NB: len(bv), Model: model, Check: q,
			Naive: naive, NaiveInside: q.Lo <= naive && naive <= q.Hi,
		})
	}
	if ra.Streamed && b.Streamed() {
		ttft := ra.Metric("ttft").Best()
		if ra.TTFTCheck != nil { // base + input/prefill speed, simulated
			row("ttft", ttft.Name+" + prefill", quantileOf(ra.TTFTCheck, p), a.TTFTs(), b.TTFTs())
		} else {
			row("ttft", ttft.Name, ttft.Dist.Quantile(p), a.TTFTs(), b.TTFTs())
		}
		row("latency", ttft.Name+" + "+ra.Speed.Name, e2eQuantile(ra, p), a.Latencies(), b.Latencies())
	} else {
		lat := ra.Metric("latency").Best()
		row("latency", lat.Name, lat.Dist.Quantile(p), a.Latencies(), b.Latencies())
	}
	if err != nil {
		return nil, err
	}
	return rows, nil
}

// e2eQuantile returns the simulated end-to-end p-quantile of a streamed
// report.
func e2eQuantile(r *Report, p float64) float64 { return quantileOf(r.EndToEnd, p) }

// quantileOf returns the model's p-quantile of a check.
func quantileOf(g *Goodness, p float64) float64 {
	for _, q := range g.Quantiles {
		if q.P == p {
			return q.Model
		}
	}
	panic(fmt.Sprintf("fit: p = %v is not a checked quantile", p))
}

// WriteSplitHalf writes split-half rows as a table, followed by the count
// of predictions inside the held-out interval.
func WriteSplitHalf(w io.Writer, rows []SplitHalfRow) error {
	tw := textfit.NewTable(w, 0)
	fmt.Fprintln(tw, "log\tmetric\tnA/nB\tmodel (half A)\tpredicted p95\tobserved p95 (half B)\t95% interval\tin\thalf-A p95\tin\t")
	in, naiveIn := 0, 0
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n",
			filepath.Base(r.File), r.Metric, r.NA, r.NB, r.Model, fmtNum(r.Check.Model), fmtNum(r.Check.Observed),
			interval(r.Check), yesNo(r.Check.Inside), fmtNum(r.Naive), yesNo(r.NaiveInside))
		if r.Check.Inside {
			in++
		}
		if r.NaiveInside {
			naiveIn++
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "model predictions inside the held-out 95%% interval: %d of %d; half-A sample p95 inside: %d of %d\n",
		in, len(rows), naiveIn, len(rows))
	return err
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "NO"
}
