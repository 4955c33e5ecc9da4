package report

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/store"
)

// The words of sequential sampling: the progress text of a check or
// compared ratio while a run samples (JudgedLine), and how the sampling
// ended, printed at the end of the run (WriteSequential) and shown in the
// report (the "Sequential sampling" section), from the same findings.

// JudgedLine is the progress text of a judged check or compared ratio: its
// label and interval, and the further rounds it likely needs.
func JudgedLine(it findings.Judged) string {
	s := it.Label + " " + judgedInterval(it)
	switch {
	case it.More >= 0 && it.AtLeast:
		s += fmt.Sprintf(" (≥%d more rounds)", it.More)
	case it.More >= 0:
		s += fmt.Sprintf(" (≈%d more rounds%s)", it.More, likely(it))
	}
	return s
}

// likely is an item's 80% predictive range of further rounds in words
// (", likely 12–40", or ", likely 12 or more" when its high end lies
// past the forecast's horizon), or "" when it has none.
func likely(it findings.Judged) string {
	switch {
	case it.MoreHi <= 0 || it.AtLeast:
		return ""
	case it.MoreOpen:
		return fmt.Sprintf(", likely %d or more", it.MoreLo)
	}
	return fmt.Sprintf(", likely %d–%d", it.MoreLo, it.MoreHi)
}

// judgedInterval is an item's estimate and interval in words.
func judgedInterval(it findings.Judged) string {
	switch {
	case it.Check != nil:
		return CheckMeasured(*it.Check)
	case !it.Samples:
		return "no samples yet"
	case it.HasInterval:
		return fmt.Sprintf("%.4f [%.4f, %.4f] ±%.2f%%, %d rounds", it.Ratio, it.Lo, it.Hi, 100*it.HalfWidth, it.N)
	}
	return fmt.Sprintf("%.4f, %d rounds (an interval needs %d)", it.Ratio, it.N, it.MinRounds)
}

// judgedVerdict is what a decided item was decided to be.
func judgedVerdict(it findings.Judged) string {
	if it.Check != nil {
		return string(it.Check.Verdict)
	}
	switch it.Decision {
	case findings.RatioWithin:
		if it.Excludes {
			return "within ±" + pct(it.Precision) + ", differs from 1"
		}
		return "within ±" + pct(it.Precision) + ", includes 1"
	case findings.RatioDiffers:
		return "differs from 1"
	case findings.RatioEqual:
		return "equal within ±" + pct(it.Precision)
	}
	return "open"
}

func pct(x float64) string { return strconv.FormatFloat(100*x, 'g', 3, 64) + "%" }

// cpuNote says what cpu-sec/op measures, wherever a verdict rests on it.
const cpuNote = "the CPU time (user + system, every thread of the benchmark process) of the timed loop per iteration, read inside the process while the benchmark timer runs, as the timer reads wall time (the testing package is patched at build time); it excludes process start-up, the test framework and time the process was not running (preempted), and includes the garbage collector's work during the loop on every thread (assists and background workers) and, for RunParallel, every goroutine's CPU time summed; a config whose testing package could not be patched says so at build time, and its value is the process's CPU time less a 2-iteration process's instead"

// sequentialText is how a run's sequential sampling ended, in words: a
// head line, a note on how samples were taken, one row (label, outcome)
// per check and compared ratio, the counted checks that did not take part
// (fixed), and a hint when wall time left some undecided.
type sequentialText struct {
	head, note string
	rows       [][2]string
	fixed      string
	hint       string
}

