package scenario

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// unprintable are characters no name may hold: every C0 control, DEL, every
// C1 control, the line and paragraph separators, a space other than
// U+0020, the byte order mark, a bidirectional override and a zero-width
// joiner.
func unprintable() []rune {
	var rs []rune
	for r := rune(0); r < 0x20; r++ {
		rs = append(rs, r)
	}
	for r := rune(0x7f); r < 0xa0; r++ {
		rs = append(rs, r)
	}
	return append(rs, 0x2028, 0x2029, 0xa0, 0x3000, 0xfeff, 0x202e, 0x2066, 0x200d)
}

// nameSite is a place a scenario names something, as a file with NAME
// where the name goes, and the key and line an error about it names.
var nameSites = []struct {
	what, toml, key string
	line            int
}{
	{"scenario name", `name = NAME
[arrivals]
rate = 1
[models.m]
latency = { kind = "constant", value = 1 }
[[classes]]
name = "c"
`, "name", 1},
	{"class name", strings.Replace(minimal, `name = "c"`, `name = NAME`, 1), "classes[0].name", 7},
	{"model name", `[arrivals]
rate = 1
[models.NAME]
latency = { kind = "constant", value = 1 }
[[classes]]
name = "c"
`, "models.", 3},
	{"provider name", minimal[:strings.Index(minimal, "[[classes]]")] + `provider = NAME
[[classes]]
name = "c"
`, "models.m.provider", 6},
	{"step name", pipelineHead + `[[classes.steps]]
name = NAME
`, "classes[0].steps[0].name", 10},
	{"provider name", minimal + `[providers.m]
[providers.NAME]
concurrency = 2
`, "providers.", 9},
}

// TestNamesRefuseUnprintable: a name holding a control character, a line
// separator or an invisible format character is refused at load time with
// the file, line, key, the name (escaped) and the character's code point.
func TestNamesRefuseUnprintable(t *testing.T) {
	for _, site := range nameSites {
		for _, r := range unprintable() {
			name := fmt.Sprintf(`"a\U%08X[2J"`, r)
			src := strings.ReplaceAll(site.toml, "NAME", name)
			_, err := Parse("hostile.toml", []byte(src))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("%s with %U: %v; want an *Error", site.what, r, err)
			}
			code := fmt.Sprintf("%U", r)
			if e.Line != site.line || !strings.HasPrefix(e.Key, site.key) || !strings.Contains(e.Msg, site.what) || !strings.Contains(e.Msg, code) {
				t.Errorf("%s with %U: %v; want line %d, key %s…, a message naming the %s and %s", site.what, r, err, site.line, site.key, site.what, code)
			}
			if strings.ContainsRune(err.Error(), r) {
				t.Errorf("%s with %U: the message holds the character raw: %q", site.what, r, err.Error())
			}
		}
	}
}

// TestNamesAcceptPrintable: names that are awkward in some output format
// but printable (quotes, backslashes, backticks, ${}, */, -->, </script>,
// YAML indicators, letters of other scripts) are names like any other.
func TestNamesAcceptPrintable(t *testing.T) {
	for i, name := range []string{
		`"quoted" 'single' \ back\\slash`, "`tick` ${HOME} $(id)", "*/ /* -->", "</script><script>alert(1)</script>",
		"# x: {a: [b]} & *anchor !tag |", "modèle 模型 🚀", "a b",
	} {
		for _, site := range nameSites {
			src := strings.ReplaceAll(site.toml, "NAME", fmt.Sprintf("%q", name))
			if _, err := Parse("printable.toml", []byte(src)); err != nil {
				t.Errorf("%d: %s %q: %v", i, site.what, name, err)
			}
		}
	}
}

// TestNameFromFileName: without a name key the file name is the scenario's
// name, so it must do as one.
func TestNameFromFileName(t *testing.T) {
	_, err := Parse("bad\x1b]0;x\a.toml", []byte(minimal))
	var e *Error
	if !errors.As(err, &e) || !strings.Contains(e.Msg, "U+001B") || !strings.Contains(e.Msg, `name = "…"`) {
		t.Errorf("got %v; want an error naming U+001B and asking for a name key", err)
	}
}

// TestErrorMessagesEscapeNames: a message that lists names (the defined
// models) shows a refused name escaped, and so is a file name.
func TestErrorMessagesEscapeNames(t *testing.T) {
	src := `[arrivals]
rate = 1
[models."evil\u001b]0;title\u0007"]
latency = { kind = "constant", value = 1 }
[models.m]
latency = { kind = "constant", value = 1 }
[[classes]]
name = "c"
hedge = { primary = "nope" }
`
	_, err := Parse("dir\x1b[2J/x.toml", []byte(src))
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	if strings.ContainsAny(msg, "\x1b\a") || !strings.Contains(msg, `evil\x1b]0;title\a`) || !strings.Contains(msg, `dir\x1b[2J/x.toml:9`) {
		t.Errorf("got %q; want every name and the file name escaped", msg)
	}
}
