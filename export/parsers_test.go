package export

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	compositev3 "github.com/envoyproxy/go-control-plane/envoy/extensions/clusters/composite/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/encoding/protojson"
	"sigs.k8s.io/yaml"
)

// The outputs of the grpc and envoy formats are checked by the runtimes'
// own parsers: grpc-go's service-config parser and go-control-plane's
// protobuf messages with their generated validation.

// grpcParsed is a service config decoded with the field names gRFC A6
// documents; unknown fields are rejected, so a misspelled key fails.
type grpcParsed struct {
	MethodConfig []struct {
		Name []struct {
			Service string `json:"service"`
			Method  string `json:"method"`
		} `json:"name"`
		Timeout       string `json:"timeout"`
		HedgingPolicy *struct {
			MaxAttempts         int      `json:"maxAttempts"`
			HedgingDelay        string   `json:"hedgingDelay"`
			NonFatalStatusCodes []string `json:"nonFatalStatusCodes"`
		} `json:"hedgingPolicy"`
		RetryPolicy *struct {
			MaxAttempts          int      `json:"maxAttempts"`
			InitialBackoff       string   `json:"initialBackoff"`
			MaxBackoff           string   `json:"maxBackoff"`
			BackoffMultiplier    float64  `json:"backoffMultiplier"`
			RetryableStatusCodes []string `json:"retryableStatusCodes"`
		} `json:"retryPolicy"`
	} `json:"methodConfig"`
	RetryThrottling *struct {
		MaxTokens  float64 `json:"maxTokens"`
		TokenRatio float64 `json:"tokenRatio"`
	} `json:"retryThrottling"`
}

