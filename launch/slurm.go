package launch

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Slurm describes a Slurm job array whose task T runs shard T+1
// ("--shard $((SLURM_ARRAY_TASK_ID+1))/N"). The script asks Slurm to
// requeue a task whose node fails; a task requeued by hand (scontrol
// requeue) starts the same shard again, which resumes its rounds.
type Slurm struct {
	Shards
	Name      string // job name
	Perflab   string // perflab's path on the nodes ("perflab": found on PATH)
	Dir       string // working directory of every task (--chdir); empty: where sbatch runs
	CPUs      int    // --cpus-per-task
	Memory    string // --mem (e.g. 8G); empty: the partition's default
	Time      string // --time (e.g. 2:00:00); empty: the partition's default
	Partition string // --partition; empty: the default partition
	Exclusive bool   // --exclusive: one shard per node, no other job beside it
	Output    string // --output file pattern (default perflab-%A_%a.out)
	// DBFile is a file, readable on the nodes, holding the database URL;
	// empty: PERFLAB_DB comes from the environment sbatch runs in.
	DBFile string
}

var (
	slurmName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.+-]{0,127}$`)
	slurmMem  = regexp.MustCompile(`^[0-9]+[KMGT]?$`)
	slurmTime = regexp.MustCompile(`^([0-9]+-)?[0-9]+(:[0-9]{1,2}){0,2}$`)
	slurmPart = regexp.MustCompile(`^[A-Za-z0-9_.-]+(,[A-Za-z0-9_.-]+)*$`)
)

// Validate says what is wrong with s, or nil.
func (s *Slurm) Validate() error {
	if err := s.Shards.Validate(); err != nil {
		return err
	}
	switch {
	case !slurmName.MatchString(s.Name):
		return fmt.Errorf("job name %q: want letters, digits and _.+- (at most 128); pass --name", s.Name)
	case s.CPUs < 1:
		return fmt.Errorf("--cpus %d: want whole CPUs ≥ 1", s.CPUs)
	case s.Memory != "" && !slurmMem.MatchString(s.Memory):
		return fmt.Errorf("--memory %q: want a Slurm size such as 8G or 16000M", s.Memory)
	case s.Time != "" && !slurmTime.MatchString(s.Time):
		return fmt.Errorf("--time %q: want a Slurm time limit such as 90, 2:00:00 or 1-12:00:00", s.Time)
	case s.Partition != "" && !slurmPart.MatchString(s.Partition):
		return fmt.Errorf("--partition %q: want a partition name (or a comma-separated list)", s.Partition)
	}
	// #SBATCH lines are split at white space, so their paths cannot hold any.
	for _, p := range []struct{ flag, v string }{{"--chdir", s.Dir}, {"--output", s.Output}} {
		if strings.ContainsAny(p.v, " \t\r\n\x00") {
			return fmt.Errorf("%s %q: a path in a #SBATCH line cannot hold white space", p.flag, p.v)
		}
	}
	for _, p := range []struct{ flag, v string }{{"--perflab", s.Perflab}, {"--db-file", s.DBFile}} {
		if strings.ContainsAny(p.v, "\r\n\x00") {
			return fmt.Errorf("%s %q: want one line", p.flag, p.v)
		}
	}
	return nil
}

// Script returns the sbatch script.
func (s *Slurm) Script() ([]byte, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	perflab, out := s.Perflab, s.Output
	if perflab == "" {
		perflab = "perflab"
	}
	if out == "" {
		out = "perflab-%A_%a.out"
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "#!/bin/bash\n# The %d shards of perflab run key %s, one array task each.\n", s.N, oneLine(s.RunKey))
	sb := func(format string, a ...any) { fmt.Fprintf(&b, "#SBATCH "+format+"\n", a...) }
	sb("--job-name=%s", s.Name)
	sb("--array=0-%d", s.N-1)
	sb("--requeue") // a task whose node fails runs again and resumes its shard
	sb("--open-mode=append")
	sb("--output=%s", out)
	sb("--nodes=1")
	sb("--ntasks=1")
	sb("--cpus-per-task=%d", s.CPUs)
	if s.Exclusive {
		sb("--exclusive")
	}
	for _, o := range []struct{ name, v string }{{"mem", s.Memory}, {"time", s.Time}, {"partition", s.Partition}, {"chdir", s.Dir}} {
		if o.v != "" {
			sb("--%s=%s", o.name, o.v)
		}
	}
	b.WriteString("set -eu\n")
	b.WriteString(`: "${SLURM_ARRAY_TASK_ID:?submit this script with sbatch: it runs as a job array}"` + "\n")
	if s.DBFile != "" {
		fmt.Fprintf(&b, "%s=$(cat %s)\n", DBEnv, shellQuote(s.DBFile))
	} else {
		fmt.Fprintf(&b, ": \"${%s:?export %s=postgres://… before sbatch, or write the script with --db-file}\"\n", DBEnv, DBEnv)
	}
	fmt.Fprintf(&b, "export %s\n", DBEnv)
	const task = "\x00task" // no argument holds a NUL byte (Validate)
	words := []string{"exec", shellQuote(perflab)}
	for _, a := range s.Argv(task) {
		if a == task { // the --shard value: this task's index, 1-based
			words = append(words, `"$((SLURM_ARRAY_TASK_ID + 1))/`+strconv.Itoa(s.N)+`"`)
			continue
		}
		words = append(words, shellQuote(a))
	}
	b.WriteString(strings.Join(words, " ") + "\n")
	return b.Bytes(), nil
}

// shellQuote quotes s for a POSIX shell; words of plain characters stay
// as they are.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}
