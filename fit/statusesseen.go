package fit

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hedgesim/hedgesim/readers"
)

// maxStatusesSeen is how many status values statusesSeen names.
const maxStatusesSeen = 3

// statusesSeen returns, for the error of a log with too few successes, the
// most common status values of its requests that are not OK with their
// counts (most common first, ties in byte order), and, for a log whose
// status column the user names (format csv or jsonl), how to mark one of
// them as success: `; status values seen: "false" ×280, "500" ×20; if one
// means success, list it with --ok (e.g. --ok false)`. It returns "" when
// no request has a status value (every request was OK or the log has no
// status field).
func statusesSeen(c readers.Counts, format string) string {
	n := map[string]int{}
	for _, codes := range c.Codes {
		for v, k := range codes {
			n[v] += k
		}
	}
	if len(n) == 0 {
		return ""
	}
	vals := make([]string, 0, len(n))
	for v := range n {
		vals = append(vals, v)
	}
	sort.Slice(vals, func(i, j int) bool {
		if n[vals[i]] != n[vals[j]] {
			return n[vals[i]] > n[vals[j]]
		}
		return vals[i] < vals[j]
	})
	shown := vals
	if len(shown) > maxStatusesSeen {
		shown = shown[:maxStatusesSeen]
	}
	parts := make([]string, len(shown))
	for i, v := range shown {
		parts[i] = fmt.Sprintf("%q ×%d", v, n[v])
	}
	more := ""
	if len(vals) > len(shown) {
		more = fmt.Sprintf(" and %d other values", len(vals)-len(shown))
		if len(vals)-len(shown) == 1 {
			more = " and 1 other value"
		}
	}
	seen := fmt.Sprintf("; status values seen: %s%s", strings.Join(parts, ", "), more)
	if format != "csv" && format != "jsonl" {
		return seen
	}
	return seen + fmt.Sprintf("; if one means success, list it with --ok (e.g. --ok %s)", exampleOK(shown[0]))
}

// exampleOK returns v as it would be typed after --ok: v itself, or quoted
// for a shell when it is empty or holds spaces or commas.
func exampleOK(v string) string {
	if v == "" || strings.ContainsAny(v, " ,\t'\"") {
		return fmt.Sprintf("%q", v)
	}
	return v
}
