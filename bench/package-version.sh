#!/usr/bin/env bash
# `bash bench/package-version.sh <installed bin/bareagent.js>`: `bareagent --version`, the
# installed package's bin against this clone's (tsx), 10 runs each, interleaved, after one warm-up
# each; medians. BENCHMARKS.md, "The installed package".
set -euo pipefail
installed=$1
clone=$(dirname "$0")/../bin/bareagent.js
t() { local s; s=$(date +%s%N); node "$1" --version > /dev/null; echo $((($(date +%s%N) - s) / 1000000)); }
t "$installed" > /dev/null; t "$clone" > /dev/null
a=(); b=()
for _ in $(seq 10); do a+=("$(t "$installed")"); b+=("$(t "$clone")"); done
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print (v[int((NR + 1) / 2)] + v[int(NR / 2) + 1]) / 2 }'; }
ma=$(median "${a[@]}"); mb=$(median "${b[@]}")
echo "installed: ${a[*]} ms; median ${ma} ms"
echo "clone (tsx): ${b[*]} ms; median ${mb} ms"
echo "ratio: $(echo "scale=2; $ma / $mb" | bc) (load average: $(cut -d' ' -f1 /proc/loadavg))"
