package export

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	previoushostsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/retry/host/previous_hosts/v3"

	"github.com/hedgesim/hedgesim/sim"
)

// TestReplicaPoolCopiesToOtherReplica: replica-pool's classes hedge to a
// replica that holds no other attempt of their request (copies_to =
// "other_replica", the default), which the scenario's comments say keeps
// random routing's p99.9 at 4.6 s rather than 8.0 s. No format said so,
// and the Envoy route let a copy land on the primary's replica. Now the
// json document carries each class's replica_pools; Envoy's retry policy
// gets the previous_hosts retry host predicate (which Envoy's router
// consults for hedges on the per-try timeout, as for retries) with
// host_selection_retry_max_attempts the pool's 8 replicas; every other
// format refuses the class, as it would run copies_to = "any_replica",
// naming envoy and json as the formats that can express it, and under
// --approximate notes that it cannot say it; and every format notes the
// pool's balancer, the serving side's. A pool whose copies may go to any
// replica gets neither the predicate nor the note, and is not refused.
func TestReplicaPoolCopiesToOtherReplica(t *testing.T) {
	cfg := loadShipped(t, "replica-pool.toml")
	d := ScenarioPolicies(cfg)
	if len(d.Classes) != 3 {
		t.Fatalf("%d classes; want random, p2c, ewma", len(d.Classes))
	}
	want := map[string]ReplicaPool{
		"random": {Provider: "random-pool", Replicas: 8, Balancer: "random", CopiesTo: OtherReplica},
		"p2c":    {Provider: "p2c-pool", Replicas: 8, Balancer: "p2c", CopiesTo: OtherReplica},
		"ewma":   {Provider: "ewma-pool", Replicas: 8, Balancer: "latency_ewma", CopiesTo: OtherReplica},
	}
	for _, c := range d.Classes {
		w := want[c.Class]
		if len(c.Pools) != 1 || c.Pools[0].Provider != w.Provider || c.Pools[0].Replicas != w.Replicas ||
			c.Pools[0].Balancer != w.Balancer || c.Pools[0].CopiesTo != w.CopiesTo || len(c.Pools[0].Models) != 1 {
			t.Errorf("class %s: replica pools %+v; want %+v serving its one model", c.Class, c.Pools, w)
		}
	}

	// json: the document says it, and reads back.
	out, _, err := Write(d, "json", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out, []byte(`"copies_to": "other_replica"`)) || !bytes.Contains(out, []byte(`"balancer": "latency_ewma"`)) {
		t.Errorf("json lacks the pools' copies_to and balancer:\n%s", out)
	}
	back, err := Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Classes[0].Pools) != 1 || back.Classes[0].Pools[0].CopiesTo != OtherReplica {
		t.Errorf("decoded pools %+v; want the random pool, other_replica", back.Classes[0].Pools)
	}

	// envoy: the predicate on every route, checked by go-control-plane.
	out, notes, err := Write(d, "envoy", Options{})
	if err != nil {
		t.Fatal(err)
	}
	routes, _ := checkEnvoy(t, "replica-pool", out)
	for i, r := range routes {
		rp := r.GetRoute().GetRetryPolicy()
		ps := rp.GetRetryHostPredicate()
		if len(ps) != 1 || ps[0].GetName() != "envoy.retry_host_predicates.previous_hosts" || rp.GetHostSelectionRetryMaxAttempts() != 8 {
			t.Errorf("%s: retry_host_predicate %v, host_selection_retry_max_attempts %d; want previous_hosts, 8", d.Classes[i].Class, ps, rp.GetHostSelectionRetryMaxAttempts())
			continue
		}
		if err := ps[0].GetTypedConfig().UnmarshalTo(&previoushostsv3.PreviousHostsPredicate{}); err != nil {
			t.Errorf("%s: previous_hosts typed_config: %v", d.Classes[i].Class, err)
		}
		if !r.GetRoute().GetHedgePolicy().GetHedgeOnPerTryTimeout() {
			t.Errorf("%s: no hedge_on_per_try_timeout", d.Classes[i].Class)
		}
	}
	wantNote(t, notes, "random", `copies_to = "other_replica" on random-pool written as the previous_hosts retry host predicate`)
	wantNote(t, notes, "ewma", "a pool of 8 replicas behind a latency_ewma balancer: the balancer is the cluster's lb_policy")

	// The formats without a host predicate refuse it, and under
	// --approximate say they cannot express it.
	for _, f := range []string{"grpc", "failsafe-go", "polly", "python", "typescript"} {
		var ue *UnfaithfulError
		_, _, err := Write(d, f, Options{})
		if !errors.As(err, &ue) || ue.Class != "random" || ue.Formats != "envoy, json" ||
			!strings.Contains(ue.Limitation, `its copies go to a replica of "random-pool" that holds no other attempt of their request (copies_to = "other_replica")`) {
			t.Errorf("%s: %v; want class random refused for copies_to, envoy and json named", f, err)
		}
		_, notes, err := Write(d, f, Options{Approximate: true})
		if err != nil {
			t.Fatalf("%s --approximate: %v", f, err)
		}
		for _, c := range []string{"random", "p2c", "ewma"} {
			wantNote(t, notes, c, `approximate: copies_to = "other_replica" on "`+want[c].Provider+`" not written`)
			wantNote(t, notes, c, "a pool of 8 replicas behind a "+want[c].Balancer+" balancer")
		}
	}

	// copies_to = "any_replica" on random-pool: nothing to keep off.
	for i := range cfg.Providers {
		if cfg.Providers[i].Name == "random-pool" {
			cfg.Providers[i].Pool.AnyReplica = true
		}
	}
	d = ScenarioPolicies(cfg)
	if p := d.Classes[0].Pools; len(p) != 1 || p[0].CopiesTo != AnyReplica {
		t.Fatalf("random's pools %+v; want any_replica", p)
	}
	out, _, err = Write(d, "envoy", Options{})
	if err != nil {
		t.Fatal(err)
	}
	routes, _ = checkEnvoy(t, "replica-pool any", out)
	if ps := routes[0].GetRoute().GetRetryPolicy().GetRetryHostPredicate(); len(ps) != 0 {
		t.Errorf("random, any_replica: retry_host_predicate %v; want none", ps)
	}
	if ps := routes[1].GetRoute().GetRetryPolicy().GetRetryHostPredicate(); len(ps) != 1 {
		t.Errorf("p2c, other_replica: retry_host_predicate %v; want previous_hosts", ps)
	}
	d.Classes = d.Classes[:1]
	for _, f := range []string{"envoy", "python"} {
		_, notes, err := Write(d, f, Options{})
		if err != nil {
			t.Fatalf("%s: random, any_replica: %v", f, err)
		}
		for _, n := range notes {
			if n.Class == "random" && strings.Contains(n.Text, "other_replica") {
				t.Errorf("%s: random, any_replica: note %q", f, n.Text)
			}
		}
	}
}

