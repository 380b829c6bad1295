package optimize

// ShareLoopDraws sets whether simulateCandidates runs candidates off the
// lane in batches that share their draws (the default) or each alone,
// and returns the function that restores the default.
func ShareLoopDraws(share bool) (restore func()) {
	loopAlone = !share
	return func() { loopAlone = false }
}

// ShareSameClasses sets whether balancerSweeps takes the measurements of
// a class that is another under other names (the default) or simulates
// every class, and returns the function that restores the default.
func ShareSameClasses(share bool) (restore func()) {
	shareNoClasses = !share
	return func() { shareNoClasses = false }
}
