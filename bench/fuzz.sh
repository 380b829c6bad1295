#!/bin/sh
# Runs every fuzz target of the module in turn, for TIME each, and prints
# the executions per target. TIME is whole minutes (default 10) or a whole
# number of seconds or minutes with a unit ("45s", "2m"). Inputs that fail
# are kept by Go as seed corpus files in the package's testdata/fuzz/TARGET/:
# commit them with the fix, so that `go test ./...` runs them from then on.
#
#   bench/fuzz.sh            # 10 minutes per target
#   bench/fuzz.sh 1          # a quick pass
#   bench/fuzz.sh 45s        # the figures of the README's fuzzing section
#
# Go minimizes every new interesting input, by default for up to 60 s; the
# script bounds that to HEDGESIM_FUZZ_MINIMIZE executions or time (Go's
# -fuzzminimizetime; default 100x, a hundred executions), so that a target
# keeps fuzzing instead of spending the run shrinking inputs. A failing
# input is kept whether or not it could be shrunk.
#
# Exit status: 0 when every target passed, 1 when one failed (its output
# is kept in the log directory printed at the end), 2 on bad usage.
set -u
usage() {
	echo "usage: bench/fuzz.sh [TIME]  (whole minutes ≥ 1, or a whole number with a unit: 45s, 2m)" >&2
	exit 2
}
time=${1:-10}
case $time in
'' | *[!0-9sm]* | [sm]* | *[sm]?*) usage ;;
*s) seconds=${time%s} ;;
*m) seconds=$((${time%m} * 60)) ;;
*) seconds=$((time * 60)) ;;
esac
case $seconds in '' | *[!0-9]*) usage ;; esac
[ "$seconds" -ge 1 ] || usage
minimize=${HEDGESIM_FUZZ_MINIMIZE:-100x}
cd "$(dirname "$0")/.." || exit 2
logs=$(mktemp -d "${TMPDIR:-/tmp}/hedgesim-fuzz.XXXXXX") || exit 2
status=0
printf '%-12s %-28s %12s %8s  %s\n' package target execs per_s result
for pkg in $(go list ./...); do
	for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz'); do
		log="$logs/$(basename "$pkg")-$target.log"
		if go test -run '^$' -fuzz "^$target\$" -fuzztime "${seconds}s" -fuzzminimizetime "$minimize" "$pkg" >"$log" 2>&1; then
			result=ok
		else
			result="FAIL (see $log)"
			status=1
		fi
		# The last progress line: "fuzz: elapsed: 10m0s, execs: 123456 (205/sec), …"
		execs=$(grep -o 'execs: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
		printf '%-12s %-28s %12s %8s  %s\n' "$(basename "$pkg")" "$target" "${execs:-0}" \
			"$(( ${execs:-0} / seconds ))" "$result"
	done
done
echo "logs: $logs"
exit $status
