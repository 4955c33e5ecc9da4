// Package launch writes what hands the shards of one perflab run to an
// existing launcher: a Kubernetes Indexed Job (built from the Kubernetes
// API types) or a Slurm job array script. Each worker runs
// "perflab run" or "perflab ab" with --shard K/N and the run key every
// shard shares, and reads the database URL from the environment variable
// PERFLAB_DB, so the URL is on no command line. perflab schedules
// nothing itself.
package launch

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Commands are the perflab commands that run as shards.
var Commands = []string{"run", "ab"}

// DBEnv is the environment variable every shard reads the database URL
// from (the --db flag's default).
const DBEnv = "PERFLAB_DB"

// Shards is one run split into N shards: what every launcher passes to
// every worker.
type Shards struct {
	Command string   // "run" or "ab"
	Args    []string // the command's own arguments: positional ones and flags
	N       int      // number of shards
	RunKey  string   // --run-key of every shard
	Seed    int64    // --seed of every shard (0: derived from the key)
}

// Validate says what is wrong with s, or nil.
func (s *Shards) Validate() error {
	switch {
	case !slices.Contains(Commands, s.Command):
		return fmt.Errorf("command %q does not run in shards: want one of %s", s.Command, strings.Join(Commands, ", "))
	case len(s.Args) == 0:
		return errors.New("no arguments: name the experiment or spec (run) or the revisions (ab), as the workers see them")
	case s.N < 1:
		return fmt.Errorf("--shards %d: want at least 1", s.N)
	case s.RunKey == "":
		return errors.New("no run key: pass --run-key, the name every shard of the run shares")
	case strings.ContainsAny(s.RunKey, "\x00\n\r"):
		return fmt.Errorf("--run-key %q: want one line of printable text", s.RunKey)
	}
	for _, a := range s.Args {
		if strings.ContainsRune(a, 0) {
			return fmt.Errorf("argument %q holds a NUL byte", a)
		}
	}
	return nil
}

// Argv is the command line of a worker after "perflab": the command, the
// launcher's own flags (shard is K/N, or /N where the launcher sets
// JOB_COMPLETION_INDEX), then the user's arguments. The launcher's flags
// come first, so a "--" among the user's arguments cannot hide them.
func (s *Shards) Argv(shard string) []string {
	argv := []string{s.Command, "--shard", shard, "--run-key", s.RunKey}
	if s.Seed != 0 {
		argv = append(argv, "--seed", strconv.FormatInt(s.Seed, 10))
	}
	return append(argv, s.Args...)
}

// Reserved are the flags a launcher sets for every shard; the user's
// arguments must not set them again.
var Reserved = []string{"db", "shard", "run-key", "seed"}
