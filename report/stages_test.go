package report

import (
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/spec"
	"github.com/perflab/perflab/store"
)

// results parses benchfmt text.
func results(t *testing.T, text string) []*benchfmt.Result {
	t.Helper()
	var results []*benchfmt.Result
	r := benchfmt.NewReader(strings.NewReader(text), "stages.txt")
	for r.Scan() {
		if res, ok := r.Result().(*benchfmt.Result); ok {
			results = append(results, res.Clone())
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return results
}

// runOf computes the findings of a run made of benchfmt text.
func runOf(t *testing.T, text string, sp *spec.Spec, configs ...store.Config) *findings.Run {
	t.Helper()
	return findings.Of(findings.Input{Run: &store.Run{ID: 1}, Results: results(t, text), Spec: sp, Configs: configs, Opt: analysis.DefaultOptions()})
}

// mdOf renders one section as Markdown ("" for none).
func mdOf(s *Section) string {
	var b strings.Builder
	if s != nil {
		writeMarkdownSections(&b, []Section{*s})
	}
	return b.String()
}

func TestStages(t *testing.T) {
	tests := []struct {
		name   string
		text   string
		want   []string // lines that must appear, in order
		absent bool
	}{
		{
			name: "stages with extras",
			text: `config: default
BenchmarkP/kib=1/variant=heap 10 5000 ns/op 2e-6 parse-sec/op 3e-6 build-sec/op 5e-6 e2e-sec/op 1e-7 gc-pause-sec/op 7e-6 p99-sec 12 allocs/op
BenchmarkP/kib=1/variant=direct 10 3000 ns/op 2e-6 parse-sec/op 1e-6 marshal-sec/op 3e-6 e2e-sec/op 4e-6 p99-sec 2 allocs/op
config: arena
BenchmarkP/kib=1/variant=heap 10 5100 ns/op 2e-6 parse-sec/op 3e-6 build-sec/op 5e-6 e2e-sec/op 8e-6 p99-sec 12 allocs/op
`,
			want: []string{
				"## Stages",
				"| cell | config | build-sec/op | marshal-sec/op | parse-sec/op | e2e-sec/op | sec/op | p99-sec | allocs/op |",
				"| BenchmarkP/kib=1/variant=direct | default | | 1.000µ ±? (n=1) | 2.000µ ±? (n=1) | 3.000µ ±? (n=1) |",
				"| BenchmarkP/kib=1/variant=heap | arena | 3.000µ ±? (n=1) | | 2.000µ ±? (n=1) |",
				"| BenchmarkP/kib=1/variant=heap | default | 3.000µ ±? (n=1) | | 2.000µ ±? (n=1) |",
			},
		},
		{
			name: "runtime metrics are not stages",
			text: `config: default
BenchmarkP/n=1 10 5000 ns/op 1e-7 gc-pause-sec/op 1e-8 mutex-wait-sec/op 2e-6 parse-sec/op
`,
			absent: true,
		},
		{
			name:   "no stages",
			text:   "BenchmarkP/n=1 10 5000 ns/op 3 allocs/op\n",
			absent: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := mdOf(stagesSection(runOf(t, tt.text, nil)))
			if tt.absent {
				if out != "" {
					t.Fatalf("want no Stages section, got:\n%s", out)
				}
				return
			}
			rest := out
			for _, line := range tt.want {
				i := strings.Index(rest, line)
				if i < 0 {
					t.Fatalf("missing or out of order: %q\nin:\n%s", line, out)
				}
				rest = rest[i+len(line):]
			}
		})
	}
}
