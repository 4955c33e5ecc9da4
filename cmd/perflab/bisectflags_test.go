package main

import (
	"testing"
	"time"

	"github.com/perflab/perflab/engine"
)

// TestBisectRoundsFollowBudget: without --max-rounds a bisect with a
// budget is bounded by the budget, not by the default cap; --layout
// defaults to random and an explicit fixed layout is kept.
func TestBisectRoundsFollowBudget(t *testing.T) {
	tests := []struct {
		name      string
		budget    time.Duration
		maxRounds int
		layout    string
		wantMax   int
		wantLay   string
	}{
		{"no budget", 0, 0, "", defaultStepRounds, engine.LayoutRandom},
		{"budget", 8 * time.Minute, 0, "", budgetStepRounds, engine.LayoutRandom},
		{"explicit cap kept", 8 * time.Minute, 40, "fixed", 40, engine.LayoutFixed},
	}
	for _, tt := range tests {
		f := &bisectFlags{regex: "Work"}
		f.alpha, f.budget, f.seq.maxRounds, f.seq.layout = 0.05, tt.budget, tt.maxRounds, tt.layout
		if err := f.check(); err != nil {
			t.Fatalf("%s: check: %v", tt.name, err)
		}
		if f.seq.maxRounds != tt.wantMax || f.seq.layout != tt.wantLay {
			t.Errorf("%s: max rounds %d, layout %q; want %d, %q", tt.name, f.seq.maxRounds, f.seq.layout, tt.wantMax, tt.wantLay)
		}
	}
}
