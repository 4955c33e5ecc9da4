package discover

import (
	"fmt"
	"strings"

	"github.com/perflab/perflab/driver/gotest"
)

// SkippedError reports a selection whose benchmarks all skipped themselves
// (b.Skip), so there is nothing to measure.
type SkippedError struct {
	Regex   string
	Skipped []gotest.Skip
}

func (e *SkippedError) Error() string {
	n := len(e.Skipped)
	what := fmt.Sprintf("all %d benchmarks matching %q skipped themselves", n, e.Regex)
	if n == 1 {
		what = fmt.Sprintf("the one benchmark matching %q skipped itself", e.Regex)
	}
	return what + ", so there is nothing to measure:\n  " + strings.Join(SkipLines(e.Skipped), "\n  ") +
		"\na benchmark skips itself when something it needs is missing: provide what the message says and run again, or select other benchmarks with -bench"
}

// SkipLines describes benchmarks that skipped themselves, one line per
// reason (in the order the reasons first appear), each naming how many
// benchmarks gave it and every one of them once:
//
//	skipped: 2 benchmarks ("open /usr/share/dict/words: no such file or directory"): BenchmarkWordsDecode1e1, BenchmarkWordsEncode1e1
func SkipLines(skips []gotest.Skip) []string {
	var lines []string
	for _, g := range gotest.GroupSkips(skips) {
		reason := "no reason given"
		if g.Reason != "" {
			reason = fmt.Sprintf("%q", g.Reason)
		}
		count := "1 benchmark"
		if len(g.Names) != 1 {
			count = fmt.Sprintf("%d benchmarks", len(g.Names))
		}
		lines = append(lines, fmt.Sprintf("skipped: %s (%s): %s", count, reason, strings.Join(g.Names, ", ")))
	}
	return lines
}
