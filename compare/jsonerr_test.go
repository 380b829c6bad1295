package compare

import (
	"strings"
	"testing"
)

// TestParseErrorsSpeakJSON: a file that is not a report, or a figure of
// the wrong kind, is named in JSON's terms (the field, the kind found and
// the kind wanted), never by the Go types it was read into.
func TestParseErrorsSpeakJSON(t *testing.T) {
	for _, tt := range []struct{ data, want string }{
		{`[]`, "not a hedgesim JSON report: the file holds a JSON array; want a JSON object"},
		{`{"scenario": "s", "classes": [{"class": "c", "latency_s": {"p95": "fast"}}]}`, "classes.latency_s.p95: a JSON string where a number is wanted"},
		{`{"scenario": "s", "classes": 3}`, "classes: a JSON number where an array is wanted"},
		{`{"scenario": `, "invalid JSON"},
	} {
		_, err := Parse([]byte(tt.data))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v; want an error saying %q", tt.data, err, tt.want)
		}
		if err != nil && (strings.Contains(err.Error(), "Go ") || strings.Contains(err.Error(), "struct")) {
			t.Errorf("%s: %v names Go types", tt.data, err)
		}
	}
}
