package optimize

import "testing"

// TestFateIntervalsBatched: when the class's requests interact and the
// run was paired, the met, rescued and harmed shares get the batched
// interval over their batch shares. With 4 batches 0.88, 0.92, 0.89, 0.91
// around 0.9: 0.9 ± t₀.₉₇₅,₃ · s/√4 = [0.870948, 0.929052]
// (TestCandidateIntervals' closed form); rescued in every batch 0.05 gives
// exactly [0.05, 0.05]. Without per-batch fates (a run not paired) there
// are none.
func TestFateIntervalsBatched(t *testing.T) {
	shares := []float64{0.88, 0.92, 0.89, 0.91}
	flat := []float64{0.05, 0.05, 0.05, 0.05}
	base := &Candidate{Requests: 4000, AnsweredShare: 0.9, batchS: [3][]float64{shares, nil, nil}}
	r, h := 0.05, 0.9
	c := Candidate{Requests: 4000, AnsweredShare: 0.9, MetShare: 0.9, RescuedShare: &r, HarmedShare: &h,
		batchS: [3][]float64{shares, nil, nil}, batchF: [3][]float64{shares, flat, shares}}
	setIntervals(&c, base, CostUSD, 0.95, false)
	if !near(c.MetShareCI95, 0.8709483728424473, 0.9290516271575527) || !near(c.HarmedShareCI95, 0.8709483728424473, 0.9290516271575527) {
		t.Errorf("batched: met %v, harmed %v", c.MetShareCI95, c.HarmedShareCI95)
	}
	if !near(c.RescuedShareCI95, 0.05, 0.05) || c.CIMethod != CIMethodGrid {
		t.Errorf("batched: rescued %v, method %q", c.RescuedShareCI95, c.CIMethod)
	}
	// Harmed in batches 0, 0.02, 0, 0.02 around 0.01: 0.01 ± 3.182446 ·
	// 0.011547/2 = [−0.00837, 0.02837], whose lower bound is clipped to 0.
	spread := []float64{0, 0.02, 0, 0.02}
	h = 0.01
	c = Candidate{Requests: 4000, AnsweredShare: 0.9, MetShare: 0.9, RescuedShare: &r, HarmedShare: &h,
		batchS: [3][]float64{shares, nil, nil}, batchF: [3][]float64{shares, flat, spread}}
	setIntervals(&c, base, CostUSD, 0.95, false)
	if !near(c.HarmedShareCI95, 0, 0.01+3.182446305284263*0.011547005383792516/2) {
		t.Errorf("batched near 0: harmed %v, want its lower bound clipped to 0", c.HarmedShareCI95)
	}
	c = Candidate{Requests: 4000, AnsweredShare: 0.9, MetShare: 0.9, batchS: [3][]float64{shares, nil, nil}}
	setIntervals(&c, base, CostUSD, 0.95, false)
	if c.MetShareCI95 != nil || c.RescuedShareCI95 != nil {
		t.Errorf("no per-batch fates: met %v, rescued %v; want none", c.MetShareCI95, c.RescuedShareCI95)
	}
}
