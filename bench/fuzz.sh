#!/bin/sh
# Runs every fuzz target of the module in turn, MINUTES each (default 10),
# and prints the executions per target. Inputs that fail are kept by Go as
# seed corpus files in the package's testdata/fuzz/TARGET/: commit them
# with the fix, so that `go test ./...` runs them from then on.
#
#   bench/fuzz.sh            # 10 minutes per target
#   bench/fuzz.sh 1          # a quick pass
#
# Exit status: 0 when every target passed, 1 when one failed (its output
# is kept in the log directory printed at the end), 2 on bad usage.
set -u
minutes=${1:-10}
case $minutes in
'' | *[!0-9]*) echo "usage: bench/fuzz.sh [MINUTES]  (a whole number ≥ 1)" >&2; exit 2 ;;
esac
[ "$minutes" -ge 1 ] || { echo "usage: bench/fuzz.sh [MINUTES]  (a whole number ≥ 1)" >&2; exit 2; }
cd "$(dirname "$0")/.." || exit 2
logs=$(mktemp -d "${TMPDIR:-/tmp}/hedgesim-fuzz.XXXXXX") || exit 2
status=0
printf '%-12s %-28s %12s %8s  %s\n' package target execs per_s result
for pkg in $(go list ./...); do
	for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz'); do
		log="$logs/$(basename "$pkg")-$target.log"
		if go test -run '^$' -fuzz "^$target\$" -fuzztime "${minutes}m" "$pkg" >"$log" 2>&1; then
			result=ok
		else
			result="FAIL (see $log)"
			status=1
		fi
		# The last progress line: "fuzz: elapsed: 10m0s, execs: 123456 (205/sec), …"
		execs=$(grep -o 'execs: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
		printf '%-12s %-28s %12s %8s  %s\n' "$(basename "$pkg")" "$target" "${execs:-0}" \
			"$(( ${execs:-0} / (minutes * 60) ))" "$result"
	done
done
echo "logs: $logs"
exit $status
