package scenario

import (
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/dist"
)

// TestWithLatencies replaces a [models.NAME.latency] table (a multi-line
// mixture, as guard-check writes it) and an inline latency, keeps every
// other line, and the result parses to the new distributions.
func TestWithLatencies(t *testing.T) {
	src := `seed = 1
requests = 1000

[arrivals]
rate = 10.0

[models.a]
provider = "p"
latency = { kind = "mixture", weights = [0.5, 0.5], components = [
  { kind = "uniform", min = 0.1, max = 0.3 },
  { kind = "uniform", min = 3.0, max = 19.0 },
] }  # old
price_input_per_mtok = 1.0

[models.b]
provider = "p"

[models.b.latency]
kind = "mixture"
weights = [0.5, 0.5]
components = [
  { kind = "uniform", min = 0.1, max = 0.3 },
  { kind = "uniform", min = 3.0, max = 19.0 },
]

# the class
[[classes]]
name = "c"
share = 1.0
input_tokens = { kind = "constant", value = 10 }
output_tokens = { kind = "constant", value = 1 }
[classes.hedge]
primary = "a"
`
	out, err := WithLatencies("x.toml", []byte(src), []LatencyEdit{
		{Model: "a", Key: "latency", Inline: `{ kind = "lognormal", mu = 0, sigma = 0.5 }`, Comment: []string{"live fit"}},
		{Model: "b", Key: "latency", Table: []string{`kind = "lognormal"`, "mu = 1", "sigma = 0.25"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	text := string(out)
	for _, keep := range []string{"price_input_per_mtok = 1.0", "# the class", "# live fit", "[models.b.latency]"} {
		if !strings.Contains(text, keep) {
			t.Errorf("lost %q:\n%s", keep, text)
		}
	}
	if strings.Contains(text, "uniform") {
		t.Errorf("old components kept:\n%s", text)
	}
	sc, err := Parse("x.toml", out)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []dist.LogNormal{{Mu: 0, Sigma: 0.5}, {Mu: 1, Sigma: 0.25}} {
		got := sc.Config.Models[i].Latency
		for _, x := range []float64{0.5, 1, 3} {
			if d := got.CDF(x) - want.CDF(x); d > 1e-12 || d < -1e-12 {
				t.Errorf("model %d: CDF(%g) = %g, want %g", i, x, got.CDF(x), want.CDF(x))
			}
		}
	}
	if _, err := WithLatencies("x.toml", []byte(src), []LatencyEdit{{Model: "zz", Key: "latency"}}); err == nil || !strings.Contains(err.Error(), `"zz"`) {
		t.Errorf("missing model: error %v", err)
	}
}
