package plots

import (
	"math/rand/v2"
	"testing"
)

// stepAt is the value of the post-step curve pts at x (pts[0].X ≤ x ≤ the
// last X): the Y of the last point at or before x.
func stepAt(pts []XY, x float64) float64 {
	y := pts[0].Y
	for _, p := range pts {
		if p.X > x {
			break
		}
		y = p.Y
	}
	return y
}

// TestStepPiecesDrawTheSameSteps: the pieces a replicas curve is stroked
// in have at most n+1 points, each starts where the one before ends, on a
// level stretch, and together they hold the curve's value at every time,
// for curves from 1 point to several pieces long.
func TestStepPiecesDrawTheSameSteps(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int{1, 2, 7, 8, 9, 15, 16, 100, 841} {
		for _, n := range []int{2, 3, 8, 32} {
			var pts []XY
			x := 0.0
			for range size {
				pts = append(pts, XY{X: x, Y: float64(rng.IntN(4))})
				x += 0.5 + rng.Float64()
			}
			pieces := stepPieces(pts, n)
			total := 0
			for i, pc := range pieces {
				if len(pc) > n+1 || len(pc) == 0 {
					t.Fatalf("size %d, n %d: piece %d has %d points; want 1 to %d", size, n, i, len(pc), n+1)
				}
				total += len(pc)
				if i > 0 {
					prev := pieces[i-1]
					end := prev[len(prev)-1]
					if pc[0] != end || prev[len(prev)-2].Y != end.Y {
						t.Fatalf("size %d, n %d: piece %d starts at %v after one ending at %v (from %v): not a level join", size, n, i, pc[0], end, prev[len(prev)-2])
					}
				}
			}
			// Each piece but the first adds one joining point.
			if want := size + 2*(len(pieces)-1); total != want {
				t.Errorf("size %d, n %d: %d points in %d pieces; want %d", size, n, total, len(pieces), want)
			}
			for _, pc := range pieces {
				for k := 0; k+1 < len(pc); k++ {
					for _, f := range []float64{0, 0.25, 0.5, 0.99} {
						x := pc[k].X + f*(pc[k+1].X-pc[k].X)
						if got, want := stepAt(pc, x), stepAt(pts, x); got != want {
							t.Fatalf("size %d, n %d: at x %g a piece holds %g, the curve %g", size, n, x, got, want)
						}
					}
				}
			}
			last := pieces[len(pieces)-1]
			if last[len(last)-1] != pts[len(pts)-1] || pieces[0][0] != pts[0] {
				t.Errorf("size %d, n %d: pieces span %v to %v; want %v to %v", size, n, pieces[0][0], last[len(last)-1], pts[0], pts[len(pts)-1])
			}
		}
	}
}
