package scenario

import (
	"strings"

	"github.com/hedgesim/hedgesim/sim"
)

// warnings returns cfg's configuration warnings (sim.ConfigWarnings) as
// Errors at the key and line of the setting at fault: a model's latency,
// a pool's setting, or a class's or pipeline step's setting (the enclosing table's line
// when the setting is not written there, such as a hedge given as a list
// of delays).
func (c *checker) warnings(cfg *sim.Config) []*Error {
	var out []*Error
	for _, w := range sim.ConfigWarnings(cfg) {
		key := indexKey("classes", w.Class)
		switch {
		case w.Provider > 0 && strings.HasPrefix(w.Field, "rate_limit."):
			key = joinKey("providers", cfg.Providers[w.Provider-1].Name) // its own limit, not its pool's
		case w.Provider > 0:
			key = joinKey("providers", cfg.Providers[w.Provider-1].Name) + ".pool"
		case w.Model >= 0:
			key = joinKey("models", cfg.Models[w.Model].Name)
		case w.Step >= 0:
			key = indexKey(key+".steps", w.Step)
		}
		if w.Field != "" {
			key += "." + w.Field
		}
		out = append(out, c.errorf(key, "%s: %s", cfg.Classes[w.Class].Name, w.Text))
	}
	return out
}
