package sim

import (
	"fmt"
	"math"
)

// batchSpeedTolerance is how far, as a share, a model's median decode
// speed may be from its batching pool's speed(1) before a run warns
// (batchSpeedWarnings).
const batchSpeedTolerance = 0.1

// batchSpeedWarnings returns a warning for each streamed model class cl
// reaches (reachedModels) at a batching pool whose speed at batch size 1
// differs from the model's median tokens_per_s by more than
// batchSpeedTolerance. The run keeps the model's speed and takes from
// the pool's table (or formula) only speed(n) ÷ speed(1) (batching.go):
// the table's own speeds are then decoded at by no sequence, which a
// reader of the file is likely to expect otherwise. Each warning names
// both speeds, at the model's tokens_per_s.
func batchSpeedWarnings(cfg *Config, cl *Class) []ConfigWarning {
	var out []ConfigWarning
	for _, m := range distinctModels(cfg, cl) {
		md := &cfg.Models[m]
		if md.TokensPerSecond == nil {
			continue
		}
		name := md.Provider
		if name == "" {
			name = md.Name
		}
		for i := range cfg.Providers {
			pl := cfg.Providers[i].Pool
			if cfg.Providers[i].Name != name || pl == nil || pl.Batching == nil {
				continue
			}
			own, table := md.TokensPerSecond.Quantile(0.5), pl.Batching.speed(1)
			if !(own > 0) || !(table > 0) || math.Abs(own/table-1) <= batchSpeedTolerance {
				continue
			}
			out = append(out, ConfigWarning{Step: -1, Model: m, Field: "tokens_per_s",
				Text: fmt.Sprintf("model %s decodes at a median %.4g tokens/s alone (its tokens_per_s), and provider %s's pool batching gives %.4g tokens/s at batch size 1: the run keeps the model's speed and takes from the batching table only how a sequence slows as the batch grows, speed(n) ÷ speed(1), so its sequences decode at %.4g × speed(n) ÷ %.4g; make the two agree if the table's speeds are meant",
					md.Name, own, name, table, own, table)})
		}
	}
	return out
}