func sequentialWords(q *findings.Sequential) sequentialText {
	var t sequentialText
	d := q.Decide
	reason := map[store.StopReason]string{
		store.StopDecided:   "every check and comparison is decided",
		store.StopMaxRounds: fmt.Sprintf("reached --max-rounds %d", d.MaxRounds),
		store.StopBudget:    fmt.Sprintf("the budget %s is spent", d.Budget.Round(time.Second)),
	}[q.Stop.Reason]
	if reason == "" {
		reason = string(q.Stop.Reason)
	}
	alpha := d.Alpha
	if !(alpha > 0 && alpha < 1) {
		alpha = 0.05 // runs that did not record it decided at 0.05
	}
	t.head = fmt.Sprintf("sequential sampling stopped after round %d: %s (%s; anytime-valid confidence sequences, each compared ratio at 1 − α/m for its unit's m ratios, α = %g, the level sampling stopped on; a comparison table may decide more rows, by e-BH; compared ratios on %s; %d rounds flagged as noise bursts, kept)",
		q.Stop.Round, reason, q.Stop.Elapsed.Round(time.Second), alpha, d.Unit, q.Bursts)
	switch {
	case d.Unit == "cpu-sec/op":
		t.note = "(cpu-sec/op: " + cpuNote + ")"
	case d.Repeats > 1 && len(d.Chosen) > 0:
		t.note = fmt.Sprintf("(samples: after its first run each cell runs as back-to-back repetitions in one process, every repetition of every cell the same wall time, and the process's value of each unit is the median of its repetitions; %d repetitions a process at first, then as many as each comparison's variance and costs made best: %s; intervals are computed across rounds)", d.Repeats, chosenWords(d.Chosen))
	case d.Repeats > 1:
		t.note = fmt.Sprintf("(samples: after its first run each cell runs as %d back-to-back repetitions in one process, every repetition of every cell the same wall time; the process's value of each unit is the median of its repetitions; intervals are computed across rounds)", d.Repeats)
	default:
		t.note = "(samples: after its first run each cell runs at a fixed iteration count, one process a round; intervals are computed across rounds)"
	}
	undecided := false
	for _, it := range q.Items {
		if it.Decided {
			t.rows = append(t.rows, [2]string{it.Label, judgedVerdict(it) + ": " + judgedInterval(it)})
			continue
		}
		more := "more rounds needed: unknown"
		switch {
		case it.LeftOut:
			more = "left out for the budget, which could not hold the initial pass of every comparison (see Not applicable)"
		case it.More >= 0:
			cost := time.Duration(it.More) * q.Stop.CellCost * time.Duration(len(it.Cells))
			more = fmt.Sprintf("would need ≈%d more rounds (≈%s%s)", it.More, cost.Round(time.Second), likely(it))
			if it.AtLeast {
				more = fmt.Sprintf("would need at least %d more rounds (≥%s) before its first interval; too few rounds yet to estimate how many more", it.More, cost.Round(time.Second))
			}
		}
		t.rows = append(t.rows, [2]string{it.Label, "undecided: " + judgedInterval(it) + "; " + more})
		undecided = true
	}
	if len(q.Fixed) > 0 {
		t.fixed = fmt.Sprintf("%s: no confidence sequence (a value, correlation, knee or crossover check, or a ratio on a fallback interval), so neither kept sampling going nor ended it; the claims judge each at two looks, on the initial pass (rounds 1–%d) and on all its rounds.",
			strings.Join(q.Fixed, ", "), q.Initial)
	}
	if undecided && d.Unit == "sec/op" {
		t.hint = "wall time is inflated whenever another job takes the CPU; on a shared machine add --unit cpu-sec/op (the timed loop's CPU time per op, which preemption does not inflate; docs/units.md)"
	}
	return t
}

// WriteSequential prints how a run's sequential sampling ended, one line
// per check and compared ratio; nothing for a run sampled otherwise.
func WriteSequential(w io.Writer, f *findings.Run) error {
	if f.Sequential == nil {
		return nil
	}
	t := sequentialWords(f.Sequential)
	var b strings.Builder
	fmt.Fprintf(&b, "perflab: %s\n  %s\n", t.head, t.note)
	for _, r := range t.rows {
		fmt.Fprintf(&b, "  %-40s %s\n", r[0], r[1])
	}
	if t.fixed != "" {
		fmt.Fprintf(&b, "  %s\n", t.fixed)
	}
	if t.hint != "" {
		fmt.Fprintf(&b, "perflab: %s\n", t.hint)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func sequentialSection(f *findings.Run) *Section {
	if f.Sequential == nil {
		return nil
	}
	t := sequentialWords(f.Sequential)
	s := &Section{ID: "sequential", Title: "Sequential sampling"}
	s.Blocks = append(s.Blocks, para(t.head), para(t.note))
	tb := &Table{Head: []string{"check or comparison", "outcome"}}
	for _, r := range t.rows {
		tb.Rows = append(tb.Rows, Row{Cells: cells(r[0], r[1])})
	}
	s.Blocks = append(s.Blocks, Block{Table: tb})
	if t.fixed != "" {
		s.Blocks = append(s.Blocks, para(t.fixed))
	}
	if t.hint != "" {
		s.Blocks = append(s.Blocks, para(t.hint))
	}
	return s
}

// chosenWords says how many cells ran each number of repetitions.
func chosenWords(chosen map[int]int) string {
	ks := make([]int, 0, len(chosen))
	for k := range chosen {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	var parts []string
	for _, k := range ks {
		parts = append(parts, fmt.Sprintf("%d cells × %d", chosen[k], k))
	}
	return strings.Join(parts, ", ")
}

// LayoutChoiceLine says why a sequential run's layouts serve c.Per rounds
// from its initial pass on: the variance components the compared ratios
// showed and the costs the choice weighed (findings.ChoosePerLayout).
func LayoutChoiceLine(c findings.LayoutChoice) string {
	if c.Rows == 0 {
		return "the rounds so far cannot yet tell layout from noise (they need three layouts of two rounds or more)"
	}
	line := fmt.Sprintf("of %d open compared ratios' variance (medians), layout adds SD %.1f%% and a round's noise SD %.1f%%; a layout's links cost %s, a round %s; rounds a layout = √(links·noise² / (round·layout²)), within 1–8",
		c.Rows, 100*c.Layout, 100*c.Noise, c.Link.Round(time.Millisecond), c.Round.Round(time.Millisecond))
	if c.Clusters > 0 {
		line += fmt.Sprintf("; the %d clusters since the last choice were predicted to vary by SD %.1f%% and varied by %.1f%%", c.Clusters, 100*c.Predicted, 100*c.Realised)
	}
	return line
}
