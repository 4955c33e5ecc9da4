package noisetest

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Corpus is one recording of scripts/noisecorpus: rounds of the planted
// pair (v=b does 2% more of v=a's work, v=c is v=a's own function), each
// variant once per round as one process of repeated timed runs.
type Corpus struct {
	Settings  string                 // the recording's comment line, without "# "
	Processes []Process              // in file order
	byRound   map[int]map[string]int // round → variant → index in Processes
}

// Process is one benchmark process of a recording.
type Process struct {
	Round, Pos int       // round number, position in the round
	Variant    string    // a, b or c
	Iters      int       // iterations of each repetition
	Reps       []float64 // each repetition's ns/op
	CPU, Wall  time.Duration
}

// Planted pair truths: v=b's instructions per op over v=a's under
// Cachegrind, and v=c over v=a (the same function).
const (
	PlantedRatio = 1.0199
	CopyRatio    = 1.0
)

// LoadCorpus reads a gzip-compressed recording.
func LoadCorpus(path string) (*Corpus, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("noise corpus: %w", err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("noise corpus %s: not gzip data: %w", path, err)
	}
	c, err := ReadCorpus(gz)
	if err != nil {
		return nil, fmt.Errorf("noise corpus %s: %w", path, err)
	}
	return c, nil
}

// ReadCorpus parses a recording's CSV: a "# settings" line, the header
// round,pos,variant,iters,rep1…repK,cpu_ns,wall_ns, then one line per
// process. Every line must have the header's number of fields, positive
// repetition times and at most one process per variant and round.
func ReadCorpus(r io.Reader) (*Corpus, error) {
	sc := bufio.NewScanner(r)
	c := &Corpus{byRound: map[int]map[string]int{}}
	var header []string
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		switch {
		case text == "":
			continue
		case strings.HasPrefix(text, "#"):
			if c.Settings == "" {
				c.Settings = strings.TrimSpace(strings.TrimPrefix(text, "#"))
			}
			continue
		case header == nil:
			header = strings.Split(text, ",")
			if len(header) < 7 || strings.Join(header[:4], ",") != "round,pos,variant,iters" || header[len(header)-2] != "cpu_ns" || header[len(header)-1] != "wall_ns" {
				return nil, fmt.Errorf("line %d: header %q, want round,pos,variant,iters,rep1…,cpu_ns,wall_ns", line, text)
			}
			continue
		}
		p, err := parseProcess(strings.Split(text, ","), len(header)-6)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		if c.byRound[p.Round] == nil {
			c.byRound[p.Round] = map[string]int{}
		}
		if _, dup := c.byRound[p.Round][p.Variant]; dup {
			return nil, fmt.Errorf("line %d: round %d has v=%s twice", line, p.Round, p.Variant)
		}
		c.byRound[p.Round][p.Variant] = len(c.Processes)
		c.Processes = append(c.Processes, p)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading: %w", err)
	}
	if header == nil {
		return nil, fmt.Errorf("no header line: is this a noisecorpus recording?")
	}
	return c, nil
}

func parseProcess(f []string, reps int) (Process, error) {
	if len(f) != reps+6 {
		return Process{}, fmt.Errorf("%d fields, want %d", len(f), reps+6)
	}
	var p Process
	var err error
	if p.Round, err = strconv.Atoi(f[0]); err != nil {
		return p, fmt.Errorf("round: %w", err)
	}
	if p.Pos, err = strconv.Atoi(f[1]); err != nil {
		return p, fmt.Errorf("pos: %w", err)
	}
	if p.Variant = f[2]; p.Variant == "" {
		return p, fmt.Errorf("empty variant")
	}
	if p.Iters, err = strconv.Atoi(f[3]); err != nil || p.Iters <= 0 {
		return p, fmt.Errorf("iters %q: want a positive integer", f[3])
	}
	for _, s := range f[4 : 4+reps] {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || !(x > 0) || math.IsInf(x, 0) {
			return p, fmt.Errorf("repetition ns/op %q: want a positive number", s)
		}
		p.Reps = append(p.Reps, x)
	}
	cpu, err := strconv.ParseInt(f[4+reps], 10, 64)
	if err != nil || cpu < 0 {
		return p, fmt.Errorf("cpu_ns %q: want a non-negative integer", f[4+reps])
	}
	wall, err := strconv.ParseInt(f[5+reps], 10, 64)
	if err != nil || wall < 0 {
		return p, fmt.Errorf("wall_ns %q: want a non-negative integer", f[5+reps])
	}
	p.CPU, p.Wall = time.Duration(cpu), time.Duration(wall)
	return p, nil
}

// Rounds returns the round numbers in which both variants were recorded,
// in order.
func (c *Corpus) Rounds(num, den string) []int {
	var rs []int
	for r, vs := range c.byRound {
		_, a := vs[num]
		_, b := vs[den]
		if a && b {
			rs = append(rs, r)
		}
	}
	slices.Sort(rs)
	return rs
}

// LogRatios returns, round by round in order, log(value(num)/value(den))
// for the rounds that recorded both variants; value gives a process's
// value (e.g. the median of its repetitions).
func (c *Corpus) LogRatios(num, den string, value func(Process) float64) []float64 {
	var d []float64
	for _, r := range c.Rounds(num, den) {
		x, y := value(c.Processes[c.byRound[r][num]]), value(c.Processes[c.byRound[r][den]])
		d = append(d, math.Log(x)-math.Log(y))
	}
	return d
}

// CPUPerOp is a process's CPU time per iteration of its timed loops (all
// repetitions), in ns; it includes start-up.
func (p Process) CPUPerOp() float64 {
	return float64(p.CPU.Nanoseconds()) / float64(p.Iters*len(p.Reps))
}
