package discover

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
)

// Package is one package a selection of packages names, as go list
// resolves it in a module directory.
type Package struct {
	Path       string // relative to the module directory, "./x" ("." for the directory itself)
	ImportPath string
	// HasTests: the package has test files, so its test binary may hold
	// benchmarks; one without any has none to offer.
	HasTests bool
}

// Packages resolves package patterns ("./...", "./codec", ".") in the
// module directory dir with go list, in go list's order, each once. A
// pattern that matches nothing, or a package go list cannot load, is an
// error that names it.
func Packages(ctx context.Context, dir string, patterns []string) ([]Package, error) {
	if len(patterns) == 0 {
		patterns = []string{"."}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	args := append([]string{"list", "-e", "-json=Dir,ImportPath,TestGoFiles,XTestGoFiles,Error,Match", "--"}, patterns...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = abs
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("listing packages %s in %s: %v\n%s", strings.Join(patterns, " "), dir, err, strings.TrimSpace(stderr.String()))
	}
	return parsePackages(abs, out, patterns)
}

// parsePackages reads go list -json output for the packages of patterns
// in the module directory abs.
func parsePackages(abs string, out []byte, patterns []string) ([]Package, error) {
	type listed struct {
		Dir, ImportPath           string
		TestGoFiles, XTestGoFiles []string
		Match                     []string
		Error                     *struct{ Err string }
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	var pkgs []Package
	matched := map[string]bool{}
	seen := map[string]bool{}
	var errs []error
	for {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("reading go list's output: %w", err)
		}
		for _, m := range p.Match {
			matched[m] = true
		}
		if p.Error != nil {
			errs = append(errs, fmt.Errorf("package %s: %s", cmpOr(p.ImportPath, strings.Join(p.Match, " ")), strings.TrimSpace(p.Error.Err)))
			continue
		}
		rel, err := filepath.Rel(abs, p.Dir)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			errs = append(errs, fmt.Errorf("package %s lies outside the module directory %s; name packages of the module", p.ImportPath, abs))
			continue
		}
		path := "."
		if rel != "." {
			path = "./" + filepath.ToSlash(rel)
		}
		if seen[path] {
			continue
		}
		seen[path] = true
		pkgs = append(pkgs, Package{Path: path, ImportPath: p.ImportPath, HasTests: len(p.TestGoFiles)+len(p.XTestGoFiles) > 0})
	}
	for _, pat := range patterns {
		if !matched[pat] {
			errs = append(errs, fmt.Errorf("pattern %q matches no package in %s", pat, abs))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("%s match no package in %s", strings.Join(patterns, " "), abs)
	}
	return pkgs, nil
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
