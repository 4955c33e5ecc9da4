package load

import "time"

// A pacer waits for short durations as precisely as the platform allows.
type pacer interface {
	wait(d time.Duration) error
	close()
}

// sleepPacer waits with time.Sleep.
type sleepPacer struct{}

func (sleepPacer) wait(d time.Duration) error {
	time.Sleep(d)
	return nil
}

func (sleepPacer) close() {}
