package export

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestReportPicksUndecided: a class whose verdict is undecided (too few
// requests to tell) is exported with its configured policy — for a
// pipeline class, every step's, as ScenarioPolicies gives them — whatever
// the report's pick, its reason saying that the verdict is undecided and
// why; every format notes it.
func TestReportPicksUndecided(t *testing.T) {
	for _, name := range []string{"help-chat-turn.toml", "replica-pool.toml"} {
		cfg := loadShipped(t, name)
		var classes []string
		for _, cl := range cfg.Classes {
			// The pick is no hedging, as optimize makes it for an
			// undecided class.
			classes = append(classes, fmt.Sprintf(`{"class": %q, "candidates": [{"label": "none", "hedging": false}], "pick": 0,
				"verdict": {"hedge": false, "undecided": true, "label": "undecided", "reason": "cannot tell at 10 requests"}}`, cl.Name))
		}
		data := fmt.Sprintf(`{"scenario": %q, "verdict_rule": "paired", "classes": [%s]}`, cfg.Name, strings.Join(classes, ","))
		d, err := ReportPicks([]byte(data), cfg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := ScenarioPolicies(cfg)
		if len(d.Classes) != len(want.Classes) {
			t.Fatalf("%s: %d policies; the scenario has %d", name, len(d.Classes), len(want.Classes))
		}
		why := UndecidedReason + ": cannot tell at 10 requests"
		for i := range d.Classes {
			g, w := d.Classes[i], want.Classes[i]
			if g.Reason != why {
				t.Errorf("%s: %s: reason %q; want %q", name, g.Class, g.Reason, why)
			}
			g.Reason = ""
			if !reflect.DeepEqual(g, w) {
				t.Errorf("%s: %s: exported %+v; want the configured %+v", name, g.Class, g, w)
			}
		}
		for _, f := range Formats {
			_, notes, err := Write(d, f, Options{Approximate: true})
			if err != nil {
				t.Errorf("%s: %s: %v", name, f, err)
				continue
			}
			for _, c := range d.Classes {
				noted := false
				for _, n := range notes {
					noted = noted || (n.Class == c.Class && strings.Contains(n.Text, why))
				}
				if !noted {
					t.Errorf("%s: %s: class %s: no note says the verdict is undecided: %v", name, f, c.Class, notes)
				}
			}
		}
	}
}
