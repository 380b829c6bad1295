package export

import "strings"

// FormatInfo describes one output format of Write.
type FormatInfo struct {
	// Name is the format's name for Write and --format: "grpc".
	Name string
	// Title is the runtime's name in prose: "gRPC".
	Title string
	// Writes says what the output is, in a sentence without its period.
	Writes string
}

// FormatTable lists every format Write accepts, in the order help lists
// them. Formats, FormatTitles and the command line's lists of formats
// (hedgesim --help, export --help, the errors for an unknown format) are
// made from it, so that a format added here appears in all of them.
var FormatTable = []FormatInfo{
	{"grpc", "gRPC", "gRPC service config JSON (methodConfig hedgingPolicy, retryThrottling)"},
	{"envoy", "Envoy", "Envoy routes YAML (retry_policy + hedge_policy, route timeout, cluster retry budget; copies to other models through a composite cluster)"},
	{"failsafe-go", "failsafe-go", "a Go file building failsafe-go hedge policies (" + FailsafeGoVersion + ")"},
	{"polly", "Polly", "appsettings.json section for .NET's standard HTTP hedging handler"},
	{"python", "Python", "an asyncio module: hedged(call, POLICIES[class]), standard library only"},
	{"typescript", "TypeScript", "a TypeScript module: hedged(call, POLICIES[class]) with AbortController, no dependencies"},
	{"json", "JSON", "hedgesim's neutral policy document (every setting, for custom gateways)"},
}

// Formats are the names Write accepts (FormatTable's), in the order help
// lists them.
var Formats = formatNames()

func formatNames() []string {
	ns := make([]string, len(FormatTable))
	for i, f := range FormatTable {
		ns[i] = f.Name
	}
	return ns
}

// FormatTitles lists the formats' runtimes in prose, from FormatTable:
// "gRPC, Envoy, failsafe-go, Polly, Python, TypeScript or JSON".
func FormatTitles() string {
	ts := make([]string, len(FormatTable))
	for i, f := range FormatTable {
		ts[i] = f.Title
	}
	return strings.Join(ts[:len(ts)-1], ", ") + " or " + ts[len(ts)-1]
}
