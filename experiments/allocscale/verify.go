package allocscale

import (
	"bytes"
	"fmt"
)

// Verify checks that lg writes, for a set of requests, exactly the bytes
// Plain writes. A variant that fails it is incorrect and must not be
// ranked.
func Verify(lg Logger) error {
	var r Request
	for _, id := range []uint64{0, 1, 7, 255, 256, 99999, 1 << 40} {
		NewRequest(&r, id)
		var want, got bytes.Buffer
		if err := (Plain{}).Log(&r, &want); err != nil {
			return fmt.Errorf("plain variant failed on request %d: %w", id, err)
		}
		if err := lg.Log(&r, &got); err != nil {
			return fmt.Errorf("request %d: %w", id, err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			return fmt.Errorf("request %d: wrote %d bytes that differ from the plain variant's %d (first difference at byte %d)", id, got.Len(), want.Len(), firstDiff(got.Bytes(), want.Bytes()))
		}
	}
	return nil
}

func firstDiff(a, b []byte) int {
	n := len(a)
	if len(b) < n {
		n = len(b)
	}
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
