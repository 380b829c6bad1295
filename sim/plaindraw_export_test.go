package sim

// RunGeneralDraws is RunGlobal with every model's attempts drawn by
// draw's general branch, none by its plain ones (plainDraws): the
// reference the plain branches are checked against. It also returns how
// many models would have taken the plain branch with a copula.
func RunGeneralDraws(cfg *Config, fn func(*AttemptRecord)) (*Result, int) {
	e := newEngine(cfg)
	e.isolated = false
	e.trace = fn
	n := 0
	for i, pd := range e.plainDraws {
		if pd == plainCopula {
			n++
		}
		e.plainDraws[i] = notPlain
	}
	e.run()
	return e.result(), n
}
