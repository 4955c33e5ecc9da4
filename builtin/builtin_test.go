package builtin

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/perflab/perflab/driver/gotest"
)

func TestNamesAndSpecs(t *testing.T) {
	names := Names()
	if !slices.Contains(names, "poolreuse") {
		t.Fatalf("Names() = %q, want poolreuse among them", names)
	}
	for _, n := range names {
		s, err := Spec(n)
		if err != nil {
			t.Errorf("built-in %s: %v", n, err)
			continue
		}
		if s.Name != n {
			t.Errorf("experiments/%s/spec.toml names itself %q", n, s.Name)
		}
		if len(s.Claims) == 0 {
			t.Errorf("built-in %s states no claims", n)
		}
	}
	if _, err := Spec("nosuch"); err == nil {
		t.Error("Spec(nosuch) succeeded")
	}
}

func TestMaterializeIsIdempotent(t *testing.T) {
	cache := t.TempDir()
	a, err := Materialize(cache)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Materialize(cache)
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Errorf("second Materialize wrote elsewhere: %s vs %s", a, b)
	}
	for _, f := range []string{"go.mod", "go.sum", "benchmetrics/benchmetrics.go", "experiments/poolreuse/spec.toml"} {
		if _, err := os.Stat(filepath.Join(a, f)); err != nil {
			t.Errorf("materialised tree lacks %s: %v", f, err)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(cache, "src"))
	if len(entries) != 1 {
		t.Errorf("cache/src holds %d entries, want 1 (no temp dirs left)", len(entries))
	}
}

// TestBuiltinBuildsOutsideCheckout compiles every built-in experiment from
// the materialised tree, as an installed perflab does, under each config
// whose toolchain is the current one.
func TestBuiltinBuildsOutsideCheckout(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles test binaries")
	}
	cache := t.TempDir()
	bins := t.TempDir()
	for _, name := range Names() {
		s, err := Load(name, cache)
		if err != nil {
			t.Fatal(err)
		}
		built := map[string]bool{}
		for _, c := range s.Configs {
			if c.GOTOOLCHAIN != "" || built[c.BuildKey()] {
				continue // another toolchain is a download; the engine's matrix tests cover it
			}
			built[c.BuildKey()] = true
			bin, _, err := gotest.Compile(context.Background(), gotest.Build{Dir: s.Dir, Package: s.Package, Env: c.BuildEnv(), Flags: c.BuildFlags(), CacheDir: bins})
			if err != nil {
				t.Errorf("building the materialised %s (config %s): %v", name, c.Name, err)
				continue
			}
			if _, err := os.Stat(bin); err != nil {
				t.Error(err)
			}
		}
	}
}
