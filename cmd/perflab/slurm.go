package main

import (
	"flag"
	"io"

	"github.com/perflab/perflab/launch"
)

var cmdSlurm = &command{
	rank:    86,
	name:    "slurm",
	summary: "write a Slurm job array script that runs one experiment or ab in shards",
	usage:   "[run] EXPERIMENT|SPEC | ab OLD NEW [PKG...] --shards N --run-key KEY [flags] [-- FLAGS]",
	help: `
Slurm writes (to stdout) an sbatch script for a job array of N tasks:
task T runs shard T+1 of one run ("perflab run" or "perflab ab" with
--shard $((SLURM_ARRAY_TASK_ID+1))/N) into the PostgreSQL database named
by $PERFLAB_DB, exported before sbatch or read from --db-file on the node,
never on a command line. The array is requeued when a node fails; a
task requeued by hand (scontrol requeue JOB_TASK) resumes its shard.
Flags after "--" go to the command in every task; they are checked with
its own flags before anything is written. See docs/shards.md.

Example:
  perflab slurm ab v1.2.0 v1.3.0 ./codec --shards 4 --run-key codec-1.3 \
    --chdir /shared/src/codec --cpus 4 --time 1:00:00 -- -bench . --budget 20m > ab.sbatch
  PERFLAB_DB=postgres://perflab:PW@db/perflab sbatch ab.sbatch`,
}

type slurmFlags struct {
	launchFlags
	job launch.Slurm
}

func (f *slurmFlags) declare(fs *flag.FlagSet) {
	f.launchFlags.declare(fs, "")
	fs.StringVar(&f.job.Perflab, "perflab", "perflab", "perflab's `path` on the nodes")
	fs.StringVar(&f.job.Dir, "chdir", "", "working `dir` of every task (the spec's or the repository's directory; default: where sbatch runs)")
	fs.StringVar(&f.job.DBFile, "db-file", "", "`file` on the nodes holding the postgres:// URL (default: $PERFLAB_DB of the environment sbatch runs in)")
	fs.StringVar(&f.job.Time, "time", "", "time limit of each task, as sbatch --time (e.g. 2:00:00)")
	fs.StringVar(&f.job.Partition, "partition", "", "Slurm `partition` (default: the cluster's default)")
	fs.StringVar(&f.job.Output, "output", "", "each task's log `file` pattern (default perflab-%A_%a.out)")
	fs.BoolVar(&f.job.Exclusive, "exclusive", true, "one shard per node, alone on it (--exclusive=false shares nodes)")
}

func init() {
	define(cmdSlurm, func(f *slurmFlags, pos []string, stdout, stderr io.Writer) error {
		return f.write(pos, stdout, "the nodes", func(sh launch.Shards) ([]byte, error) {
			f.job.Shards, f.job.Name, f.job.CPUs, f.job.Memory = sh, f.name, f.cpus, f.memory
			return f.job.Script()
		})
	})
}
