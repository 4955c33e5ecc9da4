package findings

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/driver/gotest"
	"github.com/perflab/perflab/spec"
	"github.com/perflab/perflab/store"
	"github.com/perflab/perflab/unit"
)

// Set is one input of a comparison or an analysis: benchmark results with
// their unit metadata, from a stored run or a file of Go benchmark output.
type Set struct {
	Name      string     // the file's name; "" for a run
	Run       *store.Run // nil for a file
	Results   []*benchfmt.Result
	Meta      []benchfmt.UnitMetadata // in order of precedence from last to first
	Env       []store.KV              // nil for a file
	Artifacts []store.Artifact        // nil for a file
}

// ReadSet reads a stored run as a Set: the results of its planned rounds
// (rounds 1..FirstLook of a run with follow-up rounds, which serve the
// claim checks only, as in [Of]), its environment, unit metadata and
// artifacts.
func ReadSet(ctx context.Context, db *store.DB, runID int64) (*Set, error) {
	run, err := db.GetRun(ctx, runID)
	if err != nil {
		return nil, err
	}
	s := &Set{Run: run}
	if s.Results, err = db.Results(ctx, runID); err != nil {
		return nil, fmt.Errorf("reading run %d's results: %w", runID, err)
	}
	s.Results = SamplingOf(run).Planned(s.Results)
	stored, err := db.UnitMeta(ctx, runID)
	if err != nil {
		return nil, fmt.Errorf("reading run %d's unit metadata: %w", runID, err)
	}
	var sp *spec.Spec
	if run.SpecText != "" {
		sp, _ = spec.Parse(cmp.Or(run.SpecPath, "spec.toml"), []byte(run.SpecText)) // no spec: its units are stored too
	}
	s.Meta = runMeta(stored, sp)
	if s.Env, err = db.Env(ctx, runID); err != nil {
		return nil, fmt.Errorf("reading run %d's environment: %w", runID, err)
	}
	if s.Artifacts, err = db.Artifacts(ctx, runID); err != nil {
		return nil, fmt.Errorf("reading run %d's artifacts: %w", runID, err)
	}
	return s, nil
}

// Limits of the benchmark output ParseSet reads. Go test prints short
// lines (it skips log lines over 32 KiB itself, see gotest.Parse); a line
// over MaxInputLine, more than MaxInput bytes in all, or results that
// would hold more than MaxResultsMemory (each result keeps its own copy of
// the configuration lines above it, so a long configuration line followed
// by many short results multiplies) are no benchmark output perflab can
// hold in memory (a binary file, /dev/zero), and the input is refused with
// an error that says which limit it passed.
const (
	MaxInputLine     = 1 << 20   // bytes in one line
	MaxInput         = 64 << 20  // bytes in one input
	MaxResultsMemory = 512 << 20 // bytes the parsed results may take, estimated
)

// ParseSet reads Go benchmark output (what go test -bench and benchstat
// write) with its unit metadata lines ("Unit hits/op better=higher"),
// which say which way a unit improves. warn reports lines that could not
// be parsed; err means the input could not be read, passed a limit
// (MaxInputLine, MaxInput) or holds no results. It reads its input once,
// as a stream: memory grows with the results, not with the input.
func ParseSet(r io.Reader, name string) (s *Set, warn, err error) {
	s, _, warn, err = parseSet(r, name)
	return s, warn, err
}

// parseSet is ParseSet; held is its estimate of the results' memory.
func parseSet(r io.Reader, name string) (s *Set, held int64, warn, err error) {
	in := &boundedLines{r: bufio.NewReaderSize(r, MaxInputLine), name: name}
	res, warn := gotest.Parse(in, name)
	if in.err != nil {
		return nil, in.held, nil, in.err
	}
	res, bad := finiteOnly(res)
	if bad != nil {
		warn = errors.Join(warn, bad)
	}
	if len(res) == 0 {
		return nil, in.held, warn, fmt.Errorf("%s holds no benchmark results", name)
	}
	s = &Set{Name: name, Results: res, Meta: unit.Own()}
	br := benchfmt.NewReader(bytes.NewReader(in.units.Bytes()), name)
	for br.Scan() {
		if m, ok := br.Result().(*benchfmt.UnitMetadata); ok {
			s.Meta = append(s.Meta, *m)
		}
	}
	return s, in.held, warn, nil
}

// boundedLines passes its input on line by line, refusing a line over
// MaxInputLine, an input over MaxInput or results over MaxResultsMemory
// (err says which, and the reader then ends as if at EOF), and keeping a
// copy of the unit metadata lines.
type boundedLines struct {
	r       *bufio.Reader
	name    string
	pending []byte
	lines   int
	total   int64
	units   bytes.Buffer // the "Unit ..." lines
	err     error        // a limit passed
	eof     error        // the reader's own error, after pending

	config map[string]int // configuration key → bytes a result's copy of it takes
	cfgMem int            // their sum
	held   int64          // estimated bytes of the results so far
}

func (b *boundedLines) Read(p []byte) (int, error) {
	for len(b.pending) == 0 {
		if b.err != nil {
			return 0, io.EOF
		}
		if b.eof != nil {
			return 0, b.eof
		}
		b.next()
	}
	n := copy(p, b.pending)
	b.pending = b.pending[n:]
	return n, nil
}

