package cachegrind

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// A Profile is one Cachegrind output file, summed per function.
type Profile struct {
	Command string              // the "cmd:" line: the program and its arguments
	Events  []string            // event names in column order, e.g. ["Ir"] or ["Ir", "I1mr", ...]
	Totals  []uint64            // the "summary:" line, one count per event
	Funcs   map[string][]uint64 // function name → counts per event, summed over its files and lines
}

// Event returns the total count of the named event and whether the profile
// has that event.
func (p *Profile) Event(name string) (uint64, bool) {
	for i, e := range p.Events {
		if e == name {
			return p.Totals[i], true
		}
	}
	return 0, false
}

// maxLine bounds one line of a Cachegrind file; real lines are short.
const maxLine = 1 << 20

// ParseFile reads a Cachegrind output file (cachegrind.out.<pid>).
func ParseFile(path string) (*Profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cachegrind: %w", err)
	}
	defer f.Close()
	p, err := Parse(f)
	if err != nil {
		return nil, fmt.Errorf("cachegrind: %s: %w", path, err)
	}
	return p, nil
}

// Parse reads Cachegrind's output format: header lines ("desc:", "cmd:",
// "events:"), then "fl=" (file), "fn=" (function) and count lines
// "<line> <count>..." with one count per event (trailing counts may be
// left out and mean 0), and a final "summary:" line. It checks that the
// counts add up to the summary, so a truncated or mixed-up file is an
// error rather than wrong figures.
func Parse(r io.Reader) (*Profile, error) {
	p := &Profile{Funcs: map[string][]uint64{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), maxLine)
	var (
		fn      string
		cur     []uint64 // counts of fn
		sums    []uint64 // column sums, checked against the summary
		haveSum bool
		lineNo  int
	)
	bad := func(format string, args ...any) error {
		return fmt.Errorf("line %d: "+format, append([]any{lineNo}, args...)...)
	}
	for sc.Scan() {
		lineNo++
		line := strings.TrimRight(sc.Text(), "\r")
		if line == "" || line[0] == '#' {
			continue
		}
		if haveSum {
			return nil, bad("text after the summary line; the file holds more than one profile")
		}
		switch {
		case line[0] >= '0' && line[0] <= '9':
			if p.Events == nil {
				return nil, bad("counts before the events: line")
			}
			if fn == "" {
				return nil, bad("counts before any fn= line")
			}
			f := strings.Fields(line)
			if len(f)-1 > len(p.Events) {
				return nil, bad("%d counts for %d events", len(f)-1, len(p.Events))
			}
			if _, err := strconv.ParseUint(f[0], 10, 64); err != nil {
				return nil, bad("line number %q is not a number", f[0])
			}
			for i, s := range f[1:] {
				v, err := parseCount(s)
				if err != nil {
					return nil, bad("%v", err)
				}
				if cur[i]+v < cur[i] || sums[i]+v < sums[i] {
					return nil, bad("count overflows")
				}
				cur[i] += v
				sums[i] += v
			}
		case strings.HasPrefix(line, "fn="):
			fn = strings.TrimSpace(line[3:])
			if fn == "" {
				return nil, bad("empty function name")
			}
			if p.Events == nil {
				return nil, bad("fn= before the events: line")
			}
			if cur = p.Funcs[fn]; cur == nil {
				cur = make([]uint64, len(p.Events))
				p.Funcs[fn] = cur
			}
		case strings.HasPrefix(line, "fl="), strings.HasPrefix(line, "fi="), strings.HasPrefix(line, "fe="):
			// A new file starts a new function block; counts need an fn= first.
			fn = ""
		case strings.HasPrefix(line, "events:"):
			if p.Events != nil {
				return nil, bad("a second events: line")
			}
			p.Events = strings.Fields(line[len("events:"):])
			if len(p.Events) == 0 {
				return nil, bad("events: names no event")
			}
			sums = make([]uint64, len(p.Events))
		case strings.HasPrefix(line, "summary:"), strings.HasPrefix(line, "totals:"):
			if p.Events == nil {
				return nil, bad("summary before the events: line")
			}
			_, rest, _ := strings.Cut(line, ":")
			f := strings.Fields(rest)
			if len(f) != len(p.Events) {
				return nil, bad("summary has %d counts for %d events", len(f), len(p.Events))
			}
			p.Totals = make([]uint64, len(f))
			for i, s := range f {
				v, err := parseCount(s)
				if err != nil {
					return nil, bad("summary: %v", err)
				}
				p.Totals[i] = v
			}
			haveSum = true
		case strings.HasPrefix(line, "cmd:"):
			p.Command = strings.TrimSpace(line[len("cmd:"):])
		case strings.HasPrefix(line, "desc:"), strings.HasPrefix(line, "version:"),
			strings.HasPrefix(line, "creator:"), strings.HasPrefix(line, "pid:"),
			strings.HasPrefix(line, "positions:"), strings.HasPrefix(line, "part:"),
			strings.HasPrefix(line, "thread:"):
			// Header lines perflab does not need.
		default:
			return nil, bad("unrecognised line %q; is this a Cachegrind output file?", clip(line))
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("line %d is longer than %d bytes; is this a Cachegrind output file?", lineNo+1, maxLine)
		}
		return nil, fmt.Errorf("reading: %w", err)
	}
	if p.Events == nil {
		return nil, errors.New("no events: line; is this a Cachegrind output file?")
	}
	if !haveSum {
		return nil, errors.New("no summary: line; the file is truncated (did valgrind finish?)")
	}
	for i, e := range p.Events {
		if sums[i] != p.Totals[i] {
			return nil, fmt.Errorf("the %s counts add up to %d but the summary says %d; the file is damaged", e, sums[i], p.Totals[i])
		}
	}
	return p, nil
}

// parseCount reads one event count. Cachegrind writes plain decimal
// integers; "." is accepted as 0, as callgrind_annotate does.
func parseCount(s string) (uint64, error) {
	if s == "." {
		return 0, nil
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("count %q is not a non-negative integer", clip(s))
	}
	return v, nil
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}
