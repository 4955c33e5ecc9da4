package matrix

import (
	"context"
	"io"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/perflab/perflab/engine"
	"github.com/perflab/perflab/plan"
	"github.com/perflab/perflab/spec"
	"github.com/perflab/perflab/store"
)

// olderToolchain is the toolchain of the spec's go1.18 config.
const olderToolchain = "go1.18.10"

// toolchainAvailable reports whether the go command can run the older
// toolchain (from the module cache, or downloaded through the proxy now).
func toolchainAvailable(t *testing.T) bool {
	cmd := exec.Command("go", "version")
	cmd.Dir = t.TempDir()
	cmd.Env = append(cmd.Environ(), "GOTOOLCHAIN="+olderToolchain)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Logf("%s is not available here (%v: %s); its config must be reported as unbuildable", olderToolchain, err, strings.TrimSpace(string(out)))
		return false
	}
	return strings.Contains(string(out), olderToolchain)
}

// TestConfigMatrix runs the experiment's own quick-mode configs plus two that cannot
// build: an unknown GOEXPERIMENT and the older toolchain without its module
// file. Each bad config is recorded with the go command's complaint and a
// "(build)" failure, and every other config is measured: the arena cell
// where GOEXPERIMENT=arenas is set, a "not applicable" skip elsewhere.
func TestConfigMatrix(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the experiment under seven configs")
	}
	s, err := spec.Load(filepath.Join("..", "spec.toml"))
	if err != nil {
		t.Fatal(err)
	}
	// The run is in quick mode: full-only configs (the go1.20 and go1.21
	// toolchains) are not part of it.
	s = s.ForMode("quick")
	good := map[string]bool{}
	for _, c := range s.Configs {
		good[c.Name] = true
	}
	s.Configs = append(s.Configs,
		spec.Config{Name: "unknown-experiment", GOEXPERIMENT: "nosuchexperiment"},
		spec.Config{Name: "go1.18-without-modfile", GOTOOLCHAIN: olderToolchain},
	)
	haveOld := toolchainAvailable(t)
	var cells []plan.Cell
	for _, c := range s.Configs {
		for _, v := range []string{"plain", "arena"} {
			cells = append(cells, plan.Cell{Bench: "BenchmarkAlloc", Levels: []string{"variant=" + v, "gpp=1", "gomaxprocs=1"}, Config: c.Name})
		}
	}
	db, err := store.Open(filepath.Join(t.TempDir(), "perflab.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	res, err := engine.Run(ctx, engine.Options{
		Spec: s, Mode: "quick", DB: db, ArtifactDir: t.TempDir(), CacheDir: t.TempDir(),
		Seed: 5, Rounds: 1, Benchtime: "20x", Cells: cells, NoProfile: true, NoiseRuns: 2, Progress: io.Discard,
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.Status != "partial" { // two configs do not build
		t.Fatalf("run status %q, want partial", res.Status)
	}

	configs, err := db.Configs(ctx, res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	built := map[string]bool{}
	for _, c := range configs {
		switch {
		case c.Name == "unknown-experiment":
			if !strings.Contains(c.Error, "unknown GOEXPERIMENT") {
				t.Errorf("config %s: error %q, want the go command's complaint about the experiment", c.Name, c.Error)
			}
		case c.Name == "go1.18-without-modfile":
			if !strings.Contains(c.Error, "invalid go version") && !(!haveOld && c.Error != "") {
				t.Errorf("config %s: error %q, want go1.18 refusing the module's go line", c.Name, c.Error)
			}
		case c.Name == "go1.18" && !haveOld:
			if c.Error == "" {
				t.Errorf("config go1.18 built although %s is not available", olderToolchain)
			}
		case good[c.Name]:
			if c.Error != "" {
				t.Errorf("config %s did not build: %s", c.Name, c.Error)
			}
		}
		built[c.Name] = c.Error == ""
	}
	if len(configs) != len(s.Configs) {
		t.Errorf("%d configs recorded, want %d", len(configs), len(s.Configs))
	}

	fails, err := db.Failures(ctx, res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	buildFailures := map[string]bool{}
	skipped := map[string]string{}
	for _, f := range fails {
		switch {
		case f.Cell == "(build)":
			buildFailures[f.Config] = true
		case f.Skip:
			skipped[f.Config] = f.Reason
		default:
			t.Errorf("unexpected failure in %s %s: %s", f.Config, f.Cell, f.Reason)
		}
	}
	results, err := db.Results(ctx, res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	measured := map[string]map[string]bool{} // config → variant
	versions := map[string]string{}
	for _, r := range results {
		cfg := r.GetConfig("config")
		if measured[cfg] == nil {
			measured[cfg] = map[string]bool{}
		}
		name := string(r.Name.Full())
		for _, v := range []string{"plain", "arena"} {
			if strings.Contains(name, "variant="+v+"/") {
				measured[cfg][v] = true
			}
		}
		versions[cfg] = r.GetConfig("goversion")
	}
	for _, c := range s.Configs {
		if !built[c.Name] {
			if !buildFailures[c.Name] {
				t.Errorf("config %s did not build but has no (build) failure", c.Name)
			}
			if len(measured[c.Name]) > 0 {
				t.Errorf("config %s did not build but has results", c.Name)
			}
			continue
		}
		if !measured[c.Name]["plain"] {
			t.Errorf("config %s built but its plain cell has no result", c.Name)
		}
		wantArena := strings.Contains(c.GOEXPERIMENT, "arenas")
		if measured[c.Name]["arena"] != wantArena {
			t.Errorf("config %s: arena cell measured %v, want %v", c.Name, measured[c.Name]["arena"], wantArena)
		}
		if !wantArena && !strings.Contains(skipped[c.Name], "needs GOEXPERIMENT=arenas") {
			t.Errorf("config %s: arena cell not recorded as not applicable (got %q)", c.Name, skipped[c.Name])
		}
		// runtime.Version names the toolchain and any experiment set:
		// "go1.26.8-X:arenas".
		want := strings.SplitN(runtime.Version(), "-", 2)[0]
		if c.GOTOOLCHAIN != "" {
			want = c.GOTOOLCHAIN
		}
		if c.GOEXPERIMENT != "" {
			want += "-X:" + c.GOEXPERIMENT
		}
		if versions[c.Name] != want {
			t.Errorf("config %s: results say goversion %q, want %q", c.Name, versions[c.Name], want)
		}
	}
}
