package sim

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/hedgesim/hedgesim/textfit"
)

// writeRetries writes the retry table of rows, when a class retries: per
// class, the requests re-run at least once and the re-runs (Class.Retry),
// the calls retried inside attempts (Class.AttemptRetry), the retries a
// budget denied, and the calls per request, retries included.
func writeRetries(w io.Writer, rows []ClassReport) {
	has := false
	for i := range rows {
		has = has || rows[i].Retries != nil
	}
	if !has {
		return
	}
	tw := textfit.NewTable(w, tabwriter.AlignRight)
	fmt.Fprintln(tw, "retries\trequests re-run\tre-runs\tcalls retried\tdenied\tcalls/req\t")
	for _, c := range rows {
		if c.Retries == nil {
			fmt.Fprintf(tw, "%s\t-\t-\t-\t-\t%.3f\t\n", c.Class, c.AttemptsPerRequest)
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%.3f\t\n", c.Class, c.Retries.RequestsRerun, c.Retries.Reruns, c.Retries.Calls, c.Retries.Denied, c.AttemptsPerRequest)
	}
	tw.Flush()
	fmt.Fprintln(w)
}
