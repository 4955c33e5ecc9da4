package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestWrapLine(t *testing.T) {
	long := "perflab: " + strings.Repeat("word ", 40) + "end"
	for _, tc := range []struct {
		name, line string
		width      int
		want       []string
	}{
		{"short line", "perflab: done", 20, []string{"perflab: done"}},
		{"message", "perflab: one two three four", 16, []string{"perflab: one two", "  three four"}},
		{"indented note", "  (samples: one two three)", 14, []string{"  (samples:", "    one two", "    three)"}},
		{"table row", "BenchmarkX-2   1.0n ±2%   1.1n ±3%   +10%", 20, []string{"BenchmarkX-2   1.0n ±2%   1.1n ±3%   +10%"}},
		{"indented list row", "  new/old BenchmarkX (sec/op) undecided", 20, []string{"  new/old BenchmarkX (sec/op) undecided"}},
		{"a word longer than the width stays whole", "perflab: " + strings.Repeat("x", 30), 16, []string{"perflab:", "  " + strings.Repeat("x", 30)}},
		{"runes counted, not bytes", "perflab: ≈ × α ≈ × α", 20, []string{"perflab: ≈ × α ≈ × α"}},
		{"long", long, 160, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := wrapLine(tc.line, tc.width)
			if tc.want != nil && strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("wrapLine(%q, %d) = %q, want %q", tc.line, tc.width, got, tc.want)
			}
			if unwrap(got) != strings.TrimLeft(tc.line, " ") {
				t.Errorf("the wrapped lines %q do not join back into %q", got, tc.line)
			}
		})
	}
}

// unwrap joins wrapped lines back into one, as a reader of the log would.
func unwrap(lines []string) string {
	for i := range lines {
		lines[i] = strings.TrimLeft(lines[i], " ")
	}
	return strings.Join(lines, " ")
}

// TestWrapWriterRealLog writes a recorded log of "perflab ab" on bitset,
// in pieces that split lines, and checks that every message ends within
// the log width, that table rows pass unchanged, and that nothing is
// lost.
func TestWrapWriterRealLog(t *testing.T) {
	in, err := os.ReadFile("testdata/logwrap/ab-bitset.log")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	lw := &wrapWriter{w: &out, width: logWidth}
	for rest := in; len(rest) > 0; {
		n := min(97, len(rest))
		if _, err := lw.Write(rest[:n]); err != nil {
			t.Fatal(err)
		}
		rest = rest[n:]
	}
	lw.flush()
	long := 0
	for _, l := range strings.Split(string(in), "\n") {
		if utf8.RuneCountInString(l) > logWidth && strings.HasPrefix(strings.TrimLeft(l, " "), "perflab") {
			long++
		}
	}
	if long == 0 {
		t.Fatal("the recorded log has no message longer than the width: it tests nothing")
	}
	for _, l := range strings.Split(out.String(), "\n") {
		if utf8.RuneCountInString(l) > logWidth && strings.HasPrefix(strings.TrimLeft(l, " "), "perflab") {
			t.Errorf("a message line of %d runes is left: %.80s…", utf8.RuneCountInString(l), l)
		}
	}
	for _, l := range strings.Split(string(in), "\n") {
		if strings.HasPrefix(l, "  BenchmarkBitSet") && !strings.Contains(out.String(), l+"\n") {
			t.Errorf("the table row %q was changed", l)
		}
	}
	if got, want := strings.Join(strings.Fields(out.String()), " "), strings.Join(strings.Fields(string(in)), " "); got != want {
		t.Errorf("the wrapped log does not hold the same words as the original")
	}
}
