package engine

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/perflab/perflab/driver/gotest"
	"github.com/perflab/perflab/plan"
)

// SelectionError reports planned cells that select no benchmark: a
// benchmark name, an axis key or an axis value that matched nothing.
type SelectionError struct {
	Unmatched int      // cells that select nothing
	Cells     int      // cells planned
	Problems  []string // one line per selector that matched nothing
}

func (e *SelectionError) Error() string {
	return fmt.Sprintf("%d of %d planned cells select no benchmark; nothing was run or recorded:\n  %s\nfix the spec's benchmarks or [[axis]] entries (list the benchmarks with: go test -list . -run ^$, or perflab init)",
		e.Unmatched, e.Cells, strings.Join(e.Problems, "\n  "))
}

// checkSelection lists the benchmarks once, before round 1, and refuses a
// plan with a cell that selects nothing, naming the benchmark, axis key or
// value that matched nothing (with the nearest existing one). Each config's
// own binary is listed, since build settings can change which benchmarks
// exist.
func checkSelection(ctx context.Context, opt Options, p *plan.Plan, timeout time.Duration, bins map[string]string, progress io.Writer) error {
	start := time.Now()
	e := &SelectionError{Cells: len(p.Cells)}
	seen := map[string]bool{}
	listed := map[string]bool{}
	for _, c := range opt.Spec.Configs {
		for _, pkg := range opt.packages() {
			bin, ok := bins[slotOf(c.Name, pkg)]
			if !ok || listed[bin] {
				continue // a config that did not build is reported on its own
			}
			listed[bin] = true
			var cells []plan.Cell
			for _, cell := range p.Cells {
				if b, ok := bins[slot(cell)]; ok && b == bin {
					cells = append(cells, cell)
				}
			}
			inv := gotest.Invocation{Binary: bin, Dir: opt.packageDirOf(slotOf(c.Name, pkg)), Env: c.ExecEnv(), Timeout: timeout}
			top, err := gotest.ListBenchmarks(ctx, inv)
			if err != nil {
				return fmt.Errorf("listing the benchmarks of config %s: %w", c.Name, err)
			}
			leaves := func(re string) (*listing, error) {
				if re == "" || opt.NamesOnly {
					return &listing{}, nil
				}
				inv := inv
				inv.Bench, inv.Timeout = re, timeout*time.Duration(max(1, len(cells)))
				ran, skipped, err := gotest.Leaves(ctx, inv)
				if err != nil {
					return nil, fmt.Errorf("listing the benchmarks of config %s (one iteration each): %w", c.Name, err)
				}
				return &listing{ran: ran, skipped: skipped}, nil
			}
			// The plan's own selection first; only when some cell matched
			// nothing, the whole benchmarks, to say what is there instead.
			have, err := leaves(selectCells(cells, top, false))
			if err != nil {
				return err
			}
			var missing []plan.Cell
			for _, cell := range cells {
				if opt.NamesOnly {
					if b := strings.Split(cell.Bench, "/")[0]; !slices.Contains(top, b) {
						missing = append(missing, cell)
					}
				} else if unmatched(cell, top, have) != "" {
					missing = append(missing, cell)
				}
			}
			if len(missing) == 0 {
				continue
			}
			all, err := leaves(selectCells(missing, top, true))
			if err != nil {
				return err
			}
			for _, cell := range missing {
				e.Unmatched++
				if problem := unmatched(cell, top, all); !seen[problem] {
					seen[problem] = true
					e.Problems = append(e.Problems, problem)
				}
			}
		}
	}
	if e.Unmatched > 0 {
		sort.Strings(e.Problems)
		if len(e.Problems) > 12 {
			e.Problems = append(e.Problems[:12], fmt.Sprintf("… and %d more", len(e.Problems)-12))
		}
		return e
	}
	what := "all %d cells select a benchmark"
	if opt.NamesOnly {
		what = "the benchmarks of all %d cells exist"
	}
	fmt.Fprintf(progress, "perflab: selection checked: "+what+" (%s)\n", len(p.Cells), time.Since(start).Round(time.Millisecond))
	return nil
}

