package textfit

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"text/tabwriter"
	"unicode/utf8"
)

// tabwritten is what text/tabwriter prints for text, as the reports make it.
func tabwritten(text string, flags uint) string {
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', flags)
	tw.Write([]byte(text))
	tw.Flush()
	return b.String()
}

// table returns what a Table of width cols prints for text.
func table(text string, cols int, flags uint) string {
	var b bytes.Buffer
	t := NewTable(NewWriter(&b, cols), flags)
	fmt.Fprint(t, text)
	if err := t.Flush(); err != nil {
		panic(err)
	}
	return b.String()
}

func widestLine(s string) int {
	w := 0
	for l := range strings.Lines(s) {
		w = max(w, utf8.RuneCountInString(strings.TrimSuffix(l, "\n")))
	}
	return w
}

// wideTable has a header of long names over short figures, a spacer
// column and a line without tabs between two tables.
const wideTable = "latency\tp50\tp95\tp95 95% CI\tp99\t\tno hedging p95\tp99\tattempts/req\ttimeouts open/closed\t\n" +
	"short\t1.88s\t3.32s\t[3.31s, 3.34s]\t3.97s\t\t4.59s\tmiss\t1.957\t51/0\t\n" +
	"strict-sla\t859ms\t1.61s\t[1.58s, 1.65s]\tmiss\t\tmiss\tmiss\t1.985\t0/78\t\n" +
	"a line of prose between two tables\n" +
	"x\ty\t\n" +
	"1\t2\t\n"

// TestTableIsTabwriter: without a width, or when the text fits, a Table
// prints exactly what text/tabwriter prints.
func TestTableIsTabwriter(t *testing.T) {
	for _, flags := range []uint{0, tabwriter.AlignRight} {
		want := tabwritten(wideTable, flags)
		for _, cols := range []int{0, widestLine(want), 500} {
			if got := table(wideTable, cols, flags); got != want {
				t.Errorf("flags %d, width %d:\n%s\nwant (tabwriter):\n%s", flags, cols, got, want)
			}
		}
		var b bytes.Buffer
		tab := NewTable(&b, flags) // a plain writer: no width
		fmt.Fprint(tab, wideTable)
		tab.Flush()
		if b.String() != want {
			t.Errorf("flags %d, a plain writer:\n%s\nwant:\n%s", flags, b.String(), want)
		}
	}
}

// TestTableHeadersBreak: a table a little too wide breaks its header cells
// (at spaces and after '/') onto two lines, and its rows keep their cells.
func TestTableHeadersBreak(t *testing.T) {
	full := tabwritten(wideTable, tabwriter.AlignRight)
	cols := widestLine(full) - 10
	got := table(wideTable, cols, tabwriter.AlignRight)
	if w := widestLine(got); w > cols {
		t.Fatalf("width %d > %d:\n%s", w, cols, got)
	}
	lines := strings.Split(got, "\n")
	// Two header lines, then the rows with every cell in its order.
	if !strings.Contains(lines[0]+lines[1], "timeouts") || !strings.Contains(lines[1], "open/closed") {
		t.Errorf("header not broken onto two lines:\n%s", got)
	}
	if f := strings.Fields(lines[2]); strings.Join(f, " ") != "short 1.88s 3.32s [3.31s, 3.34s] 3.97s 4.59s miss 1.957 51/0" {
		t.Errorf("row: %q", lines[2])
	}
	// The line without tabs, and the small table after it, are as tabwriter has them.
	if !strings.HasSuffix(got, "a line of prose between two tables\n  x  y\n  1  2\n") {
		t.Errorf("the text after the wide table changed:\n%s", got)
	}
}

// TestTableGroups: a table that cannot fit by breaking its headers is cut
// into column groups, each led by the label column, each fitting.
func TestTableGroups(t *testing.T) {
	var in strings.Builder
	for i := range 20 {
		fmt.Fprintf(&in, "column%02d\t", i)
	}
	in.WriteString("\n")
	for _, label := range []string{"first", "second"} {
		in.WriteString(label)
		for i := 1; i < 20; i++ {
			fmt.Fprintf(&in, "\t%d", 1000+i)
		}
		in.WriteString("\t\n")
	}
	got := table(in.String(), 60, 0)
	if w := widestLine(got); w > 60 {
		t.Fatalf("width %d > 60:\n%s", w, got)
	}
	groups := strings.Split(strings.TrimSuffix(got, "\n"), "\n\n")
	if len(groups) < 3 {
		t.Fatalf("%d groups, want at least 3 for 20 columns of 10 in 60:\n%s", len(groups), got)
	}
	seen := map[string]bool{}
	for _, g := range groups {
		lines := strings.Split(g, "\n")
		if len(lines) != 3 || !strings.HasPrefix(lines[0], "column00") ||
			!strings.HasPrefix(lines[1], "first ") || !strings.HasPrefix(lines[2], "second ") {
			t.Errorf("group without its label column:\n%s", g)
		}
		for _, h := range strings.Fields(lines[0])[1:] {
			if seen[h] {
				t.Errorf("column %s in two groups", h)
			}
			seen[h] = true
		}
	}
	if len(seen) != 19 {
		t.Errorf("%d columns shown, want 19 besides the labels:\n%s", len(seen), got)
	}
}

