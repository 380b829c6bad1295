// Package prometheustest checks hedgesim retune's --prometheus client
// against a real Prometheus: its TSDB, PromQL engine and HTTP API handlers
// (github.com/prometheus/prometheus), in-process, holding a client_golang
// histogram gathered every 15 s. It is a module of its own so that the
// Prometheus server's dependencies stay out of hedgesim's go.mod; run it
// with `cd retune/prometheustest && go test ./...`.
package prometheustest

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/promslog"
	"github.com/prometheus/common/route"
	"github.com/prometheus/prometheus/config"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/promql/parser"
	"github.com/prometheus/prometheus/tsdb"
	v1 "github.com/prometheus/prometheus/web/api/v1"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/fit"
	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/retune"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
)

const metric = "guard_request_duration_seconds"

var buckets = []float64{0.1, 0.15, 0.2, 0.25, 0.3, 0.5, 1, 2, 3, 4, 5, 7.5, 10, 12.5, 15, 17.5, 20}

// server starts a Prometheus API over a fresh TSDB in t.TempDir and
// returns its URL and the database to append to.
func server(t testing.TB) (string, *tsdb.DB) {
	t.Helper()
	db, err := tsdb.Open(t.TempDir(), nil, nil, tsdb.DefaultOptions(), tsdb.NewDBStats())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	engine := promql.NewEngine(promql.EngineOpts{MaxSamples: 1e7, Timeout: time.Minute, LookbackDelta: 5 * time.Minute})
	reg := prometheus.NewRegistry()
	api := v1.NewAPI(engine, db, nil, nil, nil, nil, nil,
		func() config.Config { return config.Config{} }, nil, v1.GlobalURLOptions{},
		func(f http.HandlerFunc) http.HandlerFunc { return f }, nil, "", false, false, 0, promslog.NewNopLogger(), nil,
		0, 0, 0, false, nil, nil, &v1.PrometheusVersion{}, nil, nil, reg, reg, nil, false, nil, false, false, false,
		5*time.Minute, false, false, nil, nil, v1.OpenAPIOptions{}, parser.NewParser(parser.Options{}), false, 0)
	r := route.New()
	api.Register(r.WithPrefix("/api/v1"))
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	return srv.URL, db
}

