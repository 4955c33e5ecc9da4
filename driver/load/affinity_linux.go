//go:build linux

package load

import (
	"fmt"
	"os"
	"runtime"
	"strconv"

	"golang.org/x/sys/unix"
)

// AvailableCPUs returns the CPUs this process may run on, ascending.
func AvailableCPUs() []int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		n := runtime.NumCPU()
		cpus := make([]int, n)
		for i := range cpus {
			cpus[i] = i
		}
		return cpus
	}
	var cpus []int
	for i := 0; i < 1024 && len(cpus) < set.Count(); i++ {
		if set.IsSet(i) {
			cpus = append(cpus, i)
		}
	}
	return cpus
}

// PinCPUs restricts every thread of this process to cpus and sets
// GOMAXPROCS to len(cpus). The returned function restores the previous
// CPU set and GOMAXPROCS. Linux applies CPU affinity per thread, so every
// thread listed in /proc/self/task is pinned, twice over to catch threads
// started during the first pass; threads started later inherit the set.
func PinCPUs(cpus []int) (restore func(), err error) {
	if len(cpus) == 0 {
		return func() {}, nil
	}
	var old, set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		return nil, fmt.Errorf("reading this process's CPU affinity: %w", err)
	}
	for _, c := range cpus {
		if c < 0 || c >= 1024 {
			return nil, fmt.Errorf("CPU %d is out of range", c)
		}
		set.Set(c)
	}
	prevProcs := runtime.GOMAXPROCS(0)
	if err := setAll(&set); err != nil {
		_ = setAll(&old)
		return nil, fmt.Errorf("pinning to CPUs %v: %w; check them against `nproc` and taskset -p $$", cpus, err)
	}
	runtime.GOMAXPROCS(len(cpus))
	return func() {
		_ = setAll(&old)
		runtime.GOMAXPROCS(prevProcs)
	}, nil
}

func setAll(set *unix.CPUSet) error {
	for pass := 0; pass < 2; pass++ {
		entries, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return unix.SchedSetaffinity(0, set)
		}
		for _, e := range entries {
			tid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			if err := unix.SchedSetaffinity(tid, set); err != nil && err != unix.ESRCH {
				return err
			}
		}
	}
	return nil
}
