package optimize

// AnsweredShares returns the shares of requests answered by b (no
// hedging) and by c, as the text report's summary prints them:
// percentages with one decimal, or up to three when one would make two
// different shares look equal ("99.995%" → "100.000%", not "100.0%" →
// "100.0%"), and the change in percentage points with as many decimals
// ("(+0.005 pt)"; "" when the shares are equal).
//
// A candidate without requests (a class no request fell in) has no
// share: "-", and no change. c nil (no after-figure: the configured
// policy rolls out, which the sweep did not simulate) gives b's share
// with one decimal, "-" and "".
func AnsweredShares(b, c *Candidate) (before, after, change string) {
	before, after = "-", "-"
	switch {
	case b.Requests > 0 && c != nil && c.Requests > 0:
		before, after = fshares(b.AnsweredShare, c.AnsweredShare)
		return before, after, answeredChange(b.AnsweredShare, c.AnsweredShare)
	case b.Requests > 0:
		before, _ = fshares(b.AnsweredShare, b.AnsweredShare)
	case c != nil && c.Requests > 0:
		after, _ = fshares(c.AnsweredShare, c.AnsweredShare)
	}
	return before, after, ""
}
