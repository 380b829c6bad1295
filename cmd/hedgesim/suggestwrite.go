package main

// writeScenarioLine returns the command line that writes the scenario, as
// an HTML report's "Commands" suggest it, and the file it writes. cmd is
// the report's own command line (shell-quoted), given the value of its
// --write-scenario as the flags parsed it ("" when it has none), file the
// name to suggest otherwise. A command that already writes the scenario,
// in whichever spelling (--write-scenario X, --write-scenario=X,
// -write-scenario X), is returned as it is, with given: a second
// --write-scenario naming another file is refused as given twice.
func writeScenarioLine(cmd, given, file string) (line, written string) {
	if given != "" {
		return cmd, given
	}
	return cmd + " --write-scenario " + shellQuote(file), file
}
