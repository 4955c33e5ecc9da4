#!/usr/bin/env bash
# golden-compare.sh: does the CLI's output at BASE match this tree's?
#
# Usage:
#   scripts/golden-compare.sh [-short] BASE
#
# Checks BASE (any git revision) out into a temporary worktree, copies
# this tree's golden test (cmd/perflab/golden_test.go and
# golden_*_test.go) into it, and writes the outputs of every golden case
# at BASE and in this tree (its working files, uncommitted changes
# included) to two temporary directories (go test -run '^TestGolden$'
# -update -golden-dir DIR). Prints "diff -ru base head" of the two
# (base/ holds BASE's outputs, head/ this tree's) and exits 0 when
# they are identical, 1 when they differ, 2 when either side's test
# could not run (its output is printed). -short leaves out the cases
# that build and run benchmarks (ab, bisect), which take most of the
# time. The committed goldens (cmd/perflab/testdata/golden) are neither
# read nor changed.
#
# The measured cases (ab, bisect) are normalised (numbers, durations,
# hashes: see normalizeLive in golden_test.go), and their verdicts follow
# from a planted tenfold change, so the two sides agree unless the code
# changed them. BASE must have what the test calls: Main(args, stdout,
# stderr) in cmd/perflab and internal/testrun.
set -euo pipefail

short=()
if [[ ${1:-} == -short ]]; then
	short=(-short)
	shift
fi
if [[ $# -ne 1 ]]; then
	echo "usage: scripts/golden-compare.sh [-short] BASE" >&2
	exit 2
fi
base=$1
root=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)
rev=$(git -C "$root" rev-parse --verify --quiet "$base^{commit}") || {
	echo "golden-compare: $base is not a commit" >&2
	exit 2
}

work=$(mktemp -d "${TMPDIR:-/tmp}/golden-compare.XXXXXX")
tree=$work/tree
cleanup() {
	git -C "$root" worktree remove --force "$tree" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT

git -C "$root" worktree add --detach --quiet "$tree" "$rev"
rm -rf "$tree/cmd/perflab/testdata/golden"
cp "$root"/cmd/perflab/golden_test.go "$tree/cmd/perflab/"
for f in "$root"/cmd/perflab/golden_*_test.go; do
	[[ -e $f ]] && cp "$f" "$tree/cmd/perflab/"
done

# outputs DIR OUT: the golden outputs of the tree at DIR, written to OUT.
outputs() {
	if ! (cd "$1" && go test ./cmd/perflab -run '^TestGolden$' -count=1 "${short[@]}" -update -golden-dir "$2") >"$work/log" 2>&1; then
		echo "golden-compare: the golden test failed in $3:" >&2
		cat "$work/log" >&2
		exit 2
	fi
}
outputs "$tree" "$work/base" "$base ($rev)"
outputs "$root" "$work/head" "this tree"

# The diff names the sides base/ (BASE) and head/ (this tree).
if (cd "$work" && diff -ru base head) >"$work/diff"; then
	echo "golden-compare: the outputs at $base and in this tree are identical ($(ls "$work/head" | wc -l) files)"
	exit 0
fi
cat "$work/diff"
echo "golden-compare: the outputs differ: - at $base, + in this tree" >&2
exit 1
