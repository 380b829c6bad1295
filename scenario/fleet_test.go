package scenario

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/sim"
)

// fleetBase is a scenario of a pool of 4 replicas, 100 requests at 10 per
// second (a run of about 10 s); the cases below add keys to its pool.
const fleetBase = `requests = 100
[arrivals]
rate = 10
[providers.p.pool]
replicas = 4
balancer = "p2c"
`

// fleetTail is what follows a case's pool keys: line 7 on.
const fleetTail = `
[models.m]
provider = "p"
latency = { kind = "constant", value = 1 }
[[classes]]
name = "c"
`

// TestFleetBad: each bad fleet key is refused at its file, line and key,
// saying what is allowed. Lines count from fleetBase's first, so a case's
// first added line is line 7.
func TestFleetBad(t *testing.T) {
	for _, tt := range []struct {
		name, add string
		line      int
		key, msg  string
	}{
		{"jitter with a live view", "view_refresh = \"0s\"\nscrape_jitter = 0.1", 8, "providers.p.pool.scrape_jitter",
			`a scrape jitter needs a view refreshed at intervals, and view_refresh = "0s" makes the view live`},
		{"jitter without a refresh", "scrape_jitter = 0.1", 7, "providers.p.pool.scrape_jitter", "view_refresh is not set"},
		{"negative refresh", `view_refresh = "-2s"`, 7, "providers.p.pool.view_refresh", `negative duration "-2s"; want ≥ 0`},
		{"jitter of a snapshot", "view_refresh = \"2s\"\nscrape_jitter = 0.1", 8, "providers.p.pool.scrape_jitter", `needs view = "scrape"`},
		{"jitter of 1", "view_refresh = \"2s\"\nview = \"scrape\"\nscrape_jitter = 1.0", 9, "providers.p.pool.scrape_jitter", "want a fraction in [0, 1)"},
		{"jittered scrapes too often", "view_refresh = \"1ns\"\nview = \"scrape\"\nscrape_jitter = 0.5", 7, "providers.p.pool.view_refresh", "1ns is too short for jittered scrapes (each is drawn in turn): want ≥ 1ms, or scrape_jitter = 0"},
		{"overlapping stuck periods", "view_refresh = \"1s\"\n[[providers.p.pool.stuck]]\nreplica = 1\nat = \"1s\"\n[[providers.p.pool.stuck]]\nreplica = 1\nat = \"5s\"", 13, "providers.p.pool.stuck[1].at",
			"replica 1's signal sticks at 5s while it is still stuck from providers.p.pool.stuck[0] (from 1s to the end of the run); give stuck periods of one replica that do not overlap"},
		{"stuck of a live view", "[[providers.p.pool.stuck]]\nreplica = 1\nat = \"1s\"", 7, "providers.p.pool.stuck", "a stuck load signal needs a view refreshed at intervals"},
		{"stuck replica out of range", "view_refresh = \"1s\"\n[[providers.p.pool.stuck]]\nreplica = 4\nat = \"1s\"", 9, "providers.p.pool.stuck[0].replica", "4 is not a replica of this pool of 4; want an integer in [0, 4)"},
		{"stuck shorter than the refresh", "view_refresh = \"5s\"\n[[providers.p.pool.stuck]]\nreplica = 1\nat = \"1s\"\nfor = \"2s\"", 11, "providers.p.pool.stuck[0].for",
			"2s is shorter than view_refresh (5s): a signal stuck for less than one refresh interval misses at most one refresh, and none unless one falls in it; want a duration ≥ 5s (leave for out: until the run ends)"},
		{"stuck for 0", "view_refresh = \"1s\"\n[[providers.p.pool.stuck]]\nreplica = 1\nat = \"1s\"\nfor = \"0s\"", 11, "providers.p.pool.stuck[0].for", "want how long the signal stays stuck, a duration > 0"},
		{"restart of replica out of range", "[[providers.p.pool.restart]]\nreplica = -1\nat = \"1s\"\nfor = \"1s\"", 8, "providers.p.pool.restart[0].replica", "-1 is not a replica of this pool of 4"},
		{"restart for 0", "[[providers.p.pool.restart]]\nreplica = 1\nat = \"1s\"\nfor = \"0s\"", 10, "providers.p.pool.restart[0].for", "0s is not allowed; want how long it is out of service until it rejoins, a duration > 0"},
		{"restart at a negative time", "[[providers.p.pool.restart]]\nreplica = 1\nat = \"-1s\"\nfor = \"1s\"", 9, "providers.p.pool.restart[0].at", `negative duration "-1s"; want ≥ 0`},
		{"restart without for", "[[providers.p.pool.restart]]\nreplica = 1\nat = \"1s\"", 7, "providers.p.pool.restart[0]", "missing for"},
		{"restart after the run", "[[providers.p.pool.restart]]\nreplica = 1\nat = \"1m\"\nfor = \"1s\"", 9, "providers.p.pool.restart[0].at",
			"1m0s is after the run: its 100 requests at 10 per second arrive over about 10s"},
		{"overlapping restarts", "[[providers.p.pool.restart]]\nreplica = 1\nat = \"1s\"\nfor = \"5s\"\n[[providers.p.pool.restart]]\nreplica = 1\nat = \"3s\"\nfor = \"1s\"", 13, "providers.p.pool.restart[1].at",
			"replica 1 restarts at 3s for 1s while it is still out from providers.p.pool.restart[0] (1s to 6s)"},
		{"random restarts without down", "[providers.p.pool.random_restarts]\nmean_up = \"1h\"", 7, "providers.p.pool.random_restarts", "missing down"},
		{"window without restarts", `restart_window = "5s"`, 7, "providers.p.pool.restart_window", "has no effect without restarts"},
		{"window of 0", "restart_window = \"0s\"\n[[providers.p.pool.restart]]\nreplica = 1\nat = \"1s\"\nfor = \"1s\"", 7, "providers.p.pool.restart_window",
			"0s is not allowed; want how long after a replica rejoins its share of attempts is reported, a duration > 0"},
		{"random restarts too frequent", "[providers.p.pool.random_restarts]\nmean_up = \"1ms\"\ndown = \"1s\"", 8, "providers.p.pool.random_restarts.mean_up", "1ms is too short; want a mean up time ≥ 10ms"},
		{"unmeasured under p2c", `unmeasured = "probe"`, 7, "providers.p.pool.unmeasured", "only the latency_ewma balancer"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("bad.toml", []byte(fleetBase+tt.add+fleetTail))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T), want bad.toml:%d: %s: …%s…", err, err, tt.line, tt.key, tt.msg)
			}
			if e.File != "bad.toml" || e.Line != tt.line || e.Key != tt.key || !strings.Contains(e.Msg, tt.msg) {
				t.Errorf("got  %v\nwant bad.toml:%d: %s: …%s…", err, tt.line, tt.key, tt.msg)
			}
		})
	}
}

