package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/driver/cachegrind"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/store"
)

// instructionsInput is six rounds of two configs of BenchmarkSum/n=256 and
// two variants of BenchmarkWork: v2 spends 512 more instructions per op in
// checksum; v=b 24 more than v=a in workA. Each cell has a functions
// artifact.
func instructionsInput(t *testing.T) *findings.Run {
	var b strings.Builder
	dir := t.TempDir()
	recs := map[string][]cachegrind.FuncRecord{}
	for r := 1; r <= 6; r++ {
		jitter := 0.01 * float64(r%3)
		for _, c := range []struct {
			config, name string
			funcs        map[string]float64
		}{
			{"v1", "BenchmarkSum/n=256", map[string]float64{"planted.checksum": 1030, "planted.BenchmarkSum.func1": 11}},
			{"v2", "BenchmarkSum/n=256", map[string]float64{"planted.checksum": 1542, "planted.BenchmarkSum.func1": 11}},
			{"v1", "BenchmarkWork/v=a", map[string]float64{"planted.workA": 1206, "planted.BenchmarkWork.func1": 11}},
			{"v1", "BenchmarkWork/v=b", map[string]float64{"planted.workA": 1230, "planted.BenchmarkWork.func2": 11}},
		} {
			total := 0.0
			for f, v := range c.funcs {
				c.funcs[f] = v + jitter
				total += v + jitter
			}
			fmt.Fprintf(&b, "config: %s\nround: %d\n%s 200000 %g instructions/op\n", c.config, r, c.name, total)
			k := c.config + "|" + c.name
			recs[k] = append(recs[k], cachegrind.FuncRecord{Round: r, Name: c.name, N: 100000, Funcs: c.funcs})
		}
	}
	in := findings.Input{Results: parseResults(t, b.String()), Opt: analysis.DefaultOptions(), Run: &store.Run{Experiment: "planted"}}
	in.Configs = []store.Config{{Name: "v1"}, {Name: "v2"}}
	in.Env = []store.KV{{Key: "valgrind", Value: "valgrind-3.19.0"}, {Key: "instructions", Value: "Cachegrind --cache-sim=no"}}
	for k, rs := range recs {
		config, name, _ := strings.Cut(k, "|")
		path := filepath.Join(dir, strings.NewReplacer("/", "_", "=", "_").Replace(k)+".jsonl")
		var lines []byte
		for _, r := range rs {
			line, _ := json.Marshal(r)
			lines = append(append(lines, line...), '\n')
		}
		if err := os.WriteFile(path, lines, 0o644); err != nil {
			t.Fatal(err)
		}
		in.Artifacts = append(in.Artifacts, store.Artifact{Config: config, Cell: name, Kind: cachegrind.ArtifactKind, Path: path})
	}
	return findings.Of(in)
}

func parseResults(t *testing.T, text string) []*benchfmt.Result {
	t.Helper()
	var results []*benchfmt.Result
	r := benchfmt.NewReader(strings.NewReader(text), "instructions.txt")
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

func TestInstructionsSection(t *testing.T) {
	var buf bytes.Buffer
	if err := Markdown(&buf, instructionsInput(t)); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"## Instructions per op (Cachegrind)",
		"valgrind-3.19.0",
		"multi-goroutine benchmarks ran serialised under valgrind",
		"| BenchmarkWork/v=b | v1 | v=b / v=a |",
		"| BenchmarkSum/n=256 | v2 | v2 / v1 |",
		"Functions whose instructions changed most",
		"BenchmarkSum/n=256 (v2 / v1)",
		"| `planted.checksum` | 1030 | 1542 | +512 | 100% |",
		"BenchmarkWork/v=b (v=b / v=a)",
		"| `planted.workA` | 1206 | 1230 | +24 | 100% |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("section lacks %q:\n%s", want, out)
		}
	}
	// The ratio of v2 to v1 is (1542+11)/(1030+11) in every round.
	if want := fmt.Sprintf("**%.5g [", 1553.0/1041.0); !strings.Contains(out, want) {
		t.Errorf("section lacks the v2/v1 ratio %q:\n%s", want, out)
	}
}

func TestInstructionsSectionAbsentWithoutCounts(t *testing.T) {
	f := findings.Of(findings.Input{Results: parseResults(t, "config: a\nround: 1\nBenchmarkX 10 5 ns/op\n"), Opt: analysis.DefaultOptions(), Run: &store.Run{}})
	if s := instructionsSection(f); s != nil {
		t.Errorf("a run without instructions got a section: %+v", s)
	}
}