// TestTableLongCells: a long cell leaves its row for a line of its own
// below it, named by its header; a long label goes above its row.
func TestTableLongCells(t *testing.T) {
	policy := "guard-question: 1.00s ×2 → llama-guard; retrieval: no hedging"
	label := strings.Repeat("a-very-long-step-name-", 2)
	in := "class\tmetric\tA\tB\tchange\n" +
		"turn\tpolicy\t" + policy + "\t" + policy + "\t\n" +
		"turn\tp50\t7.66s\t7.68s\t+0.3%\n" +
		label + "\tp95\t1s\t2s\t+100%\n"
	got := table(in, 80, 0)
	if w := widestLine(got); w > 80 {
		t.Fatalf("width %d > 80:\n%s", w, got)
	}
	want := "class  metric  A      B      change\n" +
		"turn   policy\n" +
		"       A: " + policy + "\n" +
		"       B: " + policy + "\n" +
		"turn   p50     7.66s  7.68s  +0.3%\n" +
		label + "\n" +
		"       p95     1s     2s     +100%\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	// Narrower still, the moved cells break with a hanging indent.
	got = table(in, 50, 0)
	if w := widestLine(got); w > 50 {
		t.Errorf("width %d > 50:\n%s", w, got)
	}
	if !strings.Contains(got, "\n       A: guard-question: 1.00s ×2 → llama-guard;\n         retrieval: no hedging\n") {
		t.Errorf("moved cell not broken under itself:\n%s", got)
	}
}

// TestTableTrailingProse: long text after a row's last tab is broken under
// its own start.
func TestTableTrailingProse(t *testing.T) {
	why := strings.Repeat("because of reasons ", 10)
	in := "    1.52s\tp95 3.74s\t" + why + "\n    1.65s\tp95 3.81s\tshort\n"
	got := table(in, 70, 0)
	if w := widestLine(got); w > 70 {
		t.Fatalf("width %d > 70:\n%s", w, got)
	}
	lines := strings.Split(got, "\n")
	start := strings.Index(lines[0], "because")
	conts := 0
	for _, l := range lines[1:] {
		if l == "" || strings.HasPrefix(l, "    1.65s") {
			continue
		}
		conts++
		if body := strings.TrimLeft(l, " "); len(l)-len(body) != start {
			t.Errorf("continuation %q does not start at column %d", l, start)
		}
	}
	if conts < 2 {
		t.Errorf("%d continuation lines, want the prose broken:\n%s", conts, got)
	}
	if strings.Join(strings.Fields(got), " ") != strings.Join(strings.Fields(in), " ") {
		t.Errorf("words lost or reordered:\n%s", got)
	}
}

// TestTableOneBlank: a right-aligned table a few columns too wide even
// with its headers broken stays whole with one blank between columns,
// its headers of several words on two lines.
func TestTableOneBlank(t *testing.T) {
	in := "  \tdelay\tp95\tp99\tanswered\thedged\tcost/1k req\tadded cost\t\n" +
		"  *\t1.58s\t3.78s\t4.50s\t99.8%\t66.6%\t$5.4795\t+43.7%\t\n"
	full := tabwritten(in, tabwriter.AlignRight) // 71 columns
	got := table(in, 59, tabwriter.AlignRight)   // two blanks and broken headers need 61
	want := "                                       cost/1k  added\n" +
		"     delay   p95   p99 answered hedged     req   cost\n" +
		"   * 1.58s 3.78s 4.50s    99.8%  66.6% $5.4795 +43.7%\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s\n(from:\n%s)", got, want, full)
	}
}

// TestTableGroupsKeepHeaderlessColumns pins a bug: splitting the optimize
// summary into groups put the change "(-22.1%)", a cell of its own with
// an empty header after the p99 "before → after" cell, in the next group
// under no header. A column with an empty header stays in its
// predecessor's group, at every width.
func TestTableGroupsKeepHeaderlessColumns(t *testing.T) {
	in := "class\tverdict\tdelay\tcopies\ttarget\tp95 before → after\t\tp99 before → after\t\tanswered before → after\t\thedged\tattempts/req\tadded cost\t\n" +
		"turn\thedge\tper step\t-\t-\t13.2s → 10.9s\t(-17.4%)\t16.8s → 13.1s\t(-22.1%)\t99.96% → 100.00%\t(+0.04 pt)\t74.1%\t5.476\t+1.9%\t\n"
	pairs := [][2]string{{"13.2s → 10.9s", "(-17.4%)"}, {"16.8s → 13.1s", "(-22.1%)"}, {"99.96% → 100.00%", "(+0.04 pt)"}}
	full := widestLine(tabwritten(in, 0))
	split := false
	for cols := 40; cols < full; cols++ {
		got := table(in, cols, 0)
		if w := widestLine(got); w > cols {
			t.Errorf("width %d: %d wide:\n%s", cols, w, got)
		}
		split = split || strings.Contains(got, "\n\n")
		for _, p := range pairs {
			ok := false
			for l := range strings.Lines(got) {
				if strings.Contains(l, p[0]) {
					ok = strings.Contains(l, p[1])
					break
				}
			}
			if !ok {
				t.Errorf("width %d: %q not on the line of %q:\n%s", cols, p[1], p[0], got)
			}
		}
	}
	if !split {
		t.Errorf("no width between 40 and %d split the table into groups: the test tests nothing", full)
	}
}

