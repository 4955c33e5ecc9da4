package bisect

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// truth is a synthetic history: each commit's level (the measurement's
// true value), the commits that cannot be measured, and the steps whose
// rounds stay undecided. Its Step judges with the package's rules on
// zero-width intervals at the true values, so a search over it is the
// search over exact measurements.
type truth struct {
	level     []float64 // level of commits 0…n
	skip      map[int]bool
	undecided map[int]bool // midpoints whose step stays undecided
	endsOpen  bool         // the endpoints step stays undecided
	minEffect float64
	fail      int // the step number that returns an error (0: none)
	asked     []Step
}

func (tr *truth) Step(_ context.Context, s Step) (Outcome, error) {
	tr.asked = append(tr.asked, s)
	if tr.fail > 0 && s.Number == tr.fail {
		return Outcome{}, errors.New("interrupted")
	}
	if s.Kind == Endpoints {
		if tr.endsOpen {
			return Outcome{Verdict: Undecided, Why: Reason{Cause: BudgetSpent}}, nil
		}
		r := tr.level[s.Hi] / tr.level[s.Lo]
		return Outcome{Verdict: DecideEnds(r, r, tr.minEffect)}, nil
	}
	if tr.skip[s.Mid] {
		return Outcome{Verdict: Skip, Why: Reason{Cause: NotBuilt}}, nil
	}
	if tr.undecided[s.Mid] {
		return Outcome{Verdict: Undecided, Why: Reason{Cause: BudgetSpent}}, nil
	}
	c := tr.level[s.Mid] * tr.level[s.Mid] / (tr.level[s.Lo] * tr.level[s.Hi])
	return Outcome{Verdict: DecideMid(c, c, tr.level[len(tr.level)-1] > tr.level[0])}, nil
}

// step makes levels of n+1 commits: 1 before commit at, then f.
func step(n, at int, f float64) []float64 {
	l := make([]float64, n+1)
	for i := range l {
		l[i] = 1
		if i >= at {
			l[i] = f
		}
	}
	return l
}

func set(xs ...int) map[int]bool {
	m := map[int]bool{}
	for _, x := range xs {
		m[x] = true
	}
	return m
}

func TestSearch(t *testing.T) {
	tests := []struct {
		name      string
		tr        truth
		stop      Stop
		lo, hi    int
		skipped   []int
		maxSteps  int // measuring steps at most; 0: Planned(n)
		wantSteps int // measuring steps exactly, when > 0
	}{
		{name: "culprit in the middle", tr: truth{level: step(32, 17, 1.03)}, stop: Found, lo: 16, hi: 17},
		{name: "culprit is the first commit after GOOD", tr: truth{level: step(32, 1, 1.03)}, stop: Found, lo: 0, hi: 1},
		{name: "culprit is BAD", tr: truth{level: step(32, 32, 1.03)}, stop: Found, lo: 31, hi: 32},
		{name: "a speed-up", tr: truth{level: step(20, 7, 0.8)}, stop: Found, lo: 6, hi: 7},
		{name: "a range of one commit", tr: truth{level: step(1, 1, 1.5)}, stop: Found, lo: 0, hi: 1, wantSteps: 1},
		{name: "two commits, the second", tr: truth{level: step(2, 2, 1.5)}, stop: Found, lo: 1, hi: 2, wantSteps: 2},
		{name: "odd count, culprit at every position", tr: truth{level: step(7, 4, 2)}, stop: Found, lo: 3, hi: 4},
		{name: "no change", tr: truth{level: step(32, 1, 1.005), minEffect: 0.02}, stop: NothingToBisect, lo: 0, hi: 32, wantSteps: 1},
		{name: "endpoints undecided", tr: truth{level: step(32, 9, 1.5), endsOpen: true}, stop: EndsUndecided, lo: 0, hi: 32, wantSteps: 1},
		{name: "the middle does not build", tr: truth{level: step(32, 20, 1.03), skip: set(16)}, stop: Found, lo: 19, hi: 20},
		{name: "the parent of the culprit does not build", tr: truth{level: step(32, 17, 1.03), skip: set(16)}, stop: OnlySkipped, lo: 15, hi: 17, skipped: []int{16}},
		{name: "a run of unbuildable commits", tr: truth{level: step(32, 17, 1.03), skip: set(14, 15, 16, 17, 18)}, stop: OnlySkipped, lo: 13, hi: 19, skipped: []int{14, 15, 16, 17, 18}},
		{name: "the culprit does not build", tr: truth{level: step(16, 9, 1.2), skip: set(9)}, stop: OnlySkipped, lo: 8, hi: 10, skipped: []int{9}},
		{name: "nothing between the ends builds", tr: truth{level: step(4, 2, 1.2), skip: set(1, 2, 3)}, stop: OnlySkipped, lo: 0, hi: 4, skipped: []int{1, 2, 3}, wantSteps: 1},
		{name: "an undecided midpoint", tr: truth{level: step(32, 5, 1.1), undecided: set(8)}, stop: StepUndecided, lo: 0, hi: 16},
		{name: "an undecided midpoint after a skip", tr: truth{level: step(32, 5, 1.1), skip: set(16), undecided: set(15)}, stop: StepUndecided, lo: 0, hi: 32, skipped: []int{16}, wantSteps: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := tc.tr
			n := len(tr.level) - 1
			res, err := Search(context.Background(), n, 0.05, &tr)
			if err != nil {
				t.Fatal(err)
			}
			if res.Stop != tc.stop || res.Lo != tc.lo || res.Hi != tc.hi || !slices.Equal(res.Skipped, tc.skipped) {
				t.Fatalf("search ended %q with (%d, %d] skipped %v; want %q with (%d, %d] skipped %v\n%s",
					res.Stop, res.Lo, res.Hi, res.Skipped, tc.stop, tc.lo, tc.hi, tc.skipped, course(res))
			}
			if want := map[bool]int{true: tc.hi, false: -1}[tc.stop == Found]; res.Culprit() != want {
				t.Errorf("culprit %d, want %d", res.Culprit(), want)
			}
			limit := cmpOr(tc.maxSteps, Planned(n)+len(tc.tr.skip))
			if res.Measured() > limit || tc.wantSteps > 0 && res.Measured() != tc.wantSteps {
				t.Errorf("%d measuring steps; want %d (at most %d)\n%s", res.Measured(), tc.wantSteps, limit, course(res))
			}
			checkSteps(t, res)
		})
	}
}

