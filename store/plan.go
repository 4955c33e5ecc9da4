package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// A Plan is what a run records about how it was planned and sampled: what
// Resume needs to rebuild the run exactly, and what every analysis of it
// must know about its rounds. It is the one stored-run contract between
// the engine, which writes it, and its readers; nobody reads the runs
// table's note column but this package.
//
// Everything but Stop is stored as JSON in the note column when the run is
// created (the keys are those of earlier versions, so a run stored by an
// older perflab reads the same); Stop has columns of its own, written when
// a sequential run stops sampling.
type Plan struct {
	Mode      string            `json:"mode"`
	Rounds    int               `json:"rounds"`    // planned rounds (of a sequential run: its initial pass)
	Benchtime string            `json:"benchtime"` // -test.benchtime of the timed rounds
	CPU       []int             `json:"cpu,omitempty"`
	NoProfile bool              `json:"no_profile,omitempty"`
	Cells     []Cell            `json:"cells,omitempty"`   // explicit cells instead of the spec's axis product
	Sources   map[string]string `json:"sources,omitempty"` // config → the module directory its code was built from
	Measure   string            `json:"measure,omitempty"` // what was measured beside time ("instructions")

	// Sequential marks a run whose later rounds were sampled until its
	// checks were decided: its paired comparisons need anytime-valid
	// intervals.
	Sequential bool `json:"sequential,omitempty"`
	// FirstLook is the round after which a run of fixed rounds judged its
	// claim checks and ran follow-up rounds of the cells of the undecided
	// ones: its checks are judged at two looks.
	FirstLook int `json:"first_look,omitempty"`
	// Decide is how a sequential run decided when to stop; nil for a run
	// of fixed rounds and for sequential runs stored by older versions.
	Decide *Decide `json:"decide,omitempty"`

	// Layout is how the run's builds were linked: nil for one link per
	// build (the linker's default layout), set when every build was
	// relinked with random layouts (engine.LayoutRandom).
	Layout *Layout `json:"layout,omitempty"`
	// Shards is the number of shards a run is split into (engine.Shard);
	// 0 or 1 for a run on one machine. Shard K runs rounds K, K+N, ….
	Shards int `json:"shards,omitempty"`

	// Stop is how a sequential run's sampling ended (zero until then).
	Stop Stop `json:"-"`
}

// A Cell is one benchmark selection under one configuration, as a plan
// stores it (the engine's plan.Cell).
type Cell struct {
	Bench   string
	Levels  []string
	Config  string
	Package string `json:"Package,omitempty"` // "" for the spec's package
}

// Decide is what a sequential run decides on and when it stops.
type Decide struct {
	// Unit is the unit compared ratios are decided on; UnitChosen says it
	// was asked for rather than defaulted, in which case a pair without
	// samples in it is not compared in sec/op instead.
	Unit       string `json:"unit"`
	UnitChosen bool   `json:"unit_chosen,omitempty"`
	// Precision, when > 0, is the relative half-width every compared ratio
	// is sampled to (0.01 for ±1%).
	Precision float64 `json:"precision,omitempty"`
	// GateRatios are CI-gate limits as ratios (1.01 for "+1%"): a compared
	// ratio is decided only once its interval clears each of them.
	GateRatios []float64 `json:"gate_ratios,omitempty"`
	MaxRounds  int       `json:"max_rounds"`
	// Alpha is the error rate the run decided at (each compared ratio at
	// 1 − Alpha/m for its unit's m rows); 0 for runs stored before it was
	// recorded, which decided at 0.05.
	Alpha  float64       `json:"alpha,omitempty"`
	Budget time.Duration `json:"budget,omitempty"` // the whole run's time budget; 0 for none
	// Repeats is the number of back-to-back repetitions one process of a
	// cell times once its iteration count is fixed (their median is its
	// value); 0 or 1 for one.
	Repeats int `json:"repeats,omitempty"`
	// Chosen is how many cells ran each number of repetitions once the
	// engine chose them per comparison after the initial pass (key:
	// repetitions, value: cells); nil when every cell kept Repeats.
	Chosen map[int]int `json:"repeats_chosen,omitempty"`
}

