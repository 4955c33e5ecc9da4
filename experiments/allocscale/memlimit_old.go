//go:build !go1.19

package allocscale

import "math"

// MemoryLimit returns math.MaxInt64: the runtime has no memory limit
// before Go 1.19.
func MemoryLimit() int64 { return math.MaxInt64 }
