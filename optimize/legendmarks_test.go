package optimize_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
)

// frontierTables returns, per frontier table of a text report, its legend
// (the text from "frontier (" to the column heads, spaces folded) and the
// marks its rows use.
func frontierTables(text string) (legends []string, marks []string) {
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(l, "frontier (") && !strings.HasPrefix(l, "every candidate (") {
			continue
		}
		legend := l
		for i++; i < len(lines) && !strings.Contains(lines[i], "delay"); i++ {
			legend += " " + strings.TrimSpace(lines[i])
		}
		used := ""
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != ""; i++ {
			if f := strings.Fields(lines[i]); len(f) > 0 && strings.Trim(f[0], "*o~") == "" {
				used += f[0]
			}
		}
		legends, marks = append(legends, strings.Join(strings.Fields(legend), " ")), append(marks, used)
	}
	return legends, marks
}

// TestUndecidedLegendExplainsMarks pins a frontier table of an undecided
// class with no candidate picked whose rows were marked "o~" while the
// legend read only "* pick, ~ p95 not significantly different from the
// pick": "o" went unexplained, and "~" was relative to a pick there is
// not. Now the legend explains every mark the rows use, and with no pick
// says what "~" is relative to: what rolls out.
func TestUndecidedLegendExplainsMarks(t *testing.T) {
	sc, err := scenario.Parse("base.toml", []byte(undecidedScenario))
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests, s.CheckRequests = 30, 0
	rep := mustRun(t, &sc.Config, s, optimize.Options{Workers: 2})
	cr := &rep.Classes[0]
	if !cr.Unpicked() {
		t.Fatalf("verdict %+v: the test needs an undecided class with no candidate picked", cr.Verdict)
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text, false); err != nil {
		t.Fatal(err)
	}
	legends, marks := frontierTables(text.String())
	if len(legends) != 1 {
		t.Fatalf("%d frontier tables, want 1:\n%s", len(legends), text.String())
	}
	legend, used := legends[0], marks[0]
	if !strings.Contains(used, "o") || !strings.Contains(used, "~") {
		t.Fatalf("rows use marks %q; the test needs o and ~:\n%s", used, text.String())
	}
	for _, m := range []string{"*", "o", "~"} {
		if strings.Contains(used, m) != strings.Contains(legend, " "+m+" ") {
			t.Errorf("rows use marks %q, legend %q: mark %s unexplained or explained unused", used, legend, m)
		}
	}
	if strings.Contains(legend, "from the pick") {
		t.Errorf("legend %q compares with a pick, and no candidate is picked", legend)
	}
	if want := "~ not known to differ from what rolls out"; !strings.Contains(legend, want) {
		t.Errorf("legend %q lacks %q", legend, want)
	}
}

// TestClosingLegendWithoutPick pins the report's closing legend line,
// which read "~ = the percentile's interval overlaps the pick's" for every
// report, also one whose only class is undecided with no candidate picked:
// there is no pick's interval there. Now the line says what "~" is
// relative to for such a class, what rolls out, as its table's legend does.
func TestClosingLegendWithoutPick(t *testing.T) {
	sc, err := scenario.Parse("base.toml", []byte(undecidedScenario))
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests, s.CheckRequests = 30, 0
	rep := mustRun(t, &sc.Config, s, optimize.Options{Workers: 2})
	if !rep.Classes[0].Unpicked() {
		t.Fatalf("verdict %+v: the test needs an undecided class with no candidate picked", rep.Classes[0].Verdict)
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text, false); err != nil {
		t.Fatal(err)
	}
	var line string
	for _, l := range strings.Split(text.String(), "\n") {
		if strings.HasPrefix(l, "added cost is relative") {
			line = l
		}
	}
	if line == "" {
		t.Fatalf("no closing legend line:\n%s", text.String())
	}
	if strings.Contains(line, "the pick's") {
		t.Errorf("closing legend %q compares with a pick, and no candidate is picked", line)
	}
	if want := "~ = not known to differ from what rolls out"; !strings.Contains(line, want) {
		t.Errorf("closing legend %q lacks %q", line, want)
	}
}
