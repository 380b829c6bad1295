package scenario

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/hedgesim/hedgesim/scenarios"
)

var updateSchema = flag.Bool("update", false, "rewrite ../docs/scenario.schema.json from the loader's tables")

// schemaPath is the committed schema, which shipped scenarios name in
// their #:schema comment.
const schemaPath = "../docs/scenario.schema.json"

// TestSchemaFile: the committed schema is the one JSONSchema generates;
// `go test ./scenario -run TestSchemaFile -update` (go generate ./scenario)
// rewrites it after a table or the reference changes.
func TestSchemaFile(t *testing.T) {
	got, err := JSONSchema(scenarios.Reference)
	if err != nil {
		t.Fatal(err)
	}
	if *updateSchema {
		if err := os.WriteFile(schemaPath, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not what the loader's tables and scenarios/README.md give: run go generate ./scenario", schemaPath)
	}
}

// compiledSchema compiles the generated schema.
func compiledSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	b, err := JSONSchema(scenarios.Reference)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("scenario.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("scenario.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// tomlAsJSON decodes TOML into the JSON value an editor validates against
// the schema (as Taplo does: tables are objects, arrays arrays).
func tomlAsJSON(t *testing.T, src string) any {
	t.Helper()
	var m map[string]any
	if _, err := toml.Decode(src, &m); err != nil {
		t.Fatal(err)
	}
	var fix func(any) any
	fix = func(v any) any {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				v[k] = fix(e)
			}
		case []any:
			for i, e := range v {
				v[i] = fix(e)
			}
		case []map[string]any:
			out := make([]any, len(v))
			for i, e := range v {
				out[i] = fix(e)
			}
			return out
		case float64:
			if math.IsInf(v, 0) || math.IsNaN(v) {
				return strconv.FormatFloat(v, 'g', -1, 64) // JSON has no inf or nan: a string, which no number key accepts
			}
		}
		return v
	}
	b, err := json.Marshal(fix(m))
	if err != nil {
		t.Fatal(err)
	}
	out, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSchemaAcceptsShipped: every shipped scenario and the reference's
// complete example validate against the schema, and each shipped file
// names it in its first line, as Taplo reads it.
func TestSchemaAcceptsShipped(t *testing.T) {
	s := compiledSchema(t)
	files, err := filepath.Glob("../scenarios/*.toml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no shipped scenarios (%v)", err)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if first, _, _ := strings.Cut(string(src), "\n"); first != "#:schema ../docs/scenario.schema.json" {
			t.Errorf("%s: first line %q; want #:schema ../docs/scenario.schema.json", f, first)
		}
		if err := s.Validate(tomlAsJSON(t, string(src))); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	_, example, _ := strings.Cut(string(scenarios.Reference), "## A complete example")
	_, block, _ := strings.Cut(example, "```toml\n")
	block, _, _ = strings.Cut(block, "```")
	if err := s.Validate(tomlAsJSON(t, block)); err != nil {
		t.Errorf("scenarios/README.md's complete example: %v", err)
	}
}

// schemaBase is a scenario every table of which the schema tests reach.
const schemaBase = `
requests = 100
[arrivals]
rate = 10
[providers.p]
[models.m]
provider = "p"
ttft = { kind = "constant", value = 0.5 }
tokens_per_s = { kind = "constant", value = 50 }
[[classes]]
name = "c"
output_tokens = { kind = "constant", value = 10 }
deadline = "2m"
[classes.hedge]
cancel_billing = "input"
`

// TestSchemaRejects: what the loader rejects as a misspelled key, a word
// that is not allowed, a duration without a unit or a parameter of
// another kind, the schema flags too.
func TestSchemaRejects(t *testing.T) {
	s := compiledSchema(t)
	if err := s.Validate(tomlAsJSON(t, schemaBase)); err != nil {
		t.Fatalf("the base scenario: %v", err)
	}
	for _, add := range []string{
		"dealy = \"1s\"",          // a misspelled key of [classes.hedge]
		"winner = \"fastest\"",    // a word not allowed
		"attempt_timeout = 2",     // a bare number for a duration
		"attempt_timeout = \"2\"", // a duration without a unit
		"delays = [\"1s\", \"later\"]",
		"[classes.hedge.budget]\nmax_hedge_share = \"10%\"",
		"[classes.retry]\nretry_on = [\"5xx\", \"500\"]",
		"[models.m.stalls]\nrate = 0.1\nduration = { kind = \"uniform\", min = 1, mean = 2 }", // not a uniform's key
		"[models.m.stalls]\nrate = 0.1\nduration = { kind = \"exponential\", min = 1 }",       // a key of another kind
		"[models.m.stalls]\nrate = 0.1\nduration = { kind = \"normal\", mu = 1, sigma = 1 }",
	} {
		src := schemaBase + add + "\n"
		if _, err := Parse("x.toml", []byte(src)); err == nil {
			t.Errorf("%q: the loader accepts it; the test wants a file it rejects", add)
		}
		if err := s.Validate(tomlAsJSON(t, src)); err == nil {
			t.Errorf("%q: the schema accepts it", add)
		}
	}
	// Forms the loader accepts that look unusual.
	for _, add := range []string{
		"delays = [\"0s\", \"fallback\"]\nmax_copies = 2\non_error = \"nonfatal\"",
		"attempt_timeout = \"1m30s\"",
		"[models.m.stalls]\nrate = 0.1\nduration = { kind = \"quantiles\", quantiles = { p50 = 1, \"p99.9\" = 8 } }",
	} {
		src := schemaBase + add + "\n"
		if _, err := Parse("x.toml", []byte(src)); err != nil {
			t.Errorf("%q: the loader rejects it: %v", add, err)
		}
		if err := s.Validate(tomlAsJSON(t, src)); err != nil {
			t.Errorf("%q: the schema rejects it: %v", add, err)
		}
	}
}

// allowedIn is the list after "allowed: " in a loader message.
var allowedIn = regexp.MustCompile(`allowed: ((?:"[^"]*"(?:, )?)+)`)

// TestSchemaEnumsMatchLoader: each word list of schemaEnums is exactly
// what the loader says is allowed when the key holds another word.
func TestSchemaEnumsMatchLoader(t *testing.T) {
	paths := map[string][]string{ // a --set that puts a bad word at the key, and what else it needs
		"arrivalsTable.process":          {"arrivals.process=zzz"},
		"arrivalsTable.format":           {"arrivals.process=replay", "arrivals.rate=[]", "arrivals.trace=t.csv", "arrivals.format=zzz"},
		"classTable.on_timeout":          {"classes[0].on_timeout=zzz"},
		"hedgeTable.winner":              {"classes[0].hedge.winner=zzz"},
		"hedgeTable.on_error":            {"classes[0].hedge.on_error=zzz"},
		"hedgeTable.on_invalid":          {"classes[0].hedge.on_invalid=zzz"},
		"hedgeTable.on_rate_limited":     {"classes[0].hedge.on_rate_limited=zzz"},
		"hedgeTable.on_attempt_timeout":  {"classes[0].hedge.on_attempt_timeout=zzz"},
		"hedgeTable.on_client_error":     {"classes[0].hedge.on_client_error=zzz"},
		"hedgeTable.on_upstream_timeout": {"classes[0].hedge.on_upstream_timeout=zzz"},
		"hedgeTable.on_stall":            {"classes[0].hedge.inter_token_timeout=1s", "classes[0].hedge.on_stall=zzz"},
		"hedgeTable.cancel_billing":      {"classes[0].hedge.cancel_billing=zzz"},
		"adaptiveTable.source":           {"classes[0].hedge.adaptive.percentile=0.9", "classes[0].hedge.adaptive.source=zzz"},
		"providerTable.cancel":           {"providers.p.cancel=zzz"},
		"poolTable.balancer":             {"providers.p.pool.replicas=2", "providers.p.pool.balancer=zzz"},
		"poolTable.copies_to":            {"providers.p.pool.replicas=2", "providers.p.pool.copies_to=zzz"},
		"poolTable.view":                 {"providers.p.pool.replicas=2", `providers.p.pool.balancer="p2c"`, `providers.p.pool.view_refresh="1s"`, "providers.p.pool.view=zzz"},
		"poolTable.unmeasured":           {"providers.p.pool.replicas=2", `providers.p.pool.balancer="latency_ewma"`, "providers.p.pool.unmeasured=zzz"},
		"coldStartTable.give_up":         {"providers.p.pool.replicas=2", `providers.p.pool.cold_start.keep_warm="1m"`, `providers.p.pool.cold_start.latency={ kind = "constant", value = 1 }`, "providers.p.pool.cold_start.give_up=zzz"},
		"autoscaleTable.no_capacity":     {"providers.p.pool.autoscale.max_replicas=2", "providers.p.pool.autoscale.target_concurrency=1", "providers.p.pool.autoscale.no_capacity=zzz"},
		"retryTable.jitter":              {"classes[0].retry.max_attempts=2", "classes[0].retry.jitter=zzz"},
		"retryTable.retry_on":            {"classes[0].retry.max_attempts=2", `classes[0].retry.retry_on=["zzz"]`},
		"stallsTable.at":                 {"models.m.stalls.rate=0.1", "models.m.stalls.duration={ kind = \"constant\", value = 1 }", "models.m.stalls.at=zzz"},
		"optimizeTable.objective":        {"optimize.objective=zzz"},
		"searchTable.objective":          {"optimize.class.c.objective=zzz"},
	}
	for at, words := range schemaEnums {
		set, ok := paths[at]
		if !ok {
			t.Errorf("%s: no path to check it with; add one to this test", at)
			continue
		}
		_, err := ParseWith("x.toml", []byte(schemaBase), &Options{Set: set})
		if err == nil {
			t.Errorf("%s: the loader accepts %v", at, set)
			continue
		}
		key, _, _ := strings.Cut(set[len(set)-1], "=")
		var found []string
		for _, line := range strings.Split(err.Error(), "\n") {
			if !strings.Contains(line, key) {
				continue
			}
			if m := allowedIn.FindStringSubmatch(line); m != nil {
				for _, q := range strings.Split(m[1], ", ") {
					w, err := strconv.Unquote(q)
					if err != nil {
						t.Fatalf("%s: %v in %q", at, err, line)
					}
					found = append(found, w)
				}
				break
			}
		}
		if found == nil {
			t.Errorf("%s: no list of allowed words for %s in:\n%v", at, key, err)
		} else if !slices.Equal(found, words) {
			t.Errorf("%s: the schema allows %q; the loader %q", at, words, found)
		}
	}
}

// TestSchemaDescribesEveryKey: every key of a table that schemaDocs places
// in the reference has a row there, so the schema describes it (and the
// reference documents every key the loader accepts).
func TestSchemaDescribesEveryKey(t *testing.T) {
	g := schemaGen{docs: referenceRows(string(scenarios.Reference))}
	seen := map[string]bool{}
	var walk func(reflect.Type)
	walk = func(typ reflect.Type) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Map {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || seen[typ.Name()] || typ.PkgPath() != reflect.TypeFor[fileTable]().PkgPath() {
			return
		}
		seen[typ.Name()] = true
		for i := range typ.NumField() {
			f := typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
			if name == "" {
				continue
			}
			if _, mapped := schemaDocs[typ.Name()]; mapped && g.describe(typ.Name(), name) == "" && sectionOf(f.Type) == "" {
				t.Errorf("%s.%s: no row in scenarios/README.md under %v", typ.Name(), name, schemaDocs[typ.Name()])
			}
			walk(f.Type)
		}
	}
	walk(reflect.TypeFor[fileTable]())
	for name := range schemaDocs {
		if !seen[name] {
			t.Errorf("schemaDocs names %s, which is no table of a scenario file", name)
		}
	}
}
