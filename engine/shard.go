package engine

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/perflab/perflab/store"
)

// Shard splits one run's rounds over N processes, typically on N machines:
// shard K (1-based) runs the rounds r with (r-1) mod N == K-1, each round
// whole on one machine, so paired comparisons never span machines. All
// shards name the run by the same key; the first creates it.
type Shard struct {
	K, N int
	Key  string // the run key every shard passes
	// Machine overrides the machine recorded for this shard's rounds (tests
	// use synthetic ones); zero means this machine.
	Machine store.Machine
}

// ParseShard parses "K/N" (1 ≤ K ≤ N). "/N" (no K) takes K from the
// environment variable JOB_COMPLETION_INDEX (a Kubernetes Indexed Job's
// 0-based index) plus one.
func ParseShard(s string) (k, total int, err error) {
	if s == "" {
		return 0, 0, errors.New("--shard: need K/N, e.g. --shard 2/3")
	}
	ks, ns, ok := strings.Cut(s, "/")
	if !ok {
		return 0, 0, fmt.Errorf("--shard %q: want K/N, e.g. --shard 2/3", s)
	}
	total, err = strconv.Atoi(ns)
	if err != nil || total < 1 {
		return 0, 0, fmt.Errorf("--shard %q: N must be a whole number ≥ 1", s)
	}
	if ks == "" {
		idx := os.Getenv("JOB_COMPLETION_INDEX")
		if idx == "" {
			return 0, 0, fmt.Errorf("--shard %q: no K given and JOB_COMPLETION_INDEX is not set; pass --shard K/N", s)
		}
		i, err := strconv.Atoi(idx)
		if err != nil {
			return 0, 0, fmt.Errorf("JOB_COMPLETION_INDEX=%q is not a number", idx)
		}
		ks = strconv.Itoa(i + 1)
	}
	k, err = strconv.Atoi(ks)
	if err != nil || k < 1 || k > total {
		return 0, 0, fmt.Errorf("--shard %q: K must be a whole number from 1 to %d", s, total)
	}
	return k, total, nil
}

// owns reports whether the shard runs round (1-based). No shard owns all.
func (s *Shard) owns(round int) bool {
	return s == nil || (round-1)%s.N == s.K-1
}

// machine is what this shard records for its rounds.
func (s *Shard) machine() store.Machine {
	if s == nil {
		return store.Machine{}
	}
	m := s.Machine
	if m.HostID == "" {
		m.HostID = hostID()
	}
	if m.CPUModel == "" {
		m.CPUModel = cpuModel()
	}
	if m.Cores == 0 {
		m.Cores = runtime.NumCPU()
	}
	m.Shard = s.K
	return m
}

// keySeed is the planner seed of a sharded run started without --seed:
// every shard derives the same one from the key.
func keySeed(key string) int64 {
	h := fnv.New64a()
	h.Write([]byte(key))
	return int64(h.Sum64()>>1) | 1
}

// joinShardRun creates the sharded run or joins the one stored under the
// key, refusing one with another spec, seed or plan. It reports whether the
// run already existed (then the run's configs, environment and unit
// metadata are already recorded).
//
// A joining shard's test binaries must equal those the run recorded (same
// sources, toolchain and build settings), so one run never mixes samples of
// two binaries.
func joinShardRun(ctx context.Context, opt Options, run *store.Run, built []store.Config) (joined bool, err error) {
	created, err := opt.DB.JoinRun(ctx, run, opt.Shard.Key, opt.Shard.N)
	if err != nil {
		return false, fmt.Errorf("shard %d/%d: %w", opt.Shard.K, opt.Shard.N, err)
	}
	if created {
		return false, nil
	}
	stored, err := opt.DB.Configs(ctx, run.ID)
	if err != nil {
		return true, err
	}
	then := map[string]string{}
	for _, c := range stored {
		then[c.Name] = c.BinaryHash
	}
	for _, c := range built {
		// The first shard may not have recorded its configs yet.
		if h, ok := then[c.Name]; ok && h != c.BinaryHash {
			return true, fmt.Errorf("shard %d/%d: config %s builds test binary %s here but run %d recorded %s: the shards' sources, toolchain or build settings differ; give every shard the same image or checkout and Go version",
				opt.Shard.K, opt.Shard.N, c.Name, short(c.BinaryHash), run.ID, short(h))
		}
	}
	return true, nil
}

// shardStatus is the status a shard leaves the run in: the run is complete
// (or partial) only when every planned round is stored; until then it stays
// "running" for the other shards. When the stored rounds cannot be read it
// stays running too, and the error says why.
func shardStatus(ctx context.Context, opt Options, runID int64, planned int, status string) (string, bool, error) {
	if opt.Shard == nil || (status != "complete" && status != "partial") {
		return status, true, nil
	}
	done, err := opt.DB.RoundsDone(context.WithoutCancel(ctx), runID)
	if err != nil {
		return "running", false, fmt.Errorf("the run is left running: %w", err)
	}
	if len(done) < planned {
		return "running", false, nil
	}
	return status, true, nil
}

func hostID() string {
	for _, f := range []string{"/etc/machine-id", "/var/lib/dbus/machine-id"} {
		if b, err := os.ReadFile(f); err == nil && len(strings.TrimSpace(string(b))) > 0 {
			return strings.TrimSpace(string(b))
		}
	}
	h, _ := os.Hostname()
	return h
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}
