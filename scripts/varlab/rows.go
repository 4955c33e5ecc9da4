package main

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Units of a layouts row.
const (
	unitTime  = "sec/op"
	unitInstr = "instructions/op"
)

// layoutRow is one process of varlab layouts (unit sec/op), or one
// instructions/op figure from Cachegrind (round 0).
type layoutRow struct {
	Bench  string // leaf benchmark name, without the -N suffix
	Align  int    // -funcalign; 0 for the linker's default
	Side   string // "base", or "old" and "new" with -planted
	Layout int64  // -randlayout seed
	Round  int    // from 1; 0 for instructions
	Pos    int    // position in the round's order
	Iters  int    // iterations (-test.benchtime=Nx); the smaller of the two for instructions
	Value  float64
	Unit   string
}

// sourceRow is one process of varlab sources: its repetitions' sec/op.
type sourceRow struct {
	Bench string
	Cond  string // base, pin0, pin1, envpad, noaslr, gomaxprocs1
	Round int    // from 1
	Proc  int    // the process's number among its condition's in the round, from 1
	Pos   int    // position in the round's order
	Iters int    // iterations per repetition
	Pad   int    // bytes of environment padding (envpad), else 0
	Reps  []float64
}

var (
	layoutHeader = []string{"bench", "align", "side", "layout", "round", "pos", "iters", "value", "unit"}
	sourceHeader = []string{"bench", "cond", "round", "proc", "pos", "iters", "pad"} // then rep1…repK
)

// writeHeader writes the settings comment (one line) and the header of a
// CSV file; reps is the repetitions per process of a sources file, 0 for
// layouts.
func writeHeader(w *csv.Writer, out io.Writer, settings string, reps int) error {
	if _, err := fmt.Fprintf(out, "# %s\n", settings); err != nil {
		return err
	}
	if reps == 0 {
		return w.Write(layoutHeader)
	}
	h := append([]string(nil), sourceHeader...)
	for k := 1; k <= reps; k++ {
		h = append(h, "rep"+strconv.Itoa(k))
	}
	return w.Write(h)
}

func (r layoutRow) record() []string {
	return []string{r.Bench, strconv.Itoa(r.Align), r.Side, strconv.FormatInt(r.Layout, 10), strconv.Itoa(r.Round),
		strconv.Itoa(r.Pos), strconv.Itoa(r.Iters), strconv.FormatFloat(r.Value, 'g', -1, 64), r.Unit}
}

func (r sourceRow) record() []string {
	rec := []string{r.Bench, r.Cond, strconv.Itoa(r.Round), strconv.Itoa(r.Proc), strconv.Itoa(r.Pos), strconv.Itoa(r.Iters), strconv.Itoa(r.Pad)}
	for _, x := range r.Reps {
		rec = append(rec, strconv.FormatFloat(x, 'g', -1, 64))
	}
	return rec
}

// dataset is what a CSV file of either kind holds.
type dataset struct {
	Settings string // the comment line, without "# "
	Layouts  []layoutRow
	Sources  []sourceRow
}

// maxRows bounds what readCSV accepts, so that a wrong file cannot take
// the machine's memory.
const maxRows = 10_000_000

