package export

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	compositev3 "github.com/envoyproxy/go-control-plane/envoy/extensions/clusters/composite/v3"
	"sigs.k8s.io/yaml"

	"github.com/hedgesim/hedgesim/scenarios"
	"github.com/hedgesim/hedgesim/sim"
)

// hostileFragments are pieces of text that end or escape a string or a
// comment in one of the formats, or mislead a terminal or a browser: every
// C0 and C1 control character and DEL, quotes and backslashes, a Go raw
// string's backtick, a template's ${}, block and HTML comment ends, a
// script end, YAML indicators, Unicode line and paragraph separators, a
// byte order mark and a bidirectional override. The scenario loader
// refuses control characters and separators in names; the export does not
// rely on it (a report, or a Document built in code, carries names too).
var hostileFragments = func() []string {
	var c0, c1 strings.Builder
	for r := rune(0); r < 0x20; r++ {
		c0.WriteRune(r)
	}
	c1.WriteRune(0x7f)
	for r := rune(0x80); r < 0xa0; r++ {
		c1.WriteRune(r)
	}
	return []string{
		c0.String(), c1.String(),
		"x\ninjected_by_name: {cluster: attacker}\n#",
		"\"}, \"injected\": {\"a\": \"", `\"\\\n\u0041`, "`backtick` ${HOME} $(id)",
		"*/ injected /*", "--> <!-- </script><script>alert(1)</script>",
		"\u2028injected: 1\u2029# \u0085", "\ufeffbom \u202egnp.exe", "\r\n- injected\r",
		"# not a comment: {a: [b]} & *anchor !tag |", "// \"quoted\" 'single' \\",
	}
}()

// hostileName returns the i-th hostile name, unique by its prefix.
func hostileName(prefix string, i int) string {
	return fmt.Sprintf("%s%d%s", prefix, i, hostileFragments[i%len(hostileFragments)])
}

// renameHostile gives every scenario, class, pipeline step, model and
// provider name of cfg a hostile one, keeping the references between them.
func renameHostile(cfg *sim.Config, seed int) {
	cfg.Name = hostileName("scenario", seed)
	for i := range cfg.Classes {
		cl := &cfg.Classes[i]
		cl.Name = hostileName("class", seed+i)
		if cl.Pipeline != nil {
			for j := range cl.Pipeline.Steps {
				cl.Pipeline.Steps[j].Name = hostileName("step", seed+i+j)
			}
		}
	}
	providers := map[string]string{}
	provider := func(old string) string {
		if n, ok := providers[old]; ok {
			return n
		}
		providers[old] = hostileName("provider", seed+len(providers)+3)
		return providers[old]
	}
	for i := range cfg.Models {
		cfg.Models[i].Name = hostileName("model", seed+i+1)
		cfg.Models[i].Provider = provider(cfg.Models[i].Provider)
	}
	for i := range cfg.Providers {
		cfg.Providers[i].Name = provider(cfg.Providers[i].Name)
	}
}

// hostileDocs returns the policies of every shipped scenario with hostile
// names, and each once more with its first class not hedging for a
// hostile reason (an optimize verdict's reason is text from a report).
func hostileDocs(t *testing.T) []*Document {
	var ds []*Document
	for k, name := range scenarios.Names() {
		cfg := loadShipped(t, name)
		renameHostile(cfg, k)
		ds = append(ds, ScenarioPolicies(cfg))
		off := ScenarioPolicies(cfg)
		c := &off.Classes[0]
		c.Hedge, c.Copies, c.Adaptive = false, []Copy{}, nil
		c.Reason = hostileName("reason", k+5)
		ds = append(ds, off)
	}
	return ds
}

