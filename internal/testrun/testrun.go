// Package testrun builds synthetic stored runs for tests: a small
// poolreuse-like experiment whose costs are defined here, so its
// crossovers and knees are known in advance, written to a store round by
// round as the engine writes a real run.
//
// Four variants are swept along reuse (0…100) at mode=serial, size=64:
//
//	plain     20 ns flat
//	syncpool  33 − 0.3·reuse ns      crosses plain at reuse ≈ 43.3
//	tiered    26 ns, then −0.2 ns per point after reuse 50 (a knee at 50),
//	          crossing plain at reuse 80
//	freelist  12 ns flat             never crosses plain
//
// with multiplicative Gaussian noise. B/op falls with reuse for the pools.
package testrun

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/report"
	"github.com/perflab/perflab/store"
)

// Crossovers are the reuse values where each variant's cost meets plain's.
var Crossovers = map[string]float64{"syncpool": 130.0 / 3, "tiered": 80}

// KneeTiered is where tiered's cost bends.
const KneeTiered = 50.0

// Variants in the order the spec lists them.
var Variants = []string{"plain", "syncpool", "tiered", "freelist"}

// Reuse is the swept axis.
var Reuse = []float64{0, 10, 25, 40, 50, 60, 75, 90, 100}

// SpecText is the run's spec: analysis along reuse by variant against
// plain, and claims whose verdicts follow from the costs above.
const SpecText = `name = "poolmini"
title = "synthetic sync.Pool sweep with known crossovers"
article = "C-syncpool-reuse-rate.txt"
description = "Synthetic costs: syncpool crosses plain near reuse 43, tiered bends at 50 and crosses plain at 80, freelist is always fastest."
driver = "gotest"
package = "."
benchmarks = ["BenchmarkPool"]

[[axis]]
key = "mode"
quick = ["serial"]

[[axis]]
key = "size"
quick = [64]

[[axis]]
key = "variant"
quick = ["plain", "syncpool", "tiered", "freelist"]

[[axis]]
key = "reuse"
quick = [0, 10, 25, 40, 50, 60, 75, 90, 100]

[mode.quick]
rounds = 6
benchtime = "20ms"

[mode.full]
rounds = 10
benchtime = "100ms"

[[config]]
name = "default"

[analysis]
axis = "reuse"
by = "variant"
baseline = "plain"
unit = "sec/op"

[[claim]]
id = "S1"
text = "the break-even reuse rate lies between 30% and 50%"
claimed = "sync.Pool overtakes plain allocation between 30% and 50% reuse"

  [[claim.check]]
  kind = "crossover"
  where = "mode=serial,size=64"
  a = "variant=syncpool"
  b = "variant=plain"
  axis = "reuse"
  wins_above = "a"
  min = 30
  max = 50

[[claim]]
id = "S2"
text = "the free list beats sync.Pool at full reuse"
claimed = "freelist/syncpool < 1 at 100% reuse"

  [[claim.check]]
  kind = "ratio"
  where = "mode=serial,size=64,reuse=100"
  num = "variant=freelist"
  den = "variant=syncpool"
  op = "<"
  value = 1

[[claim]]
id = "S3"
text = "needs 64 cores"
not_testable = "this synthetic run has no cores at all"
`

// Options shapes a synthetic run.
type Options struct {
	Rounds int     // default 6
	Seed   uint64  // noise seed; default 1
	Noise  float64 // relative standard deviation; default 0.01
	// Scale multiplies every sec/op value: 1.2 plants a 20% slow-down.
	// Zero means 1.
	Scale float64
	// ArtifactDir, when set, receives a heap profile recorded as the run's
	// artifact (dir/default/heap.pprof).
	ArtifactDir string
	StartedAt   time.Time // default: now
	// FollowUp adds that many follow-up rounds after the planned ones, as
	// a run with two looks stores them: only the cells of claim S2
	// (freelist and syncpool at reuse 100), 1.5 times slower, so an
	// output that read them instead of the planned rounds would show it.
	FollowUp int
}

