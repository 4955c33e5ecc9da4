//go:build !unix

package pgtest

import (
	"errors"
	"testing"
)

// ErrNoBinaries is wrapped by Start's error when no PostgreSQL server
// binaries can be run.
var ErrNoBinaries = errors.New("throwaway PostgreSQL clusters are supported on unix systems only")

// Cluster is unavailable on this system.
type Cluster struct{ port int }

// Start fails: no cluster can be started here.
func Start() (*Cluster, error) { return nil, ErrNoBinaries }

// ForTest skips t.
func ForTest(t testing.TB) *Cluster { t.Skip(ErrNoBinaries.Error()); return nil }

// DSN is the URL of database name on the cluster.
func (c *Cluster) DSN(name string) string { return "" }

// NewDatabase fails.
func (c *Cluster) NewDatabase() (string, error) { return "", ErrNoBinaries }

// NewDatabaseT fails t.
func (c *Cluster) NewDatabaseT(t testing.TB) string { t.Fatal(ErrNoBinaries); return "" }

// Port is 0.
func (c *Cluster) Port() int { return c.port }

// Attach returns a handle on a cluster on port.
func Attach(port int) *Cluster { return &Cluster{port: port} }

// Stop does nothing.
func (c *Cluster) Stop() {}
