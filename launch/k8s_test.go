package launch

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

func goodJob() Job {
	return Job{Shards: Shards{Command: "run", Args: []string{"poolreuse", "--quick", "-bench", "Get$(HOME)"}, N: 4, RunKey: "sweep 7/a", Seed: 7},
		Name: "sweep-7", Image: "registry.example/perflab:1", Secret: "perflab-db", CPUs: 4, Memory: "8Gi"}
}

// TestManifestDecodesStrictly decodes the manifest into the Kubernetes
// API's own batch/v1 Job, refusing any field the API does not have, and
// checks the fields a sharded run depends on.
func TestManifestDecodesStrictly(t *testing.T) {
	j := goodJob()
	b, err := j.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var got batchv1.Job
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("manifest is not a batch/v1 Job: %v\n%s", err, b)
	}
	s := got.Spec
	if got.APIVersion != "batch/v1" || got.Kind != "Job" || got.Name != "sweep-7" {
		t.Errorf("header = %s %s %s", got.APIVersion, got.Kind, got.Name)
	}
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("completionMode = %v, want Indexed (pods learn their shard from JOB_COMPLETION_INDEX)", s.CompletionMode)
	}
	if s.Completions == nil || *s.Completions != 4 || s.Parallelism == nil || *s.Parallelism != 4 {
		t.Errorf("want completions = parallelism = 4: %v %v", s.Completions, s.Parallelism)
	}
	if s.BackoffLimit == nil || *s.BackoffLimit < 1 {
		t.Errorf("backoffLimit = %v: a failed shard must be started again", s.BackoffLimit)
	}
	if p := s.Template.Spec.RestartPolicy; p != corev1.RestartPolicyOnFailure {
		t.Errorf("restartPolicy %q, want OnFailure (a failed shard restarts and resumes)", p)
	}
	for k, v := range s.Template.Labels {
		if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
			t.Errorf("label %s=%q: %v", k, v, errs)
		}
	}
	if len(s.Template.Spec.Containers) != 1 {
		t.Fatalf("containers = %d, want 1", len(s.Template.Spec.Containers))
	}
	c := s.Template.Spec.Containers[0]
	if c.Image != j.Image {
		t.Errorf("image %q", c.Image)
	}
	// The kubelet expands $(VAR) and turns $$ into $: the argument must
	// reach perflab as given.
	wantArgs := []string{"run", "--shard", "/4", "--run-key", "sweep 7/a", "--seed", "7", "poolreuse", "--quick", "-bench", "Get$$(HOME)"}
	if !slices.Equal(c.Args, wantArgs) {
		t.Errorf("args = %q, want %q", c.Args, wantArgs)
	}
	if slices.ContainsFunc(c.Args, func(a string) bool { return strings.Contains(a, "postgres") || a == "--db" }) {
		t.Errorf("args %q carry the database: it belongs in the environment", c.Args)
	}
	if len(c.Env) != 1 || c.Env[0].Name != DBEnv || c.Env[0].ValueFrom == nil || c.Env[0].ValueFrom.SecretKeyRef == nil ||
		c.Env[0].ValueFrom.SecretKeyRef.Name != "perflab-db" || c.Env[0].ValueFrom.SecretKeyRef.Key != "dsn" {
		t.Errorf("env = %+v, want %s from secret perflab-db key dsn", c.Env, DBEnv)
	}
	r := c.Resources
	cpu, mem := r.Requests[corev1.ResourceCPU], r.Requests[corev1.ResourceMemory]
	if cpu.String() != "4" || mem.String() != "8Gi" || !cpu.Equal(r.Limits[corev1.ResourceCPU]) || !mem.Equal(r.Limits[corev1.ResourceMemory]) {
		t.Errorf("resources = %+v, want requests = limits (Guaranteed QoS) with 4 whole CPUs and 8Gi", r)
	}
	a := s.Template.Spec.Affinity
	if a == nil || a.PodAntiAffinity == nil || len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) != 1 ||
		a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0].TopologyKey != corev1.LabelHostname {
		t.Errorf("want one shard per node (pod anti-affinity on the host name): %+v", a)
	}
}

func TestManifestRefusesBadJobs(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Job)
		want string
	}{
		{"name", func(j *Job) { j.Name = "Sweep_7" }, "DNS label"},
		{"long name", func(j *Job) { j.Name = strings.Repeat("a", 64) }, "DNS label"},
		{"image", func(j *Job) { j.Image = "" }, "--image"},
		{"image space", func(j *Job) { j.Image = "a b" }, "--image"},
		{"no args", func(j *Job) { j.Args = nil }, "no arguments"},
		{"command", func(j *Job) { j.Command = "bisect" }, "does not run in shards"},
		{"shards", func(j *Job) { j.N = 0 }, "--shards"},
		{"key", func(j *Job) { j.RunKey = "" }, "--run-key"},
		{"secret", func(j *Job) { j.Secret = "" }, "--secret"},
		{"secret name", func(j *Job) { j.Secret = "a b" }, "not a Kubernetes Secret name"},
		{"secret upper", func(j *Job) { j.Secret = "PerflabDB" }, "not a Kubernetes Secret name"},
		{"secret key", func(j *Job) { j.DSNKey = "a/b" }, "--secret-key"},
		{"cpus", func(j *Job) { j.CPUs = 0 }, "whole CPUs"},
		{"memory", func(j *Job) { j.Memory = "lots" }, "quantity"},
		{"memory negative", func(j *Job) { j.Memory = "-1Gi" }, "quantity"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := goodJob()
			tc.edit(&j)
			if _, err := j.Manifest(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Manifest() error = %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

func TestDefaultName(t *testing.T) {
	for _, tc := range []struct{ key, want string }{
		{"sweep-7", "perflab-sweep-7"},
		{"Sweep 7/a", "perflab-sweep-7-a"},
		{"--", "perflab"},
		{strings.Repeat("x", 80), "perflab-" + strings.Repeat("x", 55)},
		{strings.Repeat("x", 54) + "-y", "perflab-" + strings.Repeat("x", 54)},
	} {
		got := DefaultName(tc.key)
		if got != tc.want {
			t.Errorf("DefaultName(%q) = %q, want %q", tc.key, got, tc.want)
		}
		if errs := validation.IsDNS1123Label(got); len(errs) > 0 {
			t.Errorf("DefaultName(%q) = %q is no DNS label: %v", tc.key, got, errs)
		}
	}
}
