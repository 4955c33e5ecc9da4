package store

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestDeadOwnerReadsInterrupted: a run left "running" by a process that is
// gone (SIGKILL) reads as interrupted; one whose owner lives reads as
// running; one from another host is left as stored.
func TestDeadOwnerReadsInterrupted(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Skip("no sleep command:", err)
	}
	self := CurrentOwner()
	child := Owner{Host: self.Host, PID: cmd.Process.Pid, Start: processStart(cmd.Process.Pid)}
	cmd.Process.Kill()
	cmd.Wait()

	db, err := Open(filepath.Join(t.TempDir(), "perflab.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tests := []struct {
		name  string
		owner Owner
		want  string
	}{
		{"this process", self, "running"},
		{"killed process", child, "interrupted"},
		{"another host", Owner{Host: self.Host + "-elsewhere", PID: child.PID, Start: child.Start}, "running"},
		{"no owner (older perflab)", Owner{}, "running"},
	}
	for _, tt := range tests {
		r := &Run{Experiment: tt.name, Mode: "quick", Owner: tt.owner}
		if _, err := db.CreateRun(context.Background(), r); err != nil {
			t.Fatal(err)
		}
		got, err := db.GetRun(context.Background(), r.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Owner != tt.owner {
			t.Errorf("%s: stored owner %+v, want %+v", tt.name, got.Owner, tt.owner)
		}
		if s := got.State(); s != tt.want {
			t.Errorf("%s: State() = %s, want %s", tt.name, s, tt.want)
		}
	}
	// A dead owner's run can be claimed; this process then owns it.
	runs, _ := db.Runs(context.Background())
	for _, r := range runs {
		if r.Experiment == "killed process" {
			if err := db.ClaimRun(context.Background(), r.ID); err != nil {
				t.Fatalf("ClaimRun of a dead owner's run: %v", err)
			}
			got, _ := db.GetRun(context.Background(), r.ID)
			if got.Owner != self || got.State() != "running" {
				t.Errorf("after ClaimRun: owner %+v state %s", got.Owner, got.State())
			}
		}
	}
}

// TestClaimRun: a run owned by a live process is refused; one of unknown
// ownership (an older perflab, another host) can be claimed.
func TestClaimRun(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "perflab.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Skip("no sleep command:", err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	tests := []struct {
		name  string
		owner Owner
		ok    bool
	}{
		{"live process", ProcessOwner(cmd.Process.Pid), false},
		{"no owner recorded", Owner{}, true},
		{"another host", Owner{Host: "elsewhere", PID: 1}, true},
	}
	for _, tt := range tests {
		r := &Run{Experiment: tt.name, Mode: "quick", Owner: tt.owner}
		if _, err := db.CreateRun(context.Background(), r); err != nil {
			t.Fatal(err)
		}
		err := db.ClaimRun(context.Background(), r.ID)
		if (err == nil) != tt.ok || err != nil && !errors.Is(err, ErrRunOwned) {
			t.Errorf("%s: ClaimRun = %v, want ok=%v", tt.name, err, tt.ok)
		}
	}
}
