#!/usr/bin/env bash
# Run one tier of checks (`make unit`, `make lint`, `make test`) and print its wall time at the end,
# also when it fails. pytest's exit code 5 (no test collected) is a failure here: a tier that ran
# nothing has checked nothing.
#
# Where Linux's /proc is there, the line also says how busy the machine was over the same time (its
# cores' busy seconds, of all they had) and what the host stole: on a shared machine the same suite
# takes 385-547 s as the host's load moves (bench/test-times.md), and this says whether a slow run
# spent more CPU, was short of it (busy for less than the cores could give) or lost it to the host.
# The machine's count, not the tier's own processes' (a shell's count of its children): that one
# misses every process whose parent ended without waiting for it, and a full `make test` showed 486
# CPU-s there against the machine's 929 busy core-seconds.
set -uo pipefail
tier=$1
shift

# machine-wide CPU ticks from /proc/stat's first line: busy (user nice system irq softirq), all, stolen
machine() { awk '/^cpu /{ busy = $2 + $3 + $4 + $7 + $8; print busy, busy + $5 + $6 + $9, $9; exit }' /proc/stat; }

measured=false
if [ -r /proc/stat ]; then
  measured=true
  read -r busy0 all0 stolen0 < <(machine)
fi
start=$EPOCHREALTIME
"$@"
rc=$?
end=$EPOCHREALTIME
seconds=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
if [ "$rc" -eq 0 ]; then verdict=passed
elif [ "$rc" -eq 5 ]; then verdict="FAILED: no test was collected (pytest exit 5)"
else verdict="FAILED (exit $rc)"; fi
cpu=""
if $measured; then
  read -r busy1 all1 stolen1 < <(machine)
  cpu=$(awk -v hz="$(getconf CLK_TCK)" -v cores="$(nproc)" \
    -v busy=$((busy1 - busy0)) -v all=$((all1 - all0)) -v stolen=$((stolen1 - stolen0)) \
    'BEGIN {
       printf "; the machine was busy for %.1f of its %.1f core-seconds (%d cores)", busy / hz, all / hz, cores
       if (stolen / hz >= 0.5) printf ", %.1f stolen by the host", stolen / hz
     }')
fi
echo "make $tier: $verdict in $seconds s$cpu"
exit "$rc"
