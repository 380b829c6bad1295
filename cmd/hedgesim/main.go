// Command hedgesim simulates hedged requests to inference APIs and reports,
// per traffic class, latency percentiles, the share of requests that hedge,
// and what hedging costs.
//
// Usage:
//
//	hedgesim run [flags] [SCENARIO]       simulate a scenario and print a report
//	hedgesim optimize [flags] [SCENARIO]  choose a hedge delay per class
//	hedgesim fit [flags] LOG              fit latency models to a log or histogram
//	hedgesim validate SCENARIO…           check scenario files without simulating
//	hedgesim compare A.json B.json        compare two reports, with significance
//	hedgesim list                         list the scenarios built into the binary
//	hedgesim version                      print the version and VCS revision
//	hedgesim help [COMMAND]               show help
//
// SCENARIO is a TOML file (see scenarios/README.md) or the name of a built-in
// scenario; without it the built-in default is used. Exit status: 0 on
// success, 1 on a failure while running (an I/O error while writing
// included), 2 on bad input or usage (an output path that is wrong before
// anything runs included), 130 when
// interrupted by SIGINT or SIGTERM (temporary files are removed first; a
// second signal ends the program at once).
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	catchSIGPIPE()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // a second signal gets the default action: exit at once
	}()
	os.Exit(runContext(ctx, os.Args[1:], os.Stdout, os.Stderr))
}
