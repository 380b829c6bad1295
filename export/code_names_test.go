package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// hostileNames are names a scenario may give a class or a model that
// would end a string or a comment, or run code, if written as they are.
var hostileNames = []string{
	`quote"single'back` + "`tick",
	"line\nbreak\r\u2028\u2029end",
	"${globalThis.process?.exit(3)}",
	"</script><script>alert(1)</script>",
	`"""; import os; os._exit(3) #`,
	"*/ throw 1; /*",
	`trailing\`,
	"nul\x00tab\t",
	"__proto__",
	"é😀",
}

// hostileDoc is a document whose class, model and scenario names are
// hostileNames, with a budget, a retry and a breaker, so that the notes
// (written as comments) carry the names too.
func hostileDoc(t *testing.T) *Document {
	t.Helper()
	base := ScenarioPolicies(loadShipped(t, "guard-check.toml")).Classes[0]
	d := &Document{Format: DocumentFormat, Version: DocumentVersion, Scenario: hostileNames[1] + hostileNames[4], Source: FromScenario}
	for i, name := range hostileNames {
		c := base
		c.Class = name
		c.Primary = hostileNames[(i+1)%len(hostileNames)]
		c.Copies = []Copy{{Target: hostileNames[(i+2)%len(hostileNames)], Delay: Seconds(time.Second)}}
		c.Budget = Budget{MaxParallel: 2}
		c.Retry = &Retry{MaxAttempts: 2, InitialBackoff: Seconds(time.Second), MaxBackoff: Seconds(time.Second), Multiplier: 1, Jitter: "none", RetryOn: []string{"5xx"}}
		c.Breakers = []Breaker{{Model: c.Primary, Models: []string{c.Primary}, ConsecutiveFailures: 3, Cooldown: Seconds(time.Second), Probes: 1}}
		d.Classes = append(d.Classes, c)
	}
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	return d
}

// namesSeen is what a module's POLICIES hold, as its own runtime reads
// them back: the scenario, and per class its key, name, primary and
// copy targets.
type namesSeen struct {
	Scenario string     `json:"scenario"`
	Classes  [][]string `json:"classes"`
}

func wantNames(d *Document) namesSeen {
	w := namesSeen{Scenario: d.Scenario}
	for _, c := range d.Classes {
		row := []string{c.Class, c.Class, c.Primary}
		for _, cp := range c.Copies {
			row = append(row, cp.Target)
		}
		w.Classes = append(w.Classes, row)
	}
	return w
}

func checkNames(t *testing.T, runtime string, out []byte, want namesSeen) {
	t.Helper()
	var got namesSeen
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%s: %v\n%s", runtime, err, out)
	}
	if got.Scenario != want.Scenario || !slices.EqualFunc(got.Classes, want.Classes, slices.Equal) {
		t.Errorf("%s reads back\n%q\nwant\n%q", runtime, got, want)
	}
}

// namesOptions are the options the names tests write namesDocs with:
// Approximate, since they check names, and a shipped scenario's replica
// pool (copies_to = "other_replica") is refused without it.
var namesOptions = Options{Approximate: true}

// namesDocs are the documents the names tests write: hostileDoc, and
// every shipped scenario with hostile names (hostileDocs: every control
// character, quotes, backslashes, backticks, ${}, */, -->, </script>,
// line separators, a byte order mark, a bidirectional override), less
// those with an adaptive delay, which the code formats refuse.
func namesDocs(t *testing.T) []*Document {
	ds := []*Document{hostileDoc(t)}
	for _, d := range hostileDocs(t) {
		if d = withoutAdaptive(d); d != nil {
			ds = append(ds, d)
		}
	}
	return ds
}

// TestPythonNames: hostile names reach the python module only as string
// literals: python3 parses every module (ast), imports it without running
// anything else, and reads every name back exactly.
func TestPythonNames(t *testing.T) {
	py := python3(t)
	files := map[string]string{}
	var want []namesSeen
	var imports strings.Builder
	for i, d := range namesDocs(t) {
		mod, _, err := Write(d, "python", namesOptions)
		if err != nil {
			t.Fatalf("%q: %v", d.Scenario, err)
		}
		files[fmt.Sprintf("hedging%d.py", i)] = string(mod)
		fmt.Fprintf(&imports, "import hedging%d\n", i)
		want = append(want, wantNames(d))
	}
	// ast.parse first: a module that does not parse fails here, before
	// anything of it could run.
	files["names.py"] = `import ast, json, sys
for i in range(` + strconv.Itoa(len(want)) + `):
    with open("hedging%d.py" % i, encoding="utf-8") as f:
        ast.parse(f.read())
` + imports.String() + `for i in range(` + strconv.Itoa(len(want)) + `):
    m = sys.modules["hedging%d" % i]
    print(json.dumps({"scenario": m.SCENARIO, "classes": [[k, p.name, p.primary] + [c.target for c in p.copies] for k, p in m.POLICIES.items()]}))
`
	dir := t.TempDir()
	writeFiles(t, dir, files)
	cmd := exec.Command(py, "names.py")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python3: %v\n%s", err, out)
	}
	checkAllNames(t, "python3", out, want)
}

// checkAllNames checks a JSON line of namesSeen per document.
func checkAllNames(t *testing.T, runtime string, out []byte, want []namesSeen) {
	t.Helper()
	lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
	if len(lines) != len(want) {
		t.Fatalf("%s: %d lines for %d modules:\n%s", runtime, len(lines), len(want), out)
	}
	for i, l := range lines {
		checkNames(t, runtime, l, want[i])
	}
}

// TestTypeScriptNames: the same for the typescript modules, compiled by
// tsc (strict, tsBuild; with and without Node's types) and run under Node.
func TestTypeScriptNames(t *testing.T) {
	node, dir := tsBuild(t)
	cmd := exec.Command(node, filepath.Join("out", "names", "names.js"))
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	var want []namesSeen
	for _, d := range namesDocs(t) {
		want = append(want, wantNames(d))
	}
	checkAllNames(t, "node", out, want)
}

// tsNames returns names/names.ts for n modules names/hedgingI.ts: it
// prints, per module, what its POLICIES hold (namesSeen) as a JSON line.
func tsNames(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "import * as m%d from \"./hedging%d\";\n", i, i)
	}
	b.WriteString("const modules = [")
	for i := range n {
		fmt.Fprintf(&b, "m%d, ", i)
	}
	b.WriteString(`];
for (const m of modules) {
  const classes = Object.keys(m.POLICIES).map((k) => {
    const p = m.POLICIES[k]!;
    return [k, p.name, p.primary, ...p.copies.map((c) => c.target)];
  });
  console.log(JSON.stringify({ scenario: m.SCENARIO, classes }));
}
`)
	return b.String()
}
