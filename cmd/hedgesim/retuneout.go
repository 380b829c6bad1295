package main

import (
	"bytes"
	"context"
	"strings"

	"github.com/hedgesim/hedgesim/htmlreport"
	"github.com/hedgesim/hedgesim/retune"
)

// writeRetuneReport writes the report directory of `retune --out`
// (writeFiles: built beside dir and swapped in whole, so dir holds one
// complete report or the previous one): report.txt (the text at full
// width, with the export diff), report.json, index.html (the whole report
// as one self-contained page) and, with --export, export-FORMAT.diff (the
// unified diff; empty when the configurations are the same). args are the
// command's arguments, shown on the page to reproduce it, writeScenario
// its --write-scenario file ("" when none).
func writeRetuneReport(ctx context.Context, dir string, rep *retune.Report, js []byte, args []string, writeScenario string, withPlots bool) error {
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		return err
	}
	if err := rep.WriteExportText(&text); err != nil {
		return err
	}
	commands := retuneCommands(args, writeScenario)
	var page bytes.Buffer
	if err := rep.WriteHTML(&page, commands, !withPlots); err != nil {
		return err
	}
	files := []outFile{{"report.txt", text.Bytes()}, {"report.json", js}, {"index.html", page.Bytes()}}
	if e := rep.Export; e != nil {
		files = append(files, outFile{"export-" + e.Format + ".diff", []byte(e.Diff)})
	}
	return writeFiles(ctx, dir, "retune", files)
}

// retuneCommands returns the commands index.html suggests: reproduce the
// report, and write the scenario with the live models and the changed
// picks. When the command writes the scenario itself (writeScenario, its
// --write-scenario file), reproducing it writes the scenario too, and one
// command says both.
func retuneCommands(args []string, writeScenario string) []htmlreport.Command {
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = shellQuote(a)
	}
	cmd := strings.TrimSpace("hedgesim retune " + strings.Join(quoted, " "))
	line, file := writeScenarioLine(cmd, writeScenario, "retuned.toml")
	if line == cmd {
		return []htmlreport.Command{{Label: "Reproduce this report and write the scenario with the live models and the changed picks to " + file + ", for review (the same histograms and seed give the same numbers):", Line: cmd}}
	}
	return []htmlreport.Command{
		{Label: "Reproduce this report (the same histograms and seed give the same numbers):", Line: cmd},
		{Label: "Write the scenario with the live models and the changed picks, for review:", Line: line},
	}
}
