package ab

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/perflab/perflab/discover"
	"github.com/perflab/perflab/driver/gotest"
	"github.com/perflab/perflab/revision"
)

// A Side is one side of a comparison: its source and its settings.
type Side struct {
	Name   string // Old or New: the config's name in the run
	Source *revision.Source
	// Env are the side's settings (GOGC=off, PGO=/abs/cpu.pprof, …) and
	// Tag the name they were given, when it is not Name.
	Env []string
	Tag string
	// LDFlags are linker flags both sides share (ab.Options.FuncAlign's
	// -funcalign), which the label leaves out.
	LDFlags string
	// Skipped are the listed benchmarks that skipped themselves
	// (b.Skip), with their messages.
	Skipped []gotest.Skip
}

// side is the side name with settings c.
func side(name string, c discover.Config) Side {
	s := Side{Name: name, Env: c.Env}
	if c.Name != name {
		s.Tag = c.Name
	}
	return s
}

// Label names the side for people: the revision and any settings.
func (s Side) Label() string {
	l := s.Source.Label()
	if s.Tag != "" || len(s.Env) > 0 {
		l += " [" + s.Tag
		if len(s.Env) > 0 {
			if s.Tag != "" {
				l += ": "
			}
			l += strings.Join(s.Env, ",")
		}
		l += "]"
	}
	return l
}

// short names the side in a title: its abbreviated commit (or "working
// tree") and the name of its settings.
func (s Side) short() string {
	t := "`" + s.Source.Short() + "`"
	if s.Source.Kind == revision.Worktree {
		t = "working tree"
	}
	if s.Tag != "" {
		t += " [" + s.Tag + "]"
	}
	return t
}

// Config is the side's config in the run.
func (s Side) Config() discover.Config {
	c := discover.Config{Name: s.Name, Env: s.Env}
	if s.LDFlags != "" {
		c.Env = append(slices.Clone(c.Env), "LDFLAGS="+s.LDFlags)
	}
	return c
}

// ParseConfigs reads the settings of both sides: none, or two values
// (OLD's, then NEW's) of the form NAME:KEY=VAL,… (discover.ParseConfig).
// A PGO profile is made absolute, so both sides read the same file, and
// must be a readable file.
func ParseConfigs(given []string) ([2]discover.Config, error) {
	var out [2]discover.Config
	switch len(given) {
	case 0:
		return out, nil
	case 2:
	default:
		return out, fmt.Errorf("--config: give none or two (OLD's settings, then NEW's), got %d; e.g. --config base --config gogc-off:GOGC=off", len(given))
	}
	for i, g := range given {
		c, err := discover.ParseConfig(g)
		if err != nil {
			return out, err
		}
		for j, kv := range c.Env {
			if v, ok := strings.CutPrefix(kv, "PGO="); ok && v != "off" && v != "auto" {
				abs, err := filepath.Abs(v)
				if err != nil {
					return out, err
				}
				if st, err := os.Stat(abs); err != nil || st.IsDir() {
					return out, fmt.Errorf("--config %s: PGO=%s is not a readable profile file; give a CPU profile (go test -cpuprofile) or off", g, v)
				}
				c.Env[j] = "PGO=" + abs
			}
		}
		out[i] = c
	}
	return out, nil
}

// materialise finds the sources of OLD and NEW ("" is the working tree)
// in the repository holding dir, or, when dir is in none, takes them as
// directories.
func materialise(ctx context.Context, dir string, args [2]string, cache string, sides []*Side) error {
	repo, repoErr := revision.Open(ctx, dir)
	for i, arg := range args {
		var err error
		if repo == nil {
			if arg == "" {
				return fmt.Errorf("NEW defaults to the working tree, but %v", repoErr)
			}
			if sides[i].Source, err = revision.Directory(arg); err != nil {
				return fmt.Errorf("%s %q: %v; and it is no revision: %v", sides[i].Name, arg, err, repoErr)
			}
			continue
		}
		if sides[i].Source, err = repo.Materialize(ctx, arg, cache); err != nil {
			return fmt.Errorf("%s: %w", strings.ToUpper(sides[i].Name), err)
		}
	}
	return nil
}
