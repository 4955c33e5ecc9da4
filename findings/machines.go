package findings

import (
	"sort"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/claim"
	"github.com/perflab/perflab/store"
)

// Machines is what a run whose rounds came from several machines (shards)
// adds: the machines, and for each ratio check of the spec's claims the
// pooled ratio (every machine's clusters of rounds, the machine as a
// block: analysis.Options.AcrossMachines under the run's clusters,
// store.Plan.ClusterOf), each machine's ratio and whether the effect
// differs by machine.
type Machines struct {
	List   []MachineRounds
	Checks []MachineCheck
}

// MachineRounds is one machine and how many of the run's rounds it ran.
type MachineRounds struct {
	Name    string
	Machine store.Machine
	Rounds  int
}

// MachineCheck is one ratio check broken down by machine.
type MachineCheck struct {
	ClaimID, Unit, Label string
	analysis.MachinesRatio
}

// MachineName is how reports name a round's machine: its host id, cut to
// 12 characters.
func MachineName(m store.Machine) string {
	if m.HostID == "" {
		return "unrecorded"
	}
	if len(m.HostID) > 12 {
		return m.HostID[:12]
	}
	return m.HostID
}

func (f *Run) machines() *Machines {
	byName := map[string]*MachineRounds{}
	machineOf := map[int]string{}
	for _, r := range f.Rounds {
		n := MachineName(r.Machine)
		machineOf[r.Round] = n
		if byName[n] == nil {
			byName[n] = &MachineRounds{Name: n, Machine: r.Machine}
		}
		byName[n].Rounds++
	}
	if len(byName) < 2 {
		return nil
	}
	m := &Machines{}
	for _, mr := range byName {
		m.List = append(m.List, *mr)
	}
	sort.Slice(m.List, func(i, j int) bool { return m.List[i].Name < m.List[j].Name })
	if f.Spec == nil {
		return m
	}
	for _, c := range f.Spec.Claims {
		for _, ch := range c.Checks {
			if ch.Kind != "ratio" {
				continue
			}
			num, den, unit, label, err := claim.RatioCells(ch, f.Samples)
			if err != nil {
				continue
			}
			nr, dr := num.ByRound(), den.ByRound()
			if nr == nil || dr == nil {
				continue
			}
			m.Checks = append(m.Checks, MachineCheck{ClaimID: c.ID, Unit: unit, Label: label, MachinesRatio: f.Opt.AcrossMachines(nr, dr, machineOf)})
		}
	}
	return m
}
