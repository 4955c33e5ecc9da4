package report

import (
	"github.com/perflab/perflab/findings"
)

// FailedCellRuns is the number of failed cell runs the report lists (build
// failures, failed or malformed cell runs, failed profiling passes; not
// skips), so the terminal summary and the report give the same count.
func FailedCellRuns(f *findings.Run) int {
	n := 0
	for _, x := range f.Failures {
		if !x.Skip {
			n++
		}
	}
	return n
}
