package report

import (
	"strings"

	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/store"
)

// isSkip reports whether a failure row records a cell that skipped itself
// (not applicable), which is not a failure.
func isSkip(f store.Failure) bool { return strings.HasPrefix(f.Reason, "skipped: ") }

// FailedCellRuns is the number of failed cell runs the report lists (build
// failures, failed or malformed cell runs, failed profiling passes; not
// skips), so the terminal summary and the report give the same count.
func FailedCellRuns(f *findings.Run) int {
	n := 0
	for _, x := range f.Failures {
		if !isSkip(x) {
			n++
		}
	}
	return n
}