// selectCells is a -test.bench regex selecting the cells whose top-level
// benchmark exists (whole benchmarks when whole is set). -test.bench splits
// on "/" and matches element by element, so the union is formed per depth;
// it may select more than the cells, never less.
func selectCells(cells []plan.Cell, top []string, whole bool) string {
	var parts [][]string
	for _, c := range cells {
		els := append(strings.Split(c.Bench, "/"), splitLevels(c.Levels)...)
		if !slices.Contains(top, els[0]) {
			continue
		}
		if whole {
			els = els[:1]
		}
		for len(parts) < len(els) {
			parts = append(parts, nil)
		}
		for i, el := range els {
			q := "^" + regexp.QuoteMeta(el) + "$"
			if !slices.Contains(parts[i], q) {
				parts[i] = append(parts[i], q)
			}
		}
	}
	if whole && len(parts) > 1 {
		parts = parts[:1]
	}
	out := make([]string, len(parts))
	for i, ps := range parts {
		out[i] = "(?:" + strings.Join(ps, "|") + ")"
	}
	return strings.Join(out, "/")
}

// listing is what one pass of a test binary ran and what skipped itself.
type listing struct{ ran, skipped []string }

// unmatched returns "" when a listed leaf lies under the cell's name (or
// the cell lies under a benchmark that skipped itself), and otherwise what
// in the cell matched nothing.
func unmatched(cell plan.Cell, top []string, l *listing) string {
	want := append(strings.Split(cell.Bench, "/"), splitLevels(cell.Levels)...)
	if !slices.Contains(top, want[0]) {
		return fmt.Sprintf("benchmark %q matched nothing%s", want[0], didYouMean(want[0], top))
	}
	for _, s := range l.skipped {
		els := strings.Split(s, "/")
		if len(els) <= len(want) && slices.Equal(els, want[:len(els)]) {
			return "" // the benchmark skips itself here; the run records that
		}
	}
	leaves := append(l.ran, l.skipped...)
	// Walk down the levels: at each depth, the elements present under the
	// prefix matched so far.
	prefix := want[:1:1]
	for depth := 1; depth < len(want); depth++ {
		var here []string
		for _, l := range leaves {
			els := strings.Split(l, "/")
			if len(els) > depth && slices.Equal(els[:depth], prefix) && !slices.Contains(here, els[depth]) {
				here = append(here, els[depth])
			}
		}
		el := want[depth]
		if slices.Contains(here, el) {
			prefix = append(prefix, el)
			continue
		}
		under := strings.Join(prefix, "/")
		if len(here) == 0 {
			return fmt.Sprintf("%s has no sub-benchmarks, but the plan asks for %q below it", under, el)
		}
		key, val, isKV := strings.Cut(el, "=")
		if isKV {
			var keys, vals []string
			for _, h := range here {
				k, v, _ := strings.Cut(h, "=")
				if !slices.Contains(keys, k) {
					keys = append(keys, k)
				}
				if k == key {
					vals = append(vals, v)
				}
			}
			if !slices.Contains(keys, key) {
				return fmt.Sprintf("axis key %q matched nothing under %s (its level there is %s)%s", key, under, strings.Join(keys, ", "), didYouMean(key, keys))
			}
			return fmt.Sprintf("axis %s value %q matched nothing under %s (values there: %s)%s", key, val, under, abbreviate(vals, 8), didYouMean(val, vals))
		}
		return fmt.Sprintf("sub-benchmark %q matched nothing under %s (there: %s)%s", el, under, abbreviate(here, 8), didYouMean(el, here))
	}
	return ""
}

func splitLevels(levels []string) []string {
	var out []string
	for _, l := range levels {
		out = append(out, strings.Split(l, "/")...)
	}
	return out
}

func abbreviate(xs []string, n int) string {
	if len(xs) <= n {
		return strings.Join(xs, ", ")
	}
	return strings.Join(xs[:n], ", ") + fmt.Sprintf(", … (%d in all)", len(xs))
}

// didYouMean names the candidate nearest to s in edit distance, when it is
// near enough to be a likely typo.
func didYouMean(s string, candidates []string) string {
	best, bestD := "", -1
	for _, c := range candidates {
		d := editDistance(strings.ToLower(s), strings.ToLower(c))
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	if bestD < 0 || bestD > max(2, len(s)/3) || bestD >= len([]rune(s)) {
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", best)
}

// editDistance is the Levenshtein distance between a and b, in runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
