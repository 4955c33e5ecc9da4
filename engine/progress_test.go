package engine

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// fakeTerminal is a progress writer that says it is a terminal.
type fakeTerminal struct{ bytes.Buffer }

func (*fakeTerminal) IsTerminal() bool { return true }

// TestProgressLines: on a terminal one status line updates in place and a
// summary ends it; with Verbose, or off a terminal, each round gets a line.
func TestProgressLines(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test binary")
	}
	cache := t.TempDir()
	tests := []struct {
		name      string
		tty, verb bool
		want, not []string
	}{
		{"terminal", true, false, []string{"\r\033[K[round 2/2 stored", "perflab: 2/2 rounds stored, 0 failed cell runs"}, []string{"perflab: round 1/2 stored"}},
		{"terminal -v", true, true, []string{"perflab: round 1/2 stored", "perflab: round 2/2 stored"}, []string{"rounds stored, 0 failed"}},
		{"log", false, false, []string{"perflab: round 1/2 stored", "perflab: round 2/2 stored"}, []string{"\r"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tinySpec(t)
			s.Configs = s.Configs[:1]
			var out interface {
				Write([]byte) (int, error)
				String() string
			} = new(bytes.Buffer)
			if tt.tty {
				out = new(fakeTerminal)
			}
			_, err := Run(context.Background(), Options{Spec: s, Mode: "quick", DB: openStore(t), ArtifactDir: t.TempDir(), CacheDir: cache,
				Seed: 1, Rounds: 2, NoProfile: true, NoiseRuns: 2, Progress: out, Verbose: tt.verb})
			if err != nil {
				t.Fatal(err)
			}
			got := out.String()
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("progress lacks %q:\n%q", w, got)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(got, w) {
					t.Errorf("progress has %q:\n%q", w, got)
				}
			}
		})
	}
}

// TestSeqProgress: without a terminal a sequential run's looks get a line
// at most every p.every, each under maxProgressLine characters and naming
// the open item nearest to being decided; with Verbose every look gets its
// full line.
func TestSeqProgress(t *testing.T) {
	long := strings.Repeat("BenchmarkVeryLongName/size=1024/variant=arena ", 6) + "(sec/op)"
	st := Status{Items: []Item{
		{Label: long, More: 900, Line: long + " new/old +1.00% ±16.75%, 24 rounds (≈900 more rounds, likely 138 or more)"},
		{Label: "BenchmarkNear (sec/op)", More: 12, Line: "BenchmarkNear (sec/op) new/old +4.0% ±5.1%"},
		{Label: "decided", Decided: true},
	}}
	var b bytes.Buffer
	s := &sequential{budget: 90 * time.Second, start: time.Now()}
	g := newGate(s.budget)
	if g.every != 9*time.Second {
		t.Fatalf("a 90s budget's lines come every %s, want 9s (a tenth)", g.every)
	}
	p := newSeqProgress(&b, false, s, g)
	g.every = 0
	for round := 1; round <= 50; round++ {
		p.look(round, st, 2, 6)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 50 {
		t.Fatalf("%d lines for 50 looks with no interval between lines", len(lines))
	}
	for _, l := range lines {
		if n := utf8.RuneCountInString(l); n > maxProgressLine {
			t.Errorf("line of %d characters (at most %d): %s", n, maxProgressLine, l)
		}
		if !strings.Contains(l, "2 of 3 open") || !strings.Contains(l, "nearest: BenchmarkNear (sec/op), ≈12 more rounds") {
			t.Errorf("line lacks the open count or the nearest item: %s", l)
		}
	}
	b.Reset()
	g.every, g.last = time.Hour, time.Now()
	for round := 1; round <= 50; round++ {
		p.look(round, st, 2, 6)
	}
	if b.Len() != 0 {
		t.Errorf("lines within the interval: %q", b.String())
	}
	b.Reset()
	v := newSeqProgress(&b, true, s, newGate(0))
	v.look(8, st, 2, 6)
	if !strings.Contains(b.String(), "after 8 rounds (") || !strings.Contains(b.String(), "±16.75%") {
		t.Errorf("a verbose look lacks the full line: %q", b.String())
	}
}
