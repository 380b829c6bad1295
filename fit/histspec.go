package fit

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