// checkSteps checks what every search must satisfy: the steps' numbers
// count measuring steps, each midpoint lies strictly inside its ends and
// the shares of α add up to at most α.
func checkSteps(t *testing.T, res Result) {
	t.Helper()
	number, sum := 1, 0.0
	for _, r := range res.Records {
		if r.Number != number {
			t.Errorf("step %+v numbered %d, want %d", r.Step, r.Number, number)
		}
		if r.Kind == Midpoint && !(r.Lo < r.Mid && r.Mid < r.Hi) {
			t.Errorf("midpoint %d outside its ends (%d, %d)", r.Mid, r.Lo, r.Hi)
		}
		if r.Verdict != Skip {
			number++
			sum += r.Alpha
		}
	}
	if sum > res.Alpha {
		t.Errorf("the steps' shares of α add up to %v > %v", sum, res.Alpha)
	}
}

func course(res Result) string {
	var b strings.Builder
	for _, r := range res.Records {
		fmt.Fprintf(&b, "  step %d %s (%d, %d, %d): %s\n", r.Number, r.Kind, r.Lo, r.Mid, r.Hi, r.Verdict)
	}
	return b.String()
}

func cmpOr(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

// TestSearchEveryPosition finds a culprit at every position of histories
// of 1 to 40 commits, in at most Planned(n) steps, and with random
// unbuildable commits names a range that holds the culprit.
func TestSearchEveryPosition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 1; n <= 40; n++ {
		for at := 1; at <= n; at++ {
			tr := truth{level: step(n, at, 1.03)}
			res, err := Search(context.Background(), n, 0.05, &tr)
			if err != nil || res.Culprit() != at || res.Measured() > Planned(n) {
				t.Fatalf("n=%d culprit %d: found %d in %d steps (planned %d), %v\n%s", n, at, res.Culprit(), res.Measured(), Planned(n), err, course(res))
			}
			tr = truth{level: step(n, at, 1.03), skip: map[int]bool{}}
			for m := 1; m < n; m++ {
				if rng.IntN(4) == 0 {
					tr.skip[m] = true
				}
			}
			res, err = Search(context.Background(), n, 0.05, &tr)
			if err != nil || at <= res.Lo || at > res.Hi {
				t.Fatalf("n=%d culprit %d skip %v: range (%d, %d], %v\n%s", n, at, tr.skip, res.Lo, res.Hi, err, course(res))
			}
			if res.Stop == Found && res.Hi != at {
				t.Fatalf("n=%d: found %d, want %d", n, res.Hi, at)
			}
			for m := res.Lo + 1; m < res.Hi; m++ {
				if !tr.skip[m] {
					t.Fatalf("n=%d: range (%d, %d] holds %d, which builds", n, res.Lo, res.Hi, m)
				}
			}
			checkSteps(t, res)
		}
	}
}

