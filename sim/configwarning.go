package sim

// A ConfigWarning is a warning that a scenario's configuration alone
// earns, before anything is simulated: a setting that can never take
// effect (a step deadline longer than the end-to-end deadline) or that is
// almost surely in the wrong unit. The run's report lists each among its
// class's warnings (ClassReport.Warnings, Text as it is); the scenario
// loader gives each the line of the setting at fault, so that validating
// a file shows what a run of it would warn.
type ConfigWarning struct {
	// Class is the index of the class in Config.Classes.
	Class int
	// Step is the index of the pipeline step the warning is about, -1 for
	// the class itself.
	Step int
	// Model is the index in Config.Models of the model whose setting is
	// at fault, -1 when the setting is the class's (or the step's).
	Model int
	// Provider is 1 + the index in Config.Providers of the provider whose
	// pool's setting is at fault, Field then relative to its pool table
	// (a Field starting "rate_limit." is the provider's own, relative to
	// its table); 0 when the setting is not a provider's.
	Provider int
	// Field is the setting at fault, as the scenario file names it,
	// relative to the model's table when Model ≥ 0, else to the step's
	// (Step ≥ 0) or the class's: "deadline", "hedge.delay",
	// "hedge.attempt_timeout", "latency", "ttft".
	Field string
	// Text is the warning as the report writes it after the class's name.
	Text string
}

// ConfigWarnings returns the warnings cfg's configuration earns, class by
// class in order, as NewReport lists them (classConfigWarnings).
func ConfigWarnings(cfg *Config) []ConfigWarning {
	var out []ConfigWarning
	for i := range cfg.Classes {
		out = append(out, classConfigWarnings(cfg, i)...)
	}
	return out
}

// classConfigWarnings returns the configuration warnings of class i:
// the pipeline's, the latency unit's, then its pools' (autoscaling
// without cold starts, copies_to on one replica, a view no balancer
// reads, a batching table whose speed at batch size 1 is not the
// model's), then its models' latency tails too heavy for a mean and the
// rate limits whose token bucket holds less than any of its calls needs.
func classConfigWarnings(cfg *Config, i int) []ConfigWarning {
	cl := &cfg.Classes[i]
	ws := pipelineWarnings(cl)
	if w := unitWarning(cfg, cl); w != nil {
		ws = append(ws, *w)
	}
	ws = append(ws, scaleWarnings(cfg, cl)...)
	ws = append(ws, copiesToWarnings(cfg, cl)...)
	ws = append(ws, viewWarnings(cfg, cl)...)
	ws = append(ws, batchSpeedWarnings(cfg, cl)...)
	ws = append(ws, heavyTailWarnings(cfg, cl)...)
	ws = append(ws, tokenLimitWarnings(cfg, cl)...)
	for j := range ws {
		ws[j].Class = i
	}
	return ws
}