// TestTableGroupsNumberRows: when a key cell (here the delay after a
// column of marks) left its row for a line below it, which the first
// group alone shows, and the table is split into groups, every group
// numbers its rows #1, #2, … so that each row of a later group is
// found in the first.
func TestTableGroupsNumberRows(t *testing.T) {
	long := "guard-question 310ms×2, retrieval 231ms, guard-answer 303ms×2"
	in := "\tdelay\tcopies\tp95\t95% CI\tp99\t95% CI\tchecked within 30.0s\tanswered\thedged\tattempts/req\tcost/1k req\tadded cost\t\n" +
		"\tnone\t-\t14.3s\t[14.0s, 14.5s]\t16.8s\t[16.4s, 17.2s]\t25.86%\t100.0%\t0.0%\t4.000\t$8.7589\t+0.0%\t\n" +
		"*\t" + long + "\t-\t12.1s\t[11.9s, 12.3s]\t14.6s\t[14.2s, 15.0s]\t76.66%\t100.0%\t74.1%\t5.476\t$8.9237\t+1.9%\t\n" +
		"~\t" + long + "\t-\t12.0s\t[11.9s, 12.3s]\t14.6s\t[14.1s, 15.0s]\t76.66%\t100.0%\t78.9%\t5.660\t$8.9255\t+1.9%\t\n"
	got := table(in, 80, tabwriter.AlignRight)
	groups := strings.Split(strings.TrimSuffix(got, "\n"), "\n\n")
	if len(groups) != 2 {
		t.Fatalf("%d groups, want 2:\n%s", len(groups), got)
	}
	if w := widestLine(got); w > 80 {
		t.Errorf("%d wide > 80:\n%s", w, got)
	}
	for g, text := range groups {
		lines := strings.Split(text, "\n")
		var rows []string
		for _, l := range lines[1:] {
			if f := strings.Fields(l); len(f) > 0 && strings.HasPrefix(f[0], "#") {
				rows = append(rows, l)
			}
		}
		if len(rows) != 3 {
			t.Fatalf("group %d: %d numbered rows, want 3:\n%s", g+1, len(rows), text)
		}
		for i, l := range rows {
			f := strings.Fields(l)
			if f[0] != fmt.Sprintf("#%d", i+1) {
				t.Errorf("group %d, row %d numbered %s:\n%s", g+1, i+1, f[0], text)
			}
		}
		if g > 0 && strings.Contains(text, long) {
			t.Errorf("group %d repeats the moved delay:\n%s", g+1, text)
		}
	}
	// Row #2 of the second group is the pick's: its cost figures.
	if !strings.Contains(groups[1], "#2  *") || !strings.Contains(groups[1], "$8.9237") {
		t.Errorf("second group lost the pick's row:\n%s", groups[1])
	}
	// The first group shows the moved delay below its row.
	if !strings.Contains(groups[0], "delay: "+long) {
		t.Errorf("first group without the moved delay:\n%s", groups[0])
	}
	// A table that fits in one group is not numbered.
	if one := table(in, 400, tabwriter.AlignRight); strings.Contains(one, "#1") {
		t.Errorf("a table in one group numbered:\n%s", one)
	}
}

// TestTableDropsColumnThatLeft: a column every cell of which is long
// leaves its rows for lines below them ("header: cell"), so its header
// would stand over blanks — the closed-loop rollout check's throughput
// column, whose header ended a second group of columns above nothing.
// It is dropped, and the table's other columns fit in one group.
func TestTableDropsColumnThatLeft(t *testing.T) {
	tput := "8.883/s → 10.11/s [9.937, 10.29]"
	in := "class\tpick\tp95 check\tno hedging\tpredicted\tanswered check\tadded cost\tthroughput no hedging → check [95% CI]\t\n" +
		"eval\tconfigured\t2.82s\t3.97s\t-\t100.00%\t+24.2%\t" + tput + "\t\n"
	got := table(in, 80, 0)
	if w := widestLine(got); w > 80 {
		t.Fatalf("width %d > 80:\n%s", w, got)
	}
	want := "class  pick        p95 check  no hedging  predicted  answered check  added cost\n" +
		"eval   configured  2.82s      3.97s       -          100.00%         +24.2%\n" +
		"       throughput no hedging → check [95% CI]: " + tput + "\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
