package plots

import (
	"fmt"
	"strings"
	"unicode"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// A PNG is drawn with the plot's own fonts (Liberation), which have no
// glyph for most scripts beyond Latin, Greek and Cyrillic: a class named
// 聊天 would lose its name from every title and leave ": added cost vs
// p95". An SVG keeps the text as text, which the viewer draws with its own
// fonts. So, for a PNG only, rasterTitles rewrites each run of runes the
// title's font cannot draw as their \uXXXX escapes — ASCII, which it
// can, and the same for the same name — before the plot is laid out.

// rasterTitles rewrites, when dc is not an SVG canvas, the titles of ps
// so that their fonts can draw them (glyphSafe).
func rasterTitles(dc draw.Canvas, ps ...*plot.Plot) {
	if !raster(dc) {
		return
	}
	for _, p := range ps {
		p.Title.Text = glyphSafe(p.Title.Text, p.Title.TextStyle)
	}
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
