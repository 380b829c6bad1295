package readers

import (
	"errors"
	"fmt"
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

// TestBooleanErrorFlagRefused: without Columns.OK, a column of booleans
// whose false rows (read as failures) are more than half of the rows is
// refused, naming the column and the counts of true and false and asking
// for --ok; with OK given it is read as told. A boolean success column
// mostly true, or exactly half false, is read without OK.
func TestBooleanErrorFlagRefused(t *testing.T) {
	// 10 rows, 2 of them errors: is_error is false on 8.
	var jsonl, csv strings.Builder
	csv.WriteString("lat,is_error\n")
	for i := 0; i < 10; i++ {
		isErr := i%5 == 0
		fmt.Fprintf(&jsonl, "{\"lat\": %d, \"is_error\": %t}\n", 100+i, isErr)
		fmt.Fprintf(&csv, "%d,%t\n", 100+i, isErr)
	}
	cols := Columns{Latency: "lat", Status: "is_error", Unit: Milliseconds}
	for _, tc := range []struct {
		name string
		read func(Columns) (*Log, error)
	}{
		{"jsonl", func(c Columns) (*Log, error) { return ReadJSONL(strings.NewReader(jsonl.String()), "e.jsonl", c) }},
		{"csv", func(c Columns) (*Log, error) { return ReadCSV(strings.NewReader(csv.String()), "e.csv", c) }},
	} {
		_, err := tc.read(cols)
		var ie *InputError
		if !errors.As(err, &ie) {
			t.Fatalf("%s: got %v, want an *InputError", tc.name, err)
		}
		for _, want := range []string{"e." + tc.name + ": is_error: ", "true ×2, false ×8", "80.0 % of the 10 rows", "--ok false", "--ok true"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: error %q does not say %q", tc.name, err, want)
			}
		}
		told := cols
		told.OK = []string{"false"}
		l, err := tc.read(told)
		if err != nil {
			t.Fatalf("%s with OK false: %v", tc.name, err)
		}
		if c := l.Counts(); c.OK != 8 || c.Failed != 2 {
			t.Errorf("%s with OK false: %d ok, %d failed; want 8 and 2", tc.name, c.OK, c.Failed)
		}
	}

	// A success flag, mostly true, needs no OK; half false is not refused.
	for _, tc := range []struct {
		name, log  string
		ok, failed int
	}{
		{"success flag", "{\"lat\": 1, \"ok\": true}\n{\"lat\": 2, \"ok\": true}\n{\"lat\": 3, \"ok\": false}\n{\"lat\": 4, \"ok\": null}\n", 3, 1},
		{"half false", "{\"lat\": 1, \"ok\": true}\n{\"lat\": 2, \"ok\": false}\n", 1, 1},
		{"not booleans", "{\"lat\": 1, \"ok\": \"timeout\"}\n{\"lat\": 2, \"ok\": false}\n{\"lat\": 3, \"ok\": false}\n{\"lat\": 4, \"ok\": false}\n{\"lat\": 5, \"ok\": true}\n", 1, 4},
	} {
		l, err := ReadJSONL(strings.NewReader(tc.log), "s.jsonl", Columns{Latency: "lat", Status: "ok", Unit: Seconds})
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if c := l.Counts(); c.OK != tc.ok || c.Failed != tc.failed {
			t.Errorf("%s: %d ok, %d failed; want %d and %d", tc.name, c.OK, c.Failed, tc.ok, tc.failed)
		}
	}
}
