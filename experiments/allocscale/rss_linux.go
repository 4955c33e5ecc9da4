//go:build linux

package allocscale

import (
	"bufio"
	"os"
	"strconv"
	"strings"
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
	var gotRSS, gotHWM bool
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, found := strings.Cut(sc.Text(), ":")
		if !found {
			continue
		}
		fields := strings.Fields(v)
		if len(fields) != 2 || fields[1] != "kB" {
			continue
		}
		n, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			continue
		}
		switch k {
		case "VmRSS":
			rss, gotRSS = n<<10, true
		case "VmHWM":
			hwm, gotHWM = n<<10, true
		}
	}
	return rss, hwm, gotRSS && gotHWM
}
