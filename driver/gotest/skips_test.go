package gotest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// mixedSkips is what testdata/skips/mixedmod's benchmarks skip with, in
// the order they run (testdata/skips/mixed.txt is its -test.v output).
var mixedSkips = []Skip{
	{"BenchmarkTopSkip", "needs /usr/share/dict/words: open: no such file"},
	{"BenchmarkNoReason", ""},
	{"BenchmarkLogged", "two lines"},
	{"BenchmarkSubs/n=2", "n=2 unsupported"},
	{"BenchmarkSubs/deep/x_y", "deep skip"},
	{"BenchmarkAllSubsSkip/a", "sub a"},
	{"BenchmarkAllSubsSkip/b", "sub b"},
	{"BenchmarkParentSkipAfterSub", "parent gives up"},
}

func TestParseSkips(t *testing.T) {
	words := "skipping benchmark: open /usr/share/dict/words: no such file or directory"
	tests := []struct {
		name, file, out string // file in testdata/skips, or out
		want            []Skip
	}{
		{name: "snappy v0.0.4 without /usr/share/dict/words or its testdata", file: "snappy-v0.0.4.txt", want: []Skip{
			{"BenchmarkWordsDecode1e1", words}, {"BenchmarkWordsDecode1e2", words},
			{"BenchmarkWordsEncode1e1", words}, {"BenchmarkWordsEncode1e2", words},
			{"Benchmark_UFlat0", "test data not found; skipping benchmark without the -download flag"},
		}},
		{name: "top-level, nested, unexplained, multi-line, after sub-benchmarks", file: "mixed.txt", want: mixedSkips},
		{name: "a test's message follows its SKIP line", out: "--- SKIP: TestX (0.00s)\n    x_test.go:9: later message\n", want: []Skip{{"TestX", "later message"}}},
		{name: "a log entry before the benchmark started is not its reason", out: "    x_test.go:1: stray\nBenchmarkA\n--- SKIP: BenchmarkA\n", want: []Skip{{"BenchmarkA", ""}}},
		{name: "the same skip printed twice is one skip", out: "BenchmarkA\n    a_test.go:3: why\n--- SKIP: BenchmarkA\n--- SKIP: BenchmarkA\n", want: []Skip{{"BenchmarkA", "why"}}},
		{name: "CRLF line ends", out: "BenchmarkA\r\n    a_test.go:3: why\r\n--- SKIP: BenchmarkA\r\n", want: []Skip{{"BenchmarkA", "why"}}},
		{name: "no skips", out: "BenchmarkA   \t1\t5 ns/op\nPASS\n"},
		{name: "a bare SKIP line", out: "--- SKIP: \n"},
		{name: "empty", out: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := []byte(tt.out)
			if tt.file != "" {
				var err error
				if out, err = os.ReadFile(filepath.Join("testdata", "skips", tt.file)); err != nil {
					t.Fatal(err)
				}
			}
			if got := ParseSkips(out); !slices.Equal(got, tt.want) {
				t.Errorf("ParseSkips =\n  %q\nwant\n  %q", got, tt.want)
			}
		})
	}
}

func TestGroupSkips(t *testing.T) {
	got := GroupSkips([]Skip{{"BenchmarkA", "x"}, {"BenchmarkB", ""}, {"BenchmarkC", "x"}})
	want := []SkipGroup{{"x", []string{"BenchmarkA", "BenchmarkC"}}, {"", []string{"BenchmarkB"}}}
	if len(got) != len(want) {
		t.Fatalf("GroupSkips = %q, want %q", got, want)
	}
	for i := range got {
		if got[i].Reason != want[i].Reason || !slices.Equal(got[i].Names, want[i].Names) {
			t.Errorf("group %d = %q, want %q", i, got[i], want[i])
		}
	}
}

