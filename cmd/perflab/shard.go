package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/perflab/perflab/engine"
	"github.com/perflab/perflab/launch"
	"github.com/perflab/perflab/store"
)

// shardFlags declares --shard and --run-key (run and ab).
func (f *runFlags) shardFlags(fs *flag.FlagSet) {
	fs.StringVar(&f.shard, "shard", "", "run only shard `K/N` of the rounds of the run named by --run-key (K empty: JOB_COMPLETION_INDEX+1)")
	fs.StringVar(&f.runKey, "run-key", "", "with --shard: the `KEY` every shard of one run passes; the first shard creates the run")
}

// shardOption checks --shard and --run-key and returns the engine's shard,
// or nil for a run of one process. With --budget (or --precision,
// --max-rounds) the shards sample sequentially: each within its own
// machine's budget, all stopping on the one decision pooled over them.
func (f *runFlags) shardOption(specs int) (*engine.Shard, error) {
	if f.shard == "" && f.runKey == "" {
		return nil, nil
	}
	if f.shard == "" || f.runKey == "" {
		return nil, errors.New("--shard K/N and --run-key KEY go together: every shard of one run passes the same key")
	}
	if specs != 1 {
		return nil, errors.New("--shard runs the shard of one experiment; name exactly one experiment or spec")
	}
	k, n, err := engine.ParseShard(f.shard)
	if err != nil {
		return nil, err
	}
	return &engine.Shard{K: k, N: n, Key: f.runKey}, nil
}

// shardProgress writes, for a sharded run, one line with each shard's
// stored rounds and the rounds still missing; nothing for other runs.
func shardProgress(ctx context.Context, w io.Writer, db *store.DB, r store.Run) {
	key, n, err := db.RunKey(ctx, r.ID)
	if err != nil || n == 0 {
		return
	}
	rounds, err := db.Rounds(ctx, r.ID)
	if err != nil {
		return
	}
	stored := map[int]bool{}
	perShard := make([]int, n+1)
	machines := map[string]bool{}
	for _, ri := range rounds {
		stored[ri.Round] = true
		if ri.Machine.Shard >= 1 && ri.Machine.Shard <= n {
			perShard[ri.Machine.Shard]++
		}
		machines[ri.Machine.HostID] = true
	}
	var parts []string
	var stops map[int]store.Stop
	if r.Plan.Sequential {
		stops, _ = db.ShardStops(ctx, r.ID, n)
	}
	for k := 1; k <= n; k++ {
		planned := 0
		for round := k; round <= r.RoundsPlanned; round += n {
			planned++
		}
		switch st, ok := stops[k]; {
		case !r.Plan.Sequential:
			parts = append(parts, fmt.Sprintf("%d/%d: %d/%d", k, n, perShard[k], planned))
		case ok:
			parts = append(parts, fmt.Sprintf("%d/%d: %d rounds, stopped (%s)", k, n, perShard[k], st.Reason))
		default:
			parts = append(parts, fmt.Sprintf("%d/%d: %d rounds (initial pass %d), sampling", k, n, perShard[k], planned))
		}
	}
	fmt.Fprintf(w, "run %d (key %s, %d machine(s)): shards %s%s\n", r.ID, key, len(machines), strings.Join(parts, ", "), missingRounds(r.RoundsPlanned, stored))
}

// missingRounds says which planned rounds are not stored, or "" when none.
func missingRounds(planned int, stored map[int]bool) string {
	var miss []string
	for round := 1; round <= planned; round++ {
		if !stored[round] {
			miss = append(miss, strconv.Itoa(round))
		}
	}
	if len(miss) == 0 {
		return ""
	}
	return "; missing rounds " + strings.Join(miss, ", ")
}

// noteMissing tells, on w, which planned rounds of the run are not stored
// (shards still at work, or stopped): the report covers the stored ones.
func noteMissing(ctx context.Context, w io.Writer, db *store.DB, r *store.Run) {
	done, err := db.RoundsDone(ctx, r.ID)
	if err != nil || len(done) >= r.RoundsPlanned {
		return
	}
	stored := map[int]bool{}
	for _, d := range done {
		stored[d] = true
	}
	fmt.Fprintf(w, "perflab: run %d: the report covers the %d of %d planned rounds stored%s\n", r.ID, len(done), r.RoundsPlanned, missingRounds(r.RoundsPlanned, stored))
	shardProgress(ctx, w, db, *r)
}

// launchFlags are the flags every launcher command shares: which run, in
// how many shards, and what each worker gets.
type launchFlags struct {
	sh     launch.Shards
	name   string
	cpus   int
	memory string
}

func (f *launchFlags) declare(fs *flag.FlagSet, memory string) {
	fs.IntVar(&f.sh.N, "shards", 0, "number of shards `N`")
	fs.StringVar(&f.sh.RunKey, "run-key", "", "the `KEY` all shards name the run by")
	fs.Int64Var(&f.sh.Seed, "seed", 0, "planner seed of every shard (0: derived from the run key)")
	fs.StringVar(&f.name, "name", "", "job `name` (default: perflab- and the run key)")
	fs.IntVar(&f.cpus, "cpus", 2, "whole `CPUs` per shard")
	fs.StringVar(&f.memory, "memory", memory, "memory per shard")
}

