package culprit

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perflab/perflab/bisect"
	"github.com/perflab/perflab/engine"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/revision"
)

// TestDefaults: options left zero take perflab bisect's defaults; a
// budget, and not a cap, bounds a step when MaxRounds is not given.
func TestDefaults(t *testing.T) {
	tests := []struct {
		name    string
		in      Options
		wantMax int
		wantLay string
		unit    string
	}{
		{"no budget", Options{}, defaultStepRounds, engine.LayoutRandom, engine.UnitSec},
		{"budget", Options{Budget: 8 * time.Minute}, budgetStepRounds, engine.LayoutRandom, engine.UnitSec},
		{"explicit cap kept", Options{Budget: 8 * time.Minute, MaxRounds: 40, Layout: engine.LayoutFixed}, 40, engine.LayoutFixed, engine.UnitSec},
		{"instructions", Options{Measure: "instructions"}, defaultStepRounds, engine.LayoutRandom, engine.UnitInstructions},
		{"unit kept", Options{Measure: "instructions", Unit: engine.UnitCPU}, defaultStepRounds, engine.LayoutRandom, engine.UnitCPU},
	}
	for _, tt := range tests {
		tt.in.CacheDir = t.TempDir()
		o, err := tt.in.withDefaults()
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if o.MaxRounds != tt.wantMax || o.Layout != tt.wantLay || o.Unit != tt.unit || o.Alpha != 0.05 || o.MinEffect != 0.02 || o.Benchtime != "100ms" || !slices.Equal(o.Packages, []string{"."}) {
			t.Errorf("%s: %+v; want at most %d rounds, layout %q, unit %q and the defaults", tt.name, o, tt.wantMax, tt.wantLay, tt.unit)
		}
	}
}

// TestOptionsRefused: options that make no bisect.
func TestOptionsRefused(t *testing.T) {
	for _, tt := range []struct {
		in  Options
		err string
	}{
		{Options{Alpha: 0.7}, "error rate 0.7"},
		{Options{MaxRounds: 7}, "at least 8"},
		{Options{Unit: "B/op"}, `unit "B/op"`},
		{Options{Unit: engine.UnitInstructions}, "needs instructions measured"},
		{Options{Measure: "joules"}, "joules"},
		{Options{Layout: "shuffled"}, "shuffled"},
	} {
		tt.in.CacheDir = t.TempDir()
		if _, err := Prepare(t.Context(), tt.in); err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("Prepare(%+v) = %v, want an error with %q", tt.in, err, tt.err)
		}
	}
}

// TestStepBudget shares what is left of the budget equally among the
// planned steps still to come, and starts no step with less than
// minStepBudget.
func TestStepBudget(t *testing.T) {
	tests := []struct {
		budget, spent time.Duration
		step          int
		want          time.Duration
		ok            bool
	}{
		{budget: 0, step: 1, want: 0, ok: true},
		{budget: 60 * time.Second, step: 1, want: 10 * time.Second, ok: true},
		{budget: 60 * time.Second, spent: 30 * time.Second, step: 4, want: 10 * time.Second, ok: true},
		{budget: 60 * time.Second, spent: 30 * time.Second, step: 8, want: 30 * time.Second, ok: true}, // past the planned steps: all that is left
		{budget: 60 * time.Second, spent: 58 * time.Second, step: 6, want: 2 * time.Second, ok: false},
	}
	for _, tc := range tests {
		s := &stepper{opt: Options{Budget: tc.budget}, planned: 6, start: time.Now().Add(-tc.spent)}
		got, ok := s.stepBudget(bisect.Step{Number: tc.step})
		if ok != tc.ok || got < tc.want-time.Second || got > tc.want+time.Second {
			t.Errorf("budget %v, %v spent, step %d: %v, %v; want about %v, %v", tc.budget, tc.spent, tc.step, got, ok, tc.want, tc.ok)
		}
	}
}

// TestTooSmall: a first step whose share cannot hold its first rounds
// names the budget that gives every step enough: the endpoints' need, and
// twice it for each midpoint step (once and a half under
// instructions/op), rounded up to a minute.
func TestTooSmall(t *testing.T) {
	tests := []struct {
		unit string
		want string
	}{
		{engine.UnitSec, "--budget 19m0s or more"},          // 1m40s + 5 × 3m20s = 18m20s
		{engine.UnitInstructions, "--budget 15m0s or more"}, // 1m40s + 5 × 2m30s = 14m10s
	}
	for _, tc := range tests {
		s := &stepper{opt: Options{Budget: 5 * time.Minute}, planned: 6, start: time.Now(), history: make([]revision.CommitInfo, 42), rule: findings.BisectRule{Unit: tc.unit}}
		err := s.tooSmall(bisect.Step{Number: 1, Kind: bisect.Endpoints}, 50*time.Second, 100*time.Second)
		if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "step 1 gets 50s of --budget 5m0s") || !strings.Contains(err.Error(), "6 steps a search of 41 commits") {
			t.Errorf("%s: %v; want %q", tc.unit, err, tc.want)
		}
	}
}

// TestFurtherBudget: an undecided step goes on with shares as large as
// its first, within what is left of the budget, and stops when less than
// minStepBudget is left.
func TestFurtherBudget(t *testing.T) {
	tests := []struct {
		spent, first, want time.Duration
		ok                 bool
	}{
		{spent: 30 * time.Second, first: 10 * time.Second, want: 10 * time.Second, ok: true}, // its share now is 5s
		{spent: 0, first: 5 * time.Second, want: 10 * time.Second, ok: true},                 // its share now is larger
		{spent: 52 * time.Second, first: 10 * time.Second, want: 8 * time.Second, ok: true},  // all that is left
		{spent: 57 * time.Second, first: 10 * time.Second, want: 3 * time.Second, ok: false},
	}
	for _, tc := range tests {
		s := &stepper{opt: Options{Budget: time.Minute}, planned: 6, start: time.Now().Add(-tc.spent)}
		got, ok := s.furtherBudget(bisect.Step{Number: 1}, tc.first)
		if ok != tc.ok || got < tc.want-time.Second || got > tc.want+time.Second {
			t.Errorf("%v spent, first share %v: %v, %v; want about %v, %v", tc.spent, tc.first, got, ok, tc.want, tc.ok)
		}
	}
}