// TestFleetBadBalancer: keys that need a load-reading or latency-aware
// balancer are refused with the pool's own balancer named.
func TestFleetBadBalancer(t *testing.T) {
	for _, tt := range []struct{ src, key, msg string }{
		{strings.Replace(fleetBase, `"p2c"`, `"latency_ewma"`, 1) + "warmup = 3", "providers.p.pool.warmup", `has no effect with unmeasured = "fastest"`},
	} {
		_, err := Parse("bad.toml", []byte(tt.src+fleetTail))
		var e *Error
		if !errors.As(err, &e) || e.Line != 7 || e.Key != tt.key || !strings.Contains(e.Msg, tt.msg) {
			t.Errorf("got %v, want bad.toml:7: %s: …%s…", err, tt.key, tt.msg)
		}
	}
}

// TestViewUnderLoadBlindBalancerWarns: a view under a balancer that reads
// no replica load (random, round_robin) is accepted with a warning at its
// view_refresh, line 7, that it changes nothing — as --set
// providers.p.pool.balancer=random on a pool with a view, and --balancers
// setting random there, both simulate — where it was refused.
func TestViewUnderLoadBlindBalancerWarns(t *testing.T) {
	for _, b := range []string{"random", "round_robin"} {
		s, err := Parse("ok.toml", []byte(strings.Replace(fleetBase, `"p2c"`, `"`+b+`"`, 1)+`view_refresh = "2s"`+fleetTail))
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		found := false
		for _, w := range s.Warnings {
			found = found || w.Line == 7 && w.Key == "providers.p.pool.view_refresh" && strings.Contains(w.Msg, "the "+b+" balancer, which does not read replica load, so its view (view_refresh) changes nothing")
		}
		if !found {
			t.Errorf("%s: warnings %v; want one at ok.toml:7 providers.p.pool.view_refresh", b, s.Warnings)
		}
	}
}

