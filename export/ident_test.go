package export

import (
	"go/token"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/scenario"
)

// TestIdentKeepsUnicodeLetters: failsafe-go's identifiers keep a class
// name's letters and digits, Unicode ones included (class búsqueda gave
// BSquedaHedge), drop the rest, and are exported Go identifiers.
func TestIdentKeepsUnicodeLetters(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"strict-sla", "StrictSla"},
		{"búsqueda", "Búsqueda"},
		{"résumé_v2", "RésuméV2"},
		{"2fast", "C2fast"},
		{"中文", "C中文"},
		{"--", "Class"},
	} {
		got := ident(tt.in)
		if got != tt.want {
			t.Errorf("ident(%q) = %q; want %q", tt.in, got, tt.want)
		}
		if id := got + "HedgeTarget"; !token.IsIdentifier(id) || !token.IsExported(id) {
			t.Errorf("ident(%q): %q is not an exported Go identifier", tt.in, id)
		}
	}
}

// unicodeFleet is a pool with a class named búsqueda whose copies go to
// another model, and a class whose copies stay in the pool.
const unicodeFleet = `name = "fleet"
requests = 100
[arrivals]
rate = 20.0
[providers.vllm.pool]
replicas = 6
concurrency = 4
balancer = "p2c"
[providers.hosted]
[models.llama]
provider = "vllm"
latency = { kind = "lognormal", median = 0.8, p95 = 2.0 }
[models.hosted-m]
provider = "hosted"
latency = { kind = "lognormal", median = 1.2, p95 = 3.0 }
[[classes]]
name = "búsqueda"
deadline = "10s"
[classes.hedge]
primary = "llama"
targets = ["hosted-m"]
delay = "800ms"
`

// TestExportUnicodeClassCosmetics: Envoy's placeholder route prefix of
// class búsqueda is percent-encoded, as Envoy matches the path sent (it
// was written "/búsqueda"); failsafe-go names its constants Búsqueda…
// (not BSqueda…); and grpc --approximate, writing the copies to the
// primary's pool, notes that copies_to = "other_replica" there is not
// written (it said nothing).
func TestExportUnicodeClassCosmetics(t *testing.T) {
	sc, err := scenario.Parse("fleet.toml", []byte(unicodeFleet))
	if err != nil {
		t.Fatal(err)
	}
	d := ScenarioPolicies(&sc.Config)
	out, _, err := Write(d, "envoy", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `prefix: "/b%C3%BAsqueda"`) {
		t.Errorf("envoy: no percent-encoded prefix:\n%s", out)
	}
	out, _, err = Write(d, "failsafe-go", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "BúsquedaHedgeTarget") || strings.Contains(string(out), "BSqueda") {
		t.Errorf("failsafe-go: want BúsquedaHedgeTarget:\n%s", out)
	}
	_, notes, err := Write(d, "grpc", Options{Approximate: true})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, n := range notes {
		found = found || strings.Contains(n.String(), `copies_to = "other_replica" on vllm not written`)
	}
	if !found {
		t.Errorf("grpc --approximate: no copies_to note among %v", notes)
	}
}
