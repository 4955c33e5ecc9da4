package store

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/perflab/perflab/internal/pgtest"
)

// pgSuiteEnv carries the port of the cluster TestStoreSuitePostgres started
// to the child process that runs the suite against it.
const pgSuiteEnv = "PERFLAB_STORE_SUITE_PG_PORT"

// pgSuiteCluster is the cluster the suite runs against, or nil when the
// suite runs on SQLite.
func pgSuiteCluster() *pgtest.Cluster {
	port, err := strconv.Atoi(os.Getenv(pgSuiteEnv))
	if err != nil || port == 0 {
		return nil
	}
	return pgtest.Attach(port)
}

// skipOnPostgres skips a test of SQLite specifics in the PostgreSQL pass.
func skipOnPostgres(t *testing.T) {
	if pgSuiteCluster() != nil {
		t.Skip("tests SQLite specifics")
	}
}

// TestStoreSuitePostgres runs this package's whole test suite again, in a
// child process, with openTemp handing out databases of a throwaway
// PostgreSQL cluster: the same tests hold on both dialects.
func TestStoreSuitePostgres(t *testing.T) {
	if pgSuiteCluster() != nil {
		t.Skip("this is the PostgreSQL pass")
	}
	if testing.Short() {
		t.Skip("starts a PostgreSQL cluster")
	}
	c := pgtest.ForTest(t)
	args := []string{"-test.count=1", "-test.v"}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), pgSuiteEnv+"="+strconv.Itoa(c.Port()))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("store suite on PostgreSQL failed: %v\n%s", err, out)
	}
	t.Logf("store suite passed on PostgreSQL:\n%s", tail(out, 1500))
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// pgText returns s unchanged on SQLite; on PostgreSQL, whose text holds
// neither NUL bytes nor invalid UTF-8 (such values are refused with an
// error), it drops those bytes so a test of odd strings keeps the rest.
func pgText(s string) string {
	if pgSuiteCluster() == nil {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, ""), "\x00", "")
}
