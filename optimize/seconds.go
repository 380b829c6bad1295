package optimize

import "time"

// seconds is d in seconds, correctly rounded: the nanoseconds over 1e9.
// time.Duration.Seconds adds the whole and the fractional seconds, which
// can be off by a unit in the last place, so that a delay of 1.86 s would
// be written to a report as 1.8599999999999999.
func seconds(d time.Duration) float64 { return float64(d) / 1e9 }
