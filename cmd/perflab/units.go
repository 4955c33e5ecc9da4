package main

import (
	"bytes"
	"io"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/driver/gotest"
	"github.com/perflab/perflab/store"
)

// readBench parses go test -bench output with its unit metadata lines
// ("Unit hits/op better=higher"), which say which way a unit improves.
func readBench(r io.Reader, name string) ([]*benchfmt.Result, []benchfmt.UnitMetadata, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, nil, err
	}
	res, perr := gotest.Parse(bytes.NewReader(data), name)
	var meta []benchfmt.UnitMetadata
	br := benchfmt.NewReader(bytes.NewReader(data), name)
	for br.Scan() {
		if m, ok := br.Result().(*benchfmt.UnitMetadata); ok {
			meta = append(meta, *m)
		}
	}
	return res, meta, perr
}

// storedMeta is a stored run's unit metadata in benchfmt's form.
func storedMeta(m []store.UnitMeta) []benchfmt.UnitMetadata {
	out := make([]benchfmt.UnitMetadata, len(m))
	for i, u := range m {
		out[i] = benchfmt.UnitMetadata{UnitMetadataKey: benchfmt.UnitMetadataKey{Unit: u.Unit, Key: u.Key}, OrigUnit: u.Unit, Value: u.Value}
	}
	return out
}