// readCSV parses a file varlab layouts or varlab sources wrote: an
// optional "# settings" line, a header that says which kind it is, then
// one record per line. Every error names the line and says what was
// expected.
func readCSV(in io.Reader) (*dataset, error) {
	br := bufio.NewReader(in)
	d := &dataset{}
	line := 0
	if b, err := br.Peek(1); err == nil && b[0] == '#' {
		s, err := br.ReadString('\n')
		if err != nil && err != io.EOF {
			return nil, err
		}
		d.Settings = strings.TrimSpace(strings.TrimPrefix(s, "#"))
		line = 1
	}
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err == io.EOF {
		return nil, errors.New("empty file: want a varlab layouts or sources CSV")
	}
	if err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	header = append([]string(nil), header...)
	var parse func([]string) error
	switch {
	case slices.Equal(header, layoutHeader):
		parse = func(f []string) error {
			r, err := parseLayout(f)
			d.Layouts = append(d.Layouts, r)
			return err
		}
	case len(header) > len(sourceHeader) && slices.Equal(header[:len(sourceHeader)], sourceHeader):
		for k, h := range header[len(sourceHeader):] {
			if h != "rep"+strconv.Itoa(k+1) {
				return nil, fmt.Errorf("line %d: header field %q, want rep%d", line+1, h, k+1)
			}
		}
		parse = func(f []string) error {
			r, err := parseSource(f, len(header)-len(sourceHeader))
			d.Sources = append(d.Sources, r)
			return err
		}
	default:
		return nil, fmt.Errorf("line %d: header %q is neither a layouts header (%s) nor a sources one (%s,rep1,…)",
			line+1, strings.Join(header, ","), strings.Join(layoutHeader, ","), strings.Join(sourceHeader, ","))
	}
	for n := 0; ; n++ {
		f, err := cr.Read()
		if err == io.EOF {
			return d, nil
		}
		if pe := (*csv.ParseError)(nil); errors.As(err, &pe) {
			return nil, fmt.Errorf("line %d: %w", line+pe.Line, pe.Err)
		} else if err != nil {
			return nil, err
		}
		at, _ := cr.FieldPos(0)
		if n >= maxRows {
			return nil, fmt.Errorf("line %d: more than %d records", line+at, maxRows)
		}
		if len(f) != len(header) {
			return nil, fmt.Errorf("line %d: %d fields, want %d as in the header", line+at, len(f), len(header))
		}
		if err := parse(f); err != nil {
			return nil, fmt.Errorf("line %d: %w", line+at, err)
		}
	}
}

func parseLayout(f []string) (layoutRow, error) {
	r := layoutRow{Bench: f[0], Side: f[2], Unit: f[8]}
	var err error
	ints := []struct {
		name string
		dst  *int
		s    string
	}{{"align", &r.Align, f[1]}, {"round", &r.Round, f[4]}, {"pos", &r.Pos, f[5]}, {"iters", &r.Iters, f[6]}}
	for _, x := range ints {
		if *x.dst, err = nonNegative(x.name, x.s); err != nil {
			return r, err
		}
	}
	if r.Layout, err = strconv.ParseInt(f[3], 10, 64); err != nil {
		return r, fmt.Errorf("layout %q: want an integer seed", f[3])
	}
	if r.Value, err = positive("value", f[7]); err != nil {
		return r, err
	}
	switch {
	case r.Bench == "" || r.Side == "":
		return r, errors.New("empty bench or side")
	case r.Unit != unitTime && r.Unit != unitInstr:
		return r, fmt.Errorf("unit %q: want %s or %s", r.Unit, unitTime, unitInstr)
	case r.Iters < 1:
		return r, errors.New("iters 0: want at least 1")
	case r.Unit == unitTime && r.Round < 1:
		return r, fmt.Errorf("round %d: a timed row's round counts from 1", r.Round)
	}
	return r, nil
}

func parseSource(f []string, reps int) (sourceRow, error) {
	r := sourceRow{Bench: f[0], Cond: f[1], Reps: make([]float64, reps)}
	var err error
	ints := []struct {
		name string
		dst  *int
		s    string
	}{{"round", &r.Round, f[2]}, {"proc", &r.Proc, f[3]}, {"pos", &r.Pos, f[4]}, {"iters", &r.Iters, f[5]}, {"pad", &r.Pad, f[6]}}
	for _, x := range ints {
		if *x.dst, err = nonNegative(x.name, x.s); err != nil {
			return r, err
		}
	}
	for k := range reps {
		if r.Reps[k], err = positive("rep"+strconv.Itoa(k+1), f[len(sourceHeader)+k]); err != nil {
			return r, err
		}
	}
	switch {
	case r.Bench == "" || r.Cond == "":
		return r, errors.New("empty bench or cond")
	case r.Round < 1 || r.Iters < 1:
		return r, errors.New("round and iters count from 1")
	}
	return r, nil
}

func nonNegative(name, s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s %q: want a non-negative integer", name, s)
	}
	return n, nil
}

func positive(name, s string) (float64, error) {
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || !(x > 0) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("%s %q: want a positive number", name, s)
	}
	return x, nil
}
