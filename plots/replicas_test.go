package plots_test

import (
	"bytes"
	"image/png"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/plots"
	"github.com/hedgesim/hedgesim/sim"
)

// TestReplicasData: the figure's curves are the pool's series, the
// replicas up and those up or starting, held to the run's end; the figure
// renders to an image of its size.
func TestReplicasData(t *testing.T) {
	p := &sim.PoolResult{Provider: "gpu", Autoscale: &sim.AutoscaleResult{Policy: "concurrency", Min: 0, Max: 4,
		Series: []sim.ScalePoint{{T: 0, Ready: 1}, {T: 2, Ready: 1, Starting: 2}, {T: 7, Ready: 3}}, RunSeconds: 10}}
	d := plots.ReplicasData(p)
	wantUp := []plots.XY{{X: 0, Y: 1}, {X: 2, Y: 1}, {X: 7, Y: 3}, {X: 10, Y: 3}}
	wantStarted := []plots.XY{{X: 0, Y: 1}, {X: 2, Y: 3}, {X: 7, Y: 3}, {X: 10, Y: 3}}
	if !slices.Equal(d.Up, wantUp) || !slices.Equal(d.Started, wantStarted) {
		t.Errorf("up %v, started %v; want %v, %v", d.Up, d.Started, wantUp, wantStarted)
	}
	p.Autoscale.RunSeconds = 5
	if d := plots.ReplicasData(p); len(d.Up) != 3 {
		t.Errorf("an end before the last change adds a point: %v", d.Up)
	}
	f := plots.ReplicasFigure(d)
	b, err := f.Render("png")
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	w, h := int(math.Round(f.Width.Points()*plots.DPI/72)), int(math.Round(f.Height.Points()*plots.DPI/72))
	if got := img.Bounds(); got.Dx() != w || got.Dy() != h || f.Name != "replicas" {
		t.Errorf("%s: %dx%d; want replicas, %dx%d", f.Name, got.Dx(), got.Dy(), w, h)
	}
	if _, err := plots.ReplicasFigure(plots.Replicas{}).Render("png"); err == nil {
		t.Error("an empty figure renders")
	}
}

// TestReplicasManyChangesAreMeans: a scale-to-zero pool that wakes for
// each of a thousand sparse requests changes 3000 times in 4000 s; drawn
// change by change, its curves filled the figure between 0 and 1 as one
// solid block, the "up or starting" curve hidden under "up". Past
// MaxReplicaSteps changes each curve is its time-weighted mean over 200
// equal parts of the run: here, starting for 1 s, up for 2 s and down for
// 1 s in every 4 s, so each 20 s part holds five whole periods and its
// means are exactly 0.5 up and 0.75 up or starting (only rounding error
// of the sums allowed).
func TestReplicasManyChangesAreMeans(t *testing.T) {
	var s []sim.ScalePoint
	for k := range 1000 {
		t0 := 4 * float64(k)
		s = append(s, sim.ScalePoint{T: t0, Starting: 1}, sim.ScalePoint{T: t0 + 1, Ready: 1}, sim.ScalePoint{T: t0 + 3})
	}
	p := &sim.PoolResult{Provider: "sls", Autoscale: &sim.AutoscaleResult{Policy: "concurrency", Min: 0, Max: 2, Series: s, RunSeconds: 4000}}
	d := plots.ReplicasData(p)
	if len(d.Up) != plots.MaxReplicaSteps+1 || len(d.Started) != plots.MaxReplicaSteps+1 {
		t.Fatalf("%d and %d points; want %d each, a mean per part and the end", len(d.Up), len(d.Started), plots.MaxReplicaSteps+1)
	}
	for i := range d.Up {
		if math.Abs(d.Up[i].Y-0.5) > 1e-9 || math.Abs(d.Started[i].Y-0.75) > 1e-9 {
			t.Errorf("point %d: up %v, up or starting %v; want 0.5, 0.75", i, d.Up[i], d.Started[i])
		}
	}
	if last := d.Up[len(d.Up)-1]; last.X != 4000 || d.Up[1].X != 20 {
		t.Errorf("parts at %v, %v …, ending at %v; want 0, 20 …, 4000", d.Up[0].X, d.Up[1].X, last.X)
	}
	if !strings.Contains(d.Title, "mean replicas over each 1/200 of the run") {
		t.Errorf("title %q does not say the curves are means", d.Title)
	}
	if _, err := plots.ReplicasFigure(d).Render("png"); err != nil {
		t.Fatal(err)
	}
}