// TestHostileNamesEveryFormat: names made of every control character,
// quotes, backslashes, backticks, ${}, */, -->, </script> and Unicode line
// separators go into every format only through its quoting. Each output is
// parsed by a real parser (grpc-go and JSON, YAML and go-control-plane's
// protobuf messages, go/parser, JSON with the comments stripped); the
// parsed document has exactly the expected keys and every name reads back
// as it was; no raw control character or line separator is anywhere in
// the output, comments included.
func TestHostileNamesEveryFormat(t *testing.T) {
	opts := []Options{{Approximate: true}, {Service: hostileName("service", 7), Approximate: true}}
	for _, d := range hostileDocs(t) {
		for _, format := range Formats {
			for _, opt := range opts {
				if opt.Service != "" && format != "grpc" && format != "envoy" {
					continue
				}
				label := fmt.Sprintf("%s %q service %q", format, d.Scenario, opt.Service)
				out, notes, err := Write(d, format, opt)
				var ue *UnmappableError
				if errors.As(err, &ue) {
					continue // checked by TestUnmappable
				}
				if err != nil {
					t.Fatalf("%s: %v", label, err)
				}
				checkNoRawControl(t, label, out, format == "failsafe-go")
				switch format {
				case "json":
					checkHostileJSON(t, label, d, out)
				case "grpc":
					checkHostileGRPC(t, label, d, opt, out)
				case "envoy":
					checkHostileEnvoy(t, label, d, opt, out)
				case "failsafe-go":
					checkHostileFailsafe(t, label, d, out)
				case "polly":
					checkHostilePolly(t, label, d, out)
				}
				// python and typescript write a comment per class with its
				// name, notes or not.
				if len(notes) == 0 && format != "json" && format != "grpc" && format != "python" && format != "typescript" {
					t.Errorf("%s: no notes; the comments were not exercised", label)
				}
			}
		}
	}
}

// checkNoRawControl fails when out holds a control character (other than
// the line feed, and a tab in Go source) or a Unicode line separator.
func checkNoRawControl(t *testing.T, label string, out []byte, tabs bool) {
	t.Helper()
	for i, r := range string(out) {
		bad := r == utf8.RuneError || r == 0x2028 || r == 0x2029 || r == 0xfeff || unicode.Is(unicode.Bidi_Control, r) ||
			unicode.IsControl(r) && r != '\n' && !(tabs && r == '\t')
		if bad {
			t.Errorf("%s: raw %U at byte %d: %q", label, r, i, lineAround(out, i))
			return
		}
	}
}

func lineAround(b []byte, i int) string {
	from := bytes.LastIndexByte(b[:i], '\n') + 1
	to := bytes.IndexByte(b[i:], '\n')
	if to < 0 {
		return string(b[from:])
	}
	return string(b[from : i+to])
}

func checkHostileJSON(t *testing.T, label string, d *Document, out []byte) {
	got, err := Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("%s: %v", label, err)
	}
	if !reflect.DeepEqual(got, d) {
		t.Errorf("%s: the document does not read back as written", label)
	}
}

