//go:build linux

package load

import (
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// timerPacer sleeps on a timerfd. The descriptor is read through Go's
// network poller, so a goroutine waiting on it frees its P, and it wakes
// within tens of microseconds: time.Sleep rounds waits below a millisecond
// up to about a millisecond on Linux, which is too coarse to pace
// thousands of requests per second.
type timerPacer struct {
	fd  int
	f   *os.File
	buf [8]byte
}

func newPacer() (pacer, error) {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return sleepPacer{}, nil // fall back to time.Sleep
	}
	return &timerPacer{fd: fd, f: os.NewFile(uintptr(fd), "load-pacer")}, nil
}

func (p *timerPacer) wait(d time.Duration) error {
	if d <= 0 {
		return nil
	}
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}
	if err := unix.TimerfdSettime(p.fd, 0, &spec, nil); err != nil {
		return fmt.Errorf("arming the pacing timer: %w", err)
	}
	if _, err := p.f.Read(p.buf[:]); err != nil {
		return fmt.Errorf("waiting on the pacing timer: %w", err)
	}
	return nil
}

func (p *timerPacer) close() { p.f.Close() }
