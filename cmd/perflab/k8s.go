package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/perflab/perflab/launch"
)

var cmdK8s = &command{
	rank:    85,
	name:    "k8s",
	summary: "write a Kubernetes Indexed Job that runs one experiment in shards",
	usage:   "EXPERIMENT|SPEC --shards N --image IMAGE --run-key KEY --secret NAME [flags] [-- RUN-FLAGS]",
	help: `
K8s writes (to stdout) a Kubernetes Indexed Job manifest, as JSON, that runs
one experiment in N shards: pod K runs "perflab run --shard /N" (K comes
from JOB_COMPLETION_INDEX) into the PostgreSQL database whose URL is key
"dsn" of a Secret. Each pod requests and is limited to the same whole CPUs
and memory (Guaranteed QoS), one shard per node. Flags after "--" go to
"perflab run" in every pod. See docs/shards.md for the GitHub Actions
matrix equivalent.

Example:
  kubectl create secret generic perflab-db --from-literal=dsn=postgres://perflab:PW@db:5432/perflab
  perflab k8s poolreuse --shards 4 --image registry.example/perflab:1 \
    --run-key poolreuse-2026-11-22 --seed 7 --secret perflab-db --cpus 4 --memory 8Gi -- --quick > job.json
  kubectl apply -f job.json`,
	docs: []string{"docs/shards.md"},
}

type k8sFlags struct {
	job launch.Job
}

func (f *k8sFlags) declare(fs *flag.FlagSet) {
	fs.StringVar(&f.job.Name, "name", "", "Job `name` (default: perflab- and the run key)")
	fs.StringVar(&f.job.Image, "image", "", "container `image` holding perflab, Go and the benchmark sources")
	fs.IntVar(&f.job.Shards, "shards", 0, "number of shards `N` (completions = parallelism = N)")
	fs.StringVar(&f.job.RunKey, "run-key", "", "the `KEY` all shards name the run by")
	fs.Int64Var(&f.job.Seed, "seed", 0, "planner seed of every shard (0: derived from the run key)")
	fs.StringVar(&f.job.Secret, "secret", "", "Secret `name` whose key dsn holds the postgres:// URL")
	fs.StringVar(&f.job.DSNKey, "secret-key", "dsn", "`key` of the URL in the Secret")
	fs.IntVar(&f.job.CPUs, "cpus", 2, "whole `CPUs` per pod (requests = limits)")
	fs.StringVar(&f.job.Memory, "memory", "4Gi", "memory per pod (requests = limits)")
}

func init() {
	define(cmdK8s, func(f *k8sFlags, pos []string, stdout, stderr io.Writer) error {
		if len(pos) == 0 {
			return errors.New("name the experiment or spec file (as the image sees it), e.g. perflab k8s poolreuse --shards 4 …")
		}
		f.job.Spec, f.job.RunArgs = pos[0], pos[1:]
		if f.job.Name == "" {
			f.job.Name = "perflab-" + strings.Trim(strings.Map(func(r rune) rune {
				if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
					return r
				}
				if r >= 'A' && r <= 'Z' {
					return r + 'a' - 'A'
				}
				return '-'
			}, f.job.RunKey), "-")
			if len(f.job.Name) > 63 {
				f.job.Name = strings.TrimRight(f.job.Name[:63], "-")
			}
		}
		b, err := f.job.Manifest()
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "%s\n", b)
		return err
	})
}
