// Package offline cuts a test's go commands off from every download, as
// on a machine without the network: no module proxy (GOPROXY=off), an
// empty module cache of the test's own, where toolchains are kept too,
// and -mod=mod so that a missing module is looked up, not refused.
package offline

import (
	"os"
	"os/exec"
	"testing"
)

// Go sets the environment of the test (and of the go commands it starts)
// for the rest of it, and removes the module cache afterwards.
func Go(t testing.TB) {
	t.Helper()
	modCache := t.TempDir()
	t.Cleanup(func() { // the go command writes the module cache read-only
		c := exec.Command("go", "clean", "-modcache")
		c.Env = append(os.Environ(), "GOMODCACHE="+modCache)
		_ = c.Run()
	})
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOMODCACHE", modCache)
}