// feed observes perStep draws of guard-check's latency with the given slow
// share into the client_golang histogram h every 15 s from start for d,
// gathers reg after each step as a scrape would, and appends the bucket
// samples to db at the step's time.
func feed(t *testing.T, db *tsdb.DB, reg *prometheus.Registry, h *prometheus.HistogramVec, slow float64, start time.Time, d time.Duration, perStep int, src rand.Source) {
	t.Helper()
	m, err := dist.NewMixture([]float64{1 - slow, slow}, []dist.Continuous{dist.Uniform{Min: 0.1, Max: 0.3}, dist.Uniform{Min: 3, Max: 19}})
	if err != nil {
		t.Fatal(err)
	}
	for at := start; at.Before(start.Add(d)); at = at.Add(15 * time.Second) {
		for range perStep {
			h.WithLabelValues("llama-guard").Observe(m.Rand(src))
		}
		fams, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		app := db.Appender(context.Background())
		for _, f := range fams {
			for _, s := range f.Metric {
				base := []string{"job", "guard"}
				for _, lp := range s.Label {
					base = append(base, lp.GetName(), lp.GetValue())
				}
				add := func(le string, v float64) {
					ls := labels.FromStrings(append(base, "__name__", f.GetName()+"_bucket", "le", le)...)
					if _, err := app.Append(0, ls, at.UnixMilli(), v); err != nil {
						t.Fatal(err)
					}
				}
				for _, b := range s.Histogram.Bucket {
					add(strconv.FormatFloat(b.GetUpperBound(), 'g', -1, 64), float64(b.GetCumulativeCount()))
				}
				add("+Inf", float64(s.Histogram.GetSampleCount()))
			}
		}
		if err := app.Commit(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRetuneAgainstPrometheus: guard-check's latency is half slow for an
// hour, then 80 % slow for the last hour. Queried an hour back (a template
// with offset 1h) retune finds it unchanged; queried over the last 30 min
// (the default query) it finds it shifted at the bimodal share, and the
// re-check says the current policy's answered share fell from about 0.875
// to about 1 − 0.8³ = 0.488, and picks copies sooner or more of them.
//
// Tolerances: 3 sd. Before the shift, the check's binomial noise (20 000
// requests); after it, also the histogram's: the slow share s of the
// 30 min window's 19 200 observations, moved through d(1 − s³)/ds = 3s².
func TestRetuneAgainstPrometheus(t *testing.T) {
	url, db := server(t)
	reg := prometheus.NewRegistry()
	h := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: metric, Buckets: buckets}, []string{"model"})
	reg.MustRegister(h)
	src := rand.NewPCG(36, 5)
	now := time.Now()
	feed(t, db, reg, h, 0.5, now.Add(-2*time.Hour), time.Hour, 160, src)
	feed(t, db, reg, h, 0.8, now.Add(-time.Hour), time.Hour, 160, src)

	sc, err := scenario.LoadFS(scenarios.FS, "guard-check.toml")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	judge := func(ps retune.PromSource) retune.Model {
		t.Helper()
		live, err := retune.ReadPrometheus(ctx, ps, &sc.Config, retune.Query{Metric: metric})
		if err != nil {
			t.Fatal(err)
		}
		ms, err := retune.Assess(ctx, &sc.Config, live, fit.Options{Model: fit.ModelAuto, Seed: 1}, 0.01)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %g observations: %s", live[0].Query, ms[0].Drift.N, ms[0].Drift.Describe())
		return ms[0]
	}
	before := judge(retune.PromSource{URL: url, Timeout: 10 * time.Second,
		Template: `sum by (le) (increase(` + metric + `_bucket{model="{model}"}[30m] offset 75m))`})
	if before.Drift.Verdict != retune.Unchanged {
		t.Errorf("before the shift: %s (%s), want unchanged", before.Drift.Verdict, before.Drift.Why)
	}
	after := judge(retune.PromSource{URL: url, Timeout: 10 * time.Second, Window: 30 * time.Minute})
	if after.Drift.Verdict != retune.Shifted {
		t.Fatalf("after the shift: %s (%s), want shifted", after.Drift.Verdict, after.Drift.Why)
	}

	// A metric without series, a window before any data, a result that
	// is not a histogram (no le label: the wrong metric type) and a
	// histogram without finite buckets are bad input naming the model and
	// the query.
	tmpl := func(q string) retune.PromSource {
		return retune.PromSource{URL: url, Timeout: 10 * time.Second, Template: q}
	}
	for _, c := range []struct {
		ps   retune.PromSource
		q    retune.Query
		want string
	}{
		{retune.PromSource{URL: url, Timeout: 10 * time.Second, Window: time.Hour}, retune.Query{Metric: "nothing_seconds"}, "returned no series"},
		{tmpl(`sum by (le) (increase(` + metric + `_bucket{model="{model}"}[30m] offset 5h))`), retune.Query{Metric: metric}, "returned no series"},
		{tmpl(`sum(increase(` + metric + `_bucket{model="{model}"}[30m]))`), retune.Query{Metric: metric}, "le"},
		{tmpl(`sum by (le) (increase(` + metric + `_bucket{model="{model}", le="+Inf"}[30m]))`), retune.Query{Metric: metric}, "bucket"},
	} {
		_, err := retune.ReadPrometheus(ctx, c.ps, &sc.Config, c.q)
		var ie *retune.InputError
		if !errors.As(err, &ie) || ie.Model != "llama-guard" || !strings.Contains(err.Error(), "[") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("bad query: error %v; want an *InputError naming llama-guard, the query and %q", err, c.want)
		} else {
			t.Logf("bad query: %v", err)
		}
	}

	s := sc.Optimize
	s.Requests, s.CheckRequests = 20000, 20000
	s.Rule.MinUnansweredCutPerCost = 0.1
	s.Each(func(se *optimize.Search) {
		se.Copies = []int{2, 4}
		se.Objective.SetName("answered")
		se.Objective.Target = 3 * time.Second
		se.Objective.MaxAddedCostPct = math.Inf(1)
	})
	rc, err := retune.RecheckPolicy(ctx, &sc.Config, retune.LiveConfig(&sc.Config, []retune.Model{after}), retune.RecheckOptions{Settings: s, Models: []retune.Model{after}})
	if err != nil {
		t.Fatal(err)
	}
	a := rc.Classes[0]
	t.Logf("answered: predicted %.4f, now %.4f; new pick %s, answered %.4f; %s", a.Now.PredictedAnswered, a.Now.AnsweredShare, a.New, a.NewAnswered, a.Decision)
	tolBefore := 3 * math.Sqrt(0.875*0.125/20000)
	tolAfter := 3 * math.Sqrt(math.Pow(3*0.8*0.8, 2)*0.8*0.2/19200+0.488*0.512/20000)
	if math.Abs(a.Now.PredictedAnswered-0.875) > tolBefore || math.Abs(a.Now.AnsweredShare-0.488) > tolAfter {
		t.Errorf("answered share %.4f → %.4f, want 0.875 ± %.3f → 0.488 ± %.3f", a.Now.PredictedAnswered, a.Now.AnsweredShare, tolBefore, tolAfter)
	}
	if a.NewDelay == nil || a.NewCopies == nil || !(*a.NewDelay < 1 || *a.NewCopies > 2) || a.Decision != retune.Change {
		t.Errorf("new pick %s (delay %v s, %v copies), %s; want copies sooner or more, change", a.New, a.NewDelay, a.NewCopies, a.Decision)
	}
	// The adaptive delay compared on the live models and through the
	// shift the Prometheus histogram showed.
	if ac := rc.Adaptive; ac == nil || len(ac.Classes) != 1 || ac.Classes[0].Shift == nil || ac.ShiftNote != "" {
		t.Errorf("adaptive comparison %+v; want the class on the live models and through the shift", ac)
	}
}

// fmtLE writes a bucket bound as the le label does.
func fmtLE(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
