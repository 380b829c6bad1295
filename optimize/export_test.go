package optimize

// ShareLoopDraws sets whether simulateCandidates runs candidates off the
// lane in batches that share their draws (the default) or each alone,
// and returns the function that restores the default.
func ShareLoopDraws(share bool) (restore func()) {
	loopAlone = !share
	return func() { loopAlone = false }
}

// SetKeptBytes sets the bound on a Growth's kept runs (keptBytes) and
// returns the one before.
func SetKeptBytes(n int64) int64 {
	old := keptBytes
	keptBytes = n
	return old
}