func (o Options) withDefaults() Options {
	if o.Rounds <= 0 {
		o.Rounds = 6
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.Noise == 0 {
		o.Noise = 0.01
	}
	if o.Scale == 0 {
		o.Scale = 1
	}
	return o
}

// Cost is the noiseless sec/op of a variant at a reuse rate.
func Cost(variant string, reuse float64) float64 {
	ns := 20.0
	switch variant {
	case "syncpool":
		ns = 33 - 0.3*reuse
	case "tiered":
		ns = 26 - 0.2*math.Max(0, reuse-KneeTiered)
	case "freelist":
		ns = 12
	}
	return ns * 1e-9
}

// Rounds returns the results of each round, as the engine stores them
// (config and round keys set).
func Rounds(opt Options) [][]*benchfmt.Result {
	opt = opt.withDefaults()
	r := rand.New(rand.NewPCG(opt.Seed, 77))
	out := make([][]*benchfmt.Result, opt.Rounds)
	for round := 1; round <= opt.Rounds; round++ {
		for _, v := range Variants {
			for _, reuse := range Reuse {
				sec := Cost(v, reuse) * opt.Scale * (1 + opt.Noise*r.NormFloat64())
				bytes := 64.0
				if v != "plain" {
					bytes = 64 * (1 - reuse/100)
				}
				res := &benchfmt.Result{
					Name:  benchfmt.Name(fmt.Sprintf("Pool/mode=serial/size=64/variant=%s/reuse=%g", v, reuse)),
					Iters: 1000000,
					Config: []benchfmt.Config{
						{Key: "config", Value: []byte("default"), File: true},
						{Key: "round", Value: []byte(strconv.Itoa(round))},
					},
					Values: []benchfmt.Value{
						{Value: sec, Unit: "sec/op", OrigValue: sec * 1e9, OrigUnit: "ns/op"},
						{Value: bytes, Unit: "B/op", OrigValue: bytes, OrigUnit: "B/op"},
					},
				}
				out[round-1] = append(out[round-1], res)
			}
		}
	}
	return out
}

// followUp returns the results of the follow-up rounds (see
// Options.FollowUp).
func followUp(opt Options) [][]*benchfmt.Result {
	more := opt
	more.Rounds, more.Seed, more.Scale = opt.Rounds+opt.FollowUp, opt.Seed+1000, opt.Scale*1.5
	var out [][]*benchfmt.Result
	for _, round := range Rounds(more)[opt.Rounds:] {
		var kept []*benchfmt.Result
		for _, r := range round {
			name := string(r.Name)
			if strings.HasSuffix(name, "/reuse=100") && (strings.Contains(name, "variant=freelist/") || strings.Contains(name, "variant=syncpool/")) {
				kept = append(kept, r)
			}
		}
		out = append(out, kept)
	}
	return out
}

// Benchfmt returns the run as go test -bench text, what benchstat and
// "perflab compare FILE FILE" read.
func Benchfmt(opt Options) string {
	var b strings.Builder
	b.WriteString("goos: linux\ngoarch: amd64\npkg: example.com/poolmini\ncpu: synthetic\n")
	for _, round := range Rounds(opt) {
		for _, r := range round {
			fmt.Fprintf(&b, "Benchmark%s \t%d\t%.4f ns/op\t%g B/op\n", r.Name, r.Iters, r.Values[0].Value*1e9, r.Values[1].Value)
		}
	}
	return b.String()
}

// Store writes a complete synthetic run to db and returns its ID.
func Store(ctx context.Context, db *store.DB, opt Options) (int64, error) {
	opt = opt.withDefaults()
	run := &store.Run{Experiment: "poolmini", Mode: "quick", SpecPath: "poolmini/spec.toml", SpecText: SpecText,
		Seed: int64(opt.Seed), RoundsPlanned: opt.Rounds, StartedAt: opt.StartedAt}
	if opt.FollowUp > 0 {
		run.Plan = store.Plan{Mode: "quick", Rounds: opt.Rounds, FirstLook: opt.Rounds}
	}
	id, err := db.CreateRun(ctx, run)
	if err != nil {
		return 0, err
	}
	env := []store.KV{
		{Key: "goversion", Value: "go1.26.8"}, {Key: "goexperiment", Value: "none"}, {Key: "goos", Value: "linux"},
		{Key: "goarch", Value: "amd64"}, {Key: "cpu", Value: "synthetic"}, {Key: "cores", Value: "2"},
		{Key: "gomaxprocs", Value: "2"}, {Key: "governor", Value: "unknown"},
		{Key: "noise-before", Value: "synthetic"}, {Key: "noise-after", Value: "synthetic"},
	}
	if err := db.SetEnv(ctx, id, env); err != nil {
		return 0, err
	}
	if err := db.AddConfig(ctx, id, store.Config{Name: "default", BinaryHash: "synthetic"}); err != nil {
		return 0, err
	}
	for i, round := range Rounds(opt) {
		if err := db.AddRound(ctx, id, i+1, round); err != nil {
			return 0, err
		}
	}
	for i, round := range followUp(opt) {
		if err := db.AddRound(ctx, id, opt.Rounds+i+1, round); err != nil {
			return 0, err
		}
	}
	if opt.ArtifactDir != "" {
		dir := filepath.Join(opt.ArtifactDir, "default")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return 0, err
		}
		path := filepath.Join(dir, "heap.pprof")
		f, err := os.Create(path)
		if err != nil {
			return 0, err
		}
		err = pprof.Lookup("heap").WriteTo(f, 0)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return 0, fmt.Errorf("writing heap profile: %w", err)
		}
		st, err := os.Stat(path)
		if err != nil {
			return 0, err
		}
		if err := db.AddArtifact(ctx, id, store.Artifact{Config: "default", Kind: "heap", Path: path, Bytes: st.Size()}); err != nil {
			return 0, err
		}
	}
	if err := db.FinishRun(ctx, id, "complete"); err != nil {
		return 0, err
	}
	// Judge the claims and store the verdicts, as "perflab run" does.
	in, err := findings.Load(ctx, db, id, analysis.Options{Alpha: analysis.DefaultAlpha, Confidence: analysis.DefaultConfidence})
	if err != nil {
		return 0, err
	}
	v := make([]store.Verdict, len(in.Verdicts))
	for i, r := range in.Verdicts {
		v[i] = store.Verdict{ClaimID: r.ID, Verdict: string(r.Verdict), Claimed: r.Claimed, Measured: report.ClaimMeasured(r), Reason: report.ClaimReason(r)}
	}
	if err := db.SetVerdicts(ctx, id, v); err != nil {
		return 0, err
	}
	return id, nil
}
