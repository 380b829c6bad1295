package htmlreport

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
)

// TestPipelinePick: the page of a pipeline class's hedged pick says what
// the text report says: its delay column is "per step:" and the pick's
// label, without the one-call "×- → -" of no copies and no target, and
// the class's section gives the share answered before and after under no
// "Who answered" (a pipeline's calls are won in its steps; the page read
// "primary 0.0%"); the legend under the summary says how such a pick reads.
func TestPipelinePick(t *testing.T) {
	sc, err := scenario.LoadFS(scenarios.FS, "help-chat-turn.toml")
	if err != nil {
		t.Fatal(err)
	}
	s := optimize.DefaultSettings()
	s.Requests = 2000
	s.CheckRequests = 0
	rep, err := optimize.Run(&sc.Config, s, optimize.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cr := &rep.Classes[0]
	b, c := cr.Baseline(), cr.Picked()
	if !cr.Verdict.Hedge || c.Steps == nil {
		t.Fatalf("verdict %+v, pick %q; the test needs a hedged pipeline pick", cr.Verdict, c.Label)
	}
	var page bytes.Buffer
	if err := Write(&page, rep, Options{NoFigures: true}); err != nil {
		t.Fatal(err)
	}
	p := page.String()
	for _, bad := range []string{"×- → -", "Who answered", "primary 0.0%"} {
		if strings.Contains(p, bad) {
			t.Errorf("the page has %q", bad)
		}
	}
	for _, want := range []string{
		"<td>per step: " + templateEscape(c.Label) + "</td>",
		`<p class="won">answered: ` + share(b.MetShare) + " without hedging → " + share(c.MetShare) + ".</p>",
		`their target, or for a pipeline, "per step:" each hedged step's delay (and ×copies);`,
	} {
		if !strings.Contains(p, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text, false); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text.String(), "who answered") || !strings.Contains(text.String(), "per step: "+c.Label) {
		t.Errorf("the text report says who answered, or lacks the pick's steps:\n%s", text.String())
	}
}
