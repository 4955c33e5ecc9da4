// Package bisect searches a linear history for the commit at which a
// measurement changed. It is the search alone: commits are indexes 0…n
// (0 is GOOD, n is BAD, the others the first-parent commits between them,
// oldest first), and each comparison step is run by a [Stepper] the caller
// supplies, which measures and returns the step's typed [Outcome]. The
// package holds no git, no benchmarks and no statistics: it states the
// rule that turns a step's interval into a verdict ([DecideEnds],
// [DecideMid]) and how the error rate is split across steps
// ([StepAlpha]), and the caller's intervals decide.
//
// The search: first GOOD against BAD ([Endpoints]); when they differ by
// more than the minimum effect, the culprit lies in (lo, hi] = (0, n].
// Then, while hi − lo > 1, the commit nearest the middle of the range
// that is not known to be unbuildable is compared with both current ends
// ([Midpoint]); "like GOOD" moves lo to it, "like BAD" moves hi. A commit
// that does not build or lacks the benchmark is skipped (it costs no
// measurement and no error rate) and a neighbour is tried, as git bisect
// skip does. The search stops when the range holds one commit (found),
// when only skipped commits and hi remain, or at the first step that
// stays undecided: the range (lo, hi] is then what could not be separated.
//
// Package culprit runs the search over a git history (perflab bisect),
// measuring each step's commits as package ab compares builds. It is a
// package of its own because packages findings and report, which judge
// and word the steps, build on this one's types.
package bisect

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// Kind is what a step compares.
type Kind string

// Kinds of step.
const (
	Endpoints Kind = "endpoints" // GOOD against BAD
	Midpoint  Kind = "midpoint"  // a commit between lo and hi against both
)

// Verdict is a step's outcome.
type Verdict string

// Verdicts. An Endpoints step is Differ, Same or Undecided; a Midpoint
// step LikeGood, LikeBad, Undecided or Skip.
const (
	Differ    Verdict = "differ"    // GOOD and BAD differ by more than the minimum effect
	Same      Verdict = "same"      // GOOD and BAD differ by less than the minimum effect
	LikeGood  Verdict = "like good" // the midpoint lies on GOOD's side of halfway
	LikeBad   Verdict = "like bad"  // the midpoint lies on BAD's side of halfway
	Undecided Verdict = "undecided" // the step's rounds could not tell
	Skip      Verdict = "skip"      // the midpoint does not build or lacks the benchmark: nothing measured
)

// Step is one comparison the search asks for.
type Step struct {
	// Number counts the steps that measure, from 1 (the endpoints); a
	// skipped commit does not use up a number, so the next candidate gets
	// the same one.
	Number int
	Kind   Kind
	// Lo and Hi are the current ends (Lo like GOOD, Hi like BAD); Mid is
	// the commit compared with them, or -1 for Endpoints.
	Lo, Mid, Hi int
	// Alpha is the step's share of the search's error rate: the step must
	// decide wrongly with probability at most Alpha ([StepAlpha]).
	Alpha float64
}

// Outcome is what a step found.
type Outcome struct {
	Verdict Verdict
	Why     Reason // for Skip and Undecided: what happened
}

// Stepper runs one step: it measures (or finds stored) rounds of the
// step's commits and returns its verdict. An error ends the search (an
// interrupted measurement, an endpoint that does not build); a commit
// that cannot be measured is an Outcome with Skip, not an error.
type Stepper interface {
	Step(ctx context.Context, s Step) (Outcome, error)
}

// Record is a step with its outcome.
type Record struct {
	Step
	Outcome
}

// Stop says how a search ended.
type Stop string

// Ends of a search.
const (
	Found           Stop = "found"               // the range holds one commit: the culprit
	NothingToBisect Stop = "nothing to bisect"   // GOOD and BAD do not differ by more than the minimum effect
	EndsUndecided   Stop = "endpoints undecided" // GOOD against BAD could not be decided
	StepUndecided   Stop = "undecided"           // a midpoint could not be decided
	OnlySkipped     Stop = "only skipped"        // the range holds only skipped commits besides hi
	Interrupted     Stop = "interrupted"         // the stepper returned an error
)

