package plots

import (
	"bytes"
	"image/png"
	"testing"

	"github.com/hedgesim/hedgesim/sim"
)

func TestAdaptiveDelayFigure(t *testing.T) {
	samples := []sim.DelaySample{{At: 1, Delay: 0.5}, {At: 2, Delay: 0.8}, {At: 4, Delay: 0.6}}
	pts := AdaptiveDelayData(samples, 10)
	want := []XY{{1, 0.5}, {2, 0.8}, {4, 0.6}, {10, 0.6}}
	if len(pts) != len(want) {
		t.Fatalf("points %v, want %v", pts, want)
	}
	for i := range want {
		if pts[i] != want[i] {
			t.Fatalf("points %v, want %v", pts, want)
		}
	}
	if got := AdaptiveDelayData(samples, 3); len(got) != 3 {
		t.Errorf("an end before the last point added a point: %v", got)
	}
	data, err := AdaptiveDelayFigure("c", pts).Render("png")
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != plotWidth*DPI || b.Dy() != plotHeight*DPI {
		t.Errorf("image %v, want %v × %v", b, plotWidth*DPI, plotHeight*DPI)
	}
	if _, err := AdaptiveDelayFigure("c", nil).Render("png"); err == nil {
		t.Error("an empty figure rendered without an error")
	}
}
