package jsonpipe

import "errors"

// Metric is a named measurement a probe reports, e.g. map-buckets-in-arena.
type Metric struct {
	Unit  string
	Value float64
}

// A Prober is a Pipeline that can say, from one untimed run, where its
// memory went (1: in an arena chunk, 0: on the heap).
type Prober interface {
	Pipeline
	ProbeRun(doc []byte) ([]Metric, error)
}

var errNoProbe = errors.New("jsonpipe: cannot tell arena memory from heap memory on this Go (arena.Clone did not behave as documented); the arena probes are not reported")

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