// FuzzParseSkips: whatever the output, ParseSkips does not panic and
// returns only benchmarks named on a "--- SKIP:" line, each once, with a
// one-line reason; and a skip written as go test writes it is read back
// with its message.
func FuzzParseSkips(f *testing.F) {
	for _, file := range []string{"snappy-v0.0.4.txt", "mixed.txt"} {
		data, err := os.ReadFile(filepath.Join("testdata", "skips", file))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data), "BenchmarkX/n=1", "needs a file")
	}
	f.Add("--- SKIP: \n--- SKIP:\t\n    a.go:1:\n", "Benchmark", "two\nlines")
	f.Add("\n", "BenchmarkA b", "")
	f.Fuzz(func(t *testing.T, out, name, reason string) {
		seen := map[string]bool{}
		for _, s := range ParseSkips([]byte(out)) {
			if s.Name == "" || seen[s.Name] || strings.ContainsAny(s.Reason, "\r\n") {
				t.Fatalf("ParseSkips returned %q", s)
			}
			seen[s.Name] = true
			if !strings.Contains(out, "--- SKIP: ") || !strings.Contains(out, s.Name) {
				t.Fatalf("ParseSkips returned %q, which no SKIP line names", s)
			}
		}

		// One benchmark skipping as go test prints it: its name, the
		// message's lines (the first after file:line, the rest indented
		// further), the SKIP line.
		name = "Benchmark" + strings.Map(func(r rune) rune {
			if unicode.IsSpace(r) || !unicode.IsPrint(r) {
				return '_'
			}
			return r
		}, name)
		var lines []string
		for _, l := range strings.Split(reason, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				lines = append(lines, l)
			}
		}
		if len(lines) > 0 && utf8.ValidString(reason) && (!slices.ContainsFunc([]rune(strings.Join(lines, "")), func(r rune) bool { return !unicode.IsPrint(r) && !unicode.IsSpace(r) })) {
			var b strings.Builder
			b.WriteString(name + "\n    x_test.go:12: " + lines[0] + "\n")
			for _, l := range lines[1:] {
				b.WriteString("        " + l + "\n")
			}
			b.WriteString("--- SKIP: " + name + "\nPASS\n")
			want := []Skip{{name, strings.Join(strings.Fields(strings.Join(lines, " ")), " ")}}
			got := ParseSkips([]byte(b.String()))
			if len(got) == 1 {
				got[0].Reason = strings.Join(strings.Fields(got[0].Reason), " ")
			}
			if !slices.Equal(got, want) {
				t.Fatalf("ParseSkips(%q) = %q, want %q", b.String(), got, want)
			}
		}
	})
}

// mixedBinary compiles testdata/skips/mixedmod.
func mixedBinary(t *testing.T) (bin, dir string) {
	t.Helper()
	needGo(t)
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	dir = t.TempDir()
	for _, f := range []string{"go.mod", "x_test.go"} {
		data, err := os.ReadFile(filepath.Join("testdata", "skips", "mixedmod", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin, _, err := Compile(context.Background(), Build{Dir: dir, Package: ".", CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return bin, dir
}

// TestListLeavesAndSkips lists a module whose benchmarks skip in every way
// go test prints, and runs selections of it that all skip.
func TestListLeavesAndSkips(t *testing.T) {
	bin, dir := mixedBinary(t)
	l, err := ListLeaves(context.Background(), Invocation{Binary: bin, Dir: dir, Bench: "."})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"BenchmarkPlain", "BenchmarkSubs/n=1", "BenchmarkSubs/deep/x_y#01", "BenchmarkParentSkipAfterSub/a"}; !slices.Equal(l.Ran, want) {
		t.Errorf("ran %q, want %q", l.Ran, want)
	}
	if !slices.Equal(l.Skipped, mixedSkips) {
		t.Errorf("skipped\n  %q\nwant\n  %q", l.Skipped, mixedSkips)
	}

	// Every benchmark of the selection skips: Run says so, with every
	// message, not only the first in the last lines of output.
	_, err = Run(context.Background(), Invocation{Binary: bin, Dir: dir, Bench: "^Benchmark(TopSkip|NoReason|Logged|AllSubsSkip)$", Benchtime: "1x"})
	var re *RunError
	if !errors.As(err, &re) || !re.Skipped {
		t.Fatalf("Run of skipping benchmarks: %v, want a skip", err)
	}
	if want := append(mixedSkips[:3:3], mixedSkips[5:7]...); !slices.Equal(re.Skips, want) {
		t.Errorf("Skips = %q, want %q", re.Skips, want)
	}
	for _, s := range []string{"needs /usr/share/dict/words", "BenchmarkNoReason: (no reason given)", "two lines", "sub a", "sub b"} {
		if !strings.Contains(re.Reason, s) {
			t.Errorf("Reason %q does not say %q", re.Reason, s)
		}
	}
	_, err = Run(context.Background(), Invocation{Binary: bin, Dir: dir, Bench: "^BenchmarkTopSkip$", Benchtime: "1x"})
	if !errors.As(err, &re) || re.Reason != "skipped: needs /usr/share/dict/words: open: no such file" {
		t.Errorf("Run of one skipping benchmark: %v", err)
	}
}