func checkHostileGRPC(t *testing.T, label string, d *Document, opt Options, out []byte) {
	p := checkGRPC(t, label, out)
	if len(p.MethodConfig) != len(d.Classes) {
		t.Fatalf("%s: %d methodConfig entries for %d classes", label, len(p.MethodConfig), len(d.Classes))
	}
	service := cmpOr(opt.Service, "SERVICE")
	for i, mc := range p.MethodConfig {
		if len(mc.Name) != 1 || mc.Name[0].Service != service || mc.Name[0].Method != d.Classes[i].Class {
			t.Errorf("%s: methodConfig[%d].name %+v; want service %q, method %q", label, i, mc.Name, service, d.Classes[i].Class)
		}
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func checkHostileEnvoy(t *testing.T, label string, d *Document, opt Options, out []byte) {
	var top map[string]any
	if err := yaml.Unmarshal(out, &top); err != nil {
		t.Fatalf("%s: not YAML: %v", label, err)
	}
	for k := range top {
		if k != "routes" && k != "clusters" {
			t.Errorf("%s: top-level key %q; want routes and clusters only", label, k)
		}
	}
	routes, clusters := checkEnvoy(t, label, out)
	if len(routes) != len(d.Classes) {
		t.Fatalf("%s: %d routes for %d classes", label, len(routes), len(d.Classes))
	}
	for i, r := range routes {
		c := &d.Classes[i]
		want := "/" + url.PathEscape(c.Class) // the path as sent, percent-encoded
		if opt.Service != "" {
			want = "/" + opt.Service + "/"
		}
		// Copies to other models go through the class's composite cluster.
		cluster := c.Primary
		if c.Hedge && len(c.otherTargets()) > 0 {
			cluster = EnvoyCompositeName(c.Class)
		}
		if r.Name != c.Class || r.GetRoute().GetCluster() != cluster || r.GetMatch().GetPrefix() != want {
			t.Errorf("%s: route %d: name %q, cluster %q, prefix %q; want %q, %q, %q", label, i,
				r.Name, r.GetRoute().GetCluster(), r.GetMatch().GetPrefix(), c.Class, cluster, want)
		}
	}
	for _, cl := range clusters {
		i := slices.IndexFunc(d.Classes, func(c Class) bool { return EnvoyCompositeName(c.Class) == cl.Name })
		if i < 0 {
			if !slices.ContainsFunc(d.Classes, func(c Class) bool { return c.Primary == cl.Name }) {
				t.Errorf("%s: cluster %q is no class's primary", label, cl.Name)
			}
			continue
		}
		cc := &compositev3.ClusterConfig{}
		if err := cl.GetClusterType().GetTypedConfig().UnmarshalTo(cc); err != nil {
			t.Fatalf("%s: cluster %q: %v", label, cl.Name, err)
		}
		want := []string{d.Classes[i].Primary}
		for _, cp := range d.Classes[i].Copies {
			want = append(want, cp.Target)
		}
		var got []string
		for _, e := range cc.GetClusters() {
			got = append(got, e.GetName())
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: composite cluster %q: clusters %q; want %q", label, cl.Name, got, want)
		}
	}
}

// checkHostileFailsafe parses the Go file and checks that it declares, per
// class, the constants naming its primary and hedge target (read back by
// strconv.Unquote), and nothing the clean-named document does not.
func checkHostileFailsafe(t *testing.T, label string, d *Document, out []byte) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "hedging.go", out, parser.ParseComments)
	if err != nil {
		t.Fatalf("%s: %v", label, err)
	}
	consts := map[string]string{}
	for _, decl := range f.Decls {
		if g, ok := decl.(*ast.GenDecl); ok && g.Tok == token.CONST {
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				s, err := strconv.Unquote(vs.Values[0].(*ast.BasicLit).Value)
				if err != nil {
					t.Fatalf("%s: const %s: %v", label, vs.Names[0].Name, err)
				}
				consts[vs.Names[0].Name] = s
			}
		}
	}
	ids := map[string]bool{}
	for i := range d.Classes {
		c := &d.Classes[i]
		id := ident(c.Class)
		for base, k := id, 2; ids[id]; k++ {
			id = fmt.Sprintf("%s%d", base, k)
		}
		ids[id] = true
		if got := consts[id+"Primary"]; got != c.Primary {
			t.Errorf("%s: %sPrimary = %q; want %q", label, id, got, c.Primary)
		}
	}
	// The same document with plain names declares as much.
	plain, _, err := Write(plainNames(d), "failsafe-go", Options{Approximate: true}) // as the hostile document was written
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parser.ParseFile(fset, "plain.go", plain, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := declCount(f), declCount(pf); got != want {
		t.Errorf("%s: %d declarations; the document with plain names has %d", label, got, want)
	}
}

// declCount counts the top-level declarations of f: each function, type,
// constant and variable.
func declCount(f *ast.File) int {
	n := 0
	for _, decl := range f.Decls {
		if g, ok := decl.(*ast.GenDecl); ok {
			if g.Tok != token.IMPORT {
				n += len(g.Specs)
			}
			continue
		}
		n++
	}
	return n
}

