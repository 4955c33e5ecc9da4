//go:build !linux

package load

import (
	"errors"
	"runtime"
)

// AvailableCPUs returns 0..NumCPU-1: this platform offers no affinity query.
func AvailableCPUs() []int {
	cpus := make([]int, runtime.NumCPU())
	for i := range cpus {
		cpus[i] = i
	}
	return cpus
}

// PinCPUs is not supported on this platform.
func PinCPUs(cpus []int) (func(), error) {
	if len(cpus) == 0 {
		return func() {}, nil
	}
	return nil, errors.New("pinning to CPUs is supported on Linux only")
}
