package engine

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/perflab/perflab/store"
)

// A BinaryChange is one config whose test binary differs from the one a
// stored run recorded.
type BinaryChange struct {
	Config   string
	Old, New string // binary hashes; "" when the config did not build
	OldErr   string // the recorded build error, if it did not build then
	NewErr   string // the build error now
}

// BinaryChangedError refuses to resume a run whose test binary changed: the
// samples of two binaries must never be stored under one run.
type BinaryChangedError struct {
	RunID                      int64
	Changes                    []BinaryChange
	OldToolchain, NewToolchain string // go versions then and now ("" when unknown)
}

func (e *BinaryChangedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "run %d cannot be resumed: its test binary changed since it was recorded, and one run never mixes samples of two binaries:\n", e.RunID)
	for _, c := range e.Changes {
		fmt.Fprintf(&b, "  config %s: %s → %s\n", c.Config, hashOrErr(c.Old, c.OldErr), hashOrErr(c.New, c.NewErr))
	}
	what := "the package's sources, its dependencies, go.mod/go.sum, the toolchain or the build settings"
	switch {
	case e.OldToolchain != "" && e.NewToolchain != "" && e.OldToolchain != e.NewToolchain:
		what = fmt.Sprintf("the toolchain (%s then, %s now)", e.OldToolchain, e.NewToolchain)
	case e.OldToolchain != "" && e.OldToolchain == e.NewToolchain:
		what = fmt.Sprintf("the package's sources, its dependencies, go.mod/go.sum or the build settings (the toolchain, %s, is the same)", e.NewToolchain)
	}
	fmt.Fprintf(&b, "What changed: %s.\n", what)
	fmt.Fprintf(&b, "Undo the change to resume run %d, or start a new run with its plan: perflab run --resume %d --new-run", e.RunID, e.RunID)
	return b.String()
}

func hashOrErr(hash, err string) string {
	switch {
	case hash != "":
		return "binary " + short(hash)
	case err != "":
		first, _, _ := strings.Cut(err, "\n")
		return "did not build (" + first + ")"
	}
	return "absent"
}

func short(hash string) string {
	if len(hash) > 12 {
		return hash[:12]
	}
	return hash
}

// checkOwner refuses to resume a run that a live process still runs.
func checkOwner(run *store.Run) error {
	if run.Status == "running" && run.Owner != store.CurrentOwner() && run.Owner.Liveness() == "alive" {
		return fmt.Errorf("run %d is still running in %s; wait for it or stop that process, then resume", run.ID, run.Owner)
	}
	return nil
}

// checkBinaries compares the binaries just built with those the run
// recorded, config by config. Identical: the run is resumed. Different: the
// resume is refused with a *BinaryChangedError, or, with
// opt.NewRunIfChanged, a nil run is returned, meaning "start a new run with
// this plan".
func checkBinaries(ctx context.Context, opt Options, run *store.Run, now []store.Config, progress io.Writer) (*store.Run, error) {
	then, err := opt.DB.Configs(ctx, run.ID)
	if err != nil {
		return nil, err
	}
	old := map[string]store.Config{}
	for _, c := range then {
		old[c.Name] = c
	}
	e := &BinaryChangedError{RunID: run.ID}
	for _, c := range now {
		o, ok := old[c.Name]
		delete(old, c.Name)
		if ok && o.BinaryHash == c.BinaryHash {
			continue
		}
		e.Changes = append(e.Changes, BinaryChange{Config: c.Name, Old: o.BinaryHash, New: c.BinaryHash, OldErr: o.Error, NewErr: c.Error})
	}
	for _, o := range then {
		if _, gone := old[o.Name]; gone {
			e.Changes = append(e.Changes, BinaryChange{Config: o.Name, Old: o.BinaryHash, OldErr: o.Error, NewErr: "no longer in the spec"})
		}
	}
	if len(e.Changes) == 0 {
		fmt.Fprintf(progress, "perflab: run %d: test binaries identical to the recorded ones; resuming\n", run.ID)
		return run, nil
	}
	env, err := opt.DB.Env(ctx, run.ID)
	if err != nil {
		fmt.Fprintf(progress, "perflab: run %d's recorded toolchain cannot be read, so the refusal below cannot name it: %v\n", run.ID, err)
	}
	for _, kv := range env {
		if kv.Key == "goversion" {
			e.OldToolchain = kv.Value
		}
	}
	e.NewToolchain = goVersion(ctx, opt)
	if !opt.NewRunIfChanged {
		return nil, e
	}
	fmt.Fprintf(progress, "perflab: %s\nperflab: --new-run: starting a new run with run %d's plan (same cells, seed, rounds and benchtime)\n",
		strings.SplitN(e.Error(), "\nUndo", 2)[0], run.ID)
	return nil, nil
}

// goVersion is the toolchain version the first config builds with.
func goVersion(ctx context.Context, opt Options) string {
	cmd := exec.CommandContext(ctx, "go", "env", "GOVERSION")
	cmd.Dir = opt.Spec.Dir
	if len(opt.Spec.Configs) > 0 {
		cmd.Env = append(cmd.Environ(), opt.Spec.Configs[0].BuildEnv()...)
	}
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// endStatus is how a run that was not interrupted ended: "partial" when a
// cell run failed or a config did not build, "complete" otherwise. A
// config whose toolchain or modules could not be downloaded is not
// testable here, which leaves the run complete.
func endStatus(res *Result, configs []store.Config) string {
	if res.Failures > 0 {
		return "partial"
	}
	for _, c := range configs {
		if c.Error != "" && c.NotFetched.What == "" {
			return "partial"
		}
	}
	return "complete"
}
