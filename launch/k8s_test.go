package launch

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// The Job API fields the manifest may use (batch/v1 Job, core/v1 PodSpec);
// decoding with DisallowUnknownFields fails on a misspelt or misplaced one.
type (
	k8sJob struct {
		APIVersion string  `json:"apiVersion"`
		Kind       string  `json:"kind"`
		Metadata   objMeta `json:"metadata"`
		Spec       jobSpec `json:"spec"`
	}
	objMeta struct {
		Name   string            `json:"name,omitempty"`
		Labels map[string]string `json:"labels,omitempty"`
	}
	jobSpec struct {
		CompletionMode string      `json:"completionMode"`
		Completions    *int        `json:"completions"`
		Parallelism    *int        `json:"parallelism"`
		BackoffLimit   *int        `json:"backoffLimit"`
		Template       podTemplate `json:"template"`
	}
	podTemplate struct {
		Metadata objMeta `json:"metadata"`
		Spec     podSpec `json:"spec"`
	}
	podSpec struct {
		RestartPolicy string      `json:"restartPolicy"`
		Affinity      *affinity   `json:"affinity"`
		Containers    []container `json:"containers"`
	}
	affinity struct {
		PodAntiAffinity struct {
			Required []struct {
				LabelSelector struct {
					MatchLabels map[string]string `json:"matchLabels"`
				} `json:"labelSelector"`
				TopologyKey string `json:"topologyKey"`
			} `json:"requiredDuringSchedulingIgnoredDuringExecution"`
		} `json:"podAntiAffinity"`
	}
	container struct {
		Name      string   `json:"name"`
		Image     string   `json:"image"`
		Args      []string `json:"args"`
		Env       []envVar `json:"env"`
		Resources struct {
			Requests map[string]string `json:"requests"`
			Limits   map[string]string `json:"limits"`
		} `json:"resources"`
	}
	envVar struct {
		Name      string `json:"name"`
		ValueFrom struct {
			SecretKeyRef struct {
				Name string `json:"name"`
				Key  string `json:"key"`
			} `json:"secretKeyRef"`
		} `json:"valueFrom"`
	}
)

func goodJob() Job {
	return Job{Name: "sweep-7", Image: "registry.example/perflab:1", Spec: "poolreuse", Shards: 4, RunKey: "sweep 7/a",
		Seed: 7, Secret: "perflab-db", CPUs: 4, Memory: "8Gi", RunArgs: []string{"--quick"}}
}

func TestManifestStructure(t *testing.T) {
	j := goodJob()
	b, err := j.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var got k8sJob
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("manifest does not match the Job API fields: %v\n%s", err, b)
	}
	s := got.Spec
	if got.APIVersion != "batch/v1" || got.Kind != "Job" || got.Metadata.Name != "sweep-7" {
		t.Errorf("header = %s %s %s", got.APIVersion, got.Kind, got.Metadata.Name)
	}
	if s.CompletionMode != "Indexed" || s.Completions == nil || *s.Completions != 4 || s.Parallelism == nil || *s.Parallelism != 4 {
		t.Errorf("want Indexed with completions = parallelism = 4: %+v", s)
	}
	if s.Template.Spec.RestartPolicy != "OnFailure" && s.Template.Spec.RestartPolicy != "Never" {
		t.Errorf("restartPolicy %q is not allowed in a Job", s.Template.Spec.RestartPolicy)
	}
	for k, v := range s.Template.Metadata.Labels {
		if len(v) > 63 || strings.ContainsAny(v, " /") {
			t.Errorf("label %s=%q is not a valid label value", k, v)
		}
	}
	if len(s.Template.Spec.Containers) != 1 {
		t.Fatalf("containers = %d, want 1", len(s.Template.Spec.Containers))
	}
	c := s.Template.Spec.Containers[0]
	if c.Image != j.Image {
		t.Errorf("image %q", c.Image)
	}
	wantArgs := []string{"run", "poolreuse", "--db", "$(PERFLAB_DB)", "--shard", "/4", "--run-key", "sweep 7/a", "--seed", "7", "--quick"}
	if !slices.Equal(c.Args, wantArgs) {
		t.Errorf("args = %q, want %q", c.Args, wantArgs)
	}
	if len(c.Env) != 1 || c.Env[0].Name != "PERFLAB_DB" || c.Env[0].ValueFrom.SecretKeyRef.Name != "perflab-db" || c.Env[0].ValueFrom.SecretKeyRef.Key != "dsn" {
		t.Errorf("env = %+v, want PERFLAB_DB from secret perflab-db key dsn", c.Env)
	}
	r := c.Resources
	if r.Requests["cpu"] != "4" || r.Requests["memory"] != "8Gi" || r.Limits["cpu"] != r.Requests["cpu"] || r.Limits["memory"] != r.Requests["memory"] {
		t.Errorf("resources = %+v, want requests = limits (Guaranteed QoS) with whole CPUs", r)
	}
	if a := s.Template.Spec.Affinity; a == nil || len(a.PodAntiAffinity.Required) != 1 || a.PodAntiAffinity.Required[0].TopologyKey != "kubernetes.io/hostname" {
		t.Errorf("want one shard per node (pod anti-affinity on hostname): %+v", a)
	}
}

func TestManifestRefusesBadJobs(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Job)
		want string
	}{
		{"name", func(j *Job) { j.Name = "Sweep_7" }, "DNS label"},
		{"image", func(j *Job) { j.Image = "" }, "--image"},
		{"spec", func(j *Job) { j.Spec = "" }, "no spec"},
		{"shards", func(j *Job) { j.Shards = 0 }, "--shards"},
		{"key", func(j *Job) { j.RunKey = "" }, "--run-key"},
		{"secret", func(j *Job) { j.Secret = "" }, "--secret"},
		{"cpus", func(j *Job) { j.CPUs = 0 }, "whole CPUs"},
		{"memory", func(j *Job) { j.Memory = "lots" }, "quantity"},
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
