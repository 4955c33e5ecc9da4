#!/bin/sh
# claimsdiff.sh: the claims table of one quick suite, as (claim, verdict,
# measured value), for one perflab binary; and two such tables side by
# side.
#
#   scripts/claimsdiff.sh run BINARY DIR [EXPERIMENT...]
#       runs "BINARY run --quick [EXPERIMENT...]" with PERFLAB_HOME=DIR
#       (its own database and reports) and PERFLAB_CACHE=DIR/cache (test
#       binaries built afresh), logs to DIR/run.log, prints the wall time
#       and exit status, and writes DIR/claims.tsv: claim, verdict,
#       measured value (the deciding check's), one line per claim.
#   scripts/claimsdiff.sh table DIR
#       writes DIR/claims.tsv again from the reports under DIR/runs.
#   scripts/claimsdiff.sh compare DIR_BEFORE DIR_AFTER
#       prints claim, verdict before, verdict after, measured after.
#
# Example, the base binary against this branch's, one after the other on a
# quiet machine:
#   go build -o /tmp/perflab-claims ./cmd/perflab
#   scripts/claimsdiff.sh run /work/bin/perflab-base /tmp/cd-base
#   scripts/claimsdiff.sh run /tmp/perflab-claims /tmp/cd-claims
#   scripts/claimsdiff.sh compare /tmp/cd-base /tmp/cd-claims
set -eu

usage() {
	sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

# table DIR: the claims rows of every report.md under DIR/runs, in run
# order: "| ID | **verdict** [n] | claimed | measured (deciding check) |".
table() {
	for r in $(ls -d "$1"/runs/run-* 2>/dev/null | sort -t- -k2 -n); do
		[ -f "$r/report.md" ] || continue
		awk -F' \\| ' '
			/^\| claim \| verdict \|/ { on = 1; next }
			on && /^\|---/ { next }
			on && !/^\| / { on = 0 }
			on {
				id = $1; sub(/^\| /, "", id)
				v = $2; gsub(/\*\*/, "", v); sub(/ \[[0-9]+\]$/, "", v)
				m = $NF; sub(/ \|$/, "", m); gsub(/ \[[0-9]+\]/, "", m)
				printf "%s\t%s\t%s\n", id, v, m
			}' "$r/report.md"
	done
}

[ $# -ge 1 ] || usage
cmd=$1
shift
case $cmd in
run)
	[ $# -ge 2 ] || usage
	bin=$1 dir=$2
	shift 2
	mkdir -p "$dir"
	start=$(date +%s)
	status=0
	PERFLAB_HOME=$dir PERFLAB_CACHE=${PERFLAB_CACHE:-$dir/cache} "$bin" run --quick "$@" >"$dir/run.log" 2>&1 || status=$?
	end=$(date +%s)
	echo "$bin run --quick $*: exit status $status, $((end - start)) s wall time (log: $dir/run.log)"
	table "$dir" >"$dir/claims.tsv"
	cat "$dir/claims.tsv"
	;;
table)
	[ $# -eq 1 ] || usage
	table "$1" >"$1/claims.tsv"
	cat "$1/claims.tsv"
	;;
compare)
	[ $# -eq 2 ] || usage
	printf 'claim\tbefore\tafter\tmeasured after\n'
	awk -F'\t' 'NR == FNR { before[$1] = $2; next }
		{ b = ($1 in before) ? before[$1] : "(none)"; printf "%s\t%s\t%s\t%s\n", $1, b, $2, $3; seen[$1] = 1 }
		END { for (id in before) if (!(id in seen)) printf "%s\t%s\t(none)\t\n", id, before[id] }' \
		"$1/claims.tsv" "$2/claims.tsv"
	;;
*)
	usage
	;;
esac
