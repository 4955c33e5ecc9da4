// Package launch writes manifests that hand shards of one perflab run to an
// existing launcher: a Kubernetes Indexed Job whose pods each run
// "perflab run --shard /N" (the index comes from JOB_COMPLETION_INDEX).
// perflab schedules nothing itself.
package launch

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
)

// Job describes the Indexed Job to write.
type Job struct {
	Name    string   // Job name (a DNS label)
	Image   string   // container image with perflab, Go and the benchmark sources
	Spec    string   // spec path or built-in experiment name, as the image sees it
	Shards  int      // completions = parallelism = Shards
	RunKey  string   // --run-key of every shard
	Seed    int64    // --seed of every shard (0: derived from the key)
	Secret  string   // Secret holding the database URL
	DSNKey  string   // key of the URL in Secret ("dsn" when empty)
	CPUs    int      // whole CPUs per pod, requested and limited alike
	Memory  string   // memory per pod, requested and limited alike (e.g. 4Gi)
	RunArgs []string // further "perflab run" flags (e.g. --quick, --rounds 12)
}

var (
	dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)
	quantity = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?(Ki|Mi|Gi|Ti|k|M|G|T)?$`)
)

// Validate says what is wrong with j, or nil.
func (j *Job) Validate() error {
	switch {
	case j.Image == "":
		return fmt.Errorf("no image: pass --image with perflab, Go and the benchmark sources")
	case j.Spec == "":
		return fmt.Errorf("no spec: name the experiment or spec file as the image sees it")
	case j.Shards < 1:
		return fmt.Errorf("--shards %d: want at least 1", j.Shards)
	case j.RunKey == "":
		return fmt.Errorf("no run key: pass --run-key, the name every shard of the run shares")
	case j.Secret == "":
		return fmt.Errorf("no secret: pass --secret, the Secret whose key %q holds the postgres:// URL", j.dsnKey())
	case j.CPUs < 1:
		return fmt.Errorf("--cpus %d: want whole CPUs ≥ 1, so the pod is Guaranteed and can get exclusive cores", j.CPUs)
	case !quantity.MatchString(j.Memory):
		return fmt.Errorf("--memory %q: want a Kubernetes quantity such as 4Gi", j.Memory)
	case !dnsLabel.MatchString(j.Name):
		return fmt.Errorf("job name %q: want a DNS label (lower-case letters, digits, '-', at most 63)", j.Name)
	}
	return nil
}

func (j *Job) dsnKey() string {
	if j.DSNKey == "" {
		return "dsn"
	}
	return j.DSNKey
}

// Manifest returns the Job as JSON, which kubectl apply -f accepts as it
// does YAML.
func (j *Job) Manifest() ([]byte, error) {
	if err := j.Validate(); err != nil {
		return nil, err
	}
	args := []string{"run", j.Spec, "--db", "$(PERFLAB_DB)", "--shard", "/" + strconv.Itoa(j.Shards), "--run-key", j.RunKey}
	if j.Seed != 0 {
		args = append(args, "--seed", strconv.FormatInt(j.Seed, 10))
	}
	args = append(args, j.RunArgs...)
	res := map[string]string{"cpu": strconv.Itoa(j.CPUs), "memory": j.Memory}
	labels := map[string]string{"app.kubernetes.io/name": "perflab", "perflab.dev/run-key": labelValue(j.RunKey)}
	m := obj{
		"apiVersion": "batch/v1",
		"kind":       "Job",
		"metadata":   obj{"name": j.Name, "labels": labels},
		"spec": obj{
			"completionMode": "Indexed",
			"completions":    j.Shards,
			"parallelism":    j.Shards,
			// A shard that fails is started again and resumes its rounds.
			"backoffLimit": 3 * j.Shards,
			"template": obj{
				"metadata": obj{"labels": labels},
				"spec": obj{
					"restartPolicy": "OnFailure",
					// One shard per node: shards must not compete for cores.
					"affinity": obj{"podAntiAffinity": obj{
						"requiredDuringSchedulingIgnoredDuringExecution": []obj{{
							"labelSelector": obj{"matchLabels": labels},
							"topologyKey":   "kubernetes.io/hostname",
						}},
					}},
					"containers": []obj{{
						"name":  "perflab",
						"image": j.Image,
						"args":  args,
						"env": []obj{{
							"name":      "PERFLAB_DB",
							"valueFrom": obj{"secretKeyRef": obj{"name": j.Secret, "key": j.dsnKey()}},
						}},
						// Requests equal to limits with whole CPUs: Guaranteed
						// QoS, so the static CPU manager pins exclusive cores.
						"resources": obj{"requests": res, "limits": res},
					}},
				},
			},
		},
	}
	return json.MarshalIndent(m, "", "  ")
}

type obj = map[string]any

// labelValue fits s into a label value (63 characters of [-_.a-zA-Z0-9],
// alphanumeric at both ends).
func labelValue(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
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
