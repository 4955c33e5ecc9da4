//go:build go1.23

package allocscale

import (
	"runtime/pprof"
	"strings"
	"testing"
	"time"
)

// TestProfileWindow: a window of the plain variant's requests gives a
// profile whose lock counts nest (heap-lock ⊆ lock ⊆ all samples), and a
// window cannot start while another CPU profile is being written.
func TestProfileWindow(t *testing.T) {
	lg, err := NewLogger("plain")
	if err != nil {
		t.Fatal(err)
	}
	c, err := ProfileWindow(200*time.Millisecond, profileHz, func(stop <-chan struct{}) error { return serve(lg, 8, stop) })
	if err != nil {
		t.Fatal(err)
	}
	if c.Total < 20 || c.Lock > c.Total || c.HeapLock > c.Lock {
		t.Errorf("counts %+v: want at least 20 samples and heap-lock ≤ lock ≤ total", c)
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
