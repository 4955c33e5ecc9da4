//go:build !linux

package allocscale

// ResetPeakRSS is not available outside Linux.
func ResetPeakRSS() (rss int64, ok bool) { return 0, false }

// PeakRSS is not available outside Linux.
func PeakRSS() (int64, bool) { return 0, false }
