package textfit

import (
	"bytes"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// padding is the blanks between two columns, as the reports' tabwriters
// (minwidth 0, tabwidth 0, padding 2, padchar ' ') put them.
const padding = 2

// Table is a stand-in for a text/tabwriter.Writer made with
// tabwriter.NewWriter(w, 0, 0, 2, ' ', flags) (flags 0 or
// tabwriter.AlignRight): cells end in '\t', the text after a line's last
// '\t' is its trailing text, and a line without a '\t' ends the table
// above it and starts a new one below.
//
// Flush writes what tabwriter would, unless the width (NewTable) is above
// 0 and a table, so laid out, is wider. Such a table's first line is its
// header, and it is fitted in four steps, each taken only while the
// table is still too wide:
//
//  1. A long cell (wider than a quarter of the width, at least 20
//     columns) leaves its row: a long first cell (the row's label) goes
//     on a line of its own above the row, any other as "header: cell" on
//     a line of its own below it, under the second column (broken at
//     spaces as Wrap does when it is still too wide). A column (not the
//     first) whose every cell so left is dropped, header and all.
//  2. Header cells break at spaces and after '/' onto two lines, the
//     columns that gain most first, each as narrow as two lines allow
//     but no narrower than its widest cell.
//  3. A right-aligned table (figures) that then fits with one blank
//     between its columns instead of two, and its headers broken as far
//     as that needs (step 2), is so printed, every header of several
//     words on two lines where that is no wider.
//  4. The columns are split into as few groups as fit, as even in width
//     as that many can be, one below the other, each led by the label column (and the column after it when the
//     labels are marks of up to 3 characters); empty columns are dropped,
//     a column with an empty header stays in the group of the column
//     before it, and each group's headers break only as far as it needs
//     (step 2). When a key cell other than the first left its row for a
//     line below it (step 1), which only the first group shows, every
//     group numbers its rows "#1", "#2", … in a column of its own in front.
//
// Trailing text wider than a quarter of the width is prose: it is left
// out of the columns and broken at spaces under its own start. Lines
// of a fitted table end in no blanks.
type Table struct {
	w     io.Writer
	width int
	flags uint
	buf   bytes.Buffer
}

// NewTable returns a Table writing to w, fitted to Width(w).
func NewTable(w io.Writer, flags uint) *Table { return NewTableWidth(w, Width(w), flags) }

// NewTableWidth returns a Table writing to w, fitted to width columns (0:
// no limit, the tabwriter's text).
func NewTableWidth(w io.Writer, width int, flags uint) *Table {
	return &Table{w: w, width: width, flags: flags}
}

// Write buffers p until Flush.
func (t *Table) Write(p []byte) (int, error) { return t.buf.Write(p) }

// Flush lays out and writes the text written since the last Flush.
func (t *Table) Flush() error {
	data := slices.Clone(t.buf.Bytes())
	t.buf.Reset()
	natural := t.tabwrite(data)
	if t.width <= 0 || maxWidth(natural) <= t.width {
		_, err := t.w.Write(natural)
		return err
	}
	var out bytes.Buffer
	var block []string
	endBlock := func() {
		if len(block) == 0 {
			return
		}
		text := []byte(strings.Join(block, "\n") + "\n")
		if nat := t.tabwrite(text); maxWidth(nat) <= t.width {
			out.Write(nat)
		} else {
			out.WriteString(t.fit(block))
		}
		block = nil
	}
	s := string(data)
	partial := !strings.HasSuffix(s, "\n")
	for line := range strings.Lines(s) {
		line = strings.TrimSuffix(line, "\n")
		if !strings.Contains(line, "\t") {
			endBlock()
			out.WriteString(line + "\n")
			continue
		}
		block = append(block, line)
	}
	endBlock()
	b := out.Bytes()
	if partial {
		b = bytes.TrimSuffix(b, []byte("\n"))
	}
	_, err := t.w.Write(b)
	return err
}

// tabwrite returns data as text/tabwriter lays it out, its columns
// aligned by the width their cells take on a terminal (tabwriteWide).
func (t *Table) tabwrite(data []byte) []byte {
	return tabwriteWide(data, func(data []byte) []byte {
		var b bytes.Buffer
		tw := tabwriter.NewWriter(&b, 0, 0, padding, ' ', t.flags)
		tw.Write(data)
		tw.Flush()
		return b.Bytes()
	})
}

// maxWidth returns the width of text's widest line.
func maxWidth(text []byte) int {
	m := 0
	for line := range bytes.Lines(text) {
		m = max(m, cellWidth(string(bytes.TrimSuffix(line, []byte("\n")))))
	}
	return m
}

// layout is a table being fitted.
type layout struct {
	width  int
	right  bool
	header [][]string // per column, the header's lines, bottom-aligned
	body   [][]string // per row, its cells
	above  []string   // per row, its label moved to a line of its own
	below  [][]string // per row, its long cells as "header: cell" lines
	trail  []string   // per row, trailing prose, when a row has some
	pad    int        // blanks before (right-aligned) or after each cell
	// headTrail is the header's trailing prose.
	headTrail string
	cols      []int // the columns shown, in order
	keys      int   // how many of cols lead every group
}

// fit lays out the lines of one table (each with a '\t') to t.width.
func (t *Table) fit(lines []string) string {
	long := max(t.width/4, 20)
	rows := make([][]string, len(lines))
	trails := make([]string, len(lines))
	prose := false
	for i, l := range lines {
		cells := strings.Split(l, "\t")
		rows[i], trails[i] = cells[:len(cells)-1], cells[len(cells)-1]
		prose = prose || runeLen(trails[i]) > long
	}
	n := 0
	for i := range rows {
		if !prose && trails[i] != "" {
			rows[i] = append(rows[i], trails[i]) // a short last cell: a column
		}
		n = max(n, len(rows[i]))
	}
	for i := range rows {
		for len(rows[i]) < n {
			rows[i] = append(rows[i], "")
		}
	}
	L := &layout{width: t.width, right: t.flags&tabwriter.AlignRight != 0, pad: padding}
	for _, h := range rows[0] {
		L.header = append(L.header, []string{h})
	}
	L.body = rows[1:]
	L.above = make([]string, len(L.body))
	L.below = make([][]string, len(L.body))
	if prose {
		L.headTrail, L.trail = trails[0], trails[1:]
	}
	for j := range n {
		L.cols = append(L.cols, j)
	}
	L.keys = 1
	if L.fits() {
		return L.render()
	}

	// 1. Long cells leave their rows.
	movedFrom := make([][]int, len(L.body)) // per row, the columns that left it
	for i, row := range L.body {
		for j, c := range row {
			if runeLen(c) <= long {
				continue
			}
			if j == 0 {
				L.above[i] = c
			} else if h := strings.TrimSpace(rows[0][j]); h != "" {
				L.below[i] = append(L.below[i], h+": "+strings.TrimSpace(c))
			} else {
				L.below[i] = append(L.below[i], strings.TrimSpace(c))
			}
			row[j] = ""
			movedFrom[i] = append(movedFrom[i], j)
		}
	}
	// A column all of whose cells left their rows holds nothing but its
	// header, which stands over blanks (its figures are on the lines
	// below, headed by it): it is dropped.
	L.cols = slices.DeleteFunc(L.cols, func(j int) bool {
		moved := false
		for i, row := range L.body {
			if row[j] != "" {
				return false
			}
			moved = moved || slices.Contains(movedFrom[i], j)
		}
		return moved && j > 0
	})
	if L.fits() {
		return L.render()
	}

	// 2. Header cells break onto two lines, those that gain most first.
	L.breakHeaders(rows[0])
	if L.fits() {
		return L.render()
	}

	// 2b. Right-aligned figures keep apart with one blank: when that
	// makes the table fit, it stays whole.
	if L.right {
		one := *L
		one.pad = 1
		one.header = make([][]string, len(L.header))
		for j, h := range rows[0] {
			one.header[j] = []string{h}
		}
		one.breakHeaders(rows[0])
		if one.fits() {
			// One blank does not part the words of two headers: a header
			// of several words goes on two lines when that is no wider.
			for _, j := range one.cols {
				if len(one.header[j]) == 1 && strings.Contains(strings.TrimSpace(rows[0][j]), " ") {
					if lines := breakHeader(rows[0][j], one.dataWidth(j), 2); widest(lines) <= one.colWidth(j) {
						one.header[j] = lines
					}
				}
			}
			return one.render()
		}
	}

	// 3. Column groups, each led by the label column.
	L.cols = slices.DeleteFunc(L.cols, func(j int) bool { return L.colWidth(j) == 0 })
	if len(L.cols) > 2 && L.dataWidth(L.cols[0]) <= 3 {
		L.keys = 2
	}
	groups := L.groups(rows[0])
	// A row whose key cell left it for a line below (step 1) is blank in
	// the key columns, and that line is in the first group only: when the
	// groups are several, every group numbers its rows (#1, #2, …) so that
	// a row of a later group is found in the first.
	if len(groups) > 1 && L.movedKey(movedFrom) {
		num := len(L.header)
		L.header = append(L.header, []string{""})
		rows[0] = append(rows[0], "")
		for i := range L.body {
			L.body[i] = append(L.body[i], "#"+strconv.Itoa(i+1))
		}
		L.cols = append([]int{num}, L.cols...)
		L.keys++
		groups = L.groups(rows[0])
	}
	keys := L.cols[:L.keys]
	var b strings.Builder
	for g, cols := range groups {
		if g > 0 {
			b.WriteString("\n")
		}
		G := *L
		G.cols = append(slices.Clone(keys), cols...)
		// Each group's headers break only as far as it needs.
		G.header = make([][]string, len(L.header))
		for j, h := range rows[0] {
			G.header[j] = []string{h}
		}
		G.breakHeaders(rows[0])
		if g > 0 {
			G.below = make([][]string, len(L.body)) // shown once, in the first group
			G.trail = nil
		}
		b.WriteString(G.render())
	}
	return b.String()
}

// groups splits the columns shown after the key columns into as few
// groups as fit the width, as even in width as that many can be. A column
// with an empty header belongs to the column before it (such as a change
// "(-22.1%)" after its "before → after" cell): the two stay in one group.
func (L *layout) groups(header []string) [][]int {
	keyWidth := 0
	for _, j := range L.cols[:L.keys] {
		keyWidth += L.colWidth(j) + padding
	}
	// units: runs of columns that stay together.
	var units [][]int
	for _, j := range L.cols[L.keys:] {
		if len(units) > 0 && strings.TrimSpace(header[j]) == "" {
			units[len(units)-1] = append(units[len(units)-1], j)
			continue
		}
		units = append(units, []int{j})
	}
	// pack fills groups of at most lim columns in order.
	pack := func(lim int) [][]int {
		var groups [][]int
		var cur []int
		w := keyWidth
		for _, u := range units {
			uw := 0
			for _, j := range u {
				uw += L.colWidth(j) + padding
			}
			if len(cur) > 0 && w+uw > lim {
				groups = append(groups, cur)
				cur, w = nil, keyWidth
			}
			cur = append(cur, u...)
			w += uw
		}
		return append(groups, cur)
	}
	groups := pack(L.width)
	for lim := keyWidth + 1; lim < L.width; lim++ {
		if g := pack(lim); len(g) == len(groups) {
			return g
		}
	}
	return groups
}

// movedKey reports whether a row's cell in a key column other than the
// first left it (step 1) for a line below the row, which only the first
// group shows; movedFrom holds per row the columns that left it. (A first
// cell leaves for a line above the row, which every group shows.)
func (L *layout) movedKey(movedFrom [][]int) bool {
	for _, js := range movedFrom {
		for _, j := range js {
			if j != 0 && slices.Contains(L.cols[:L.keys], j) {
				return true
			}
		}
	}
	return false
}

// breakHeaders breaks the header cells of the columns shown onto two
// lines, the column that gains most first, until the table fits or no
// column gains; header holds the cells as written.
func (L *layout) breakHeaders(header []string) {
	for !L.fits() {
		best, gain := -1, 0
		var bestLines []string
		for _, j := range L.cols {
			lines := breakHeader(header[j], L.dataWidth(j), 2)
			if g := L.colWidth(j) - max(L.dataWidth(j), widest(lines)); g > gain {
				best, gain, bestLines = j, g, lines
			}
		}
		if best < 0 {
			return
		}
		L.header[best] = bestLines
	}
}

// dataWidth returns the width of column j's widest body cell.
func (L *layout) dataWidth(j int) int {
	w := 0
	for _, row := range L.body {
		w = max(w, runeLen(row[j]))
	}
	return w
}

// colWidth returns column j's width without padding: its widest cell or
// header line.
func (L *layout) colWidth(j int) int { return max(L.dataWidth(j), widest(L.header[j])) }

// fits reports whether every line of the rendered layout fits.
func (L *layout) fits() bool { return maxWidth([]byte(L.render())) <= L.width }

// render lays the table out.
func (L *layout) render() string {
	widths := make([]int, len(L.cols))
	for k, j := range L.cols {
		widths[k] = L.colWidth(j) + L.pad
	}
	var b strings.Builder
	line := func(cells []string) string {
		var l strings.Builder
		for k, c := range cells {
			pad := strings.Repeat(" ", max(widths[k]-runeLen(c), 0))
			if L.right {
				l.WriteString(pad + c)
			} else {
				l.WriteString(c + pad)
			}
		}
		return l.String()
	}
	nh := 0
	for _, j := range L.cols {
		nh = max(nh, len(L.header[j]))
	}
	for k := range nh {
		cells := make([]string, len(L.cols))
		for c, j := range L.cols {
			if i := k - (nh - len(L.header[j])); i >= 0 {
				cells[c] = L.header[j][i]
			}
		}
		l := line(cells)
		if k == nh-1 && L.headTrail != "" {
			l = wrapAt(l, L.headTrail, L.width)
		}
		b.WriteString(strings.TrimRight(l, " ") + "\n")
	}
	indent := ""
	if len(widths) > 0 {
		indent = strings.Repeat(" ", widths[0])
	}
	for i, row := range L.body {
		if L.above[i] != "" {
			lead := ""
			if L.right {
				lead = strings.Repeat(" ", padding)
			}
			b.WriteString(lead + L.above[i] + "\n")
		}
		cells := make([]string, len(L.cols))
		for c, j := range L.cols {
			cells[c] = row[j]
		}
		l := line(cells)
		if L.trail != nil && L.trail[i] != "" {
			l = wrapAt(l, L.trail[i], L.width)
		}
		b.WriteString(strings.TrimRight(l, " ") + "\n")
		for _, x := range L.below[i] {
			b.WriteString(Wrap(indent+x+"\n", L.width))
		}
	}
	return b.String()
}

// wrapAt returns head followed by text, text broken at spaces to fit
// width under its own start (or, when less than 40 columns are left
// there, four columns in from head's first non-blank).
func wrapAt(head, text string, width int) string {
	start := runeLen(head)
	if start+runeLen(text) <= width {
		return head + text
	}
	indent := start
	if width-start < 40 {
		indent = runeLen(head) - runeLen(strings.TrimLeft(head, " ")) + 4
	}
	var b strings.Builder
	b.WriteString(head)
	col := start
	first := true
	for _, word := range strings.Fields(text) {
		switch {
		case first:
			b.WriteString(word)
			col += runeLen(word)
			first = false
		case col+1+runeLen(word) <= width:
			b.WriteString(" " + word)
			col += 1 + runeLen(word)
		default:
			b.WriteString("\n" + strings.Repeat(" ", indent) + word)
			col = indent + runeLen(word)
		}
	}
	return b.String()
}

// breakHeader breaks a header cell at spaces and after '/' onto at most
// most lines, each as narrow as it can be but never narrower than min
// (the column's widest cell); leading blanks stay on every line.
func breakHeader(h string, min, most int) []string {
	text := strings.TrimLeft(h, " ")
	lead := h[:len(h)-len(text)]
	type token struct {
		s    string
		glue bool // joined to the token before without a space
	}
	var toks []token
	for _, word := range strings.Fields(text) {
		for i, part := range splitAfterSlash(word) {
			toks = append(toks, token{part, i > 0})
		}
	}
	if len(toks) < 2 {
		return []string{h}
	}
	greedy := func(w int) []string {
		var lines []string
		cur := ""
		for i, tk := range toks {
			next := cur + tk.s
			if i > 0 && !tk.glue {
				next = cur + " " + tk.s
			}
			if i > 0 && runeLen(lead+next) > w {
				lines = append(lines, lead+cur)
				next = tk.s
			}
			cur = next
		}
		return append(lines, lead+cur)
	}
	for w := min; w < runeLen(h); w++ {
		if lines := greedy(w); len(lines) <= most && widest(lines) <= max(w, min) {
			return lines
		}
	}
	return []string{h}
}

// splitAfterSlash splits "attempts/req" into "attempts/" and "req".
func splitAfterSlash(word string) []string {
	var parts []string
	for {
		i := strings.IndexByte(word, '/')
		if i < 0 || i == len(word)-1 {
			return append(parts, word)
		}
		parts = append(parts, word[:i+1])
		word = word[i+1:]
	}
}

func widest(lines []string) int {
	w := 0
	for _, l := range lines {
		w = max(w, runeLen(l))
	}
	return w
}

// runeLen returns the columns s takes on a terminal (cellWidth).
func runeLen(s string) int { return cellWidth(s) }
