package fit

import (
	"fmt"
	"math"
	"strings"
)

// SpecTOML returns the chosen model of h as a TOML inline distribution
// table in seconds (it may span lines inside its arrays), as the model
// block of WriteTOML writes it.
func (h *HistogramFit) SpecTOML() string {
	c := h.Best()
	return specTOML(&Candidate{Name: c.Name, Mixture: &c.Mixture, Dist: c.Dist}, "s")
}

// Describe says the chosen model of h in words ("lognormal, median 1.2 s,
// sigma 0.5"; a mixture's weights, medians and sigmas).
func (h *HistogramFit) Describe() string {
	c := h.Best()
	return describe(&Candidate{Name: c.Name, Mixture: &c.Mixture, Dist: c.Dist}, "s")
}

// TableLines returns the chosen model of h as the body of a TOML table in
// seconds ("kind = …", then its parameters), as [models.NAME.latency]
// would hold it.
func (h *HistogramFit) TableLines() []string {
	m := h.Best().Mixture
	if m.K() == 1 {
		return []string{`kind = "lognormal"`, "mu = " + num(m.Mu[0]), "sigma = " + num(m.Sigma[0])}
	}
	ws := make([]string, m.K())
	for j := range ws {
		ws[j] = num(m.Weights[j])
	}
	out := []string{`kind = "mixture"`, "weights = [" + strings.Join(ws, ", ") + "]", "components = ["}
	for j := range m.K() {
		out = append(out, fmt.Sprintf("  { kind = \"lognormal\", mu = %s, sigma = %s },  # median %s s",
			num(m.Mu[j]), num(m.Sigma[j]), fmtNum(math.Exp(m.Mu[j]))))
	}
	return append(out, "]")
}
