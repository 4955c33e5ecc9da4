package discover

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestParsePackages reads go list's output for zap v1.28.0 (./... and a
// directory that does not exist, the module directory written MODDIR).
func TestParsePackages(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "golist", "zap.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name     string
		patterns []string
		drop     string // an entry's pattern removed from the output
		paths    []string
		err      string
	}{
		{name: "pattern and missing dir", patterns: []string{"./...", "./nosuch"}, err: "directory not found"},
		{name: "pattern", patterns: []string{"./..."}, drop: "./nosuch",
			paths: []string{".", "./buffer", "./internal", "./internal/bufferpool"}},
		{name: "unmatched pattern", patterns: []string{"./...", "./x/..."}, drop: "./nosuch", err: `pattern "./x/..." matches no package`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := data
			if tt.drop != "" {
				i := bytes.LastIndex(in, []byte("\n{"))
				in = in[:i+1]
			}
			pkgs, err := parsePackages("MODDIR", in, tt.patterns)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var paths []string
			for _, p := range pkgs {
				paths = append(paths, p.Path)
			}
			if !slices.Equal(paths[:len(tt.paths)], tt.paths) {
				t.Errorf("paths = %v, want them to begin %v", paths, tt.paths)
			}
			byPath := map[string]Package{}
			for _, p := range pkgs {
				byPath[p.Path] = p
			}
			if p := byPath["./zapcore"]; !p.HasTests || p.ImportPath != "go.uber.org/zap/zapcore" {
				t.Errorf("./zapcore = %+v, want go.uber.org/zap/zapcore with tests", p)
			}
			if p, ok := byPath["./internal/readme"]; !ok || p.ImportPath != "go.uber.org/zap/internal/readme" {
				t.Errorf("./internal/readme = %+v, %v; want it listed", p, ok)
			}
		})
	}
}

// TestPackagesGoList resolves patterns in this module with go list.
func TestPackagesGoList(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	pkgs, err := Packages(context.Background(), "..", []string{"./discover", "./driver/..."})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, p := range pkgs {
		paths = append(paths, p.Path)
	}
	if !slices.Contains(paths, "./discover") || !slices.Contains(paths, "./driver/gotest") || slices.Contains(paths, "./engine") {
		t.Errorf("paths = %v", paths)
	}
	if _, err := Packages(context.Background(), "..", []string{"./nosuch/..."}); err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("a pattern matching nothing: err = %v", err)
	}
}

// FuzzParsePackages: go list's output, however mangled, gives packages or
// an error, never a panic.
func FuzzParsePackages(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("testdata", "golist", "zap.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data, "./...")
	f.Add([]byte(`{"Dir":"/x/y","ImportPath":"m/y","Match":["./y"]}`), "./y")
	f.Add([]byte(`{"Dir":"/elsewhere","Match":["./..."]}`), "./...")
	f.Fuzz(func(t *testing.T, out []byte, pattern string) {
		pkgs, err := parsePackages("/x", out, []string{pattern})
		if err == nil && len(pkgs) == 0 {
			t.Errorf("no packages and no error")
		}
		for _, p := range pkgs {
			if !strings.HasPrefix(p.Path, ".") {
				t.Errorf("path %q is not relative to the module directory", p.Path)
			}
		}
	})
}
