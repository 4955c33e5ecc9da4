package main

import (
	"bytes"
	"io"
	"os"
	"strings"
	"sync"
	"unicode/utf8"
)

// logWidth is the widest line perflab writes to a log: standard error
// that is not a terminal (CI logs, files, pipes).
const logWidth = 160

// logWriter wraps w's long prose lines at logWidth when w is a file that
// is not a terminal, and returns w itself otherwise (a terminal wraps as
// it likes, and its one updating progress line must stay one line).
// Only perflab's messages ("perflab…: " lines) and their indented notes
// ("  (…") are wrapped, at spaces, with the continuation indented; table
// rows are left as they are.
func logWriter(w *os.File) (io.Writer, func()) {
	if st, err := w.Stat(); err != nil || st.Mode()&os.ModeCharDevice != 0 {
		return w, func() {}
	}
	lw := &wrapWriter{w: w, width: logWidth}
	return lw, lw.flush
}

// wrapWriter is logWriter's writer: it holds a partial line until its
// newline comes.
type wrapWriter struct {
	mu    sync.Mutex
	w     io.Writer
	width int
	buf   []byte
}

func (lw *wrapWriter) Write(p []byte) (int, error) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	lw.buf = append(lw.buf, p...)
	var out bytes.Buffer
	for {
		i := bytes.IndexByte(lw.buf, '\n')
		if i < 0 {
			break
		}
		for _, l := range wrapLine(string(lw.buf[:i]), lw.width) {
			out.WriteString(l)
			out.WriteByte('\n')
		}
		lw.buf = lw.buf[i+1:]
	}
	if out.Len() > 0 {
		if _, err := lw.w.Write(out.Bytes()); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// flush writes a last line that had no newline.
func (lw *wrapWriter) flush() {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if len(lw.buf) > 0 {
		lw.w.Write(lw.buf)
		lw.buf = nil
	}
}

// wrapLine breaks a prose line longer than width runes at spaces; the
// continuation lines are indented two spaces past the line's own
// indentation. Other lines, and words longer than the width, stay whole.
func wrapLine(line string, width int) []string {
	if utf8.RuneCountInString(line) <= width {
		return []string{line}
	}
	trimmed := strings.TrimLeft(line, " ")
	indent := line[:len(line)-len(trimmed)]
	if !strings.HasPrefix(trimmed, "perflab") && !(indent != "" && strings.HasPrefix(trimmed, "(")) {
		return []string{line}
	}
	cont := indent + "  "
	var lines []string
	cur, prefix := trimmed, indent
	for utf8.RuneCountInString(prefix)+utf8.RuneCountInString(cur) > width {
		room := width - utf8.RuneCountInString(prefix)
		cut := -1
		n := 0
		for i, r := range cur {
			if n > room {
				break
			}
			if r == ' ' {
				cut = i
			}
			n++
		}
		if cut <= 0 {
			break
		}
		lines = append(lines, prefix+cur[:cut])
		cur = strings.TrimLeft(cur[cut:], " ")
		prefix = cont
	}
	return append(lines, prefix+cur)
}
