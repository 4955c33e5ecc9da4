//go:build go1.23 || profshare

package allocscale

import (
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/perflab/perflab/profshare"
)

// TestProfileWindow: a window of the plain variant's requests gives a
// profile whose lock counts nest (heap-lock ⊆ lock ⊆ all samples), and a
// window cannot start while another CPU profile is being written.
func TestProfileWindow(t *testing.T) {
	lg, err := NewLogger("plain")
	if err != nil {
		t.Fatal(err)
	}
	// A machine busy with other work may give a window no samples: up to
	// five windows are tried, the test is about what a profile holds.
	var c profshare.Counts
	for try := 0; try < 5 && (try == 0 || err != nil); try++ {
		c, err = ProfileWindow(200*time.Millisecond, profileHz, func(stop <-chan struct{}) error { return serve(lg, 8, stop) })
	}
	if err != nil {
		t.Fatal(err)
	}
	if c.Total == 0 || c.Lock > c.Total || c.HeapLock > c.Lock {
		t.Errorf("counts %+v: want samples, and heap-lock ≤ lock ≤ total", c)
	}
	t.Logf("200 ms at %d Hz: %+v", profileHz, c)

	var other strings.Builder
	if err := pprof.StartCPUProfile(&other); err != nil {
		t.Skipf("cannot start a CPU profile here: %v", err)
	}
	defer pprof.StopCPUProfile()
	if _, err := ProfileWindow(10*time.Millisecond, profileHz, func(stop <-chan struct{}) error { <-stop; return nil }); err == nil || !strings.Contains(err.Error(), "starting the window's CPU profile") {
		t.Errorf("a window under another CPU profile gave %v, want an error naming the window's profile", err)
	}
}

// TestWindowsAt: the correlation windows run in E4's one cell, the
// lock-share windows in the cells of the lock-contention claims (gpp=64,
// 16 Ps and up, the variants they compare), nowhere else.
func TestWindowsAt(t *testing.T) {
	tests := []struct {
		variant             string
		gpp, procs          int
		correlation, shares bool
	}{
		{"plain", 64, 2, true, false},
		{"plain", 64, 1, false, false},
		{"plain", 1, 2, false, false},
		{"pooled", 64, 2, false, false},
		{"plain", 64, 16, false, true},
		{"pooled", 64, 64, false, true},
		{"arena", 64, 32, false, true},
		{"presized", 64, 64, false, false},
		{"plain", 8, 64, false, false},
		{"plain", 64, 8, false, false},
		{"plain", 1024, 64, false, true},
		{"pooled", 1024, 16, false, true},
		{"plain", 1024, 2, false, false},
		{"plain", 256, 64, false, false},
	}
	for _, tt := range tests {
		c, s := windowsAt(tt.variant, tt.gpp, tt.procs)
		if c != tt.correlation || s != tt.shares {
			t.Errorf("windowsAt(%s, gpp=%d, procs=%d) = %v, %v; want %v, %v", tt.variant, tt.gpp, tt.procs, c, s, tt.correlation, tt.shares)
		}
	}
}