// StopReason says why a sequential run stopped sampling.
type StopReason string

// The reasons a sequential run stops.
const (
	StopDecided   StopReason = "decided"    // every check and compared ratio is decided
	StopMaxRounds StopReason = "max-rounds" // Decide.MaxRounds rounds are stored
	StopBudget    StopReason = "budget"     // the next round would not fit Decide.Budget
)

// Stop is how a sequential run's sampling ended.
type Stop struct {
	Round  int        // the last round sampled; 0 while sampling, and for a run of fixed rounds
	Reason StopReason // why it stopped
	// Elapsed is the wall time from the start of the run to the stop.
	Elapsed time.Duration
	// CellCost is the wall time one cell cost a further round then, which
	// turns the further rounds an undecided check needs into time.
	CellCost time.Duration
}

// note is the JSON the note column holds for p.
func (p Plan) note() (string, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return "", fmt.Errorf("encode the run's plan: %w", err)
	}
	return string(b), nil
}

// planOf reads a note column. A note that is no JSON plan (an empty one,
// or free text from an older version) reads as the zero Plan: a run
// without a stored plan.
func planOf(note string) Plan {
	var p Plan
	if json.Unmarshal([]byte(note), &p) != nil {
		return Plan{}
	}
	return p
}

// SetStop records how the run's sequential sampling ended.
func (db *DB) SetStop(ctx context.Context, runID int64, s Stop) error {
	res, err := db.sql.ExecContext(ctx,
		`UPDATE runs SET stop_round = ?, stop_reason = ?, stop_elapsed = ?, stop_cell_cost = ? WHERE id = ?`,
		s.Round, string(s.Reason), int64(s.Elapsed), int64(s.CellCost), runID)
	if err != nil {
		return fmt.Errorf("record how run %d stopped sampling in %s: %w", runID, db.path, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("record how run %d stopped sampling in %s: %w", runID, db.path, err)
	}
	if n == 0 {
		return db.runNotFound(runID)
	}
	return nil
}

// SetChosenRepeats records in a sequential run's plan how many cells ran
// each number of repetitions (Decide.Chosen).
func (db *DB) SetChosenRepeats(ctx context.Context, runID int64, chosen map[int]int) error {
	return db.updatePlan(ctx, runID, "repetitions", func(p *Plan) error {
		if p.Decide == nil {
			return fmt.Errorf("run %d in %s is not sequential: it has no repetitions to choose", runID, db.path)
		}
		p.Decide.Chosen = chosen
		return nil
	})
}

// updatePlan reads a run's plan, lets change edit it, and stores it
// again; what names the change in errors.
func (db *DB) updatePlan(ctx context.Context, runID int64, what string, change func(*Plan) error) error {
	var note string
	err := db.sql.QueryRowContext(ctx, `SELECT note FROM runs WHERE id = ?`, runID).Scan(&note)
	if errors.Is(err, sql.ErrNoRows) {
		return db.runNotFound(runID)
	}
	if err != nil {
		return fmt.Errorf("read run %d's plan in %s: %w", runID, db.path, err)
	}
	p := planOf(note)
	if err := change(&p); err != nil {
		return err
	}
	if note, err = p.note(); err != nil {
		return err
	}
	if _, err := db.sql.ExecContext(ctx, `UPDATE runs SET note = ? WHERE id = ?`, note, runID); err != nil {
		return fmt.Errorf("record run %d's %s in %s: %w", runID, what, db.path, err)
	}
	return nil
}

// Layout records a run whose builds were relinked with random function
// layouts (-ldflags=-randlayout): each layout served PerLayout consecutive
// rounds, and every build's seed for a cluster of rounds follows from the
// run's seed (engine.LayoutSeed).
//
// A run may change the rounds a layout serves once it has measured where
// its variance lies: each of Phases, from its round on, serves Per rounds
// a layout (PerLayout is the first phase's, for runs stored before phases
// existed). In a run split into shards, rounds count within a shard
// (shard K's j-th round is round K + (j−1)·N), and clusters never span
// shards: every shard relinks its own layouts.
type Layout struct {
	PerLayout int           `json:"per_layout"`
	Phases    []LayoutPhase `json:"phases,omitempty"`
}

// LayoutPhase is a stretch of a run's rounds in which each layout serves
// Per rounds; it begins at From, the shard's own round count (1-based),
// which starts a new layout.
type LayoutPhase struct {
	From int `json:"from"`
	Per  int `json:"per"`
}

// Cluster is the layout cluster of a shard's j-th round (1-based), counted
// from 1 within the shard: rounds of one cluster ran on one layout of every
// build.
func (l *Layout) Cluster(j int) int {
	if l == nil || j < 1 {
		return j
	}
	phases := l.Phases
	if len(phases) == 0 {
		phases = []LayoutPhase{{From: 1, Per: l.PerLayout}}
	}
	cluster := 0
	for i, ph := range phases {
		end := j // the last round of the phase that j counts in
		if i+1 < len(phases) && phases[i+1].From <= j {
			end = phases[i+1].From - 1
		}
		per := max(1, ph.Per)
		if end < ph.From {
			continue
		}
		if end < j { // j lies in a later phase: count this phase's clusters
			cluster += (end - ph.From + per) / per
			continue
		}
		return cluster + (j-ph.From)/per + 1
	}
	return j
}

// Schedule says how many rounds each layout served: "every 2 rounds", or
// "every 2 rounds in rounds 1–16, then every round" (rounds counted within
// a shard).
func (l *Layout) Schedule() string {
	every := func(n int) string {
		if n <= 1 {
			return "every round"
		}
		return fmt.Sprintf("every %d rounds", n)
	}
	ph := l.Phases
	if len(ph) <= 1 {
		return every(l.PerLayout)
	}
	var parts []string
	for i, p := range ph {
		part := every(p.Per)
		if i+1 < len(ph) {
			part += fmt.Sprintf(" in rounds %d–%d", p.From, ph[i+1].From-1)
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, ", then ")
}

// Per is the rounds a layout serves at a shard's j-th round.
func (l *Layout) Per(j int) int {
	if l == nil {
		return 1
	}
	per := l.PerLayout
	for _, ph := range l.Phases {
		if ph.From <= j {
			per = ph.Per
		}
	}
	return max(1, per)
}

// RoundCluster is the cluster of a run's round when the run is split into
// shards (0 or 1 for none): the layout cluster of the shard's own round
// count, numbered so that clusters of different shards never share a
// number. With one shard it is Cluster(round).
func (l *Layout) RoundCluster(round, shards int) int {
	if round < 1 {
		return round
	}
	n := max(1, shards)
	shard, j := (round-1)%n, (round-1)/n+1
	return (l.Cluster(j)-1)*n + shard + 1
}

// ClusterOf returns the independent unit of each of the run's rounds: the
// layout cluster it ran in, within its shard (a machine), numbered so that
// clusters of different shards never share a number. It returns nil when
// every round is a unit of its own (one link per build, or a layout a
// round), so that callers can tell rounds that need grouping.
func (p Plan) ClusterOf() func(round int) int {
	if p.Layout == nil || p.Layout.PerLayout <= 1 && !slices.ContainsFunc(p.Layout.Phases, func(ph LayoutPhase) bool { return ph.Per > 1 }) {
		return nil
	}
	l, n := p.Layout, p.Shards
	return func(round int) int { return l.RoundCluster(round, n) }
}

// SetLayoutPhases records the phases of a run's layouts (Layout.Phases):
// the rounds a layout serves from each round on, as the run chose them.
func (db *DB) SetLayoutPhases(ctx context.Context, runID int64, phases []LayoutPhase) error {
	return db.updatePlan(ctx, runID, "layout phases", func(p *Plan) error {
		if p.Layout == nil {
			return fmt.Errorf("run %d in %s relinks no layouts: it has no layout phases", runID, db.path)
		}
		p.Layout.Phases = phases
		return nil
	})
}
