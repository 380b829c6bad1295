package export

import (
	"strconv"
	"testing"
	"time"
)

// TestSecondsShortest: every whole number of milliseconds up to 100 s is
// written as its decimal (1.118, not 1.1179999999999999), and reads back
// to the same duration.
func TestSecondsShortest(t *testing.T) {
	for ms := range 100_000 {
		s := Seconds(time.Duration(ms) * time.Millisecond)
		b, err := s.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if want := strconv.FormatFloat(float64(ms)/1000, 'g', -1, 64); string(b) != want {
			t.Fatalf("%d ms written %s; want %s", ms, b, want)
		}
		var back Seconds
		if err := back.UnmarshalJSON(b); err != nil || back != s {
			t.Fatalf("%s read back as %v (%v); want %v", b, back.D(), err, s.D())
		}
	}
}

// TestCodeSecondsShortest: the Python and TypeScript number literal of
// every whole number of milliseconds up to 100 s is its decimal, as the
// json document's (1.93, not 1.9300000000000002, which the python export
// wrote for a copy at 1.93 s).
func TestCodeSecondsShortest(t *testing.T) {
	for ms := range 100_000 {
		s := Seconds(time.Duration(ms) * time.Millisecond)
		if got, want := codeSeconds(s), strconv.FormatFloat(float64(ms)/1000, 'g', -1, 64); got != want {
			t.Fatalf("%d ms written %s; want %s", ms, got, want)
		}
	}
}
