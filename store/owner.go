package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// An Owner identifies the process that runs a run: its host, its process ID
// and its start time, so a recycled process ID is not mistaken for the
// owner.
type Owner struct {
	Host  string
	PID   int
	Start string // boot id and start time in clock ticks (Linux), or "" where unknown
}

// String is "pid 1234 on host".
func (o Owner) String() string {
	if o.PID == 0 {
		return "an unknown process"
	}
	return fmt.Sprintf("process %d on %s", o.PID, o.Host)
}

var (
	selfOnce  sync.Once
	selfOwner Owner
)

// CurrentOwner describes this process.
func CurrentOwner() Owner {
	selfOnce.Do(func() { selfOwner = ProcessOwner(os.Getpid()) })
	return selfOwner
}

// ProcessOwner describes the process pid on this host.
func ProcessOwner(pid int) Owner {
	host, _ := os.Hostname()
	return Owner{Host: host, PID: pid, Start: processStart(pid)}
}

// processStart returns an identifier of the process' start: the boot id and
// the start time in clock ticks since boot, from /proc. It is "" where /proc
// is not available or the process does not exist.
func processStart(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return ""
	}
	f := strings.Fields(string(b[i+1:]))
	const startField = 22 - 3 // field 22, counted from field 3
	if len(f) <= startField || f[0] == "Z" || f[0] == "X" {
		return "" // a zombie has exited: only its exit status is left
	}
	boot, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	return strings.TrimSpace(string(boot)) + ":" + f[startField]
}

// Liveness says whether a run's owner still runs: "alive", "dead", or
// "unknown" (another host, or no owner recorded).
func (o Owner) Liveness() string {
	if o.PID == 0 {
		return "unknown"
	}
	if host, _ := os.Hostname(); host != o.Host {
		return "unknown"
	}
	if o.Start == "" {
		// No start time was recorded (no /proc): the process ID alone says it.
		p, err := os.FindProcess(o.PID)
		if err != nil || p.Signal(syscall.Signal(0)) != nil {
			return "dead"
		}
		return "alive"
	}
	if processStart(o.PID) == o.Start {
		return "alive"
	}
	return "dead"
}

// State is the run's status as it stands now: a run stored as "running"
// whose owning process has died (SIGKILL, power loss) is "interrupted".
func (r *Run) State() string {
	if r.Status == "running" && r.Owner.Liveness() == "dead" {
		return "interrupted"
	}
	return r.Status
}

// ErrRunOwned is wrapped by ClaimRun's error when another live process runs
// the run.
var ErrRunOwned = errors.New("run is owned by a live process")

// ClaimRun marks the run as running, owned by this process, unless another
// live process owns it.
func (db *DB) ClaimRun(ctx context.Context, runID int64) error {
	run, err := db.GetRun(ctx, runID)
	if err != nil {
		return err
	}
	self := CurrentOwner()
	if run.Status == "running" && run.Owner != self && run.Owner.Liveness() == "alive" {
		return fmt.Errorf("run %d is still running in %s (started %s): %w; wait for it, or stop that process first",
			runID, run.Owner, run.StartedAt.Local().Format(time.DateTime), ErrRunOwned)
	}
	_, err = db.sql.ExecContext(ctx,
		`UPDATE runs SET status = 'running', owner_host = ?, owner_pid = ?, owner_start = ? WHERE id = ?`,
		self.Host, self.PID, self.Start, runID)
	if err != nil {
		return fmt.Errorf("claim run %d in %s: %w", runID, db.path, err)
	}
	return nil
}