func TestSearchErrors(t *testing.T) {
	tr := truth{level: step(8, 3, 2), fail: 2}
	res, err := Search(context.Background(), 8, 0.05, &tr)
	if err == nil || res.Stop != Interrupted || len(res.Records) != 1 || res.Lo != 0 || res.Hi != 8 {
		t.Errorf("a failing second step: %+v, %v", res, err)
	}
	tr = truth{level: step(8, 3, 2), fail: 1}
	if res, err := Search(context.Background(), 8, 0.05, &tr); err == nil || res.Stop != Interrupted || len(res.Records) != 0 {
		t.Errorf("a failing first step: %+v, %v", res, err)
	}
	if _, err := Search(context.Background(), 0, 0.05, &truth{}); err == nil {
		t.Error("an empty history was searched")
	}
	if _, err := Search(context.Background(), 4, 0, &truth{}); err == nil {
		t.Error("α = 0 was accepted")
	}
	bad := stepFunc(func(s Step) Outcome { return Outcome{Verdict: LikeBad} })
	if _, err := Search(context.Background(), 4, 0.05, bad); err == nil || !strings.Contains(err.Error(), "endpoints step returned") {
		t.Errorf("an endpoints step judged like a midpoint: %v", err)
	}
}

type stepFunc func(Step) Outcome

func (f stepFunc) Step(_ context.Context, s Step) (Outcome, error) { return f(s), nil }

func TestPlanned(t *testing.T) {
	for _, tc := range []struct{ n, want int }{{1, 1}, {2, 2}, {3, 3}, {4, 3}, {5, 4}, {8, 4}, {9, 5}, {32, 6}, {33, 7}, {1000, 11}} {
		if got := Planned(tc.n); got != tc.want {
			t.Errorf("Planned(%d) = %d, want 1 + ⌈log₂ %d⌉ = %d", tc.n, got, tc.n, tc.want)
		}
	}
}

func TestStepAlpha(t *testing.T) {
	for _, p := range []int{1, 3, 6, 11} {
		sum := 0.0
		for k := 1; k <= 200; k++ {
			a := StepAlpha(0.05, p, k)
			if k <= p && math.Abs(a-0.05/float64(p+1)) > 1e-15 {
				t.Errorf("planned %d step %d: α_k = %v, want α/(p+1)", p, k, a)
			}
			sum += a
		}
		if sum > 0.05*(1+1e-12) || sum < 0.05*(1-1e-9) {
			t.Errorf("planned %d: 200 steps' shares add up to %v; want α = 0.05 at most, and nearly all of it", p, sum)
		}
	}
	if c := Confidence(0.01); math.Abs(c-0.98) > 1e-12 {
		t.Errorf("Confidence(0.01) = %v, want 0.98", c)
	}
}

func TestDecide(t *testing.T) {
	nan := math.NaN()
	ends := []struct {
		lo, hi float64
		want   Verdict
	}{
		{1.025, 1.04, Differ},
		{0.90, 0.97, Differ},
		{0.99, 1.01, Same},
		{1 / 1.02, 1.02, Same},
		{1.01, 1.03, Undecided},
		{0.97, 1.03, Undecided},
		{nan, nan, Undecided},
	}
	for _, tc := range ends {
		if got := DecideEnds(tc.lo, tc.hi, 0.02); got != tc.want {
			t.Errorf("DecideEnds([%v, %v], 2%%) = %q, want %q", tc.lo, tc.hi, got, tc.want)
		}
	}
	mids := []struct {
		lo, hi float64
		up     bool
		want   Verdict
	}{
		{1.01, 1.05, true, LikeBad},
		{0.95, 0.99, true, LikeGood},
		{1.01, 1.05, false, LikeGood},
		{0.95, 0.99, false, LikeBad},
		{0.99, 1.01, true, Undecided},
		{nan, nan, true, Undecided},
	}
	for _, tc := range mids {
		if got := DecideMid(tc.lo, tc.hi, tc.up); got != tc.want {
			t.Errorf("DecideMid([%v, %v], up %v) = %q, want %q", tc.lo, tc.hi, tc.up, got, tc.want)
		}
	}
}
