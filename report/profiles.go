package report

import (
	"cmp"
	"encoding/json"
	"slices"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/claim"
	"github.com/perflab/perflab/profshare"
)

// cellProfiles reads the run's per-cell CPU profiles (artifacts of kind
// "cpu" that name a cell) and counts their runtime-lock samples. A profile
// that cannot be read keeps its error, which the report and the claims
// show. Runs profiled per config have no per-cell profiles: nil.
func cellProfiles(in *Input) []claim.CellProfile {
	procs := profiledProcs(in)
	var out []claim.CellProfile
	for _, a := range in.Artifacts {
		if a.Kind != "cpu" || a.Cell == "" {
			continue
		}
		name := analysis.ParseName(a.Cell)
		name.Procs = procs
		c, err := profshare.ReadFile(a.Path)
		out = append(out, claim.CellProfile{Config: a.Config, Name: name, Counts: c, Err: err})
	}
	slices.SortStableFunc(out, func(a, b claim.CellProfile) int {
		return cmp.Or(cmp.Compare(a.Config, b.Config), analysis.CompareNames(a.Name.Full, b.Name.Full))
	})
	return out
}

// profiledProcs is the GOMAXPROCS the profiling pass ran at: the run's one
// -test.cpu value, or 0 when it ran several or none (the machine's default).
// The run's stored plan (its note) records the list it used; the spec's
// mode is the fallback.
func profiledProcs(in *Input) int {
	var plan struct {
		CPU []int `json:"cpu"`
	}
	cpu := []int(nil)
	if in.Run != nil && json.Unmarshal([]byte(in.Run.Note), &plan) == nil && plan.CPU != nil {
		cpu = plan.CPU
	} else if in.Spec != nil && in.Run != nil {
		if m, err := in.Spec.Mode(in.Run.Mode); err == nil {
			cpu = m.CPU
		}
	}
	if len(cpu) == 1 {
		return cpu[0]
	}
	return 0
}

// profileShares writes the "Profile shares" section: each profiled cell's
// share of CPU samples in runtime lock frames, with its interval.
func (m *md) profileShares() {
	if len(m.in.Profiles) == 0 {
		return
	}
	conf := m.in.Opt.Confidence
	m.p("## Profile shares\n\n")
	m.p("Share of each cell's CPU profile samples (from the profiling pass, not the timed runs) whose stack holds a runtime lock frame (`runtime.lock2` and friends): *heap lock* when the lock was taken under the heap allocator (`runtime.(*mheap)`, `(*mcentral)`, `(*mcache)`, `(*pageAlloc)`, the scavenger), *any lock* for every runtime lock. Intervals are %.0f%% Wilson intervals over the samples. A CPU profile sees only time on CPU: a thread asleep waiting for a lock is in the mutex profile, not here. `go doc github.com/perflab/perflab/profshare` defines the frames.\n\n", conf*100)
	m.p("| config | cell | samples | heap lock | any lock |\n|---|---|---|---|---|\n")
	for _, p := range m.in.Profiles {
		if p.Err != nil {
			m.p("| %s | %s | — | could not be read: %s | |\n", esc(p.Config), esc(p.Name.Full), esc(p.Err.Error()))
			continue
		}
		heap, _ := p.Counts.Share(profshare.HeapLockShare, conf)
		lock, _ := p.Counts.Share(profshare.LockShare, conf)
		m.p("| %s | %s | %d | %s | %s |\n", esc(p.Config), esc(p.Name.Full), p.Counts.Total, fmtShare(heap), fmtShare(lock))
	}
	m.p("\n")
}

// fmtShare formats a share as a percentage with its interval.
func fmtShare(s profshare.Share) string {
	if s.Total == 0 {
		return "—"
	}
	return fmtPct(s.Value) + " [" + fmtPct(s.Lo) + ", " + fmtPct(s.Hi) + "]"
}
