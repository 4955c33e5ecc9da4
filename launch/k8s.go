package launch

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Job describes a Kubernetes Indexed Job whose pod K runs shard K+1 (the
// index comes from JOB_COMPLETION_INDEX, "--shard /N").
type Job struct {
	Shards
	Name   string // Job name (a DNS label)
	Image  string // container image with perflab, Go and the benchmark sources
	Secret string // Secret holding the database URL
	DSNKey string // key of the URL in Secret ("dsn" when empty)
	CPUs   int    // whole CPUs per pod, requested and limited alike
	Memory string // memory per pod, requested and limited alike (e.g. 4Gi)
}

// Validate says what is wrong with j, or nil. Names are checked as the
// Kubernetes API server checks them.
func (j *Job) Validate() error {
	if err := j.Shards.Validate(); err != nil {
		return err
	}
	switch {
	case j.Image == "" || strings.TrimSpace(j.Image) != j.Image || strings.ContainsAny(j.Image, " \t\n"):
		return fmt.Errorf("--image %q: want the name of a container image with perflab, Go and the benchmark sources", j.Image)
	case j.Secret == "":
		return fmt.Errorf("no secret: pass --secret, the Secret whose key %q holds the postgres:// URL", j.dsnKey())
	case j.CPUs < 1:
		return fmt.Errorf("--cpus %d: want whole CPUs ≥ 1, so the pod is Guaranteed and can get exclusive cores", j.CPUs)
	}
	if errs := validation.IsDNS1123Label(j.Name); len(errs) > 0 {
		return fmt.Errorf("job name %q is not a Kubernetes DNS label: %s; pass --name", j.Name, strings.Join(errs, "; "))
	}
	if errs := validation.IsDNS1123Subdomain(j.Secret); len(errs) > 0 {
		return fmt.Errorf("--secret %q is not a Kubernetes Secret name: %s", j.Secret, strings.Join(errs, "; "))
	}
	if errs := validation.IsConfigMapKey(j.dsnKey()); len(errs) > 0 {
		return fmt.Errorf("--secret-key %q is not a key a Secret can hold: %s", j.dsnKey(), strings.Join(errs, "; "))
	}
	if _, err := resource.ParseQuantity(j.Memory); err != nil || j.Memory == "" || strings.HasPrefix(j.Memory, "-") {
		return fmt.Errorf("--memory %q: want a Kubernetes quantity such as 4Gi", j.Memory)
	}
	return nil
}

func (j *Job) dsnKey() string {
	if j.DSNKey == "" {
		return "dsn"
	}
	return j.DSNKey
}

// Manifest returns the Job as JSON (the Kubernetes types' own encoding),
// which kubectl apply -f accepts as it does YAML.
func (j *Job) Manifest() ([]byte, error) {
	job, err := j.Build()
	if err != nil {
		return nil, err
	}
	return json.MarshalIndent(job, "", "  ")
}

// Build returns the Job as the Kubernetes API's batch/v1 type.
func (j *Job) Build() (*batchv1.Job, error) {
	if err := j.Validate(); err != nil {
		return nil, err
	}
	n := int32(j.N)
	backoff := 3 * n // a shard that fails is started again and resumes its rounds
	res := corev1.ResourceList{
		corev1.ResourceCPU:    *resource.NewQuantity(int64(j.CPUs), resource.DecimalSI),
		corev1.ResourceMemory: resource.MustParse(j.Memory),
	}
	labels := map[string]string{"app.kubernetes.io/name": "perflab", "perflab.dev/run-key": labelValue(j.RunKey)}
	indexed := batchv1.IndexedCompletion
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: j.Name, Labels: labels},
		Spec: batchv1.JobSpec{
			CompletionMode: &indexed,
			Completions:    &n,
			Parallelism:    &n,
			BackoffLimit:   &backoff,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyOnFailure,
					// One shard per node: shards must not compete for cores.
					Affinity: &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
						RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
							LabelSelector: &metav1.LabelSelector{MatchLabels: labels},
							TopologyKey:   corev1.LabelHostname,
						}},
					}},
					Containers: []corev1.Container{{
						Name:  "perflab",
						Image: j.Image,
						Args:  k8sEscape(j.Argv("/" + strconv.Itoa(j.N))),
						Env: []corev1.EnvVar{{
							Name: DBEnv,
							ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
								LocalObjectReference: corev1.LocalObjectReference{Name: j.Secret},
								Key:                  j.dsnKey(),
							}},
						}},
						// Requests equal to limits with whole CPUs: Guaranteed
						// QoS, so the static CPU manager pins exclusive cores.
						Resources: corev1.ResourceRequirements{Requests: res, Limits: res},
					}},
				},
			},
		},
	}, nil
}

// k8sEscape doubles every '$' of args: the kubelet expands $(VAR) in a
// container's args and reduces $$ to $, so each argument reaches perflab
// as it was given.
func k8sEscape(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = strings.ReplaceAll(a, "$", "$$")
	}
	return out
}

// labelValue fits s into a label value (63 characters of [-_.a-zA-Z0-9],
// alphanumeric at both ends).
func labelValue(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(isAlnum(c) || c == '-' || c == '_' || c == '.') {
			b[i] = '-'
		}
	}
	if len(b) > 63 {
		b = b[:63]
	}
	for len(b) > 0 && !isAlnum(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && !isAlnum(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return string(b)
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// DefaultName derives a Job or job name from the run key: "perflab-" and
// the key in lower-case letters, digits and '-', at most 63 characters.
func DefaultName(key string) string {
	name := "perflab-" + strings.Trim(strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			return r
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return '-'
	}, key), "-")
	if len(name) > 63 {
		name = name[:63]
	}
	return strings.TrimRight(name, "-")
}
