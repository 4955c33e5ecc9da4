//go:build !v2

package planted

// checksum is the first version: one multiply-add per byte.
//
//go:noinline
func checksum(data []byte) uint32 {
	var h uint32 = 2166136261
	for _, b := range data {
		h = h*16777619 + uint32(b)
	}
	return h
}
