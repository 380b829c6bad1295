package sim

import "time"

// The cold starts given up (ColdStart.GiveUp): a replica of a pool
// without autoscaling whose last attempt left during its cold start has
// that start given up — at once under GiveUpOnCancel, once nothing has
// waited for it for the keep-warm time under GiveUpAtScaleToZero (when
// that comes before its end), never under GiveUpNever. A replica holds one
// start at a time: warmUp counts the last one as it begins the next
// (countGivenUp), and the report the last one of each replica when it is
// given up — after the run's end too: nothing can then wait for it
// (givenUp). Autoscaled pools count
// the starts their scaler gives up instead (scaler.go).

// gaveUpAt returns when replica rp's last cold start was given up, and
// whether it was: its last attempt left at idleSince, before the start's
// end at warmAt.
func (rp *replica) gaveUpAt(cs *ColdStart) (time.Duration, bool) {
	if rp.idleSince >= rp.warmAt {
		return 0, false // ended with attempts waiting, or no start yet
	}
	switch cs.GiveUp {
	case GiveUpOnCancel:
		return rp.idleSince, true
	case GiveUpAtScaleToZero:
		if at := rp.idleSince + cs.KeepWarm; at < rp.warmAt {
			return at, true
		}
	}
	return 0, false
}

// countGivenUp counts replica rp's last cold start if it was given up, as
// a new one begins.
func (rp *replica) countGivenUp(cs *ColdStart) {
	if _, ok := rp.gaveUpAt(cs); ok {
		rp.givenUp++
	}
}

// givenUpAll returns the cold starts of replica rp given up, its last
// one included, once the run is over.
func (rp *replica) givenUpAll(cs *ColdStart) int64 {
	n := rp.givenUp
	if _, ok := rp.gaveUpAt(cs); ok {
		n++
	}
	return n
}
