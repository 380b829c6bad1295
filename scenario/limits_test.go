package scenario

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/readers"
	"github.com/hedgesim/hedgesim/scenarios"
)

// allocated returns the bytes fn allocates (runtime.MemStats.TotalAlloc).
func allocated(fn func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	fn()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// TestHostileNestingRejectedCheaply: files of a few hundred kilobytes that
// nest deeply once exhausted memory (the key-line scanner's paths grow with
// depth², and so does the TOML library's inline-table handling). The
// pre-scan rejects them on the line of the first bracket or key past the
// limit, allocating about the file's size.
func TestHostileNestingRejectedCheaply(t *testing.T) {
	const depth = 100000
	for _, tc := range []struct {
		name string
		src  string
		line int
	}{
		{"arrays", "x = " + strings.Repeat("[", depth) + strings.Repeat("]", depth), 1},
		{"arrays over lines", "name = \"a\"\nx = [\n" + strings.Repeat("[\n", depth) + strings.Repeat("]", depth), 2 + 63},
		{"inline tables", "x = " + strings.Repeat("{a=", depth) + "1" + strings.Repeat("}", depth), 1},
		{"dotted key", strings.Repeat("a.", depth) + "a = 1", 1},
		{"header", "[" + strings.Repeat("a.", depth) + "a]\n", 1},
		{"header then key", "[" + strings.Repeat("a.", 40) + "a]\n\n" + strings.Repeat("b.", 30) + "b = 1\n", 3},
		{"long key", "[\"" + strings.Repeat("k", 100000) + "\"]\nb = 1\n", 1},
		// 120 000 keys under a 63-level header once took the TOML parser
		// 13 s and 680 MB.
		{"many keys", "[" + strings.Repeat("a.", 62) + "a]\n" + strings.Repeat("k = 1\n", 120000), 10001},
	} {
		var err error
		alloc := allocated(func() { _, err = Parse("deep.toml", []byte(tc.src)) })
		var se *Error
		if !errors.As(err, &se) {
			t.Fatalf("%s: got %v, want an *Error", tc.name, err)
		}
		if se.Line != tc.line || !(strings.Contains(se.Msg, "levels deep") || strings.Contains(se.Msg, "longer than") || strings.Contains(se.Msg, "more than 10000 keys")) {
			t.Errorf("%s: got %q (line %d), want line %d and the limit", tc.name, se.Error(), se.Line, tc.line)
		}
		// The file itself is up to 200 KB and Parse gets it as bytes; the
		// scan adds O(MaxDepth). 4 × the file size leaves room for the
		// string copy and the message, and is far below the gigabytes
		// the unbounded scan took.
		if limit := uint64(4*len(tc.src) + 1<<16); alloc > limit {
			t.Errorf("%s: allocated %d bytes rejecting a %d-byte file, want ≤ %d", tc.name, alloc, len(tc.src), limit)
		}
	}
}

// TestPrescanCounts pins what counts as a level at the boundary: exactly
// MaxDepth passes the pre-scan (the parser then judges the content), one
// more fails; brackets inside strings and comments do not count.
func TestPrescanCounts(t *testing.T) {
	lim := DefaultLimits
	lim.MaxDepth = 4
	for _, tc := range []struct {
		src string
		ok  bool
	}{
		{"x = [[[1]]]", true},    // x, three arrays: 4
		{"x = [[[[1]]]]", false}, // 5
		{"a.b.c.d = 1", true},
		{"a.b.c.d.e = 1", false},
		{"[a.b]\nc.d = 1", true},
		{"[a.b]\nc.d.e = 1", false},
		{"[[a.b]]\nc = {d = 1}", false}, // a, b, element, c, inline table, d: 6
		{"[[a]]\nc = 1", true},
		{"x = \"[[[[[[[[\" # [[[[[[[[[\ny = '{{{{{{{{{{'", true},
		{"x = \"\"\"\n[[[[[[[[[[\n\"\"\"\ny = 1", true},
		{"x = [1, [2, [3]], {a = 1}]", true},
		{"x = [1, [2, [3, [4]]]]", false},
	} {
		err := prescan("f", []byte(tc.src), lim)
		if (err == nil) != tc.ok {
			t.Errorf("%q: prescan = %v, want ok %v", tc.src, err, tc.ok)
		}
	}
}

// TestShippedWithinLimits: every shipped scenario passes the pre-scan with
// a depth limit of 8 and a key limit of 65 bytes (the deepest and longest
// shipped keys), fewer than 1000 keys and 1000 array elements, far inside
// the defaults.
func TestShippedWithinLimits(t *testing.T) {
	for _, name := range scenarios.Names() {
		data, err := fs.ReadFile(scenarios.FS, name)
		if err != nil {
			t.Fatal(err)
		}
		if err := prescan(name, data, Limits{MaxBytes: 1 << 20, MaxDepth: 8, MaxKeyBytes: 65, MaxKeys: 1000, MaxArrayElements: 1000}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestArrayElementsCapped: an empirical distribution of 33 M values fits
// in the 64 MiB bound and took 8.6 GB to parse. The pre-scan counts array
// elements (all arrays together) and rejects the file on the line of the
// element past MaxArrayElements, naming the array's key and the cap,
// allocating little more than the file.
func TestArrayElementsCapped(t *testing.T) {
	n := DefaultLimits.MaxArrayElements + 1
	src := "[models.m]\nlatency = { kind = \"empirical\", values = [\n" + strings.Repeat("1,", n-1) + "\n1] }\n"
	var err error
	alloc := allocated(func() { _, err = Parse("huge.toml", []byte(src)) })
	var se *Error
	if !errors.As(err, &se) || se.Line != 4 || se.Key != "models.m.latency.values" || !strings.Contains(se.Msg, "more than 1000000 array elements") {
		t.Fatalf("got %v; want huge.toml:4: models.m.latency.values: more than 1000000 array elements", err)
	}
	if limit := uint64(4*len(src) + 1<<16); alloc > limit {
		t.Errorf("allocated %d bytes rejecting a %d-byte file, want ≤ %d", alloc, len(src), limit)
	}
	// What counts: elements of nested arrays in both, inline tables as one
	// element, no element for a trailing comma or an empty array; commas
	// in strings and comments are not separators.
	lim := DefaultLimits
	lim.MaxArrayElements = 6
	for _, tc := range []struct {
		src string
		ok  bool
		key string
	}{
		{"x = [1, 2, 3, 4, 5, 6]", true, ""},
		{"x = [1, 2, 3, 4, 5, 6, 7]", false, "x"},
		{"x = [1, 2, 3,]\ny = [4, 5, 6,]\nz = []", true, ""},
		{"x = [[1, 2], [3, 4]]", true, ""},      // 2 + 4
		{"x = [[1, 2], [3, 4, 5]]", false, "x"}, // 2 + 5
		{"x = [{a = 1, b = 2}, {c = [1, 2, 3]}]", true, ""},
		{"x = [{a = 1, b = 2}, {c = [1, 2, 3, 4, 5]}]", false, "x.c"},
		{"x = [\"a,b,c,d,e,f,g\", # ,,,,,,,\n 'h,i']", true, ""},
		{"[[classes]]\nt = [1]\n[[classes]]\n[classes.hedge]\nt = [1, 2, 3, 4, 5, 6]", false, "classes[1].hedge.t"},
	} {
		err := prescan("f", []byte(tc.src), lim)
		if (err == nil) != tc.ok || (err != nil && err.Key != tc.key) {
			t.Errorf("%q: prescan = %v, want ok %v, key %q", tc.src, err, tc.ok, tc.key)
		}
	}
}

func TestFileTooLarge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.toml")
	if err := os.WriteFile(path, []byte("name = \"big\"\n"+strings.Repeat("# padding\n", 200)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Limits{MaxBytes: 1000}.Load(path)
	var se *Error
	if !errors.As(err, &se) || !errors.Is(err, readers.ErrTooLarge) || !strings.Contains(se.Msg, MaxBytesEnv) {
		t.Fatalf("got %v, want an *Error wrapping ErrTooLarge that names %s", err, MaxBytesEnv)
	}
	_, err = Limits{MaxBytes: 1000}.Parse("big.toml", make([]byte, 1001))
	if !errors.As(err, &se) || !strings.Contains(se.Msg, "limit of 1000 bytes") {
		t.Fatalf("Parse: got %v, want the size limit", err)
	}
}

// TestLongValuesQuotedBriefly: an error quoting a huge value quotes its
// first 80 bytes, so a message stays readable; lists of short names are
// kept whole.
func TestLongValuesQuotedBriefly(t *testing.T) {
	long := strings.Repeat("p", 100000)
	_, err := Parse("l.toml", []byte("[arrivals]\nrate = 1\nprocess = \""+long+"\"\n"))
	var se *Error
	if !errors.As(err, &se) || len(se.Error()) > 200 || !strings.Contains(se.Msg, strings.Repeat("p", 80)+`…"; allowed: "poisson", "constant", "replay"`) {
		t.Errorf("got %.300v", err)
	}
	for in, want := range map[string]string{
		`unknown "` + strings.Repeat("é", 50) + `" x`: `unknown "` + strings.Repeat("é", 40) + `…" x`,
		`b "` + strings.Repeat(`\u00e9`, 20) + `"`:    `b "` + strings.Repeat(`\u00e9`, 14) + `…"`,
		`a "` + strings.Repeat(`\"`, 50) + `"`:        `a "` + strings.Repeat(`\"`, 40) + `…"`,
		`short "ok" and "` + long[:81] + `"`:          `short "ok" and "` + long[:80] + `…"`,
	} {
		if got := clipQuoted(in); got != want {
			t.Errorf("clipQuoted(%.60q…) = %.120q, want %.120q", in, got, want)
		}
	}
}
