package readers

import (
	"bytes"
	"strconv"
)

// duplicateBuckets finds the bucket samples of data (Prometheus text) that
// repeat one before them: the same NAME_bucket, labels and le — two scrapes
// pasted together, say. It returns, by series (its metric without _bucket
// and its labelString without le), the error naming the first repeat's
// line and the line it repeats; choose reports it only when that series
// is the one asked for, as it does a series whose counts fall, which a
// repeat would otherwise read as.
func duplicateBuckets(data []byte, file string) map[string]error {
	var errs map[string]error
	first := map[string]int{}
	for i, l := range bytes.Split(data, []byte("\n")) {
		t := bytes.TrimSpace(l)
		if len(t) == 0 || t[0] == '#' || !bytes.Contains(t, []byte("_bucket")) {
			continue
		}
		m, name, ok := sampleOf(t)
		if !ok {
			continue
		}
		base, cut := bytes.CutSuffix([]byte(name), []byte("_bucket"))
		le, hasLE := leOf(m.GetLabel())
		if !cut || !hasLE {
			continue
		}
		series := string(base) + labelString(labelsOf(m.GetLabel(), false))
		key := series + " le=" + strconv.FormatFloat(le, 'g', -1, 64)
		at, seen := first[key]
		if !seen {
			first[key] = i + 1
			continue
		}
		if _, done := errs[series]; done {
			continue
		}
		if errs == nil {
			errs = map[string]error{}
		}
		errs[series] = inputErr(file, i+1, seriesName(string(base), labelsOf(m.GetLabel(), false)),
			"duplicate sample of bucket le=%s (first at line %d): each bucket of a series may appear once; export one scrape, or tell the series apart by a label", strconv.FormatFloat(le, 'g', -1, 64), at)
	}
	return errs
}
