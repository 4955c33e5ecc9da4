package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/findings"
)

// machinesSection lists the machines of a run whose rounds came from
// several machines, and each ratio check's pooled and per-machine ratios
// with the heterogeneity test.
func machinesSection(f *findings.Run) *Section {
	m := f.Machines
	if m == nil {
		return nil
	}
	s := &Section{ID: "machines", Title: "Machines"}
	s.Blocks = append(s.Blocks, Block{Text: Plain("The rounds ran on several machines, each round whole on one, so every paired ratio compares cells measured on the same machine; verdicts pool over all machines (machine as a block) the clusters of each machine's rounds, each the median of its rounds' ratios (rounds that shared a link layout on one machine count once; otherwise each round counts).")})
	t := &Table{Head: []string{"machine", "shard", "CPU", "cores", "rounds"}}
	for _, mr := range m.List {
		t.Rows = append(t.Rows, Row{Cells: cells(mr.Name, strconv.Itoa(mr.Machine.Shard), orDash(mr.Machine.CPUModel), strconv.Itoa(mr.Machine.Cores), strconv.Itoa(mr.Rounds))})
	}
	s.Blocks = append(s.Blocks, Block{Table: t})
	if len(m.Checks) == 0 {
		return s
	}
	s.Blocks = append(s.Blocks, Block{Text: Plain(fmt.Sprintf("Per-machine ratios of the claims' checks; heterogeneity is the Kruskal–Wallis test of the clusters' log-ratios grouped by machine (p < %.2g: the effect differs by machine); n counts clusters.", f.Opt.Alpha))})
	ct := &Table{Head: []string{"claim", "check", "pooled", "per machine", "spread", "heterogeneity"}}
	for _, c := range m.Checks {
		var per []string
		for _, pm := range c.PerMachine {
			per = append(per, fmt.Sprintf("%s %.3g (n=%d)", pm.Machine, pm.Ratio.Ratio, pm.N))
		}
		het := Cell{Text: Plain(fmt.Sprintf("H=%.2f, p=%.3g", c.H, c.HeteroP))}
		if c.Heterogeneous(f.Opt.Alpha) {
			het = Cell{Text: Plain(fmt.Sprintf("differs by machine (H=%.2f, p=%.3g)", c.H, c.HeteroP)), Strong: true}
		}
		ct.Rows = append(ct.Rows, Row{Cells: []Cell{cell(c.ClaimID), cell(c.Unit + " " + c.Label), cell(ratioText(c.Pooled)), cell(strings.Join(per, "; ")), cell(fmt.Sprintf("%.3g×", c.Spread)), het}})
	}
	s.Blocks = append(s.Blocks, Block{Table: ct})
	return s
}

// ratioText is a ratio with its interval when it has one.
func ratioText(r analysis.Ratio) string {
	if !r.HasInterval() {
		return fmt.Sprintf("%.3g (n=%d)", r.Ratio, r.N)
	}
	return fmt.Sprintf("%.3g [%.3g, %.3g] (n=%d)", r.Ratio, r.Lo, r.Hi, r.N)
}
