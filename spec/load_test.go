package spec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLoadRefusesHugeFiles: a spec over MaxSize, or a device that never
// ends, is refused before it fills memory, naming the file and the limit.
func TestLoadRefusesHugeFiles(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.toml")
	if err := os.WriteFile(big, []byte("# "+strings.Repeat("x", MaxSize)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	paths := []string{big}
	if _, err := os.Stat("/dev/zero"); err == nil {
		paths = append(paths, "/dev/zero")
	}
	for _, p := range paths {
		start := time.Now()
		_, err := Load(p)
		if err == nil || !strings.Contains(err.Error(), "larger than 4 MiB") || !strings.Contains(err.Error(), p) {
			t.Errorf("Load(%s) = %v", p, err)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("Load(%s) took %s", p, d)
		}
	}
}
