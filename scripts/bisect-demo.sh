#!/usr/bin/env bash
# bisect-demo.sh: perflab bisect on histories with a known answer.
#
# Usage:
#   scripts/bisect-demo.sh planted [-n COMMITS] [-c CULPRIT] [-e PERCENT] [-N SECONDS] [-- BISECT FLAGS...]
#       a generated repository (scripts/bisectdemo) of COMMITS commits (32)
#       where commit CULPRIT (19) adds PERCENT (3) more work to the one
#       benchmark and the others change comments, tests, docs or an
#       unrelated function; -N runs noisy-neighbour during the whole bisect
#       (SECONDS, at most 900, at a time, started again until the bisect
#       ends). Exits 1 unless perflab names the culprit in at most
#       1 + ceil(log2 COMMITS) steps.
#   scripts/bisect-demo.sh unchanged [-n COMMITS] [-c CULPRIT] [-N SECONDS] [-- BISECT FLAGS...]
#       the same repository, bisected from GOOD to the culprit's parent,
#       where nothing changes the benchmark: exits 1 unless perflab says
#       "nothing to bisect" with exit status 2.
#   scripts/bisect-demo.sh gjson CLONE [-g GOOD] [-b BAD] [-N SECONDS] [-- BISECT FLAGS...]
#       tidwall/gjson's history in CLONE (a git clone with a work tree:
#       git clone https://github.com/tidwall/gjson) from GOOD (8d2c36f)
#       to BAD (4a91ee1), 13 first-parent commits around 133f42c
#       "Generally faster parsing", with scripts/bisect-gjson/testdata's
#       benchmark file brought into every commit (--with). Exits 1 unless
#       perflab names 133f42c.
#
# PERFLAB_ROOT is the perflab checkout (default: the one holding this script).
# Everything is written under $WORK (default: a new temporary directory):
# the repository, perflab's database, cache and runs, and bisect.md and
# bisect.html. The wall time of the bisect is printed at the end.
set -euo pipefail

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }

root=${PERFLAB_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
mode=${1:-}
shift || true
case $mode in
planted | unchanged | gjson) ;;
*) usage; exit 2 ;;
esac
work=${WORK:-$(mktemp -d /tmp/bisect-demo.XXXXXX)}
mkdir -p "$work"
noisy=0
commits=32
culprit=19
extra=3
good=8d2c36f
bad=4a91ee1
clone=""
if [ "$mode" = gjson ]; then
	clone=${1:?gjson needs the path of a clone of github.com/tidwall/gjson}
	shift
fi
while getopts "n:c:e:g:b:N:h" opt; do
	case $opt in
	n) commits=$OPTARG ;;
	c) culprit=$OPTARG ;;
	e) extra=$OPTARG ;;
	g) good=$OPTARG ;;
	b) bad=$OPTARG ;;
	N) noisy=$OPTARG ;;
	*) usage; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift

echo "building perflab into $work/perflab" >&2
(cd "$root" && go build -o "$work/perflab" ./cmd/perflab)

case $mode in
planted | unchanged)
	repo=$work/repo
	eval "$(cd "$root" && go run ./scripts/bisectdemo -dir "$repo" -commits "$commits" -culprit "$culprit" -extra "$extra")"
	args=(bisect "$GOOD" "$BAD" . -C "$repo" -bench Work)
	want=$CULPRIT
	if [ "$mode" = unchanged ]; then
		args=(bisect "$GOOD" "$CULPRIT~1" . -C "$repo" -bench Work)
	fi
	;;
gjson)
	repo=$(cd "$clone" && pwd)
	cp "$root/scripts/bisect-gjson/testdata/bisect_get_test.go" "$work/bisect_get_test.go"
	args=(bisect "$good" "$bad" . -C "$repo" -bench BisectGet --with "$work/bisect_get_test.go")
	want=$(git -C "$repo" rev-parse 133f42c)
	;;
esac

args+=(--db "$work/perflab.db" --cache "$work/cache" --out "$work/runs" --markdown "$work/bisect.md" --html "$work/bisect.html" "$@")
nn=""
if [ "$noisy" != 0 ]; then
	# noisy-neighbour runs at most 900 s at a time: start it again until
	# the bisect ends (each time with the next seed).
	(
		seed=1
		while :; do
			/work/shared/tools/noisy-neighbour "$noisy" "$seed"
			seed=$((seed + 1))
		done
	) &
	nn=$!
	trap 'if [ -n "$nn" ]; then pkill -TERM -P "$nn"; kill "$nn"; fi 2>/dev/null || true' EXIT
fi
echo "+ perflab ${args[*]}" >&2
start=$(date +%s.%N)
set +e
"$work/perflab" "${args[@]}" >"$work/out.txt" 2>"$work/err.txt"
code=$?
set -e
end=$(date +%s.%N)
cat "$work/out.txt"
if [ "$code" -ne 0 ]; then
	tail -n 20 "$work/err.txt" >&2
fi
steps=$(grep -c '^perflab bisect: step [0-9]*:' "$work/err.txt" || true)
printf 'exit status %d; %d measuring steps; wall time %.0f s; load average now %s; files in %s\n' \
	"$code" "$steps" "$(echo "$end - $start" | bc)" "$(cut -d' ' -f1-3 /proc/loadavg)" "$work"
if [ "$mode" = unchanged ]; then
	if [ "$code" -ne 2 ] || ! grep -q "^Nothing to bisect" "$work/out.txt"; then
		echo "FAIL: want exit status 2 and \"Nothing to bisect\"" >&2
		exit 1
	fi
	echo "OK: nothing to bisect"
	exit 0
fi
if ! grep -q "^Culprit: ${want:0:12}" "$work/out.txt"; then
	echo "FAIL: perflab did not name ${want:0:12}" >&2
	exit 1
fi
if [ "$mode" = planted ]; then
	limit=1
	for ((c = commits; c > 1; c = (c + 1) / 2)); do limit=$((limit + 1)); done
	if [ "$steps" -gt "$limit" ]; then
		echo "FAIL: $steps steps, more than the $limit a search of $commits commits needs" >&2
		exit 1
	fi
fi
echo "OK: perflab named ${want:0:12}"