// plainNames returns d with every name replaced by a plain one.
func plainNames(d *Document) *Document {
	var e Document
	data, _ := json.Marshal(d)
	_ = json.Unmarshal(data, &e)
	names := map[string]string{}
	plain := func(s string) string {
		if s == "" {
			return ""
		}
		if n, ok := names[s]; ok {
			return n
		}
		names[s] = fmt.Sprintf("n%d", len(names))
		return names[s]
	}
	e.Scenario = plain(e.Scenario)
	for i := range e.Classes {
		c := &e.Classes[i]
		c.Class, c.Primary, c.Reason = plain(c.Class), plain(c.Primary), plain(c.Reason)
		c.Pipeline, c.Step = plain(c.Pipeline), plain(c.Step)
		for j := range c.Copies {
			c.Copies[j].Target = plain(c.Copies[j].Target)
		}
		for j := range c.Breakers {
			b := &c.Breakers[j]
			b.Model, b.Provider = plain(b.Model), plain(b.Provider)
			for k := range b.Models {
				b.Models[k] = plain(b.Models[k])
			}
		}
	}
	return &e
}

// checkHostilePolly strips the comment lines at the top and parses the
// rest as JSON: one section, HedgingHandlers, with one key per class.
func checkHostilePolly(t *testing.T, label string, d *Document, out []byte) {
	lines := strings.SplitAfter(string(out), "\n")
	i := 0
	for i < len(lines) && strings.HasPrefix(lines[i], "//") {
		i++
	}
	body := strings.Join(lines[i:], "")
	if strings.Contains(body, "\n//") {
		t.Errorf("%s: a comment line after the JSON starts", label)
	}
	var doc map[string]map[string]PollyOptions
	dec := json.NewDecoder(strings.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("%s: not JSON after the comments: %v\n%s", label, err, out)
	}
	if len(doc) != 1 || doc[PollySection] == nil {
		t.Fatalf("%s: top-level keys %v; want %s only", label, slices.Collect(maps.Keys(doc)), PollySection)
	}
	h := doc[PollySection]
	if len(h) != len(d.Classes) {
		t.Errorf("%s: %d sections for %d classes", label, len(h), len(d.Classes))
	}
	for _, c := range d.Classes {
		o, ok := h[c.Class]
		if !ok {
			t.Errorf("%s: no section for class %q", label, c.Class)
			continue
		}
		if r := o.Routing; r != nil && r.Groups[0].Endpoints[0].URI != "https://"+c.Primary+".example" {
			t.Errorf("%s: class %q: first endpoint %q; want the primary %q's", label, c.Class, r.Groups[0].Endpoints[0].URI, c.Primary)
		}
	}
}

// TestQuoteHelpers: each quoting function's output reads back as its
// input with the parser of the place it is for.
func TestQuoteHelpers(t *testing.T) {
	for i := range hostileFragments {
		s := hostileName("q", i)
		var y map[string]string
		if err := yaml.Unmarshal([]byte("k: "+yamlQuote(s)+"  # comment\n"), &y); err != nil || len(y) != 1 || y["k"] != s {
			t.Errorf("yamlQuote(%q) = %s reads back as %q, %v", s, yamlQuote(s), y, err)
		}
		var j string
		if err := json.Unmarshal([]byte(jsonQuote(s)), &j); err != nil || j != s {
			t.Errorf("jsonQuote(%q) reads back as %q, %v", s, j, err)
		}
		if g, err := strconv.Unquote(goQuote(s)); err != nil || g != s {
			t.Errorf("goQuote(%q) reads back as %q, %v", s, g, err)
		}
		if c := commentText(s); strings.ContainsFunc(c, func(r rune) bool { return !unicode.IsPrint(r) }) {
			t.Errorf("commentText(%q) = %q holds a character that is not printable", s, c)
		}
	}
	if got := yamlQuote("large-a"); got != jsonQuote("large-a") {
		t.Errorf("yamlQuote of a plain name %s; want %s", got, jsonQuote("large-a"))
	}
	if got := commentText("strict-sla"); got != "strict-sla" {
		t.Errorf("commentText changes a plain name: %q", got)
	}
}
