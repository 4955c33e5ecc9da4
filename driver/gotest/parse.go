package gotest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"golang.org/x/perf/benchfmt"
)

const (
	// maxLine is the longest input line Parse hands to benchfmt. Longer
	// lines (typically a benchmark's log output) are dropped: benchfmt's
	// line scanner would otherwise stop at them with an I/O error.
	maxLine = 32 << 10
	// maxSyntaxErrors bounds how many malformed lines Parse reports
	// individually; the rest are summarised in one error.
	maxSyntaxErrors = 100
)

// Parse reads the output of go test -bench (the Go benchmark format) and
// returns its results in input order.
//
// Lines that are not benchmark results (PASS, ok, logs, test output) are
// skipped, as benchfmt does; configuration lines such as "goos:",
// "goarch:", "pkg:" and "cpu:" are attached to the Config of every result
// that follows them. Lines longer than 32 KiB are skipped too. Each line
// that begins with "Benchmark" but cannot be parsed yields a
// *[benchfmt.SyntaxError] naming fileName and the line number; these are
// returned joined into one error alongside the results that did parse
// (errors.As finds them). Only the first 100 are listed individually. A read
// error from r is returned the same way, with the results read before it.
//
// Parse never panics, whatever the input.
func Parse(r io.Reader, fileName string) ([]*benchfmt.Result, error) {
	if fileName == "" {
		fileName = "<input>"
	}
	lr := &lineFilter{r: bufio.NewReaderSize(r, maxLine)}
	br := benchfmt.NewReader(lr, fileName)
	var (
		results []*benchfmt.Result
		errs    []error
		nSyntax int
	)
	addSyntax := func(e *benchfmt.SyntaxError) {
		nSyntax++
		if nSyntax <= maxSyntaxErrors {
			errs = append(errs, e)
		}
	}
	for br.Scan() {
		// Long benchmark lines are reported at the point they occur.
		for _, n := range lr.takeLong() {
			addSyntax(&benchfmt.SyntaxError{FileName: fileName, Line: n, Msg: fmt.Sprintf("benchmark line longer than %d bytes skipped", maxLine)})
		}
		switch rec := br.Result().(type) {
		case *benchfmt.Result:
			// The Reader reuses its Result on the next Scan.
			results = append(results, rec.Clone())
		case *benchfmt.SyntaxError:
			addSyntax(rec)
		}
	}
	for _, n := range lr.takeLong() {
		addSyntax(&benchfmt.SyntaxError{FileName: fileName, Line: n, Msg: fmt.Sprintf("benchmark line longer than %d bytes skipped", maxLine)})
	}
	if nSyntax > maxSyntaxErrors {
		errs = append(errs, fmt.Errorf("%s: %d more malformed benchmark lines not listed", fileName, nSyntax-maxSyntaxErrors))
	}
	if err := br.Err(); err != nil {
		errs = append(errs, fmt.Errorf("reading benchmark output: %w", err))
	}
	if len(errs) > 0 {
		return results, errors.Join(errs...)
	}
	return results, nil
}

// lineFilter passes its input through line by line, replacing each line
// longer than maxLine by an empty line (so line numbers stay right) and
// remembering the numbers of the dropped lines that began with "Benchmark".
type lineFilter struct {
	r       *bufio.Reader
	pending []byte // rest of the current line still to be returned
	line    int    // lines started so far
	long    []int  // dropped "Benchmark" lines not yet reported
	err     error  // sticky read error, returned once pending is drained
}

var newline = []byte{'\n'}

func (f *lineFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		f.next()
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// next loads the following input line into pending.
func (f *lineFilter) next() {
	line, err := f.r.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		if len(line) > 0 {
			f.line++
		}
		f.pending = line
		f.err = err
		return
	}
	// Too long: drop the rest of the line.
	f.line++
	if bytes.HasPrefix(line, []byte("Benchmark")) {
		f.long = append(f.long, f.line)
	}
	for errors.Is(err, bufio.ErrBufferFull) {
		_, err = f.r.ReadSlice('\n')
	}
	f.pending = newline
	f.err = err
}

// takeLong returns and forgets the recorded long benchmark lines.
func (f *lineFilter) takeLong() []int {
	l := f.long
	f.long = nil
	return l
}
