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
		// Sequential: after its first process (ramp-up included) a cell
		// runs at a fixed count, 20ms + 40ms: 10s + 6s a round more, so
		// an initial pass of 8 rounds takes 52s; the rest of the budget
		// is left for the rows it leaves undecided.
		{"sequential rounds cost less after the first", Fit{Budget: 60 * time.Second, Cells: 100, Cell: 100 * ms, Overhead: 20 * ms, Bench: 40 * ms, Benchtime: "40ms", Sequential: true, Rounds: 8}, 8, "40ms", "", 52.0 / 60},
		// 46s: 16s to start 800 processes, 30s of the 36s the benchmarks
		// would take at 40ms: 5/6 of it.
		{"an initial pass that does not fit shortens benchtime", Fit{Budget: 46 * time.Second, Cells: 100, Cell: 100 * ms, Overhead: 20 * ms, Bench: 40 * ms, Benchtime: "40ms", Sequential: true, Rounds: 8}, 8, "33ms", "", 46.0 / 60},
		// 6 rounds need 10s + 5×6s = 40s; 28s leaves 28−12 = 16s for
		// the scalable 40−12 = 28s: scale 4/7 of 40ms.
		{"sequential shorter benchtime", Fit{Budget: 28 * time.Second, Cells: 100, Cell: 100 * ms, Overhead: 20 * ms, Bench: 40 * ms, Benchtime: "40ms", Sequential: true}, 6, "23ms", "", 28.0 / 60},
		{"too small names the whole budget", Fit{Budget: 5 * time.Second, Whole: 10 * time.Second, Cells: 100, Cell: 100 * ms, Overhead: 20 * ms, Benchtime: "40ms"}, 0, "", "10s (whose initial pass gets half, 5s)", 0},
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
