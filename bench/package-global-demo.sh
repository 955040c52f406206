#!/usr/bin/env bash
# `bash bench/package-global-demo.sh <tarball>` (as root: the steps run as nobody): a fresh machine
# with no root. An empty HOME (so an empty npm cache: every package from the registry, and an empty
# ~/.cache/bareagent), npm's global prefix in a temp folder; `npm i -g <tarball>`, then
# `bareagent demo` from that prefix, each timed. BENCHMARKS.md, "The installed package".
set -euo pipefail
tarball=$(realpath "$1")
dir=$(mktemp -d /tmp/bareagent-global-XXXXXX)
mkdir -p "$dir/home" "$dir/prefix"
cp "$tarball" "$dir/"
port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
user=()
if [ "$(id -u)" = 0 ]; then chown -R 65534:65534 "$dir"; user=(setpriv --reuid=65534 --regid=65534 --clear-groups --); fi
as_user() { "${user[@]}" env -i NODE_EXTRA_CA_CERTS="${NODE_EXTRA_CA_CERTS:-}" PATH="$dir/prefix/bin:$PATH" HOME="$dir/home" NO_COLOR=1 npm_config_update_notifier=false "$@"; }
cd "$dir"
started=$(date +%s.%N)
as_user npm i -g --prefix "$dir/prefix" --no-audit --no-fund "$dir/$(basename "$tarball")" > install.log 2>&1 || { tail -30 install.log; exit 1; }
installed=$(date +%s.%N)
as_user TEMPORAL_ADDRESS="127.0.0.1:$(port)" BAREAGENT_UI_PORT="$(port)" bareagent demo < /dev/null > demo.log 2>&1 || { tail -30 demo.log; exit 1; }
ended=$(date +%s.%N)
grep -q "The test passes." demo.log
echo "npm i -g (empty npm cache): $(echo "$installed - $started" | bc) s"
echo "bareagent demo (empty HOME): $(echo "$ended - $installed" | bc) s"
echo "total: $(echo "$ended - $started" | bc) s (load average: $(cut -d' ' -f1 /proc/loadavg))"
grep -h "fetched with pip" demo.log
as_user bareagent server stop || true
rm -rf "$dir"
