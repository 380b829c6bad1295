package readers

import (
	"strings"
	"testing"
)

// TestBooleanStatus: a boolean success field ("ok": true) counts true as
// success and false as a failure by default, in JSON Lines and in CSV; a
// field whose booleans mean the opposite is told with Columns.OK.
func TestBooleanStatus(t *testing.T) {
	jsonl := `{"lat": 1.5, "ok": true}
{"lat": 0.5, "ok": false}
{"lat": 2.0, "ok": true}
`
	csv := "lat,ok\n1.5,True\n0.5,false\n2.0,TRUE\n"
	cols := Columns{Latency: "lat", Status: "ok", Unit: Seconds}
	for _, tc := range []struct {
		name string
		read func() (*Log, error)
	}{
		{"jsonl", func() (*Log, error) { return ReadJSONL(strings.NewReader(jsonl), "l.jsonl", cols) }},
		{"csv", func() (*Log, error) { return ReadCSV(strings.NewReader(csv), "l.csv", cols) }},
	} {
		l, err := tc.read()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		c := l.Counts()
		if c.OK != 2 || c.Failed != 1 {
			t.Errorf("%s: %d ok, %d failed; want 2 ok (true) and 1 failed (false)", tc.name, c.OK, c.Failed)
		}
		if got := l.Latencies(); len(got) != 2 || got[0] != 1.5 || got[1] != 2.0 {
			t.Errorf("%s: fitted latencies %v; want the true rows' [1.5 2]", tc.name, got)
		}
	}
	inv := cols
	inv.OK = []string{"false"}
	l, err := ReadJSONL(strings.NewReader(jsonl), "l.jsonl", inv)
	if err != nil {
		t.Fatal(err)
	}
	if c := l.Counts(); c.OK != 1 || c.Failed != 2 {
		t.Errorf("--ok false: %d ok, %d failed; want 1 ok and 2 failed", c.OK, c.Failed)
	}
}
