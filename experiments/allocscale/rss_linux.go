//go:build linux

package allocscale

import (
	"os"
)

// ResetPeakRSS resets the kernel's peak resident set size of this process
// (VmHWM) to the current RSS, and returns the current RSS in bytes. ok is
// false when /proc does not allow it.
func ResetPeakRSS() (rss int64, ok bool) {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		return 0, false
	}
	rss, _, ok = readRSS()
	return rss, ok
}

// PeakRSS returns the peak resident set size since the last ResetPeakRSS,
// in bytes.
func PeakRSS() (int64, bool) {
	_, hwm, ok := readRSS()
	return hwm, ok
}

// readRSS reads VmRSS and VmHWM from /proc/self/status.
func readRSS() (rss, hwm int64, ok bool) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, 0, false
	}
	defer f.Close()
	return parseStatus(f)
}
