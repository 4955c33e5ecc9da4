//go:build v2

package planted

// checksum is the second version (build tag v2): it also mixes the bits of
// every byte in, more instructions per byte.
//
//go:noinline
func checksum(data []byte) uint32 {
	var h uint32 = 2166136261
	for _, b := range data {
		h = h*16777619 + uint32(b)
		h ^= h >> 15
	}
	return h
}
