//go:build linux

package slurmtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestArrayRunsAndRequeues submits a two-task array to the throwaway
// cluster, kills one task while it runs, requeues it, and checks that each
// task ran to the end, the killed one twice.
func TestArrayRunsAndRequeues(t *testing.T) {
	c := ForTest(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "job.sh")
	body := fmt.Sprintf(`#!/bin/bash
#SBATCH --array=0-1
#SBATCH --requeue
#SBATCH --cpus-per-task=1
#SBATCH --open-mode=append
#SBATCH --output=%[1]s/out-%%a.txt
echo "start $SLURM_ARRAY_TASK_ID ${SLURM_RESTART_COUNT:-0} $GREETING" >> %[1]s/log-$SLURM_ARRAY_TASK_ID
if [ "$SLURM_ARRAY_TASK_ID" = 1 ] && [ "${SLURM_RESTART_COUNT:-0}" = 0 ]; then sleep 60; fi
echo "end $SLURM_ARRAY_TASK_ID" >> %[1]s/log-$SLURM_ARRAY_TASK_ID
`, dir)
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	job, err := c.Submit(script, "GREETING=hello")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := c.Wait(ctx, job, func(ts []Task) bool {
		return len(ts) == 2 && ts[0].Index != ts[1].Index && ts[0].Done() != ts[1].Done()
	}); err != nil {
		t.Fatalf("%v%s", err, c.Logs())
	}
	task := job + "_1"
	if out, err := c.Command("scancel", "--signal=KILL", task).CombinedOutput(); err != nil {
		t.Fatalf("scancel: %v %s", err, out)
	}
	if _, err := c.Wait(ctx, job, func(ts []Task) bool { return allDone(ts) }); err != nil {
		t.Fatal(err)
	}
	if err := c.Requeue(task); err != nil {
		t.Fatal(err)
	}
	tasks, err := c.Wait(ctx, job, func(ts []Task) bool { return allDone(ts) })
	if err != nil {
		t.Fatalf("%v%s", err, c.Logs())
	}
	for _, ts := range tasks {
		if ts.State != "COMPLETED" {
			t.Errorf("task %s ended %s (exit %s)", ts.ID, ts.State, ts.ExitCode)
		}
		if want := map[int]int{0: 0, 1: 1}[ts.Index]; ts.Restarts != want {
			t.Errorf("task %s restarted %d times, want %d", ts.ID, ts.Restarts, want)
		}
	}
	for i, want := range []string{"start 0 0 hello\nend 0\n", "start 1 0 hello\nstart 1 1 hello\nend 1\n"} {
		got, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("log-%d", i)))
		if string(got) != want {
			t.Errorf("task %d wrote %q, want %q", i, got, want)
		}
	}
}

func allDone(ts []Task) bool {
	for _, t := range ts {
		if !t.Done() {
			return false
		}
	}
	return len(ts) > 0
}

func TestIndexRange(t *testing.T) {
	for _, tc := range []struct {
		in     string
		lo, hi int
		bad    bool
	}{{"3", 3, 3, false}, {"0-1", 0, 1, false}, {"0-3%2", 0, 3, false}, {"x", 0, 0, true}, {"", 0, 0, true}} {
		lo, hi, err := indexRange(tc.in)
		if (err != nil) != tc.bad || !tc.bad && (lo != tc.lo || hi != tc.hi) {
			t.Errorf("indexRange(%q) = %d, %d, %v", tc.in, lo, hi, err)
		}
	}
}
