package report

import (
	"fmt"
	"math"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/driver/cachegrind"
	"github.com/perflab/perflab/findings"
)

// instructionsSection is the "Instructions per op" section: how they were
// counted, each comparison's paired ratio with its interval, and the
// functions whose counts changed most.
func instructionsSection(f *findings.Run) *Section {
	rows, problems := f.Instructions, f.InstructionProblems
	if len(rows) == 0 && len(problems) == 0 && !hasInstructions(f) {
		return nil
	}
	env := map[string]string{}
	for _, kv := range f.Env {
		env[kv.Key] = kv.Value
	}
	sec := &Section{ID: "instructions", Title: "Instructions per op (Cachegrind)"}
	sec.Blocks = append(sec.Blocks, para(fmt.Sprintf("Counted under %s: %s. Instruction counts do not see cache and memory stalls, branch mispredictions, contention, I/O or parallel speed-ups; multi-goroutine benchmarks ran serialised under valgrind (one thread at a time), so only their instruction counts, not their scaling, are meaningful here. Wall time (sec/op) was measured in the same rounds.",
		orDash(env["valgrind"]), orDash(env["instructions"]))))
	if len(rows) > 0 {
		sec.Blocks = append(sec.Blocks, para(fmt.Sprintf("Each ratio is paired within rounds, with its %.0f%% interval; ± is the interval's half-width on the log scale. %s", f.Opt.Confidence*100, analysis.PairedMethod)))
		t := &Table{Head: []string{"cell", "config", "comparison", "instructions/op", "ratio", "±"}}
		for _, p := range rows {
			r := p.Ratio
			ratio, hw, strong := "—", "—", false
			switch {
			case r.HasInterval():
				ratio = fmt.Sprintf("%.5g [%.5g, %.5g]", r.Ratio, r.Lo, r.Hi)
				hw = fmt.Sprintf("%.3f%%", 100*r.HalfWidth())
				strong = r.Excludes(1)
			case r.N > 0:
				ratio = fmt.Sprintf("%.5g (n=%d: no interval)", r.Ratio, r.N)
			}
			row := Row{Cells: cells(p.Name, p.Config, p.Label, fmtCount(p.Summary), ratio, hw)}
			row.Cells[4].Strong = strong
			t.Rows = append(t.Rows, row)
		}
		sec.Blocks = append(sec.Blocks, Block{Table: t})
	}
	for _, pr := range problems {
		sec.Blocks = append(sec.Blocks, Block{Text: Plain("Per-function counts could not be read: " + pr)})
	}
	wrote := false
	for _, p := range rows {
		d := p.Funcs
		if d == nil || len(d.Changes) == 0 {
			continue
		}
		if !wrote {
			sec.Blocks = append(sec.Blocks, para("Functions whose instructions changed most: per function, the median over rounds of its instructions per op (from the same two-count difference); share = the function's change ÷ the total change, signed."))
			wrote = true
		}
		sec.Blocks = append(sec.Blocks, Block{Text: Plain(fmt.Sprintf("%s (%s): %.6g → %.6g instructions/op", p.Name, p.Label, d.OldTotal, d.NewTotal))})
		t := &Table{Head: []string{"function", "old /op", "new /op", "Δ /op", "share"}}
		for _, c := range d.Changes {
			t.Rows = append(t.Rows, Row{Cells: []Cell{{Text: Inline{"", c.Func}}, cell(fmt.Sprintf("%.4g", c.Old)), cell(fmt.Sprintf("%.4g", c.New)), cell(fmt.Sprintf("%+.4g", c.Delta)), cell(fmtShare2(c.Share, *d))}})
		}
		sec.Blocks = append(sec.Blocks, Block{Table: t})
	}
	return sec
}

func fmtCount(s analysis.Summary) string {
	if math.IsNaN(s.Lo) || math.IsInf(s.Lo, 0) || math.IsInf(s.Hi, 0) {
		return fmt.Sprintf("%.6g", s.Center)
	}
	return fmt.Sprintf("%.6g [%.6g, %.6g]", s.Center, s.Lo, s.Hi)
}

// fmtShare2 shows a share of the total change; when the total change is
// below 0.1% of the total, a share means nothing.
func fmtShare2(share float64, d cachegrind.FuncDiff) string {
	if !cachegrind.TotalChanged(d) {
		return "— (total ≈ 0)"
	}
	return fmt.Sprintf("%.0f%%", 100*share)
}

func hasInstructions(f *findings.Run) bool {
	for _, s := range f.Samples {
		if s.Unit == cachegrind.UnitInstructions {
			return true
		}
	}
	return false
}
