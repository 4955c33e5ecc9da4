package engine

import (
	"path/filepath"

	"github.com/perflab/perflab/spec"
)

// Sources: configs whose package source lives in different directories.
//
// A spec's package is resolved against the spec's directory. Options.Sources
// lets a config take its source from another directory laid out the same
// way (another checkout of the module: an old and a new revision of one
// repository), so one run interleaves and pairs binaries built from
// different code. A config's source directory is part of what decides its
// binary: two configs with equal build settings but different sources never
// share one, and the test binary runs in its own source's package directory,
// so it reads that revision's testdata/.

// specDir is the directory standing in for the spec's directory when
// a slot's config (packages.go) is built and run.
func (o Options) specDir(slot string) string {
	config, _ := splitSlot(slot)
	if d, ok := o.Sources[config]; ok && d != "" {
		return d
	}
	return o.Spec.Dir
}

// packageDirOf is where a slot's test binary runs (see packageDir).
func (o Options) packageDirOf(slot string) string {
	s := *o.Spec
	s.Dir = o.specDir(slot)
	if _, pkg := splitSlot(slot); pkg != "" {
		s.Package = pkg
	}
	return packageDir(&s)
}

// packageOf is the package pattern a slot builds.
func (o Options) packageOf(slot string) string {
	_, pkg := splitSlot(slot)
	return cmpOr(pkg, cmpOr(o.Spec.Package, "."))
}

// buildKeyOf is the key under which buildAll shares binaries between
// configs: the build settings, the package when a cell names one, and,
// when the config has a source of its own, that source's directory.
func (o Options) buildKeyOf(c spec.Config, pkg string) string {
	key := c.BuildKey()
	if pkg != "" {
		key += "\npackage=" + pkg
	}
	if d, ok := o.Sources[c.Name]; ok && d != "" {
		key += "\nsource=" + filepath.Clean(d)
	}
	return key
}
