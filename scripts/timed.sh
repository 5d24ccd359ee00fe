#!/usr/bin/env bash
# Run one tier of checks (`make unit`, `make lint`, `make test`) and print its wall time at the end,
# also when it fails. pytest's exit code 5 (no test collected) is a failure here: a tier that ran
# nothing has checked nothing.
#
# Where Linux's /proc is there, the line also says the CPU the tier's processes used and how busy the
# machine was over the same time: on a shared machine the same suite takes 385-547 s as the host's
# load moves (bench/test-times.md), and these say whether a slow run was short of CPU (the machine
# busy for less than its cores could give), spent more of it, or lost it to the host ("stolen").
set -uo pipefail
tier=$1
shift

# machine-wide CPU ticks from /proc/stat's first line: busy (user nice system irq softirq), all, stolen
machine() { awk '/^cpu /{ busy = $2 + $3 + $4 + $7 + $8; print busy, busy + $5 + $6 + $9, $9; exit }' /proc/stat; }
# CPU ticks of this shell's children that have ended and been waited for (and so of their own)
children() { awk '{ print $16 + $17 }' "/proc/$$/stat"; }

measured=false
if [ -r /proc/stat ] && [ -r "/proc/$$/stat" ]; then
  measured=true
  read -r busy0 all0 stolen0 < <(machine)
  ours0=$(children)
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
  ours1=$(children)
  cpu=$(awk -v hz="$(getconf CLK_TCK)" -v cores="$(nproc)" \
    -v ours=$((ours1 - ours0)) -v busy=$((busy1 - busy0)) -v all=$((all1 - all0)) -v stolen=$((stolen1 - stolen0)) \
    'BEGIN {
       printf "; the processes it waited for used %.1f CPU-s, the machine was busy for %.1f of its %.1f core-seconds (%d cores)",
         ours / hz, busy / hz, all / hz, cores
       if (stolen / hz >= 0.5) printf ", %.1f stolen by the host", stolen / hz
     }')
fi
echo "make $tier: $verdict in $seconds s$cpu"
exit "$rc"
