package engine

import (
	"bytes"
	"context"
	"strings"
	"testing"
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
