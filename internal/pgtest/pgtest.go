//go:build unix

// Package pgtest starts a throwaway PostgreSQL cluster for tests, from the
// server binaries of Debian's postgresql package (initdb and pg_ctl), in a
// temporary directory, listening on 127.0.0.1 only, and stops it at the end.
// Run as root, the server runs as the unprivileged user nobody, since
// PostgreSQL refuses to run as root.
package pgtest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync/atomic"
	"syscall"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver
)

// ErrNoBinaries is wrapped by Start's error when no PostgreSQL server
// binaries are installed.
var ErrNoBinaries = errors.New("PostgreSQL server binaries (initdb, pg_ctl) not found; install Debian's postgresql package")

// Cluster is a running throwaway PostgreSQL cluster.
type Cluster struct {
	dir, bin string
	port     int
	cred     *syscall.Credential
	n        atomic.Int64
}

// binDir finds the directory holding initdb and pg_ctl.
func binDir() (string, error) {
	if d := os.Getenv("PERFLAB_PG_BIN"); d != "" {
		return d, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool {
		return len(dirs[i]) > len(dirs[j]) || (len(dirs[i]) == len(dirs[j]) && dirs[i] > dirs[j])
	})
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "pg_ctl")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", ErrNoBinaries
}

// Start initialises and starts a cluster. Call Stop when done.
func Start() (*Cluster, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "perflab-pgtest-")
	if err != nil {
		return nil, err
	}
	c := &Cluster{dir: dir, bin: bin}
	if os.Geteuid() == 0 {
		c.cred = &syscall.Credential{Uid: 65534, Gid: 65534}
		if err := os.Chown(dir, 65534, 65534); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("pgtest: hand %s to user nobody: %w", dir, err)
		}
	}
	data := filepath.Join(dir, "data")
	if out, err := c.command("initdb", "-D", data, "-U", "postgres", "--auth=trust", "--no-locale", "-E", "UTF8", "--no-sync").CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("pgtest: initdb: %w\n%s", err, out)
	}
	port, err := freePort()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	c.port = port
	opts := fmt.Sprintf("-h 127.0.0.1 -p %d -k %s -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=100", port, dir)
	if out, err := c.command("pg_ctl", "-D", data, "-l", filepath.Join(dir, "log"), "-o", opts, "-w", "-t", "60", "start").CombinedOutput(); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		os.RemoveAll(dir)
		return nil, fmt.Errorf("pgtest: pg_ctl start: %w\n%s\n%s", err, out, log)
	}
	return c, nil
}

func (c *Cluster) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(c.bin, name), args...)
	cmd.Dir = c.dir
	if c.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	}
	return cmd
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pgtest: find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// DSN is the URL of database name on the cluster.
func (c *Cluster) DSN(name string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.port, name)
}

// NewDatabase creates an empty database and returns its URL.
func (c *Cluster) NewDatabase() (string, error) {
	name := fmt.Sprintf("t%d_%d_%d", os.Getpid(), c.n.Add(1), rand.Uint32())
	admin, err := sql.Open("pgx", c.DSN("postgres"))
	if err != nil {
		return "", err
	}
	defer admin.Close()
	if _, err := admin.ExecContext(context.Background(), "CREATE DATABASE "+name); err != nil {
		return "", fmt.Errorf("pgtest: create database %s: %w", name, err)
	}
	return c.DSN(name), nil
}

// Stop stops the server and removes its directory.
func (c *Cluster) Stop() {
	c.command("pg_ctl", "-D", filepath.Join(c.dir, "data"), "-m", "immediate", "-w", "stop").Run()
	os.RemoveAll(c.dir)
}

// ForTest starts a cluster stopped when t ends and returns it; it skips t
// when no PostgreSQL binaries are installed.
func ForTest(t testing.TB) *Cluster {
	t.Helper()
	c, err := Start()
	if errors.Is(err, ErrNoBinaries) {
		t.Skipf("skipping PostgreSQL test: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	return c
}

// NewDatabaseT is NewDatabase failing t on error.
func (c *Cluster) NewDatabaseT(t testing.TB) string {
	t.Helper()
	dsn, err := c.NewDatabase()
	if err != nil {
		t.Fatal(err)
	}
	return dsn
}

// Port is the TCP port the cluster listens on at 127.0.0.1.
func (c *Cluster) Port() int { return c.port }

// Attach returns a handle on a cluster another process started on port, to
// create databases on it; Stop must not be called on it.
func Attach(port int) *Cluster { return &Cluster{port: port} }
