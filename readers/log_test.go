package readers

import (
	"math"
	"reflect"
	"testing"
)

// TestLogColumns: a Log returns what was added, request by request, also
// when a measurement first appears part-way (earlier requests read NaN),
// and keeps the code only of requests that are not OK.
func TestLogColumns(t *testing.T) {
	nan := math.NaN()
	in := []Request{
		{Line: 2, Status: OK, Code: "200", Latency: 1, TTFT: nan, InputTokens: nan, OutputTokens: nan},
		{Line: 3, Status: Failed, Code: "503", Latency: nan, TTFT: nan, InputTokens: nan, OutputTokens: nan},
		{Line: 5, Status: OK, Latency: 2, TTFT: 0.5, InputTokens: nan, OutputTokens: 40},
		{Line: 6, Status: RateLimited, Code: "429", Latency: nan, TTFT: nan, InputTokens: 7, OutputTokens: nan},
	}
	var l Log
	for _, r := range in {
		l.Add(r)
	}
	if l.Len() != len(in) {
		t.Fatalf("Len %d", l.Len())
	}
	same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
	for i, want := range in {
		if want.Status == OK {
			want.Code = ""
		}
		got := l.At(i)
		if got.Line != want.Line || got.Status != want.Status || got.Code != want.Code ||
			!same(got.Latency, want.Latency) || !same(got.TTFT, want.TTFT) ||
			!same(got.InputTokens, want.InputTokens) || !same(got.OutputTokens, want.OutputTokens) {
			t.Errorf("At(%d) = %+v, want %+v", i, got, want)
		}
	}
	if got := l.Latencies(); !reflect.DeepEqual(got, []float64{1, 2}) {
		t.Errorf("latencies %v", got)
	}
	if got := l.TTFTs(); !reflect.DeepEqual(got, []float64{0.5}) {
		t.Errorf("ttfts %v", got)
	}
	if got := l.DecodeSpeeds(); !reflect.DeepEqual(got, []float64{40 / 1.5}) {
		t.Errorf("speeds %v", got)
	}
	if l.Streamed() {
		t.Error("streamed although the first OK request has no TTFT")
	}
	c := l.Counts()
	if c.OK != 2 || c.Failed != 1 || c.RateLimited != 1 || c.Codes[Failed]["503"] != 1 || c.Codes[RateLimited]["429"] != 1 {
		t.Errorf("counts %+v", c)
	}
}
