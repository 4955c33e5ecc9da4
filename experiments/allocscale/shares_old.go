//go:build !go1.23 && !profshare

package allocscale

import (
	"errors"
	"time"
)

// Counts stands in for package profshare's counts in builds by toolchains
// older than Go 1.23, which do not build profshare.
type Counts struct{ Total, Lock, HeapLock int64 }

// ProfileWindow is not available before Go 1.23: the lock shares are
// measured by the toolchains that build package profshare.
func ProfileWindow(time.Duration, int, func(<-chan struct{}) error) (Counts, error) {
	return Counts{}, errors.New("the lock-share window needs a toolchain of Go 1.23 or later (package profshare)")
}
