#!/usr/bin/env bash
# loadgen-vs-wrk.sh: how many requests per second perflab's load generator
# reaches in the closed model, against wrk (the Debian package) measured in
# the same run, both against the same trivial local server, with the server
# and the generator pinned to different CPUs.
#
# Usage: scripts/loadgen-vs-wrk.sh [-d SECONDS] [-c CONNECTIONS] [-r REPEATS]
#
# Needs: go, wrk (apt-get install -y wrk), taskset (util-linux). Everything
# runs on 127.0.0.1. The generator gets CPU 0; the server gets every other
# CPU (GOMAXPROCS follows), so on a machine with more than two CPUs the
# server has more cores than the generator and the generator is the
# bottleneck. wrk and perflab alternate REPEATS times and the medians are
# compared; the script exits 1 when perflab reaches less than 0.9× wrk.
set -euo pipefail

dur=5
conns=32
repeats=3
while getopts "d:c:r:h" opt; do
	case $opt in
	d) dur=$OPTARG ;;
	c) conns=$OPTARG ;;
	r) repeats=$OPTARG ;;
	*) sed -n '2,16p' "$0"; exit 2 ;;
	esac
done

for tool in go wrk taskset; do
	if ! command -v "$tool" >/dev/null; then
		echo "loadgen-vs-wrk: $tool is not installed (wrk: apt-get install -y wrk; taskset: util-linux)" >&2
		exit 2
	fi
done

ncpu=$(nproc)
if [ "$ncpu" -lt 2 ]; then
	echo "loadgen-vs-wrk: needs at least 2 CPUs to pin the server and the generator apart (have $ncpu)" >&2
	exit 2
fi
gen_cpu=0
srv_cpus="1-$((ncpu - 1))"

root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
srv_pid=""
cleanup() {
	if [ -n "$srv_pid" ]; then kill "$srv_pid" 2>/dev/null || true; wait "$srv_pid" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

# The trivial server: net/http writing a 13-byte body.
mkdir -p "$work/hello"
cat >"$work/hello/main.go" <<'EOF'
package main

import (
	"net/http"
	"os"
)

func main() {
	body := []byte("hello, world\n")
	http.ListenAndServe(os.Args[1], http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(body) }))
}
EOF
(cd "$work/hello" && go mod init hello >/dev/null 2>&1 && go build -o "$work/hello-server" .)
(cd "$root" && go build -o "$work/perflab" ./cmd/perflab)

port=$((20000 + RANDOM % 20000))
url="http://127.0.0.1:$port/"
GOMAXPROCS=$((ncpu - 1)) taskset -c "$srv_cpus" "$work/hello-server" "127.0.0.1:$port" &
srv_pid=$!
for _ in $(seq 50); do
	if curl -s -o /dev/null "$url" 2>/dev/null || (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
	sleep 0.1
done

echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(uname -srm), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $ncpu CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $(go version); $(wrk --version 2>&1 | head -1 | cut -d' ' -f1-2)"
echo "# server: net/http hello on CPUs $srv_cpus (GOMAXPROCS=$((ncpu - 1))); generators on CPU $gen_cpu; $conns connections, ${dur}s per run, $repeats runs each, alternating"
printf "%-8s %-4s %12s  %s\n" tool run "req/s" note

wrk_rates=()
pl_rates=()
for i in $(seq "$repeats"); do
	out=$(taskset -c "$gen_cpu" wrk -t1 -c"$conns" -d"${dur}s" "$url" 2>&1)
	r=$(echo "$out" | awk '/^Requests\/sec:/ {print $2}')
	wrk_rates+=("$r")
	printf "%-8s %-4s %12.0f\n" wrk "$i" "$r"

	out=$("$work/perflab" load "$url" --conns "$conns" --duration "${dur}s" --cpus "$gen_cpu" 2>&1 || true)
	r=$(echo "$out" | awk '/^throughput/ {print $2}')
	note=$(echo "$out" | grep -o 'generator: [0-9.]* of [0-9]* CPU cores' || true)
	if echo "$out" | grep -q INVALID; then note="$note (generator-bound)"; fi
	pl_rates+=("$r")
	printf "%-8s %-4s %12.0f  %s\n" perflab "$i" "$r" "$note"
done

median() { printf "%s\n" "$@" | sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
mw=$(median "${wrk_rates[@]}")
mp=$(median "${pl_rates[@]}")
ratio=$(awk -v p="$mp" -v w="$mw" 'BEGIN {printf "%.3f", p / w}')
echo "median: wrk $(printf %.0f "$mw") req/s, perflab $(printf %.0f "$mp") req/s, perflab/wrk = $ratio"
if awk -v r="$ratio" 'BEGIN {exit !(r >= 0.9)}'; then
	echo "PASS: perflab reaches at least 0.9x wrk"
else
	echo "FAIL: perflab reaches less than 0.9x wrk"
	exit 1
fi