// shards reads the worker's command from pos ("run" or "ab" first;
// without either, run) and checks the command line every worker will run
// with the command's own flags, so no launcher writes a job whose every
// worker fails.
func (f *launchFlags) shards(pos []string) (launch.Shards, error) {
	sh := f.sh
	sh.Command = "run"
	if len(pos) > 0 && slices.Contains(launch.Commands, pos[0]) {
		sh.Command, pos = pos[0], pos[1:]
	}
	sh.Args = pos
	if f.name == "" {
		f.name = launch.DefaultName(sh.RunKey)
	}
	if err := sh.Validate(); err != nil {
		return sh, usageError(err)
	}
	if err := checkShardArgs(sh); err != nil {
		return sh, usageError(err)
	}
	return sh, nil
}

// write checks the worker's command line in pos and writes what build
// makes of the shards; seen says who reads the paths in pos.
func (f *launchFlags) write(pos []string, stdout io.Writer, seen string, build func(launch.Shards) ([]byte, error)) error {
	if len(pos) == 0 {
		return usageError(fmt.Errorf("name the experiment or spec file as %s sees it (or ab and its revisions), e.g. poolreuse --shards 4 --run-key KEY", seen))
	}
	sh, err := f.shards(pos)
	if err != nil {
		return err
	}
	b, err := build(sh)
	if err != nil {
		return usageError(err)
	}
	_, err = stdout.Write(b)
	return err
}

// parseWorker parses argv with the flags f declares, as command c does.
func parseWorker(c *command, f flagger, argv []string) ([]string, error) {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	f.declare(fs)
	return parseQuiet(c, fs, argv)
}

// checkShardArgs parses a worker's command line with its command's own
// flag set and checks it as the command would before it measures
// anything.
func checkShardArgs(sh launch.Shards) error {
	c := find(sh.Command)
	if c == nil {
		return fmt.Errorf("perflab has no command %q", sh.Command)
	}
	// The flags the launcher sets for every shard must not come again.
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	flagSets[c.name](fs)
	if _, err := parseQuiet(c, fs, sh.Args); err != nil {
		return err
	}
	var dup []string
	fs.Visit(func(fl *flag.Flag) {
		if slices.Contains(launch.Reserved, fl.Name) {
			dup = append(dup, "--"+fl.Name)
		}
	})
	if len(dup) > 0 {
		return fmt.Errorf("%s: the launcher sets %s for every shard (the database comes from $%s); drop %s from the %s arguments",
			strings.Join(dup, ", "), strings.Join(launch.Reserved, ", "), launch.DBEnv, strings.Join(dup, ", "), sh.Command)
	}
	argv := sh.Argv(fmt.Sprintf("1/%d", sh.N))[1:]
	switch sh.Command {
	case "run":
		f := new(runFlags)
		pos, err := parseWorker(c, f, argv)
		if err != nil {
			return err
		}
		if err := f.checkFlags(); err != nil {
			return fmt.Errorf("perflab run: %w", err)
		}
		if f.resume.ref != "" || f.newRun {
			return errors.New("perflab run: --resume and --new-run have no place in a shard: a shard started again resumes its rounds by itself")
		}
		if len(pos) == 0 {
			return errors.New("perflab run: name the one experiment or spec every shard runs")
		}
		if _, err := f.shardOption(len(pos)); err != nil {
			return fmt.Errorf("perflab run %s: %w", strings.Join(pos, " "), err)
		}
		return nil
	case "ab":
		f := new(abFlags)
		pos, err := parseWorker(c, f, argv)
		if err != nil {
			return err
		}
		oldArg, newArg, pkgs, err := splitABArgs(pos)
		if err != nil {
			return fmt.Errorf("perflab ab: %w", err)
		}
		if newArg == "" {
			return errors.New("perflab ab: name NEW: a shard cannot compare with a working tree, which differs from machine to machine")
		}
		if _, err := f.options(oldArg, newArg, pkgs, io.Discard); err != nil {
			return fmt.Errorf("perflab ab: %w", err)
		}
		if _, err := f.shardOption(1); err != nil {
			return fmt.Errorf("perflab ab: %w", err)
		}
		return nil
	}
	return fmt.Errorf("perflab %s does not run in shards", sh.Command)
}

// shardEnd says how a shard that did not end its run ended, and reports
// true with the command's error: a shard done while other shards of its
// run are still at work says the run goes on without it and where its
// pooled result will be, and prints no verdict of its own, since the run's
// one verdict pools every shard; an interrupted shard says how to go on.
func shardEnd(w io.Writer, res *engine.Result) (bool, error) {
	if res == nil || res.ShardsRunning == 0 {
		return false, nil
	}
	if res.Status == "interrupted" || res.Status == "failed" {
		fmt.Fprintf(w, "perflab: this shard of run %d stopped (%s) after %d rounds; they are stored. Start it again with the same arguments, --shard and --run-key: it runs the rest.\n",
			res.RunID, res.Status, res.RoundsDone)
		return true, errExit1
	}
	fmt.Fprintf(w, "perflab: this shard is done; %d shard(s) of run %d are still at work. The last one to stop prints the pooled result; until then:\n  perflab report %d --db URL\n",
		res.ShardsRunning, res.RunID, res.RunID)
	return true, nil
}

// parseQuiet is parse with its message returned in the error instead of
// printed.
func parseQuiet(c *command, fs *flag.FlagSet, args []string) ([]string, error) {
	var msg bytes.Buffer
	pos, err := parse(c, fs, args, &msg)
	if err != nil {
		line, _, _ := strings.Cut(msg.String(), "\n")
		if errors.Is(err, flag.ErrHelp) {
			line = "perflab " + c.name + ": -h asks for help; drop it"
		}
		return nil, fmt.Errorf("the worker's command line: %s", line)
	}
	return pos, nil
}
