package claim

import (
	"fmt"
	"strconv"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/benchname"
	"github.com/perflab/perflab/profshare"
	"github.com/perflab/perflab/spec"
)

// CellProfile is what checks of kind "profile" read about one cell: the
// counts of its CPU profile (see package profshare). The report fills
// these from the run's per-cell CPU profile artifacts and passes them to
// Evaluate.
type CellProfile struct {
	Config string
	// Name is the cell's benchmark name. Its Procs is the GOMAXPROCS the
	// profiling pass ran at, or 0 when the pass ran several (-test.cpu with
	// more than one value), so that a selector on procs matches only a
	// profile that covers that GOMAXPROCS alone.
	Name   benchname.Name
	Counts profshare.Counts
	Err    error // why the profile could not be read; Counts is then zero
}

// matches reports whether every key=value pair of sel holds for the cell.
func (c CellProfile) matches(sel [][2]string) bool {
	for _, kv := range sel {
		var v string
		var ok bool
		switch kv[0] {
		case "config":
			v, ok = c.Config, true
		case "procs":
			v, ok = strconv.Itoa(c.Name.Procs), c.Name.Procs > 0
		default:
			v, ok = c.Name.Value(kv[0])
		}
		if !ok || v != kv[1] {
			return false
		}
	}
	return true
}

// selectProfile finds the one cell profile matching all selectors.
func selectProfile(profiles []CellProfile, sels ...string) (CellProfile, error) {
	var all [][2]string
	for _, s := range sels {
		kv, err := spec.ParseSelector(s)
		if err != nil {
			return CellProfile{}, err
		}
		all = append(all, kv...)
	}
	var found []CellProfile
	for _, p := range profiles {
		if p.matches(all) {
			found = append(found, p)
		}
	}
	switch len(found) {
	case 0:
		return CellProfile{}, fmt.Errorf("no profiled cell matches %s in this run", joinSel(sels))
	case 1:
		if err := found[0].Err; err != nil {
			return CellProfile{}, fmt.Errorf("the CPU profile of %s (config %s) could not be read: %v", found[0].Name.Full, found[0].Config, err)
		}
		return found[0], nil
	}
	return CellProfile{}, fmt.Errorf("%d profiled cells match %s (first %s in %s, %s in %s); narrow the selector",
		len(found), joinSel(sels), found[0].Name.Full, found[0].Config, found[1].Name.Full, found[1].Config)
}

// profile judges a check of kind "profile": the share named by Unit of the
// cell Num's CPU profile samples (or, with Den, that share minus the same
// share of cell Den) compared to Value with Op. The share's interval is
// Wilson's, the difference's Newcombe's, at opt.Confidence. The check is
// reproduced when the whole interval satisfies the relation, contradicted
// when the whole interval violates it, inconclusive otherwise; it is not
// testable when the run has no per-cell profile of the cells or a profile
// holds no samples; the check's note then follows the reason.
func profile(ch spec.Check, profiles []CellProfile, opt analysis.Options) CheckResult {
	kind := ch.Unit
	if kind == "" || kind == "sec/op" {
		kind = profshare.HeapLockShare
	}
	th := plainThreshold(ch)
	cr := th.check(ch, kind)
	if len(profiles) == 0 {
		cr.Verdict, cr.Why = NotTestable, Reason{Why: NoProfiles}
		return cr
	}
	share := func(sel string) (profshare.Share, error) {
		p, err := selectProfile(profiles, ch.Where, sel)
		if err != nil {
			return profshare.Share{}, err
		}
		s, err := p.Counts.Share(kind, opt.Confidence)
		if err == nil && s.Total == 0 {
			err = fmt.Errorf("the CPU profile of %s (config %s) holds no samples; raise the mode's profile_benchtime", p.Name.Full, p.Config)
		}
		return s, err
	}
	notTestable := func(err error) CheckResult {
		cr.Verdict, cr.Why = NotTestable, Reason{Why: ProfileFailed, Err: err.Error()}
		return cr
	}
	num, err := share(ch.Num)
	if err != nil {
		return notTestable(err)
	}
	var lo, hi float64
	if ch.Den == "" {
		cr.Estimate = num.Value
		lo, hi = num.Lo, num.Hi
		cr.Measure = Measure{How: ProfileShare, Share: num, Conf: opt.Confidence}
	} else {
		den, err := share(ch.Den)
		if err != nil {
			return notTestable(err)
		}
		d := profshare.NewDiff(num, den)
		cr.Estimate = d.Value
		lo, hi = d.Lo, d.Hi
		cr.Measure = Measure{How: ProfileDifference, Share: num, DenShare: den, Conf: opt.Confidence}
	}
	cr.Lo, cr.Hi = lo, hi
	cr.Verdict, cr.Why = th.judge(lo, hi)
	return cr
}
