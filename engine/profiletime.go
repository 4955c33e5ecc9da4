package engine

import (
	"time"

	"github.com/perflab/perflab/plan"
	"github.com/perflab/perflab/spec"
)

// Profiling time. A CPU profile samples at 100 Hz, so a pass needs about a
// second of benchmark time before its shares mean anything: by default
// each config's pass gets profileTarget, spread over its cells, each cell
// at least profileFloor, and with a --budget at most a tenth of it.
const (
	profileTarget = time.Second
	profileFloor  = 10 * time.Millisecond
)

// profileBenchtime returns the profiling pass's benchtime per benchmark:
// the mode's profile_benchtime when set, and otherwise one that gives each
// config's pass about profileTarget (bounded by a tenth of the budget).
func profileBenchtime(opt Options, p *plan.Plan, mode spec.Mode) string {
	if mode.ProfileBenchtime != "" {
		return mode.ProfileBenchtime
	}
	perConfig := map[string]int{}
	most := 1
	for _, c := range p.Cells {
		perConfig[c.Config]++
		most = max(most, perConfig[c.Config])
	}
	runs := most * max(1, len(mode.CPU))
	target := profileTarget
	if opt.Budget > 0 {
		// Two passes per config (profiles, then a trace at a tenth).
		configs := max(1, len(perConfig))
		target = min(target, opt.Budget/10/time.Duration(configs))
	}
	per := max(profileFloor, target/time.Duration(runs))
	return per.Round(time.Millisecond).String()
}

// profileSpan estimates one config's profiling pass in benchmark time.
func profileSpan(benchtime string, cells, ncpu int) time.Duration {
	return benchDuration(benchtime) * time.Duration(cells*max(1, ncpu))
}