// TestDecodeReplicaPoolChecked: a json document's replica pool with a
// copies_to, balancer or replica count hedgesim does not have is rejected,
// naming the key.
func TestDecodeReplicaPoolChecked(t *testing.T) {
	var b bytes.Buffer
	if err := ScenarioPolicies(loadShipped(t, "replica-pool.toml")).Encode(&b); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ from, to, key string }{
		{`"copies_to": "other_replica"`, `"copies_to": "same_replica"`, "replica_pools[0].copies_to"},
		{`"balancer": "random"`, `"balancer": "fastest"`, "replica_pools[0].balancer"},
		{`"replicas": 8`, `"replicas": 0`, "replica_pools[0].replicas"},
	} {
		bad := strings.Replace(b.String(), tc.from, tc.to, 1)
		if _, err := Decode(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), tc.key) {
			t.Errorf("%s: got %v; want an error naming %s", tc.to, err, tc.key)
		}
	}
}

// TestCopiesToOtherReplicaOnlyWhereCopiesLand: replica-pool's class random
// with its copy sent to a model on another, plain provider never holds two
// attempts of a request on random-pool (its primary's): Envoy writes no
// previous_hosts predicate and no format notes copies_to, though the
// pool's balancer is still noted. An attempt retry puts retried attempts
// on the pool: the predicate is back.
func TestCopiesToOtherReplicaOnlyWhereCopiesLand(t *testing.T) {
	cfg := loadShipped(t, "replica-pool.toml")
	cfg.Providers = append(cfg.Providers, sim.Provider{Name: "hosted"})
	cfg.Models = append(cfg.Models, sim.Model{Name: "api", Provider: "hosted", Latency: cfg.Models[0].Latency})
	cfg.Classes[0].Policy.Targets = []int{len(cfg.Models) - 1}
	d := ScenarioPolicies(cfg)
	if c := d.Classes[0]; c.Class != "random" || !c.Hedge || len(c.Copies) != 1 || c.Copies[0].Target != "api" || len(c.Pools) != 1 {
		t.Fatalf("class %s: hedge %v, copies %+v, pools %+v; want one copy to api and the primary's pool", c.Class, c.Hedge, c.Copies, c.Pools)
	}
	out, notes, err := Write(d, "envoy", Options{})
	if err != nil {
		t.Fatal(err)
	}
	routes, _ := checkEnvoy(t, "replica-pool copy elsewhere", out)
	if ps := routes[0].GetRoute().GetRetryPolicy().GetRetryHostPredicate(); len(ps) != 0 {
		t.Errorf("random, copy to api: retry_host_predicate %v; want none", ps)
	}
	wantNote(t, notes, "random", "a pool of 8 replicas behind a random balancer")
	d.Classes = d.Classes[:1] // p2c and ewma still copy to their pools
	for _, f := range []string{"envoy", "python", "typescript", "polly"} {
		_, notes, err := Write(d, f, Options{})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, n := range notes {
			if n.Class == "random" && strings.Contains(n.Text, "other_replica") {
				t.Errorf("%s: random, copy to api: note %q", f, n.Text)
			}
		}
	}

	d.Classes[0].AttemptRetry = &Retry{MaxAttempts: 2}
	if ps := d.Classes[0].otherReplica(); len(ps) != 1 || ps[0].Provider != "random-pool" {
		t.Errorf("random with an attempt retry: other-replica pools %+v; want random-pool", ps)
	}
}
