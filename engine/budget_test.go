package engine

import (
	"strings"
	"testing"
	"time"
)

func TestFitSolve(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name       string
		f          Fit
		rounds     int
		benchtime  string
		err        string
		maxMinutes float64
	}{
		{"roomy budget fills rounds", Fit{Budget: 10 * time.Minute, Cells: 100, Cell: 100 * ms, Overhead: 20 * ms, Benchtime: "40ms"}, 50, "40ms", "", 10},
		{"exact fit", Fit{Budget: 60 * time.Second, Cells: 100, Cell: 100 * ms, Overhead: 20 * ms, Benchtime: "40ms"}, 6, "40ms", "", 1},
		{"eight rounds", Fit{Budget: 85 * time.Second, Cells: 100, Cell: 100 * ms, Overhead: 20 * ms, Benchtime: "40ms", Profile: 4 * time.Second}, 8, "40ms", "", 85.0 / 60},
		{"shorter benchtime", Fit{Budget: 36 * time.Second, Cells: 100, Cell: 100 * ms, Overhead: 20 * ms, Benchtime: "40ms"}, 6, "20ms", "", 0.6},
		{"iteration counts scale", Fit{Budget: 36 * time.Second, Cells: 100, Cell: 100 * ms, Overhead: 20 * ms, Benchtime: "1000x"}, 6, "500x", "", 0.6},
		{"too small", Fit{Budget: 5 * time.Second, Cells: 100, Cell: 100 * ms, Overhead: 20 * ms, Benchtime: "40ms"}, 0, "", "too small", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rounds, bt, est, err := tt.f.Solve()
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rounds != tt.rounds || bt != tt.benchtime {
				t.Errorf("Solve = %d rounds at %s, want %d at %s", rounds, bt, tt.rounds, tt.benchtime)
			}
			if est > tt.f.Budget || est.Minutes() > tt.maxMinutes+1e-9 {
				t.Errorf("estimate %s exceeds the budget %s", est, tt.f.Budget)
			}
		})
	}
}

func TestScaleBenchtime(t *testing.T) {
	for _, tt := range []struct {
		in   string
		f    float64
		want string
	}{
		{"100ms", 0.5, "50ms"}, {"1s", 0.25, "250ms"}, {"2ms", 0.1, "1ms"}, {"1000x", 0.5, "500x"}, {"3x", 0.1, "1x"}, {"", 0.5, "500ms"},
	} {
		if got := scaleBenchtime(tt.in, tt.f); got != tt.want {
			t.Errorf("scaleBenchtime(%q, %g) = %q, want %q", tt.in, tt.f, got, tt.want)
		}
	}
}
