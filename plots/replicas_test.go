package plots_test

import (
	"bytes"
	"image/png"
	"math"
	"slices"
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
