package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/hedgesim/hedgesim/compare"
	"github.com/hedgesim/hedgesim/readers"
)

// cmdCompare sets two JSON reports side by side.
func cmdCompare(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("compare", `compare [--json] A.json B.json

Compares two reports of 'hedgesim run --json' or 'hedgesim optimize --json'
(or report.json of --out), class by class: p50/p95/p99 of the time to a
usable answer, answered share and cost per 1000 requests, A and B and the
change. "~" marks a change that is not significant (p95/p99: the 95%
intervals overlap; answered: two-proportion z test at 5%), as benchstat
does; for a class whose requests interact (a queue, a limit, a pool) in two
run reports of the same requests and seed, p50/p95/p99, answered and cost
are marked by their paired difference over batches of arrivals instead,
listed under the table ("?" when the batches are too short for a percentile;
runs of other requests or seeds, a side whose requests do not interact and
optimize reports are not paired, and a note says why: their answered,
checked and degraded shares, and an optimize pick's met share, are then
judged by the overlap of the reports' own intervals, batched where requests
interact), and the hedged share carries no test. compare simulates nothing
and has no --precision: a report made with --precision has its precision
stated (requests, half-width reached, met), and a p95 left "~" or "?" says
how to decide it (rerun each side with 'run --precision P', P half the
change). A class without requests on a side shows "-" there. Autoscaled
pools' replica costs, which no class's cost counts, are listed per pool. An
optimize report contributes each class's pick. Exit status 0 when both
reports could be read, whatever the differences; 2 when a report is not one
hedgesim writes (a share outside [0, 1], a class named twice, percentiles
out of order, per_batch arrays of the wrong length, a precision asked
outside (0, 1), ...) or the two have no class in common. "-" for one of the
two reads it from standard input.`, stderr)
	asJSON := fs.Bool("json", false, "write the comparison as JSON")
	wide := wideFlag(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usageError{err: fmt.Errorf("takes two reports, A.json and B.json; got %d argument(s)", len(pos))}
	}
	lim, err := inputLimits()
	if err != nil {
		return err
	}
	if pos[0] == "-" && pos[1] == "-" {
		return usageError{err: errors.New(`"-" (standard input) can be one of the two reports, not both`)}
	}
	var reps [2]*compare.Report
	for i, p := range pos {
		var data []byte
		if p == "-" {
			if data, err = readStdin(lim.MaxDataBytes, "a hedgesim report"); err != nil {
				return err
			}
		} else if data, err = readers.ReadFile(p, lim.MaxDataBytes); err != nil {
			// Regular files only, within the size bound: a FIFO or a
			// device would hang or never end.
			return usageError{err: err}
		}
		if reps[i], err = compare.Parse(data); err != nil {
			// One line per problem, each naming the file.
			return usageError{err: fmt.Errorf("%s: %s", p, strings.ReplaceAll(err.Error(), "\n", "\n"+p+": "))}
		}
	}
	c := compare.Compare(reps[0], reps[1])
	if len(c.Rows) == 0 {
		return usageError{err: fmt.Errorf("no class in common: %s has %s; %s has %s", pos[0], classNames(reps[0]), pos[1], classNames(reps[1]))}
	}
	var b bytes.Buffer
	text := b.Bytes()
	if *asJSON {
		err = c.WriteJSON(&b, pos[0], pos[1])
		text = b.Bytes()
	} else {
		text, err = fittedText(stdout, *wide, func(w io.Writer) error { return c.WriteText(w, pos[0], pos[1]) })
	}
	if err != nil {
		return err
	}
	_, err = stdout.Write(text)
	return err
}

// classNames lists a report's classes for a message.
func classNames(r *compare.Report) string {
	names := make([]string, len(r.Classes))
	for i, c := range r.Classes {
		names[i] = fmt.Sprintf("%q", c.Name)
	}
	return strings.Join(names, ", ")
}
