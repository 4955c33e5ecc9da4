package findings

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"

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

// ParseSet reads Go benchmark output (what go test -bench and benchstat
// write) with its unit metadata lines ("Unit hits/op better=higher"),
// which say which way a unit improves. warn reports lines that could not
// be parsed; err means the input could not be read or holds no results.
func ParseSet(r io.Reader, name string) (s *Set, warn, err error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", name, err)
	}
	res, warn := gotest.Parse(bytes.NewReader(data), name)
	if len(res) == 0 {
		return nil, warn, fmt.Errorf("%s holds no benchmark results", name)
	}
	s = &Set{Name: name, Results: res, Meta: unit.Own()}
	br := benchfmt.NewReader(bytes.NewReader(data), name)
	for br.Scan() {
		if m, ok := br.Result().(*benchfmt.UnitMetadata); ok {
			s.Meta = append(s.Meta, *m)
		}
	}
	return s, warn, nil
}

// Units is the set's unit table.
func (s *Set) Units() *unit.Table { return unit.New(s.Meta) }
