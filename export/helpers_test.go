package export

import (
	"testing"

	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
	"github.com/hedgesim/hedgesim/sim"
)

// loadShipped parses a scenario shipped in the scenarios directory.
func loadShipped(t testing.TB, name string) *sim.Config {
	t.Helper()
	sc, err := scenario.LoadFS(scenarios.FS, name)
	if err != nil {
		t.Fatal(err)
	}
	return &sc.Config
}

// shippedDocs returns the policies of every shipped scenario, and of each
// with hedging switched off in its first class.
func shippedDocs(t testing.TB) []*Document {
	t.Helper()
	var ds []*Document
	for _, name := range scenarios.Names() {
		d := ScenarioPolicies(loadShipped(t, name))
		ds = append(ds, d)
		off := ScenarioPolicies(loadShipped(t, name))
		off.Scenario += " (first class off)"
		off.Classes[0].Hedge, off.Classes[0].Copies, off.Classes[0].Adaptive = false, []Copy{}, nil
		ds = append(ds, off)
	}
	return ds
}
