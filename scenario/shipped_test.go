package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/scenarios"
	"github.com/hedgesim/hedgesim/sim"
)

// TestShippedScenarios parses every scenario file in ../scenarios, from the
// directory and from the embedded FS.
func TestShippedScenarios(t *testing.T) {
	files, err := filepath.Glob("../scenarios/*.toml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no scenario files found in ../scenarios")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			s, err := Load(f)
			if err != nil {
				t.Fatal(err)
			}
			if s.Config.Name == "" || len(s.Config.Models) == 0 || len(s.Config.Classes) == 0 {
				t.Errorf("incomplete config: %+v", s.Config)
			}
		})
	}
	for _, name := range scenarios.Names() {
		if _, err := LoadFS(scenarios.FS, name); err != nil {
			t.Errorf("embedded %s: %v", name, err)
		}
	}
	found := false
	for _, name := range scenarios.Names() {
		found = found || name == scenarios.Default
	}
	if !found {
		t.Errorf("scenarios.Default = %q is not among %q", scenarios.Default, scenarios.Names())
	}
}

// TestReadmeExample parses the complete example in ../scenarios/README.md,
// so the documentation cannot drift from the parser.
func TestReadmeExample(t *testing.T) {
	data, err := os.ReadFile("../scenarios/README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "## A complete example")
	if !ok {
		t.Fatal(`README.md has no "## A complete example" section`)
	}
	_, rest, ok = strings.Cut(rest, "```toml\n")
	block, _, closed := strings.Cut(rest, "```")
	if !ok || !closed {
		t.Fatal("README.md: no toml code block in the complete example")
	}
	s, err := Parse("README.md", []byte(block))
	if err != nil {
		t.Fatal(err)
	}
	if got := len(s.Config.Classes); got != 2 {
		t.Errorf("example has %d classes, want 2", got)
	}
}

// TestStatusRulesUpstreamTimeouts: the shipped status-rules scenario's
// upstream timeouts land before its classes' deadline, so the classes'
// on_upstream_timeout rules can act on them: the run counts failed
// attempts of that kind.
func TestStatusRulesUpstreamTimeouts(t *testing.T) {
	sc, err := LoadFS(scenarios.FS, "status-rules.toml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(&sc.Config)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Classes {
		if c.Name != "fatal" && c.Attempts.FailedByKind.UpstreamTimeout == 0 {
			t.Errorf("%s: no upstream timeout before the deadline: on_upstream_timeout %q never acts", c.Name, "nonfatal")
		}
	}
}
