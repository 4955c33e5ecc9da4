package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
)

// TestLaunchersCheckTheWorkersCommandLine: k8s and slurm parse the command
// line every worker will run with the command's own flags and refuse one
// that would fail on every worker, naming why; a good one is written.
func TestLaunchersCheckTheWorkersCommandLine(t *testing.T) {
	base := map[string][]string{
		"k8s":   {"--shards", "2", "--image", "registry.example/perflab:1", "--run-key", "k-1", "--secret", "perflab-db"},
		"slurm": {"--shards", "2", "--run-key", "k-1"},
	}
	for _, tc := range []struct {
		name string
		args []string // after the launcher's own flags
		want string   // in the error; "" when the job is written
	}{
		{"good", []string{"poolreuse", "--", "--quick", "--rounds", "4"}, ""},
		{"good run", []string{"run", "poolreuse", "--", "--quick"}, ""},
		{"two specs", []string{"poolreuse", "extra", "--", "--quick"}, "name exactly one experiment"},
		{"budget", []string{"poolreuse", "--", "--budget", "5m"}, ""}, // sequential shards
		{"two specs, budget", []string{"poolreuse", "extra", "--", "--budget", "5m"}, "name exactly one experiment"},
		{"unknown flag", []string{"poolreuse", "--", "--nosuch"}, "flag provided but not defined: -nosuch"},
		{"bad value", []string{"poolreuse", "--", "--rounds", "many"}, "invalid value"},
		{"db", []string{"poolreuse", "--", "--db", "x.db"}, "drop --db"},
		{"seed", []string{"poolreuse", "--", "--seed", "3"}, "drop --seed"},
		{"quick and full", []string{"poolreuse", "--", "--quick", "--full"}, "exclude each other"},
		{"measure", []string{"poolreuse", "--", "--measure", "joules"}, "measure"},
		{"resume", []string{"run", "--", "--resume", "3"}, "--resume"},
		{"bisect", []string{"bisect", "a", "b"}, "name exactly one experiment"},
		{"ab", []string{"ab", "v1.2.0", "v1.3.0", "./codec", "--", "-bench", ".", "--budget", "5m"}, ""},
		{"ab worktree", []string{"ab", "v1.2.0", "--", "--budget", "5m"}, "name NEW"},
		{"ab no package", []string{"ab", "v1", "v2", "codec"}, "is no package"},
		{"ab bad gate", []string{"ab", "v1", "v2", "--", "--fail-on", "sec/op>lots"}, "fail-on"},
		{"ab cpu", []string{"ab", "v1", "v2", "--", "--cpu", "one"}, "cpu"},
	} {
		for _, launcher := range []string{"k8s", "slurm"} {
			t.Run(launcher+"/"+tc.name, func(t *testing.T) {
				args := append(append([]string{launcher}, base[launcher]...), tc.args...)
				stdout, stderr, code := perflab(t, args...)
				if tc.want == "" {
					if code != 0 || stdout == "" {
						t.Fatalf("%q: exit %d, stderr %s", args, code, stderr)
					}
					return
				}
				if code != exitUsage || stdout != "" || !strings.Contains(stderr, tc.want) {
					t.Errorf("%q: exit %d, stdout %d bytes, stderr %q; want exit 2, nothing written, an error with %q", args, code, len(stdout), stderr, tc.want)
				}
			})
		}
	}
}

// TestK8sWritesAJob decodes perflab k8s's output strictly as a batch/v1 Job.
func TestK8sWritesAJob(t *testing.T) {
	stdout, stderr, code := perflab(t, "k8s", "poolreuse", "--shards", "3", "--image", "registry.example/perflab:1", "--run-key", "Sweep 9", "--secret", "perflab-db", "--", "--quick")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(stdout)))
	dec.DisallowUnknownFields()
	var job batchv1.Job
	if err := dec.Decode(&job); err != nil {
		t.Fatalf("not a batch/v1 Job: %v\n%s", err, stdout)
	}
	if job.Name != "perflab-sweep-9" || *job.Spec.Completions != 3 {
		t.Errorf("name %q, completions %d", job.Name, *job.Spec.Completions)
	}
	if _, stderr, code := perflab(t, "k8s", "poolreuse", "--shards", "3", "--image", "i", "--run-key", "k", "--secret", "a b"); code != exitUsage || !strings.Contains(stderr, "not a Kubernetes Secret name") {
		t.Errorf("--secret 'a b': exit %d, %s", code, stderr)
	}
}
