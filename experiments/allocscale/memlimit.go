//go:build go1.19

package allocscale

import "runtime/debug"

// MemoryLimit returns the runtime's soft memory limit (GOMEMLIMIT,
// debug.SetMemoryLimit); math.MaxInt64 when none is set.
func MemoryLimit() int64 { return debug.SetMemoryLimit(-1) }