const mib = 1 << 20

// next reads the following line into pending.
func (b *boundedLines) next() {
	line, err := b.r.ReadSlice('\n')
	b.lines++
	b.total += int64(len(line))
	switch {
	case errors.Is(err, bufio.ErrBufferFull):
		b.err = fmt.Errorf("%s: line %d is longer than %d MiB, so this is no Go benchmark output (perflab reads lines up to %d MiB and inputs up to %d MiB)", b.name, b.lines, MaxInputLine/mib, MaxInputLine/mib, MaxInput/mib)
		return
	case b.total > MaxInput:
		b.err = fmt.Errorf("%s: more than %d MiB (at line %d): perflab reads benchmark inputs up to %d MiB, lines up to %d MiB; split the input or keep fewer samples", b.name, MaxInput/mib, b.lines, MaxInput/mib, MaxInputLine/mib)
		return
	case err != nil && !errors.Is(err, io.EOF):
		b.err = fmt.Errorf("reading %s: %w", b.name, err)
		return
	}
	b.account(line)
	if b.held > MaxResultsMemory {
		b.err = fmt.Errorf("%s: the results up to line %d would take more than %d MiB of memory (each keeps a copy of the %d bytes of configuration lines above it); split the input", b.name, b.lines, MaxResultsMemory/mib, b.cfgMem)
		return
	}
	b.pending = line
	b.eof = err
}

// Estimated sizes, in bytes, of what benchfmt keeps per result, per
// configuration key of it and per value (see benchfmt.Result.Clone).
const (
	resultCost = 160
	configCost = 48
	valueCost  = 48
	// gotestMaxLine is the longest line gotest.Parse passes to benchfmt.
	gotestMaxLine = 32 << 10
)

// account follows what benchfmt will make of line: a result (its
// estimated size is added to held), a configuration line (the size of the
// copy each later result keeps), or unit metadata (kept aside).
func (b *boundedLines) account(line []byte) {
	text := bytes.TrimRight(line, "\r\n")
	switch {
	case len(line) > gotestMaxLine:
	case bytes.HasPrefix(text, []byte("Benchmark")):
		values := max(0, len(bytes.Fields(text))-2) / 2
		b.held += int64(resultCost + len(text) + valueCost*values + b.cfgMem)
	case bytes.HasPrefix(text, []byte("Unit ")):
		b.units.Write(text)
		b.units.WriteByte('\n')
	default:
		key, val, ok := configLine(text)
		if !ok {
			return
		}
		if b.config == nil {
			b.config = map[string]int{}
		}
		b.cfgMem -= b.config[key]
		delete(b.config, key)
		if len(val) > 0 {
			b.config[key] = configCost + len(key) + len(val)
			b.cfgMem += b.config[key]
		}
	}
}

// configLine reads a "key: value" configuration line by benchfmt's rule:
// the key begins with a lower-case letter and holds no space and no
// upper-case letter; an empty value deletes the key.
func configLine(line []byte) (key string, val []byte, ok bool) {
	i := bytes.IndexByte(line, ':')
	if i <= 0 {
		return "", nil, false
	}
	k := line[:i]
	if r, _ := utf8.DecodeRune(k); !unicode.IsLower(r) || bytes.ContainsFunc(k, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsUpper(r) }) {
		return "", nil, false
	}
	val = line[i+1:]
	if len(val) > 0 && val[0] != ' ' && val[0] != '\t' {
		return "", nil, false
	}
	return string(k), bytes.TrimLeft(val, " \t"), true
}

// finiteOnly drops the values that are no numbers (NaN, ±Inf: go test
// prints such a line for a benchmark that failed) and the results left
// without a value; bad says which, so a gate never reads them as
// samples too few to decide.
func finiteOnly(res []*benchfmt.Result) (kept []*benchfmt.Result, bad error) {
	var where []string
	n := 0
	for _, r := range res {
		vals := r.Values[:0]
		for _, v := range r.Values {
			if math.IsNaN(v.Value) || math.IsInf(v.Value, 0) {
				if n++; n <= 5 {
					file, line := r.Pos()
					where = append(where, fmt.Sprintf("%s:%d: %v %s", file, line, v.Value, v.Unit))
				}
				continue
			}
			vals = append(vals, v)
		}
		r.Values = vals
		if len(vals) > 0 {
			kept = append(kept, r)
		}
	}
	if n == 0 {
		return res, nil
	}
	more := ""
	if n > len(where) {
		more = fmt.Sprintf(" and %d more", n-len(where))
	}
	return kept, fmt.Errorf("%d values that are not numbers left out (%s%s)", n, strings.Join(where, "; "), more)
}

// Configs lists the set's perflab configs (the "config" key of its
// results), in order of first appearance; a file without that key has
// none.
func (s *Set) Configs() []string {
	var out []string
	for _, r := range s.Results {
		if c := r.GetConfig("config"); c != "" && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// Units is the set's unit table.
func (s *Set) Units() *unit.Table { return unit.New(s.Meta) }
