package report

import (
	"fmt"
	"sort"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/claim"
	"github.com/perflab/perflab/store"
)

// machineName is how a report names a round's machine.
func machineName(m store.Machine) string {
	if m.HostID == "" {
		return "this machine"
	}
	if len(m.HostID) > 12 {
		return m.HostID[:12]
	}
	return m.HostID
}

// machineOf maps each stored round to its machine's name.
func (in *Input) machineOf() map[int]string {
	out := make(map[int]string, len(in.Rounds))
	for _, r := range in.Rounds {
		out[r.Round] = machineName(r.Machine)
	}
	return out
}

// multiMachine reports whether the run's rounds came from several machines.
func (in *Input) multiMachine() bool {
	seen := map[string]bool{}
	for _, r := range in.Rounds {
		seen[machineName(r.Machine)] = true
	}
	return len(seen) > 1
}

// machines writes, for a run whose rounds came from several machines (a
// sharded run), the machines and, for each ratio check, the pooled ratio,
// the ratio on each machine and whether the effect differs by machine.
func (m *md) machines() {
	in := m.in
	if !in.multiMachine() {
		return
	}
	m.p("## Machines\n\nThe rounds ran on several machines, each round whole on one, so every paired ratio compares cells measured on the same machine; verdicts pool the per-round ratios over all machines (machine as a block).\n\n")
	type row struct {
		m      store.Machine
		rounds []int
	}
	rows := map[string]*row{}
	for _, r := range in.Rounds {
		name := machineName(r.Machine)
		if rows[name] == nil {
			rows[name] = &row{m: r.Machine}
		}
		rows[name].rounds = append(rows[name].rounds, r.Round)
	}
	names := make([]string, 0, len(rows))
	for n := range rows {
		names = append(names, n)
	}
	sort.Strings(names)
	m.p("| machine | shard | CPU | cores | rounds |\n|---|---|---|---|---|\n")
	for _, n := range names {
		r := rows[n]
		m.p("| %s | %d | %s | %d | %d |\n", n, r.m.Shard, esc(r.m.CPUModel), r.m.Cores, len(r.rounds))
	}
	m.p("\n")
	if in.Spec == nil {
		return
	}
	machineOf := in.machineOf()
	header := false
	for _, c := range in.Spec.Claims {
		for _, ch := range c.Checks {
			if ch.Kind != "ratio" {
				continue
			}
			num, den, unit, label, err := claim.RatioCells(ch, in.Samples)
			if err != nil {
				continue
			}
			nr, dr := num.ByRound(), den.ByRound()
			if nr == nil || dr == nil {
				continue
			}
			a := in.Opt.AcrossMachines(nr, dr, machineOf)
			if !header {
				m.p("Per-machine ratios of the claims' checks; heterogeneity is the Kruskal–Wallis test of the per-round log-ratios grouped by machine (p < %.2g: the effect differs by machine).\n\n", in.Opt.Alpha)
				m.p("| claim | %s | pooled | per machine | spread | heterogeneity |\n|---|---|---|---|---|---|\n", "check")
				header = true
			}
			per := ""
			for i, pm := range a.PerMachine {
				if i > 0 {
					per += "; "
				}
				per += fmt.Sprintf("%s %.3g (n=%d)", pm.Machine, pm.Ratio.Ratio, pm.N)
			}
			het := fmt.Sprintf("H=%.2f, p=%.3g", a.H, a.HeteroP)
			if a.Heterogeneous(in.Opt.Alpha) {
				het = "**differs by machine** (" + het + ")"
			}
			m.p("| %s | %s %s | %s | %s | %.3g× | %s |\n", c.ID, unit, esc(label), ratioText(a.Pooled), per, a.Spread, het)
		}
	}
	if header {
		m.p("\n")
	}
}

// ratioText is a ratio with its interval when it has one.
func ratioText(r analysis.Ratio) string {
	if !r.HasInterval() {
		return fmt.Sprintf("%.3g (n=%d)", r.Ratio, r.N)
	}
	return fmt.Sprintf("%.3g [%.3g, %.3g] (n=%d)", r.Ratio, r.Lo, r.Hi, r.N)
}
