//go:build go1.23 || profshare

package allocscale

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/perflab/perflab/profshare"
)

// ProfileWindow runs work for d under a CPU profile sampled at hz and
// returns the profile's counts: its samples, those in runtime lock frames
// and those in lock frames reached from the heap allocator (package
// profshare). It fails when a CPU profile is already being written (as in
// a profiling pass) or the profile cannot be read.
func ProfileWindow(d time.Duration, hz int, work func(stop <-chan struct{}) error) (profshare.Counts, error) {
	var buf bytes.Buffer
	// Setting the rate first makes StartCPUProfile keep it (the runtime
	// prints that it cannot set its own 100 Hz); the profile records the
	// rate it ran at.
	runtime.SetCPUProfileRate(hz)
	if err := pprof.StartCPUProfile(&buf); err != nil {
		runtime.SetCPUProfileRate(0)
		return profshare.Counts{}, fmt.Errorf("starting the window's CPU profile: %w", err)
	}
	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- work(stop) }()
	time.Sleep(d)
	close(stop)
	werr := <-done
	pprof.StopCPUProfile()
	if werr != nil {
		return profshare.Counts{}, werr
	}
	c, err := profshare.Read(&buf)
	if err != nil {
		return profshare.Counts{}, fmt.Errorf("reading the window's CPU profile: %w", err)
	}
	if c.Total == 0 {
		return c, errors.New("the window's CPU profile holds no samples")
	}
	return c, nil
}
