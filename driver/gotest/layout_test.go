package gotest

import (
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestWithLayout(t *testing.T) {
	tests := []struct {
		name    string
		flags   []string
		goflags string
		want    []string
	}{
		{"no flags", nil, "", []string{"-ldflags=-w -randlayout=7"}},
		{"other flags kept", []string{"-tags=a"}, "", []string{"-tags=a", "-ldflags=-w -randlayout=7"}},
		{"ldflags= joined", []string{"-ldflags=-X main.v=1", "-tags=a"}, "", []string{"-ldflags=-X main.v=1 -w -randlayout=7", "-tags=a"}},
		{"--ldflags= joined", []string{"--ldflags=-s"}, "", []string{"-ldflags=-s -w -randlayout=7"}},
		{"ldflags as two args", []string{"-ldflags", "-X main.v=1"}, "", []string{"-ldflags", "-X main.v=1 -w -randlayout=7"}},
		{"last ldflags wins", []string{"-ldflags=-s", "-ldflags=-X a.b=c"}, "", []string{"-ldflags=-s", "-ldflags=-X a.b=c -w -randlayout=7"}},
		{"GOFLAGS ldflags carried over", []string{"-tags=a"}, "-X=main.v=2", []string{"-tags=a", "-ldflags=-X=main.v=2 -w -randlayout=7"}},
		{"command line beats GOFLAGS", []string{"-ldflags=-s"}, "-X=main.v=2", []string{"-ldflags=-s -w -randlayout=7"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.flags)
			got := withLayout(tt.flags, 7, tt.goflags)
			if !slices.Equal(got, tt.want) {
				t.Errorf("withLayout(%q, 7, %q) = %q, want %q", tt.flags, tt.goflags, got, tt.want)
			}
			if !slices.Equal(in, tt.flags) {
				t.Errorf("withLayout changed its input to %q", tt.flags)
			}
		})
	}
}

func TestGoflagsLdflags(t *testing.T) {
	t.Setenv("GOFLAGS", "-mod=mod -ldflags=-X=a.b=1")
	tests := []struct {
		env  []string
		want string
	}{
		{nil, "-X=a.b=1"},
		{[]string{"GOFLAGS=-mod=mod"}, ""},
		{[]string{"GOFLAGS=-ldflags=-s --ldflags=-w"}, "-w"},
		{[]string{"GOGC=50"}, "-X=a.b=1"},
	}
	for _, tt := range tests {
		if got := goflagsLdflags(tt.env); got != tt.want {
			t.Errorf("goflagsLdflags(%q) = %q, want %q", tt.env, got, tt.want)
		}
	}
}

// textSymbols lists a binary's function symbols in address order.
func textSymbols(t *testing.T, bin string) []string {
	t.Helper()
	f, err := elf.Open(bin)
	if err != nil {
		t.Skipf("not an ELF binary: %v", err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(syms, func(a, b elf.Symbol) int { return int(a.Value) - int(b.Value) })
	var names []string
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && strings.HasPrefix(s.Name, "example.com/tiny") {
			names = append(names, s.Name)
		}
	}
	return names
}

func TestLinkRelinks(t *testing.T) {
	if testing.Short() {
		t.Skip("links test binaries")
	}
	tb := tinyBinary(t)
	dir := t.TempDir()
	l, err := NewLinker(context.Background(), tb.build, filepath.Join(dir, "scratch"))
	if err != nil {
		t.Fatal(err)
	}
	a, b, a2 := filepath.Join(dir, "a.test"), filepath.Join(dir, "b.test"), filepath.Join(dir, "a2.test")
	for _, x := range []struct {
		seed int64
		out  string
	}{{11, a}, {12, b}, {11, a2}} {
		if err := l.Link(context.Background(), x.seed, x.out); err != nil {
			t.Fatalf("Link(%d): %v", x.seed, err)
		}
	}
	sa, sb, sa2 := textSymbols(t, a), textSymbols(t, b), textSymbols(t, a2)
	def := textSymbols(t, tb.bin)
	if len(sa) < 2 {
		t.Fatalf("the tiny package has %d functions in the binary; the test needs two to see an order", len(sa))
	}
	if !slices.Equal(sa, sa2) {
		t.Errorf("the same seed gave two layouts:\n%q\n%q", sa, sa2)
	}
	if slices.Equal(sa, sb) && slices.Equal(sa, def) {
		t.Errorf("seeds 11, 12 and the default layout put the functions in the same order %q", sa)
	}
	// A relinked binary runs its benchmarks like the default one.
	res, err := Run(context.Background(), Invocation{Binary: a, Dir: tb.dir, Bench: "^BenchmarkTiny$/^n=1$", Benchtime: "100x"})
	if err != nil || len(res) == 0 {
		t.Fatalf("running the relinked binary: %v (%d results)", err, len(res))
	}
	if err := l.Link(context.Background(), 0, filepath.Join(dir, "zero.test")); err == nil {
		t.Error("Link with seed 0 succeeded; it is the default layout and must be refused")
	}
}

// TestLinkWithoutRandLayout runs Link against a go command whose linker
// rejects -randlayout, as go1.22's does, and checks the error says so.
func TestLinkWithoutRandLayout(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a stand-in go command")
	}
	bin := t.TempDir()
	script := "#!/bin/sh\necho 'flag provided but not defined: -randlayout' >&2\necho 'usage: link [options] main.o' >&2\nexit 2\n"
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	l := &Linker{b: Build{Dir: t.TempDir(), Package: "."}}
	err := l.Link(context.Background(), 5, filepath.Join(t.TempDir(), "x.test"))
	if !errors.Is(err, ErrNoRandLayout) {
		t.Fatalf("Link = %v, want an error wrapping ErrNoRandLayout", err)
	}
	if !bytes.Contains([]byte(err.Error()), []byte("randlayout")) {
		t.Errorf("error %q does not name the flag", err)
	}
}
