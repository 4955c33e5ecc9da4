package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Machine is where a round ran: the shard that ran it and its machine.
type Machine struct {
	Shard    int    // 1-based shard number; 0 for a run of one process
	HostID   string // stable host identity (machine-id or host name)
	CPUModel string
	Cores    int
}

// RoundInfo is one stored round, where it ran and the noise measured
// just before it.
type RoundInfo struct {
	Round   int
	Machine Machine
	DoneAt  time.Time
	Noise   *Noise // nil when none was measured (every round but a sequential run's later ones)
}

// Noise is the machine noise measured just before a round: raw
// measurements, which readers judge (a noise burst is a statistic).
type Noise struct {
	CV   float64 // the calibration loop's coefficient of variation (0.05 for 5%)
	Load float64 // the 1-minute load average; NaN when it could not be read
}

// ErrRunMismatch is wrapped by JoinRun's error when the run stored under the
// key has another spec, seed, plan or shard count.
var ErrRunMismatch = errors.New("run key names a different run")

// JoinRun creates the run r under key, to be run by shards processes, or,
// when a run with that key exists, loads it into r after checking that it
// has the same spec text, seed, plan, rounds and shard count. It
// reports whether this call created the run. The unique key makes the
// choice atomic: of concurrent shards exactly one creates the run. No one
// process owns a sharded run (r.Owner is not recorded): that one shard's
// process ended says nothing of the others.
//
// env is recorded with a run this call creates, in the same transaction,
// so a shard that joins always finds it; a joining shard's env must
// equal the stored entries of the same keys (what it builds from, e.g. the
// commits of an ab comparison), or JoinRun refuses it naming the first key
// that differs.
func (db *DB) JoinRun(ctx context.Context, r *Run, key string, shards int, env ...KV) (created bool, err error) {
	if key == "" || shards < 1 {
		return false, fmt.Errorf("join run: need a run key and a shard count ≥ 1 (got %q, %d)", key, shards)
	}
	if r.Status == "" {
		r.Status = "running"
	}
	if r.StartedAt.IsZero() {
		r.StartedAt = time.Now()
	}
	started, err := formatTime(r.StartedAt)
	if err != nil {
		return false, fmt.Errorf("join run %q: %w", key, err)
	}
	note, err := r.Plan.note()
	if err != nil {
		return false, fmt.Errorf("join run %q: %w", key, err)
	}
	var id int64
	err = db.inTx(ctx, func(tx *txn) error {
		err := tx.QueryRowContext(ctx,
			`INSERT INTO runs(experiment, mode, spec_path, spec_text, seed, rounds_planned, status, started_at, note,
			   owner_host, owner_pid, owner_start, run_key, shards)
			 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			 ON CONFLICT (run_key) DO NOTHING RETURNING id`,
			r.Experiment, r.Mode, r.SpecPath, r.SpecText, r.Seed, r.RoundsPlanned, r.Status, started, note,
			"", 0, "", key, shards).Scan(&id)
		if err != nil {
			return err
		}
		for _, kv := range env {
			if _, err := tx.ExecContext(ctx, `INSERT INTO env(run_id, key, value) VALUES (?, ?, ?)`, id, kv.Key, kv.Value); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		r.ID = id
		r.StartedAt, _ = parseTime(started)
		r.Owner = Owner{} // no one process owns a sharded run
		return true, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return false, fmt.Errorf("join run %q in %s: %w", key, db.path, err)
	}
	var storedShards int
	if err := db.sql.QueryRowContext(ctx, `SELECT id, shards FROM runs WHERE run_key = ?`, key).Scan(&id, &storedShards); err != nil {
		return false, fmt.Errorf("join run %q in %s: %w", key, db.path, err)
	}
	got, err := db.GetRun(ctx, id)
	if err != nil {
		return false, err
	}
	if note, err = r.Plan.joinNote(); err != nil {
		return false, fmt.Errorf("join run %q: %w", key, err)
	}
	storedNote, err := got.Plan.joinNote()
	if err != nil {
		return false, fmt.Errorf("join run %q: %w", key, err)
	}
	diff, err := db.envDiff(ctx, id, env)
	if err != nil {
		return false, err
	}
	switch {
	case diff != "":
	case got.SpecText != r.SpecText:
		diff = "its spec text differs"
	case got.Seed != r.Seed:
		diff = fmt.Sprintf("its seed is %d, this shard's %d", got.Seed, r.Seed)
	case cellsDiffer(got.Plan.Cells, r.Plan.Cells) != "":
		diff = cellsDiffer(got.Plan.Cells, r.Plan.Cells)
	case storedNote != note || got.RoundsPlanned != r.RoundsPlanned || got.Mode != r.Mode:
		diff = fmt.Sprintf("its plan differs (stored %s %s, this shard %s %s)", got.Mode, storedNote, r.Mode, note)
	case storedShards != shards:
		diff = fmt.Sprintf("it is split into %d shards, this shard says %d", storedShards, shards)
	}
	if diff != "" {
		return false, fmt.Errorf("run key %q is run %d in %s, but %s; start every shard with the same spec, --seed, mode, flags and --shard K/N, or pick a new --run-key: %w",
			key, id, db.path, diff, ErrRunMismatch)
	}
	*r = *got
	return false, nil
}

// joinNote is the part of a plan every shard of a run must agree on: not
// where each machine keeps its sources, nor what the run recorded as it
// went (the repetitions it chose after its initial pass).
func (p Plan) joinNote() (string, error) {
	p.Sources = nil
	if p.Decide != nil {
		d := *p.Decide
		d.Chosen = nil
		p.Decide = &d
	}
	return p.note()
}

// envDiff names the first of env's entries whose key the run stores with
// another value; "" when none.
func (db *DB) envDiff(ctx context.Context, runID int64, env []KV) (string, error) {
	if len(env) == 0 {
		return "", nil
	}
	stored, err := db.Env(ctx, runID)
	if err != nil {
		return "", err
	}
	have := map[string]string{}
	for _, kv := range stored {
		have[kv.Key] = kv.Value
	}
	for _, kv := range env {
		if v, ok := have[kv.Key]; ok && v != kv.Value {
			return fmt.Sprintf("its %s is %q, this shard's %q", kv.Key, v, kv.Value), nil
		}
	}
	return "", nil
}

// cellsDiffer names the cells only one of two plans runs (at most three
// of each); "" when both run the same.
func cellsDiffer(stored, here []Cell) string {
	name := func(c Cell) string {
		n := c.Bench
		for _, l := range c.Levels {
			n += "/" + l
		}
		if c.Package != "" {
			n = c.Package + ": " + n
		}
		return n + "@" + c.Config
	}
	only := func(a, b []Cell) []string {
		in := map[string]bool{}
		for _, c := range b {
			in[name(c)] = true
		}
		var out []string
		for _, c := range a {
			if !in[name(c)] && !slices.Contains(out, name(c)) {
				out = append(out, name(c))
			}
		}
		if len(out) > 3 {
			out = append(out[:3], fmt.Sprintf("and %d more", len(out)-3))
		}
		return out
	}
	s, h := only(stored, here), only(here, stored)
	var parts []string
	if len(s) > 0 {
		parts = append(parts, "only the stored run has "+strings.Join(s, ", "))
	}
	if len(h) > 0 {
		parts = append(parts, "only this shard has "+strings.Join(h, ", "))
	}
	if len(parts) == 0 {
		return ""
	}
	return "its benchmarks differ: " + strings.Join(parts, "; ")
}

// shardStopKey is the environment key of shard k's stop.
func shardStopKey(k int) string { return fmt.Sprintf("shard-%d-stop", k) }

// SetShardStop records how shard k of a sharded sequential run stopped
// sampling (a shard started again replaces its record).
func (db *DB) SetShardStop(ctx context.Context, runID int64, k int, s Stop) error {
	v := fmt.Sprintf("%s at round %d after %s", s.Reason, s.Round, s.Elapsed.Round(time.Millisecond))
	return db.SetEnv(ctx, runID, []KV{{Key: shardStopKey(k), Value: v}})
}

// ShardStops returns how each shard of a sharded sequential run that has
// stopped sampling stopped, by shard number (Round, Reason and Elapsed).
func (db *DB) ShardStops(ctx context.Context, runID int64, shards int) (map[int]Stop, error) {
	env, err := db.Env(ctx, runID)
	if err != nil {
		return nil, err
	}
	stops := map[int]Stop{}
	for _, kv := range env {
		for k := 1; k <= shards; k++ {
			if kv.Key != shardStopKey(k) {
				continue
			}
			var reason, elapsed string
			var st Stop
			if _, err := fmt.Sscanf(kv.Value, "%s at round %d after %s", &reason, &st.Round, &elapsed); err != nil {
				return nil, fmt.Errorf("run %d: shard %d's stop %q is damaged: %w", runID, k, kv.Value, err)
			}
			st.Reason = StopReason(reason)
			st.Elapsed, _ = time.ParseDuration(elapsed)
			stops[k] = st
		}
	}
	return stops, nil
}

// RunKey returns the run's key and shard count ("" and 0 for a run of one
// process).
func (db *DB) RunKey(ctx context.Context, runID int64) (key string, shards int, err error) {
	var k sql.NullString
	err = db.sql.QueryRowContext(ctx, `SELECT run_key, shards FROM runs WHERE id = ?`, runID).Scan(&k, &shards)
	if errors.Is(err, sql.ErrNoRows) {
		return "", 0, db.runNotFound(runID)
	}
	if err != nil {
		return "", 0, fmt.Errorf("read run key of run %d in %s: %w", runID, db.path, err)
	}
	return k.String, shards, nil
}

// Rounds returns the run's stored rounds with their machines, in round order.
func (db *DB) Rounds(ctx context.Context, runID int64) ([]RoundInfo, error) {
	return readList(ctx, db, runID, "rounds",
		`SELECT round, shard, host_id, cpu_model, cores, done_at, noise_cv, load_avg FROM rounds WHERE run_id = ? ORDER BY round`,
		func(rows *sql.Rows) (RoundInfo, error) {
			var ri RoundInfo
			var done string
			var cv, load sql.NullFloat64
			if err := rows.Scan(&ri.Round, &ri.Machine.Shard, &ri.Machine.HostID, &ri.Machine.CPUModel, &ri.Machine.Cores, &done, &cv, &load); err != nil {
				return ri, err
			}
			if cv.Valid {
				ri.Noise = &Noise{CV: cv.Float64, Load: nullFloat(load)}
			}
			t, err := parseTime(done)
			ri.DoneAt = t
			return ri, err
		})
}
