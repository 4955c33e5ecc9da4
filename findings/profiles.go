package findings

import (
	"cmp"
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
// The run's stored plan records the list it used; the spec's mode is the
// fallback.
func profiledProcs(in *Input) int {
	cpu := []int(nil)
	if in.Run != nil && in.Run.Plan.CPU != nil {
		cpu = in.Run.Plan.CPU
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

// ProfileShare is a profiled cell's share of CPU samples in runtime lock
// frames: under the heap allocator (Heap) and anywhere (Lock), with Wilson
// intervals.
type ProfileShare struct {
	Heap, Lock profshare.Share
}

func shares(profiles []claim.CellProfile, conf float64) []ProfileShare {
	out := make([]ProfileShare, len(profiles))
	for i, p := range profiles {
		if p.Err != nil {
			continue
		}
		out[i].Heap, _ = p.Counts.Share(profshare.HeapLockShare, conf)
		out[i].Lock, _ = p.Counts.Share(profshare.LockShare, conf)
	}
	return out
}
