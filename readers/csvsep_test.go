package readers

import (
	"io"
	"strings"
	"testing"
)

func TestCSVSeparator(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want rune
	}{
		{"latency_ms,status\n1;2,ok\n", ','},
		{"latency_ms;status\n12,5;ok\n", ';'},
		{"latency_ms\tstatus\n12\tok\n", '\t'},
		{"latency_ms\n12\n", ','},
		{`"a;b",c` + "\n", ','},
		{`"a,b";c` + "\n", ';'},
		{"a;b\tc;d\n", ';'},
		{"", ','},
	} {
		sep, r := csvSeparator(strings.NewReader(tt.in))
		if sep != tt.want {
			t.Errorf("%q: separator %q; want %q", tt.in, sep, tt.want)
		}
		if all, _ := io.ReadAll(r); string(all) != tt.in {
			t.Errorf("%q: the reader yields %q; want the whole input", tt.in, all)
		}
	}
}

// TestReadCSVSeparators: the same log written with semicolons or tabs
// reads like the comma-separated one; a decimal comma in a
// semicolon-separated file is named as not a number.
func TestReadCSVSeparators(t *testing.T) {
	want, err := ReadCSV(strings.NewReader("latency_ms,status\n12.5,ok\n30,ok\n"), "in", csvCols)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{"latency_ms;status\n12.5;ok\n30;ok\n", "latency_ms\tstatus\n12.5\tok\n30\tok\n"} {
		got, err := ReadCSV(strings.NewReader(in), "in", csvCols)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if g, w := got.Latencies(), want.Latencies(); len(g) != len(w) || g[0] != w[0] || g[1] != w[1] {
			t.Errorf("%q: latencies %v; want %v", in, g, w)
		}
	}
	_, err = ReadCSV(strings.NewReader("latency_ms;status\n12,5;ok\n"), "in", csvCols)
	checkBad(t, badCase{"decimal comma", "", 2, "latency_ms", `"12,5"`}, err)
	_, err = ReadCSV(strings.NewReader("elapsed;code\n12;ok\n"), "in", csvCols)
	checkBad(t, badCase{"semicolon header without the column", "", 1, "latency_ms", "read as semicolon-separated"}, err)
}
