package noisetest

import (
	"math"
	"path/filepath"
	"strings"
	"testing"
)

const corpusHeader = "# noisecorpus hog=quiet rounds=2 reps=2\nround,pos,variant,iters,rep1,rep2,cpu_ns,wall_ns\n"

func TestReadCorpus(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		procs   int
		wantErr string
	}{
		{"two rounds", corpusHeader + "1,0,a,10,100,101,2000,2100\n1,1,b,10,102,103,2000,2100\n2,0,b,10,102,104,2000,2100\n2,1,a,10,99,100,2000,2100\n", 4, ""},
		{"blank lines and a second comment", corpusHeader + "\n# more\n1,0,a,10,100,101,2000,2100\n", 1, ""},
		{"no header", "# only a comment\n", 0, "no header line"},
		{"wrong header", "round,variant\n", 0, "header"},
		{"short line", corpusHeader + "1,0,a,10,100,2000,2100\n", 0, "7 fields, want 8"},
		{"zero time", corpusHeader + "1,0,a,10,0,101,2000,2100\n", 0, "positive number"},
		{"NaN time", corpusHeader + "1,0,a,10,NaN,101,2000,2100\n", 0, "positive number"},
		{"no iterations", corpusHeader + "1,0,a,0,100,101,2000,2100\n", 0, "iters"},
		{"negative CPU", corpusHeader + "1,0,a,10,100,101,-5,2100\n", 0, "cpu_ns"},
		{"twice in a round", corpusHeader + "1,0,a,10,100,101,2000,2100\n1,1,a,10,100,101,2000,2100\n", 0, "v=a twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ReadCorpus(strings.NewReader(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Processes) != tt.procs {
				t.Errorf("%d processes, want %d", len(c.Processes), tt.procs)
			}
		})
	}
	c, _ := ReadCorpus(strings.NewReader(tests[0].in))
	d := c.LogRatios("b", "a", func(p Process) float64 { return p.Reps[0] })
	want := []float64{math.Log(102.0 / 100), math.Log(102.0 / 99)}
	if len(d) != 2 || math.Abs(d[0]-want[0]) > 1e-12 || math.Abs(d[1]-want[1]) > 1e-12 {
		t.Errorf("LogRatios = %v, want %v in round order", d, want)
	}
	if c.Settings != "noisecorpus hog=quiet rounds=2 reps=2" {
		t.Errorf("Settings = %q", c.Settings)
	}
}

// TestRecordedCorpus reads the five recordings: 200 rounds of a, b and c,
// five repetitions each.
func TestRecordedCorpus(t *testing.T) {
	for _, cond := range []string{"quiet", "noisy", "onecore", "membw", "bursts"} {
		c, err := LoadCorpus(filepath.Join("..", "..", "analysis", "testdata", "noise", cond+".csv.gz"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(c.Settings, "hog="+cond) {
			t.Errorf("%s: settings %q name another interference", cond, c.Settings)
		}
		if n := len(c.Rounds("b", "a")); n != 200 || len(c.Rounds("c", "a")) != 200 {
			t.Errorf("%s: %d rounds with a and b, want 200", cond, n)
		}
		for _, p := range c.Processes {
			if len(p.Reps) != 5 || p.Wall <= 0 || p.CPU <= 0 {
				t.Fatalf("%s: process %+v: want 5 repetitions and positive times", cond, p)
			}
		}
	}
}

func FuzzReadCorpus(f *testing.F) {
	f.Add(corpusHeader + "1,0,a,10,100,101,2000,2100\n1,1,b,10,102,103,2000,2100\n")
	f.Add("round,pos,variant,iters,rep1,cpu_ns,wall_ns\n1,0,a,1,1e3,0,0\n")
	f.Add("# x\n\n")
	f.Fuzz(func(t *testing.T, in string) {
		c, err := ReadCorpus(strings.NewReader(in))
		if err != nil {
			return
		}
		for _, p := range c.Processes {
			if p.Iters <= 0 || len(p.Reps) == 0 {
				t.Fatalf("accepted %+v", p)
			}
			for _, x := range p.Reps {
				if !(x > 0) || math.IsInf(x, 0) {
					t.Fatalf("accepted repetition time %v", x)
				}
			}
		}
		for _, d := range c.LogRatios("b", "a", func(p Process) float64 { return p.Reps[0] }) {
			if math.IsNaN(d) || math.IsInf(d, 0) {
				t.Fatalf("log-ratio %v from accepted input", d)
			}
		}
	})
}
