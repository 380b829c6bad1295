package fit

// PooledCells returns, for each of the cells whose expected counts are e,
// the index of the pooled cell PooledChiSquare adds it to, and the number
// of pooled cells: adjacent cells pooled from the left until each expects
// ≥ 5, a short last cell joining the one before (the only one when none
// expects 5). It lets a caller gather other counts — a simulation's,
// batch by batch — on the cells of the same test. With no cell at all it
// returns (nil, 0).
func PooledCells(e []float64) ([]int, int) {
	if len(e) == 0 {
		return nil, 0
	}
	cell := make([]int, len(e))
	k, ae, open := 0, 0.0, false
	for i := range e {
		cell[i] = k
		ae += e[i]
		open = true
		if ae >= minExpected {
			k, ae, open = k+1, 0, false
		}
	}
	if !open {
		return cell, k
	}
	if k == 0 {
		return cell, 1
	}
	for i := len(cell) - 1; i >= 0 && cell[i] == k; i-- {
		cell[i] = k - 1
	}
	return cell, k
}
