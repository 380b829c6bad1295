package retune

import (
	"fmt"
	"strings"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/hedgesim/hedgesim/export"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/sim"
)

// ExportDiff is the runtime configuration of the scenario's current
// policies against that of the retuned scenario (Scenario: the changed
// classes' new picks), both written by package export in one format, as
// `hedgesim export --format FORMAT` writes them for the two scenario
// files.
type ExportDiff struct {
	// Format is the export format (one of export.Formats).
	Format string `json:"format"`
	// Diff is the unified diff (3 lines of context) from the current
	// configuration to the retuned one; empty when they are the same.
	Diff string `json:"diff"`
	// Current and New are the two configurations, whole.
	Current string `json:"current"`
	New     string `json:"new"`
	// Notes are what the format cannot express for the new picks
	// (export.Note), as `hedgesim export` prints them.
	Notes []string `json:"notes"`
	// Error, when not empty, says why the new picks cannot be written in
	// the format (export.UnmappableError, export.UnfaithfulError); New
	// and Diff are then empty.
	Error string `json:"error,omitempty"`
}

// CurrentExport writes the current policies of cfg in format, as
// `hedgesim export --format FORMAT SCENARIO` does. An error (an unknown
// format, a class the format cannot express) is one a command should
// report before any work.
func CurrentExport(cfg *sim.Config, format string, opt export.Options) ([]byte, error) {
	data, _, err := export.Write(export.ScenarioPolicies(cfg), format, opt)
	return data, err
}

// NewExportDiff exports the current policies of cfg (the scenario src of
// file name) and the policies of the scenario Scenario(name, src,
// traceDir, cfg, rep) writes, in format, and diffs the two. New picks the
// format cannot express are said in the result's Error; an error is a
// current policy that cannot be written or a scenario that cannot be
// rewritten.
func NewExportDiff(name string, src []byte, traceDir string, cfg *sim.Config, rep *Report, format string, opt export.Options) (*ExportDiff, error) {
	cur, err := CurrentExport(cfg, format, opt)
	if err != nil {
		return nil, fmt.Errorf("export of the current policies: %w", err)
	}
	data, err := Scenario(name, src, traceDir, cfg, rep)
	if err != nil {
		return nil, err
	}
	sc, err := scenario.Parse(name, data)
	if err != nil {
		return nil, fmt.Errorf("the retuned scenario: %w", err)
	}
	d := &ExportDiff{Format: format, Current: withNewline(cur)}
	next, notes, err := export.Write(export.ScenarioPolicies(&sc.Config), format, opt)
	if err != nil {
		d.Error = err.Error()
		return d, nil
	}
	d.New = withNewline(next)
	for _, n := range notes {
		d.Notes = append(d.Notes, n.String())
	}
	d.Diff, err = UnifiedDiff(d.Current, d.New, "current/"+format, "retuned/"+format)
	return d, err
}

// UnifiedDiff returns the unified diff (3 lines of context) from a to b,
// headed by the names from and to; "" when a and b are equal. It is
// github.com/pmezard/go-difflib's.
func UnifiedDiff(a, b, from, to string) (string, error) {
	if a == b {
		return "", nil
	}
	return difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: lines(a), B: lines(b),
		FromFile: from, ToFile: to, Context: 3,
	})
}

// lines splits s after each newline; a last line without one gets one.
func lines(s string) []string {
	l := strings.SplitAfter(s, "\n")
	if l[len(l)-1] == "" {
		return l[:len(l)-1]
	}
	l[len(l)-1] += "\n"
	return l
}

func withNewline(b []byte) string {
	if len(b) > 0 && b[len(b)-1] != '\n' {
		b = append(b, '\n')
	}
	return string(b)
}
