package spec

import (
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
)

// Validation of the check kind "profile", the config fields modfile and pgo
// and the analysis field scaling.

// Profile shares a check of kind "profile" can name in unit; package
// profshare defines them.
const (
	heapLockShare = "heap-lock-share"
	lockShare     = "lock-share"
)

// profileCheck validates a check of kind "profile": num selects one cell
// whose per-cell CPU profile gives the share named by unit ("heap-lock-share",
// the default, or "lock-share"); op is "<", "<=", ">" or ">="; value is a
// share in [0, 1], or with den (a second cell) a difference of shares in
// [-1, 1]. Every mode must profile per cell, or the check has no profile
// to read.
func (v *validator) profileCheck(p, what string, ck *Check, where [][2]string) {
	v.notFor(p, what, `"profile"`, []kindField{{"a", ck.A != ""}, {"b", ck.B != ""},
		{"axis", ck.Axis != ""}, {"min", ck.Min != 0}, {"max", ck.Max != 0}})
	if !v.idx.has(p + ".unit") {
		ck.Unit = heapLockShare
	}
	switch ck.Unit {
	case heapLockShare, lockShare:
	default:
		v.at(p+".unit", "%s: a profile check's unit names the share: %q (runtime lock frames under the heap allocator, the default) or %q (any runtime lock frame), not %q", what, heapLockShare, lockShare, ck.Unit)
	}
	if ck.Num == "" {
		v.at(p, "%s: a profile check needs num, a selector of one cell such as \"variant=plain,gomaxprocs=2\"", what)
	} else {
		v.overlap(p+".num", what, "num", where, v.selector(p+".num", what+" num", ck.Num))
	}
	if ck.Den != "" {
		v.overlap(p+".den", what, "den", where, v.selector(p+".den", what+" den", ck.Den))
	}
	switch ck.Op {
	case "<", "<=", ">", ">=":
	case "":
		v.at(p, "%s: a profile check needs op = \"<\", \"<=\", \">\" or \">=\" (the claim holds when the share of num op value)", what)
	default:
		v.at(p+".op", "%s: op %q must be \"<\", \"<=\", \">\" or \">=\"", what, ck.Op)
	}
	switch {
	case !v.idx.has(p + ".value"):
		v.at(p, "%s: a profile check needs value, a share between 0 and 1 (with den: a difference of shares between -1 and 1)", what)
	case ck.Den == "" && !(ck.Value >= 0 && ck.Value <= 1):
		v.at(p+".value", "%s: value %v must be a share between 0 and 1", what, ck.Value)
	case ck.Den != "" && !(ck.Value >= -1 && ck.Value <= 1):
		v.at(p+".value", "%s: value %v must be a difference of shares between -1 and 1", what, ck.Value)
	}
	for _, name := range modeNames() {
		if m, ok := v.s.Modes[name]; ok && m.Profile != "cell" {
			v.at(p, "%s: a profile check reads each cell's CPU profile; set profile = \"cell\" in [mode.%s]", what, name)
		}
	}
}

// modfile validates the config field modfile written at path: a relative
// path to a file ending in ".mod", without spaces.
func (v *validator) modfile(path, config, mod string) string {
	switch {
	case mod == "":
	case filepath.IsAbs(mod) || strings.ContainsFunc(mod, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }):
		v.at(path, "config %q modfile %q must be a path relative to the spec's directory, without spaces, such as \"go122.mod\"", config, mod)
	case !strings.HasSuffix(mod, ".mod"):
		v.at(path, "config %q modfile %q must name a file ending in \".mod\" (the go command reads the matching .sum beside it)", config, mod)
	case filepath.Base(mod) == "go.mod":
		v.at(path, "config %q modfile %q must not be called go.mod: a go.mod in the experiment's folder makes it a module of its own; call it e.g. \"go122.mod\"", config, mod)
	}
	return mod
}

// scaling validates analysis.scaling: "procs" or an axis whose values are
// all positive integers (GOMAXPROCS values).
func (v *validator) scaling() {
	sc := v.s.Analysis.Scaling
	if sc == "" || sc == "procs" {
		return
	}
	a, ok := v.axis(sc)
	if !ok {
		v.at("analysis.scaling", "analysis scaling %q is not an axis of this spec; name the axis whose values are GOMAXPROCS, or \"procs\" for -test.cpu; axes: %s", sc, v.axisKeys())
		return
	}
	for _, val := range append(append([]string(nil), a.Quick...), a.Full...) {
		if n, err := strconv.Atoi(val); err != nil || n < 1 {
			v.at("analysis.scaling", "analysis scaling axis %q must hold GOMAXPROCS values (positive integers), but it has the value %q", sc, val)
			return
		}
	}
}

// pgo validates the config field pgo written at path: "off", "auto" or a
// profile file's path without spaces.
func (v *validator) pgo(path, config, pgo string) string {
	switch {
	case pgo == "" || pgo == "off" || pgo == "auto":
	case strings.ContainsFunc(pgo, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }) || strings.HasPrefix(pgo, "-"):
		v.at(path, "config %q pgo %q must be \"off\", \"auto\" or the path of a CPU profile (relative to the spec's directory, without spaces), such as \"default.pgo\"", config, pgo)
	}
	return pgo
}
