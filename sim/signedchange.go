package sim

import (
	"fmt"
	"strconv"
	"strings"
)

// SignedChange formats the change x (in percent or percentage points; the
// caller adds the unit) with its sign and dec decimals, or with up to
// three more when dec would print a change that is not zero as zero, so
// that a fall never reads as a rise nor a rise as no change: at one
// decimal −0.03 is "-0.03" and 0.0004 is "+0.0004"; 0 and −0 are "+0.0"
// (zero has no sign); a change that still prints as zero at dec+3
// decimals keeps its sign at dec ("-0.0"). NaN is "+NaN". The change and
// added-cost columns of run, optimize, compare and the HTML report print
// with it.
func SignedChange(x float64, dec int) string {
	if x == 0 {
		return fmt.Sprintf("%+.*f", dec, 0.0) // also for −0
	}
	k := dec
	for k < dec+3 && printsZero(x, k) {
		k++
	}
	if printsZero(x, k) {
		k = dec
	}
	return fmt.Sprintf("%+.*f", k, x)
}

// printsZero says whether x printed with k decimals shows only zeros.
func printsZero(x float64, k int) bool {
	return strings.Trim(strconv.FormatFloat(x, 'f', k, 64), "-0.") == ""
}