// Result is a search's course and end.
type Result struct {
	N       int     // commits after GOOD (the candidates 1…N)
	Alpha   float64 // the error rate split across the steps
	Planned int     // the steps a search without skips needs at most ([Planned])
	Records []Record
	// Lo and Hi bound the culprit: it is one of the commits Lo+1…Hi.
	Lo, Hi  int
	Skipped []int // the skipped commits between Lo and Hi, ascending
	Stop    Stop
}

// Culprit is the commit found, or -1 when the search did not narrow the
// range to one commit.
func (r Result) Culprit() int {
	if r.Stop == Found {
		return r.Hi
	}
	return -1
}

// Measured is the number of steps that measured (all but skips).
func (r Result) Measured() int {
	n := 0
	for _, rec := range r.Records {
		if rec.Verdict != Skip {
			n++
		}
	}
	return n
}

// Search runs the search over commits 0…n with error rate alpha. On an
// error from the stepper it returns the result so far (Stop Interrupted)
// with the error.
func Search(ctx context.Context, n int, alpha float64, st Stepper) (Result, error) {
	res := Result{N: n, Alpha: alpha, Planned: Planned(n), Lo: 0, Hi: n}
	if n < 1 {
		return res, errors.New("bisect: no commits between GOOD and BAD")
	}
	if !(alpha > 0 && alpha < 1) {
		return res, fmt.Errorf("bisect: error rate %v: want a level between 0 and 1", alpha)
	}
	number := 1
	run := func(kind Kind, mid int) (Outcome, error) {
		s := Step{Number: number, Kind: kind, Lo: res.Lo, Mid: mid, Hi: res.Hi, Alpha: StepAlpha(alpha, res.Planned, number)}
		out, err := st.Step(ctx, s)
		if err != nil {
			res.Stop = Interrupted
			return out, err
		}
		res.Records = append(res.Records, Record{Step: s, Outcome: out})
		if out.Verdict != Skip {
			number++
		}
		return out, nil
	}
	out, err := run(Endpoints, -1)
	if err != nil {
		return res, err
	}
	switch out.Verdict {
	case Differ:
	case Same:
		res.Stop = NothingToBisect
		return res, nil
	case Undecided:
		res.Stop = EndsUndecided
		return res, nil
	default:
		res.Stop = Interrupted
		return res, fmt.Errorf("bisect: the endpoints step returned %q; want %q, %q or %q", out.Verdict, Differ, Same, Undecided)
	}
	skipped := map[int]bool{}
	for {
		mid, ok := pick(res.Lo, res.Hi, skipped)
		if !ok {
			break
		}
		out, err := run(Midpoint, mid)
		if err != nil {
			res.Skipped = within(skipped, res.Lo, res.Hi)
			return res, err
		}
		switch out.Verdict {
		case Skip:
			skipped[mid] = true
		case LikeGood:
			res.Lo = mid
		case LikeBad:
			res.Hi = mid
		case Undecided:
			res.Stop = StepUndecided
			res.Skipped = within(skipped, res.Lo, res.Hi)
			return res, nil
		default:
			res.Stop = Interrupted
			return res, fmt.Errorf("bisect: a midpoint step returned %q; want %q, %q, %q or %q", out.Verdict, LikeGood, LikeBad, Undecided, Skip)
		}
	}
	res.Skipped = within(skipped, res.Lo, res.Hi)
	res.Stop = Found
	if res.Hi-res.Lo > 1 {
		res.Stop = OnlySkipped
	}
	return res, nil
}

// pick is the commit strictly between lo and hi, not skipped, nearest to
// the middle lo + ⌊(hi−lo)/2⌋; of two as near, the older.
func pick(lo, hi int, skipped map[int]bool) (int, bool) {
	middle := lo + (hi-lo)/2
	for d := 0; d < hi-lo; d++ {
		for _, m := range []int{middle - d, middle + d} {
			if m > lo && m < hi && !skipped[m] {
				return m, true
			}
		}
	}
	return 0, false
}

// within is the skipped commits strictly between lo and hi, ascending.
func within(skipped map[int]bool, lo, hi int) []int {
	var out []int
	for m := range skipped {
		if m > lo && m < hi {
			out = append(out, m)
		}
	}
	slices.Sort(out)
	return out
}