// TestFleetParses: the fleet keys reach sim.Pool as written.
func TestFleetParses(t *testing.T) {
	src := strings.Replace(fleetBase, `"p2c"`, `"latency_ewma"`, 1) + `view_refresh = "2s"
view = "scrape"
scrape_jitter = 0.25
unmeasured = "pool_mean"
warmup = 4
restart_window = "3s"
[[providers.p.pool.stuck]]
replica = 2
at = "1s"
[[providers.p.pool.restart]]
replica = 1
at = "2s"
for = "4s"
[providers.p.pool.random_restarts]
mean_up = "1h"
down = "30s"
` + fleetTail
	s, err := Parse("ok.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	pl := s.Config.Providers[0].Pool
	want := sim.View{Refresh: 2 * time.Second, Scrape: true, Jitter: 0.25, Stuck: []sim.Stuck{{Replica: 2, At: time.Second}}}
	if v := pl.View; v == nil || v.Refresh != want.Refresh || !v.Scrape || v.Jitter != want.Jitter || len(v.Stuck) != 1 || v.Stuck[0] != want.Stuck[0] {
		t.Errorf("view %+v, want %+v", pl.View, want)
	}
	if pl.Unmeasured != sim.AssumePoolMean || pl.Warmup != 4 {
		t.Errorf("unmeasured %v, warmup %d; want pool_mean, 4", pl.Unmeasured, pl.Warmup)
	}
	r := pl.Restarts
	if r == nil || r.Window != 3*time.Second || r.MeanUp != time.Hour || r.Down != 30*time.Second ||
		len(r.Scheduled) != 1 || r.Scheduled[0] != (sim.Restart{Replica: 1, At: 2 * time.Second, For: 4 * time.Second}) {
		t.Errorf("restarts %+v", r)
	}
	if _, err := sim.Run(&s.Config); err != nil {
		t.Errorf("run: %v", err)
	}
}

// TestStuckPeriodsInTurn: periods of one replica that follow each other
// (1s for 2s, then from 5s) are both kept.
func TestStuckPeriodsInTurn(t *testing.T) {
	src := fleetBase + "view_refresh = \"1s\"\n[[providers.p.pool.stuck]]\nreplica = 1\nat = \"1s\"\nfor = \"2s\"\n[[providers.p.pool.stuck]]\nreplica = 1\nat = \"5s\"\n" + fleetTail
	s, err := Parse("ok.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if v := s.Config.Providers[0].Pool.View; v == nil || len(v.Stuck) != 2 || v.Stuck[0].For != 2*time.Second || v.Stuck[1].At != 5*time.Second {
		t.Errorf("view %+v; want both stuck periods", v)
	}
}

// TestNegativeViewRefreshOneError: a negative view_refresh beside a view
// mode and a scrape jitter is one error, at view_refresh; the settings
// that need a refreshed view do not add errors saying view_refresh is not
// set.
func TestNegativeViewRefreshOneError(t *testing.T) {
	_, err := Parse("bad.toml", []byte(fleetBase+"view_refresh = \"-5s\"\nview = \"scrape\"\nscrape_jitter = 0.1"+fleetTail))
	var l Errors
	if !errors.As(err, &l) {
		var e *Error
		if errors.As(err, &e) {
			l = Errors{e}
		}
	}
	if len(l) != 1 || l[0].Key != "providers.p.pool.view_refresh" || !strings.Contains(l[0].Msg, "negative duration") {
		t.Errorf("errors %v; want one, at providers.p.pool.view_refresh: negative duration", err)
	}
}
