package main

import (
	"fmt"
	"io"
	"runtime/debug"
)

// versionText describes the binary from its build information: the module
// version ("(devel)" for a build from a checkout), the VCS revision and
// time and whether the tree had local changes, and the Go version.
func versionText(bi *debug.BuildInfo, ok bool) string {
	if !ok || bi == nil {
		return "hedgesim (no build information)\n"
	}
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	s := "hedgesim " + bi.Main.Version
	if bi.Main.Version == "" {
		s = "hedgesim (devel)"
	}
	if rev := settings["vcs.revision"]; rev != "" {
		s += " revision " + rev
		if t := settings["vcs.time"]; t != "" {
			s += " (" + t + ")"
		}
		if settings["vcs.modified"] == "true" {
			s += " with local changes"
		}
	} else if bi.Main.Version == "(devel)" || bi.Main.Version == "" {
		s += ", no VCS revision recorded (built outside a repository or with -buildvcs=false)"
	}
	return s + "\n" + bi.GoVersion + "\n"
}

func cmdVersion(args []string, stdout io.Writer) error {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		fmt.Fprintln(stdout, "Usage: hedgesim version\n\nPrints the module version, the VCS revision the binary was built from and the Go version.")
		return nil
	}
	if len(args) > 0 {
		return usageError{err: fmt.Errorf("takes no arguments, got %q", args)}
	}
	_, err := io.WriteString(stdout, versionText(debug.ReadBuildInfo()))
	return err
}
