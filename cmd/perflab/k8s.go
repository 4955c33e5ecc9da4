package main

import (
	"flag"
	"io"

	"github.com/perflab/perflab/launch"
)

var cmdK8s = &command{
	rank:    85,
	name:    "k8s",
	summary: "write a Kubernetes Indexed Job that runs one experiment or ab in shards",
	usage:   "[run] EXPERIMENT|SPEC | ab OLD NEW [PKG...] --shards N --image IMAGE --run-key KEY --secret NAME [flags] [-- FLAGS]",
	help: `
K8s writes (to stdout) a Kubernetes Indexed Job manifest, as JSON, that runs
one experiment ("perflab run") or one comparison ("perflab ab") in N
shards: pod K runs "--shard /N" (K comes from JOB_COMPLETION_INDEX) with
the PostgreSQL URL in $PERFLAB_DB, from key "dsn" of a Secret. Each pod
requests and is limited to the same whole CPUs and memory (Guaranteed
QoS), one shard per node. Flags after "--" go to the command in every pod;
they are checked with its own flags before anything is written. See
docs/shards.md.

Example:
  kubectl create secret generic perflab-db --from-literal=dsn=postgres://perflab:PW@db:5432/perflab
  perflab k8s poolreuse --shards 4 --image registry.example/perflab:1 \
    --run-key poolreuse-2026-11-22 --seed 7 --secret perflab-db --cpus 4 --memory 8Gi -- --quick > job.json
  kubectl apply -f job.json`,
	docs: []string{"docs/shards.md"},
}

type k8sFlags struct {
	launchFlags
	job launch.Job
}

func (f *k8sFlags) declare(fs *flag.FlagSet) {
	f.launchFlags.declare(fs, "4Gi")
	fs.StringVar(&f.job.Image, "image", "", "container `image` holding perflab, Go and the benchmark sources")
	fs.StringVar(&f.job.Secret, "secret", "", "Secret `name` whose key dsn holds the postgres:// URL")
	fs.StringVar(&f.job.DSNKey, "secret-key", "dsn", "`key` of the URL in the Secret")
}

func init() {
	define(cmdK8s, func(f *k8sFlags, pos []string, stdout, stderr io.Writer) error {
		return f.write(pos, stdout, "the image", func(sh launch.Shards) ([]byte, error) {
			f.job.Shards, f.job.Name, f.job.CPUs, f.job.Memory = sh, f.name, f.cpus, f.memory
			b, err := f.job.Manifest()
			return append(b, '\n'), err
		})
	})
}
