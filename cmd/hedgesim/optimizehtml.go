package main

import (
	"bytes"
	"strings"

	"github.com/hedgesim/hedgesim/htmlreport"
	"github.com/hedgesim/hedgesim/optimize"
)

// htmlIndex renders index.html of `optimize --out`: the report as one
// self-contained page (htmlreport), with the commands that reproduce it,
// apply its picks and export them; args are the optimize command's
// arguments, writeScenario its --write-scenario file ("" when none).
func htmlIndex(rep *optimize.Report, args []string, writeScenario string, withPlots bool) ([]byte, error) {
	o := htmlreport.Options{NoFigures: !withPlots, Commands: optimizeCommands(args, writeScenario)}
	if rep.ExportCommand != "" {
		o.Commands = append(o.Commands, htmlreport.Command{Label: "Export the picks as client or proxy configuration:", Line: rep.ExportCommand})
	}
	var b bytes.Buffer
	if err := htmlreport.Write(&b, rep, o); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// optimizeCommands returns the commands index.html suggests before the
// export: reproduce the report, and write the scenario with the picks
// applied and run it (writeScenarioLine: the command's own
// --write-scenario file, writeScenario, when it has one).
func optimizeCommands(args []string, writeScenario string) []htmlreport.Command {
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = shellQuote(a)
	}
	cmd := strings.TrimSpace("hedgesim optimize " + strings.Join(quoted, " "))
	line, file := writeScenarioLine(cmd, writeScenario, "picked.toml")
	return []htmlreport.Command{
		{Label: "Reproduce this report (the same seed gives the same numbers):", Line: cmd},
		{Label: "Write the scenario with every pick applied, then run it as it would be rolled out:", Line: line + "\nhedgesim run " + shellQuote(file)},
	}
}
