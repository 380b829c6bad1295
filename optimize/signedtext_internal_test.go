package optimize

import "testing"

// TestSignedChangesKeepTheirSign: the changes the text report prints keep
// the sign and digits of a change that rounds to zero (sim.SignedChange):
// replica-hours 4.96 → 4.9599 fell, by 0.002 %, not "-0.0%"; a move of
// +0.004 pt of cost is not "+0.00 pt".
func TestSignedChangesKeepTheirSign(t *testing.T) {
	h := func(x float64) *float64 { return &x }
	got := replicaHoursText(&Candidate{ReplicaHours: h(4.9599)}, &Candidate{ReplicaHours: h(4.96)})
	if want := "replica-hours of the autoscaled pools: 4.96 → 4.96 (-0.002%), not in the added cost"; got != want {
		t.Errorf("replica-hours %q, want %q", got, want)
	}
	if got := replicaHoursText(&Candidate{ReplicaHours: h(5.2)}, &Candidate{ReplicaHours: h(4.96)}); got != "replica-hours of the autoscaled pools: 4.96 → 5.20 (+4.8%), not in the added cost" {
		t.Errorf("replica-hours %q, want +4.8%%", got)
	}
	if got := fpt(0.004); got != "+0.004 pt" {
		t.Errorf("fpt(0.004) = %q, want +0.004 pt", got)
	}
}
