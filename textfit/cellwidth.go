package textfit

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

// cellWidth returns the columns s takes on a terminal: 1 for each byte of
// ASCII text, and for other text the monospace width of its grapheme
// clusters as github.com/rivo/uniseg gives it (2 for an East Asian wide or
// fullwidth character and for an emoji, 0 for a combining mark, a
// variation selector or a zero-width joiner, a ZWJ emoji sequence as one
// emoji). A tab is not expanded (displayWidth does that).
func cellWidth(s string) int {
	if isASCII(s) {
		return len(s)
	}
	return uniseg.StringWidth(s)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// proxy stands in, one rune per column, for a cell of other than ASCII
// text while text/tabwriter, which counts every rune as one column, lays
// the cells out (tabwriteWide). It is a Unicode noncharacter, which text
// for interchange does not hold; text that does is laid out as tabwriter
// counts.
const proxy = '\uFDD0'

// tabwriteWide lays data out with write (text/tabwriter's layout), but
// aligned by the columns cells take on a terminal (cellWidth) rather than
// by their runes: each cell of other than ASCII text is written as as many
// proxy runes as it takes columns (at least 1), and put back in the
// output, line by line and in order, where its proxies landed. ASCII text
// is laid out by write alone, unchanged.
func tabwriteWide(data []byte, write func([]byte) []byte) []byte {
	s := string(data)
	if isASCII(s) || strings.ContainsRune(s, proxy) {
		return write(data)
	}
	var proxied strings.Builder
	var cells [][]string // per line, the cells replaced by proxies, in order
	for line := range strings.Lines(s) {
		var replaced []string
		for i, seg := range strings.Split(line, "\t") {
			if i > 0 {
				proxied.WriteByte('\t')
			}
			body, nl := strings.CutSuffix(seg, "\n")
			if !isASCII(body) {
				replaced = append(replaced, body)
				body = strings.Repeat(string(proxy), max(cellWidth(body), 1))
			}
			proxied.WriteString(body)
			if nl {
				proxied.WriteByte('\n')
			}
		}
		cells = append(cells, replaced)
	}
	out := write([]byte(proxied.String()))
	var b bytes.Buffer
	i := 0
	for line := range strings.Lines(string(out)) {
		var replaced []string
		if i < len(cells) {
			replaced = cells[i]
		}
		i++
		for len(line) > 0 {
			at := strings.IndexRune(line, proxy)
			if at < 0 || len(replaced) == 0 {
				b.WriteString(line)
				break
			}
			b.WriteString(line[:at])
			rest := strings.TrimLeft(line[at:], string(proxy))
			b.WriteString(replaced[0])
			replaced, line = replaced[1:], rest
		}
	}
	return b.Bytes()
}