// checkGRPC parses out with grpc-go and checks the documented limits.
func checkGRPC(t *testing.T, name string, out []byte) grpcParsed {
	t.Helper()
	cc, err := grpc.NewClient("passthrough:///localhost:1",
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultServiceConfig(string(out)))
	if err != nil {
		t.Fatalf("%s: grpc-go rejects the service config: %v\n%s", name, err, out)
	}
	cc.Close()
	var p grpcParsed
	dec := json.NewDecoder(strings.NewReader(string(out)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for _, mc := range p.MethodConfig {
		if hp := mc.HedgingPolicy; hp != nil {
			if hp.MaxAttempts < 2 || hp.MaxAttempts > GRPCMaxAttempts {
				t.Errorf("%s: maxAttempts %d outside [2, %d]", name, hp.MaxAttempts, GRPCMaxAttempts)
			}
			if _, err := time.ParseDuration(hp.HedgingDelay); err != nil || !strings.HasSuffix(hp.HedgingDelay, "s") {
				t.Errorf("%s: hedgingDelay %q is not a proto3 duration", name, hp.HedgingDelay)
			}
			for _, c := range hp.NonFatalStatusCodes {
				var code codes.Code
				if err := code.UnmarshalJSON([]byte(`"` + c + `"`)); err != nil {
					t.Errorf("%s: status code %q: %v", name, c, err)
				}
			}
		}
	}
	if rt := p.RetryThrottling; rt != nil && !(rt.MaxTokens > 0 && rt.MaxTokens <= 1000 && rt.TokenRatio > 0) {
		t.Errorf("%s: retryThrottling %+v outside maxTokens (0, 1000], tokenRatio > 0", name, *rt)
	}
	return p
}

// envoyParsed is the envoy format's YAML, with the messages left as JSON
// for protojson.
type envoyParsed struct {
	Routes   []json.RawMessage `json:"routes"`
	Clusters []json.RawMessage `json:"clusters"`
}

// checkEnvoy converts out to JSON, unmarshals every route into
// routev3.Route and every cluster into clusterv3.Cluster with protojson
// (unknown fields rejected) and runs their ValidateAll.
func checkEnvoy(t *testing.T, name string, out []byte) ([]*routev3.Route, []*clusterv3.Cluster) {
	t.Helper()
	js, err := yaml.YAMLToJSON(out)
	if err != nil {
		t.Fatalf("%s: not YAML: %v\n%s", name, err, out)
	}
	var p envoyParsed
	dec := json.NewDecoder(strings.NewReader(string(js)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var routes []*routev3.Route
	for i, raw := range p.Routes {
		r := &routev3.Route{}
		if err := protojson.Unmarshal(raw, r); err != nil {
			t.Fatalf("%s: routes[%d]: protojson: %v\n%s", name, i, err, raw)
		}
		if err := r.ValidateAll(); err != nil {
			t.Fatalf("%s: routes[%d]: ValidateAll: %v", name, i, err)
		}
		routes = append(routes, r)
	}
	var clusters []*clusterv3.Cluster
	for i, raw := range p.Clusters {
		c := &clusterv3.Cluster{}
		if err := protojson.Unmarshal(raw, c); err != nil {
			t.Fatalf("%s: clusters[%d]: protojson: %v\n%s", name, i, err, raw)
		}
		if err := c.GetCircuitBreakers().ValidateAll(); err != nil {
			t.Fatalf("%s: clusters[%d].circuit_breakers: ValidateAll: %v", name, i, err)
		}
		if ct := c.GetClusterType(); ct != nil {
			cc := &compositev3.ClusterConfig{}
			if err := ct.GetTypedConfig().UnmarshalTo(cc); err != nil || ct.GetName() != "envoy.clusters.composite" {
				t.Fatalf("%s: clusters[%d].cluster_type %s: %v", name, i, ct.GetName(), err)
			}
			if err := cc.ValidateAll(); err != nil {
				t.Fatalf("%s: clusters[%d]: composite: ValidateAll: %v", name, i, err)
			}
		}
		clusters = append(clusters, c)
	}
	return routes, clusters
}

// TestGRPCParsesEveryScenario exports every shipped scenario's policies and
// every pick-like variant (hedging off, 7 copies) and has grpc-go parse them.
func TestGRPCParsesEveryScenario(t *testing.T) {
	for _, d := range shippedDocs(t) {
		if d = withoutAdaptive(d); d == nil {
			continue
		}
		out, _, err := Write(d, "grpc", Options{Approximate: true})
		if err != nil {
			t.Fatalf("%s: %v", d.Scenario, err)
		}
		p := checkGRPC(t, d.Scenario, out)
		if len(p.MethodConfig) != len(d.Classes) {
			t.Fatalf("%s: %d methodConfig for %d classes", d.Scenario, len(p.MethodConfig), len(d.Classes))
		}
		for i, c := range d.Classes {
			mc := p.MethodConfig[i]
			if mc.Name[0].Method != c.Class {
				t.Errorf("%s: methodConfig[%d] named %q, want the class %q", d.Scenario, i, mc.Name[0].Method, c.Class)
			}
			fallback := c.fallbacks() > 0
			// A class that does not hedge writes its retry layer, if any, as
			// its retryPolicy.
			layer := c.Retry
			if layer == nil {
				layer = c.AttemptRetry
			}
			retries := !c.Hedge && layer != nil
			if (mc.HedgingPolicy != nil) != (c.Hedge && !fallback) || (mc.RetryPolicy != nil && !fallback && !retries) {
				t.Errorf("%s/%s: hedgingPolicy %v, retryPolicy %v, for hedge %v, fallback %v", d.Scenario, c.Class, mc.HedgingPolicy != nil, mc.RetryPolicy != nil, c.Hedge, fallback)
			}
			if mc.HedgingPolicy != nil && mc.HedgingPolicy.MaxAttempts != min(len(c.Copies)+1, GRPCMaxAttempts) {
				t.Errorf("%s/%s: maxAttempts %d for %d copies", d.Scenario, c.Class, mc.HedgingPolicy.MaxAttempts, len(c.Copies))
			}
			want := min(len(c.Copies)+1, GRPCMaxAttempts)
			if retries {
				want = min(layer.MaxAttempts, GRPCMaxAttempts)
			}
			if rp := mc.RetryPolicy; rp != nil && (rp.MaxAttempts != want || len(rp.RetryableStatusCodes) == 0) {
				t.Errorf("%s/%s: retryPolicy %+v for %d fallback copies", d.Scenario, c.Class, *rp, len(c.Copies))
			}
		}
	}
}

// TestGRPCGuardCheck is the known answer of field report 1: copies every
// 1 s, at most 3 in flight, errors fatal.
func TestGRPCGuardCheck(t *testing.T) {
	d := ScenarioPolicies(loadShipped(t, "guard-check.toml"))
	out, notes, err := Write(d, "grpc", Options{Service: "moderation.v1.Guard", Method: "Check"})
	if err != nil {
		t.Fatal(err)
	}
	p := checkGRPC(t, "guard-check", out)
	mc := p.MethodConfig[0]
	hp := mc.HedgingPolicy
	if hp == nil || hp.MaxAttempts != 3 || hp.HedgingDelay != "1s" || len(hp.NonFatalStatusCodes) != 0 {
		t.Fatalf("hedgingPolicy %+v; want maxAttempts 3, hedgingDelay 1s, no non-fatal codes", hp)
	}
	if mc.Timeout != "3s" || mc.Name[0].Service != "moderation.v1.Guard" || mc.Name[0].Method != "Check" {
		t.Errorf("timeout %q, name %+v; want 3s, moderation.v1.Guard/Check", mc.Timeout, mc.Name)
	}
	if p.RetryThrottling != nil {
		t.Errorf("retryThrottling written for a class without a throttle")
	}
	if len(notes) == 0 {
		t.Errorf("no notes; gRPC cannot check an answer's body, which guard-check's first_valid needs")
	}
}

// TestGRPCLimits: 7 copies are capped at maxAttempts 5 under
// Approximate, with a note (refused without it: TestUnfaithfulEveryFormat); a
// non-fatal 429 and a throttle budget are written; a second, different
// throttle is noted, not written.
func TestGRPCLimits(t *testing.T) {
	d := ScenarioPolicies(loadShipped(t, "two-model-gateway.toml"))
	c := &d.Classes[0]
	c.Copies = nil
	for range 7 {
		c.Copies = append(c.Copies, Copy{Target: "large-a", Delay: Seconds(250 * time.Millisecond)})
	}
	c.OnError, c.OnRateLimited = "fatal", "nonfatal"
	c.Budget.RetryThrottling = &Throttle{MaxTokens: 10, TokenRatio: 0.1}
	d.Classes[1].Budget.RetryThrottling = &Throttle{MaxTokens: 20, TokenRatio: 0.5}
	out, notes, err := Write(d, "grpc", Options{Approximate: true})
	if err != nil {
		t.Fatal(err)
	}
	p := checkGRPC(t, "limits", out)
	hp := p.MethodConfig[0].HedgingPolicy
	if hp.MaxAttempts != 5 || hp.HedgingDelay != "0.25s" || strings.Join(hp.NonFatalStatusCodes, ",") != "RESOURCE_EXHAUSTED" {
		t.Errorf("hedgingPolicy %+v; want maxAttempts 5, 0.25s, [RESOURCE_EXHAUSTED]", hp)
	}
	if p.RetryThrottling == nil || p.RetryThrottling.MaxTokens != 10 || p.RetryThrottling.TokenRatio != 0.1 {
		t.Errorf("retryThrottling %+v; want the first class's 10, 0.1", p.RetryThrottling)
	}
	wantNote(t, notes, "short", "approximate: 7 copies, but gRPC sends at most 4 (maxAttempts, which counts the original, is capped at 5): wrote 4, the last 3 not sent")
	wantNote(t, notes, "medium", "one retryThrottling per server")
}

// TestEnvoyParsesEveryScenario: every shipped scenario's routes unmarshal
// into go-control-plane's Route and pass ValidateAll, with
// per_try_timeout = the delay, num_retries = the copies and hedging on.
func TestEnvoyParsesEveryScenario(t *testing.T) {
	for _, d := range shippedDocs(t) {
		if d = withoutAdaptive(d); d == nil {
			continue
		}
		out, _, err := Write(d, "envoy", Options{Approximate: true})
		if err != nil {
			t.Fatalf("%s: %v", d.Scenario, err)
		}
		routes, _ := checkEnvoy(t, d.Scenario, out)
		if len(routes) != len(d.Classes) {
			t.Fatalf("%s: %d routes for %d classes", d.Scenario, len(routes), len(d.Classes))
		}
		for i, c := range d.Classes {
			ra := routes[i].GetRoute()
			if got := ra.GetTimeout().AsDuration(); got != c.Deadline.D() {
				t.Errorf("%s/%s: timeout %s, want the deadline %s", d.Scenario, c.Class, got, c.Deadline.D())
			}
			rp, hp := ra.GetRetryPolicy(), ra.GetHedgePolicy()
			if c.fallbacks() > 0 {
				// A per-try timeout only when the copy is sent after an
				// attempt timeout, which Envoy retries as a 504.
				var perTry time.Duration
				if c.OnAttemptTimeout == "nonfatal" && c.Winner != "first_response" {
					perTry = c.AttemptTimeout.D()
				}
				if hp != nil || rp.GetPerTryTimeout().AsDuration() != perTry || rp.GetNumRetries().GetValue() != uint32(len(c.Copies)) {
					t.Errorf("%s/%s: fallback copies written as retry %v hedge %v; want %d plain retries, per-try timeout %s", d.Scenario, c.Class, rp, hp, len(c.Copies), perTry)
				}
				continue
			}
			if !c.Hedge {
				if rp != nil || hp != nil {
					t.Errorf("%s/%s: hedging off but retry/hedge policy written", d.Scenario, c.Class)
				}
				continue
			}
			want := max(c.delays()[0], EnvoyMinDelay)
			if !hp.GetHedgeOnPerTryTimeout() || rp.GetRetryOn() == "" ||
				rp.GetNumRetries().GetValue() != uint32(len(c.Copies)) || rp.GetPerTryTimeout().AsDuration() != want {
				t.Errorf("%s/%s: retry %v hedge %v; want %d retries, per_try_timeout %s, hedge_on_per_try_timeout", d.Scenario, c.Class, rp, hp, len(c.Copies), want)
			}
		}
	}
}

// TestEnvoyBudgetAndZeroDelay: an in-flight budget becomes the primary
// cluster's retry_budget and max_parallel its max_retries (with
// guard-check's two copies noted: Envoy counts a request with hedges out
// once, the budget each copy); a delay of 0 becomes 1 ms with a note;
// fatal errors keep retry_on free of 5xx.
func TestEnvoyBudgetAndZeroDelay(t *testing.T) {
	d := ScenarioPolicies(loadShipped(t, "guard-check.toml"))
	c := &d.Classes[0]
	for j := range c.Copies {
		c.Copies[j].Delay = 0
	}
	c.Budget = Budget{MaxInFlightRatio: 0.2, MinInFlight: 3, MaxParallel: 8}
	out, notes, err := Write(d, "envoy", Options{})
	if err != nil {
		t.Fatal(err)
	}
	routes, clusters := checkEnvoy(t, "budget", out)
	rp := routes[0].GetRoute().GetRetryPolicy()
	if rp.GetPerTryTimeout().AsDuration() != EnvoyMinDelay || strings.Contains(rp.GetRetryOn(), "5xx") {
		t.Errorf("retry policy %v; want per_try_timeout 1ms and no 5xx retries (errors are fatal)", rp)
	}
	if len(clusters) != 1 || clusters[0].GetName() != "llama-guard" {
		t.Fatalf("clusters %v; want llama-guard", clusters)
	}
	th := clusters[0].GetCircuitBreakers().GetThresholds()[0]
	if b := th.GetRetryBudget(); b.GetBudgetPercent().GetValue() != 20 || b.GetMinRetryConcurrency().GetValue() != 3 || th.GetMaxRetries().GetValue() != 8 {
		t.Errorf("thresholds %v; want retry_budget 20%%, min 3, max_retries 8", th)
	}
	wantNote(t, notes, "check", "initial_requests")
	wantNote(t, notes, "check", "however many of its 2 copies are out")
}

func wantNote(t *testing.T, notes []Note, class, text string) {
	t.Helper()
	for _, n := range notes {
		if n.Class == class && strings.Contains(n.Text, text) {
			return
		}
	}
	t.Errorf("no note for %s containing %q; notes: %v", class, text, notes)
}
