//go:build !linux

package slurmtest

import "testing"

// ForTest skips t: the throwaway Slurm cluster runs on Linux only.
func ForTest(t testing.TB) *Cluster {
	t.Skip("skipping Slurm test: the throwaway cluster runs on Linux only")
	return nil
}

// Cluster is unavailable on this system.
type Cluster struct{}
