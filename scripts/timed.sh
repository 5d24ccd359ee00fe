#!/usr/bin/env bash
# Run one tier of checks (`make unit`, `make lint`, `make test`) and print its wall time at the end,
# also when it fails. pytest's exit code 5 (no test collected) is a failure here: a tier that ran
# nothing has checked nothing.
set -uo pipefail
tier=$1
shift
start=$EPOCHREALTIME
"$@"
rc=$?
end=$EPOCHREALTIME
seconds=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
if [ "$rc" -eq 0 ]; then verdict=passed
elif [ "$rc" -eq 5 ]; then verdict="FAILED: no test was collected (pytest exit 5)"
else verdict="FAILED (exit $rc)"; fi
echo "make $tier: $verdict in $seconds s"
exit "$rc"
