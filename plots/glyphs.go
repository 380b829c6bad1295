package plots

import (
	"fmt"
	"strings"
	"unicode"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// A PNG is drawn with the plot's own fonts (Liberation), which have no
// glyph for most scripts beyond Latin, Greek and Cyrillic: a class named
// 聊天 would lose its name from every title and leave ": added cost vs
// p95". An SVG keeps the text as text, which the viewer draws with its own
// fonts. So, for a PNG only, fitTitles rewrites each run of runes the
// title's font cannot draw as their \uXXXX escapes — ASCII, which it
// can, and the same for the same name — before the plot is laid out.
//
// gonum centres a title on one line and clips what passes the canvas's
// edges, which cost a long class name its start (the escapes make a name
// six times wider). So fitTitles then wraps a title wider than the canvas
// onto more lines, at spaces, keeping its name — what comes before its
// first ": " — whole on the first line.

// fitTitles rewrites the titles of ps so that their fonts can draw them
// (glyphSafe, when dc is not an SVG canvas) and each line fits dc's width
// less the figures' padding (wrapTitle).
func fitTitles(dc draw.Canvas, ps ...*plot.Plot) {
	width := dc.Max.X - dc.Min.X - 2*vg.Points(6)
	for _, p := range ps {
		if raster(dc) {
			p.Title.Text = glyphSafe(p.Title.Text, p.Title.TextStyle)
		}
		p.Title.Text = wrapTitle(p.Title.Text, p.Title.TextStyle, width)
	}
}

// wrapTitle returns s broken into lines ("\n") no wider than width points
// in sty, greedily at spaces, except that the name — s up to its first
// ": ", if any — is never broken: it starts the first line, whole, even
// when it alone is wider than width. A word wider than width gets a line
// of its own. s fitting on one line comes back unchanged. O(len(s)²) for
// the width measurements.
func wrapTitle(s string, sty text.Style, width vg.Length) string {
	if s == "" || sty.Width(s) <= width {
		return s
	}
	var words []string
	rest := s
	if i := strings.Index(s, ": "); i >= 0 {
		words = append(words, s[:i+1])
		rest = s[i+2:]
	}
	words = append(words, strings.Fields(rest)...)
	var lines []string
	line := ""
	for _, w := range words {
		switch {
		case line == "":
			line = w
		case sty.Width(line+" "+w) <= width:
			line += " " + w
		default:
			lines = append(lines, line)
			line = w
		}
	}
	return strings.Join(append(lines, line), "\n")
}

// raster reports whether dc draws pixels (a PNG), not text (an SVG).
func raster(dc draw.Canvas) bool {
	_, svg := dc.Canvas.(*vgsvg.Canvas)
	return !svg && dc.Canvas != nil
}

// glyphSafe returns s with each rune that sty's font has no glyph for
// replaced by its escape: \uXXXX, or \UXXXXXXXX beyond the Basic
// Multilingual Plane. Spaces and control runes stay. O(len(s)) glyph
// look-ups.
func glyphSafe(s string, sty text.Style) string {
	cache := font.DefaultCache
	if h, ok := sty.Handler.(text.Plain); ok && h.Fonts != nil {
		cache = h.Fonts
	} else if h, ok := sty.Handler.(*text.Plain); ok && h != nil && h.Fonts != nil {
		cache = h.Fonts
	}
	face := cache.Lookup(sty.Font, sty.Font.Size)
	if face.Face == nil {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			b.WriteRune(r)
			continue
		}
		if g, err := face.Face.GlyphIndex(nil, r); err == nil && g != 0 {
			b.WriteRune(r)
			continue
		}
		if r > 0xffff {
			fmt.Fprintf(&b, `\U%08x`, r)
		} else {
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}
