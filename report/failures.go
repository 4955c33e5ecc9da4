package report

import (
	"fmt"

	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/store"
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

// NotTestableConfigs says, one line each, which configs are not testable
// here because their toolchain or modules could not be downloaded: the
// run is complete without them, and no failure.
func NotTestableConfigs(f *findings.Run) []string {
	var out []string
	for _, c := range f.Configs {
		if c.NotFetched.What != "" {
			out = append(out, fmt.Sprintf("config %s is not testable here: its %s", c.Name, notFetched(c.NotFetched)))
		}
	}
	return out
}

// notFetched is what a config's build could not download, and why.
func notFetched(nf store.NotFetched) string {
	return fmt.Sprintf("%s could not be downloaded (%s)", nf.What, nf.Why)
}
