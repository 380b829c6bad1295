package dist_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/hedgesim/hedgesim/dist"
)

func ptr(v float64) *float64 { return &v }

// A scenario's latency, written as median and p95, becomes a lognormal whose
// quantiles and draws the simulator uses.
func ExampleSpec_Build() {
	spec := dist.Spec{Kind: "lognormal", Median: ptr(0.8), P95: ptr(3.0)}
	d, err := spec.Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("p50 %.3f s, p95 %.3f s, p99 %.3f s\n", d.Quantile(0.5), d.Quantile(0.95), d.Quantile(0.99))
	fmt.Printf("P(latency > 5 s) = %.4f\n", d.Survival(5))

	src := rand.NewPCG(1, 2) // the scenario's seed; same seed, same draws
	fmt.Printf("first draw %.3f s\n", d.Rand(src))
	// Output:
	// p50 0.800 s, p95 3.000 s, p99 5.187 s
	// P(latency > 5 s) = 0.0113
	// first draw 1.085 s
}

// An invalid spec is reported with the key at fault and what is allowed.
func ExampleSpecError() {
	sigma := -0.3
	_, err := dist.Spec{Kind: "mixture", Weights: []float64{0.9, 0.1}, Components: []dist.Spec{
		{Kind: "lognormal", Median: ptr(0.5), P95: ptr(1.2)},
		{Kind: "lognormal", Mu: ptr(1), Sigma: &sigma},
	}}.Build()
	fmt.Println(err)
	// Output:
	// components[1].sigma: -0.3 is not allowed; must be > 0
}

// A provider's published percentiles become a distribution that passes
// through each of them, with lognormal tails.
func ExampleNewQuantileTable() {
	t, err := dist.NewQuantileTable([]float64{0.5, 0.9, 0.99}, []float64{0.21, 0.33, 0.9})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range []float64{0.5, 0.75, 0.9, 0.99, 0.999} {
		fmt.Printf("p%-5g %.3f s\n", 100*p, t.Quantile(p))
	}
	fmt.Printf("mean  %.3f s\n", t.Mean())
	// Output:
	// p50    0.210 s
	// p75    0.266 s
	// p90    0.330 s
	// p99    0.900 s
	// p99.9  1.874 s
	// mean  0.241 s
}
