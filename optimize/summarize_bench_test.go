//go:build unix

package optimize_test

import (
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
)

// BenchmarkSummarizeReplicaPool summarises one candidate of the default
// `hedgesim optimize replica-pool` at its default 2·10⁵ requests: the p2c
// class hedged at 2 s, paired with its no-hedging run, as every
// candidate of the sweep is. The two runs are made once, before the loop;
// under callgrind, the difference of 3 and 1 iterations halved is one
// summary's instructions.
func BenchmarkSummarizeReplicaPool(b *testing.B) {
	sc, err := scenario.LoadFS(scenarios.FS, "replica-pool.toml")
	if err != nil {
		b.Fatal(err)
	}
	summarize, err := optimize.CandidateSummary(b.Context(), &sc.Config, 1, optimize.DefaultRequests)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		summarize()
	}
}
