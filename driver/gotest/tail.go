package gotest

import (
	"bytes"
	"strings"
	"sync"
)

const (
	tailLines = 20       // lines of output kept for error messages
	tailBytes = 64 << 10 // bytes of output retained to find them
)

// tailBuffer is an io.Writer that retains only the end of what is written
// to it. It is safe for concurrent use, so stdout and stderr copiers can
// share one.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
	cut bool // whether earlier output was dropped
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if len(p) >= tailBytes {
		p = p[len(p)-tailBytes:]
		t.buf = t.buf[:0]
		t.cut = true
	} else if over := len(t.buf) + len(p) - tailBytes; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.cut = true
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

// String returns the last tailLines lines of output. If a line announcing a
// panic or fatal runtime error was retained but falls before those lines, it
// is prepended (followed by "...") so that the cause is always visible.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	data := bytes.TrimRight(t.buf, "\n")
	cut := t.cut
	t.mu.Unlock()

	lines := strings.Split(string(data), "\n")
	if cut && len(lines) > 1 {
		lines = lines[1:] // the first retained line may be partial
	}
	if len(lines) <= tailLines {
		return strings.Join(lines, "\n")
	}
	start := len(lines) - tailLines
	out := lines[start:]
	for _, l := range lines[:start] {
		if strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: ") {
			return l + "\n...\n" + strings.Join(out, "\n")
		}
	}
	return strings.Join(out, "\n")
}
