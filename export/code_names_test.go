package export

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
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

// TestPythonNames: hostile names reach the python module only as string
// literals: python3 parses it (ast), imports it without running anything
// else, and reads every name back exactly.
func TestPythonNames(t *testing.T) {
	py := python3(t)
	d := hostileDoc(t)
	mod, _, err := Write(d, "python", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := pythonParses(t, py, string(mod)); err != nil {
		t.Fatalf("python3 does not parse the module: %v", err)
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"hedging.py": string(mod), "names.py": `import json
import hedging
print(json.dumps({"scenario": hedging.SCENARIO, "classes": [[k, p.name, p.primary] + [c.target for c in p.copies] for k, p in hedging.POLICIES.items()]}))
`})
	cmd := exec.Command(py, "names.py")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python3: %v\n%s", err, out)
	}
	checkNames(t, "python3", out, wantNames(d))
}

// TestTypeScriptNames: the same for the typescript module, compiled by
// tsc (strict, tsBuild) and run under Node.
func TestTypeScriptNames(t *testing.T) {
	node, dir := tsBuild(t)
	cmd := exec.Command(node, filepath.Join("out", "names", "names.js"))
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	checkNames(t, "node", out, wantNames(hostileDoc(t)))
}

// tsNames prints what the module's POLICIES hold (namesSeen) as JSON.
const tsNames = `import { POLICIES, SCENARIO } from "./hedging";
const classes = Object.keys(POLICIES).map((k) => {
  const p = POLICIES[k]!;
  return [k, p.name, p.primary, ...p.copies.map((c) => c.target)];
});
console.log(JSON.stringify({ scenario: SCENARIO, classes }));
`
