package httpserve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/perflab/perflab/driver/load"
	"github.com/perflab/perflab/target/orders"
)

// server is the orders service running as a child process.
type server struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	addr   string // host:port of the service
	side   string // host:port of pprof, metrics and the guard switch
	stderr *tail
	exited chan struct{} // closed once the child has been reaped
	once   sync.Once
}

// tail keeps the last few KiB written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if n := len(t.buf); n > 4096 {
		t.buf = append(t.buf[:0], t.buf[n-4096:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// startServer starts this test binary again as the orders service with
// the given profile, pinned to cpus with GOMAXPROCS set to their number,
// and waits until it accepts connections. The child dies with this
// process (SIGKILL on parent death, and it exits when its standard input
// closes); stop, which b.Cleanup also calls, kills it.
func startServer(tb testing.TB, profile string, cpus []int, mutex bool) *server {
	tb.Helper()
	exe, err := os.Executable()
	if err != nil {
		tb.Fatalf("finding this test binary to start the service: %v", err)
	}
	cmd := exec.Command(exe)
	env := append(os.Environ(), envChild+"="+profile)
	if len(cpus) > 0 {
		var s []string
		for _, c := range cpus {
			s = append(s, strconv.Itoa(c))
		}
		env = append(env, envCPUs+"="+strings.Join(s, ","), "GOMAXPROCS="+strconv.Itoa(len(cpus)))
	}
	if mutex {
		env = append(env, envProfile+"=1")
	}
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	srv := &server{cmd: cmd, stderr: &tail{}}
	cmd.Stderr = srv.stderr
	if srv.stdin, err = cmd.StdinPipe(); err != nil {
		tb.Fatalf("starting the service: %v", err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatalf("starting the service: %v", err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatalf("starting the service: %v", err)
	}
	tb.Cleanup(srv.stop)
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if line := sc.Text(); strings.HasPrefix(line, "READY ") {
				ready <- line
				break
			}
		}
		_, _ = io.Copy(io.Discard, out)
	}()
	srv.exited = make(chan struct{})
	go func() { _ = cmd.Wait(); close(srv.exited) }()
	// The first start seeds the order database (seconds; longer on a slow disk).
	select {
	case line := <-ready:
		f := strings.Fields(line)
		if len(f) != 3 {
			srv.stop()
			tb.Fatalf("the service announced %q; want READY <addr> <side addr>", line)
		}
		srv.addr, srv.side = f[1], f[2]
	case <-srv.exited:
		tb.Fatalf("the service (profile %s) exited before accepting connections:\n%s", profile, srv.stderr)
	case <-time.After(3 * time.Minute):
		srv.stop()
		tb.Fatalf("the service (profile %s) did not start within 3 minutes:\n%s", profile, srv.stderr)
	}
	return srv
}

// stop kills the service and waits for it.
func (s *server) stop() {
	s.once.Do(func() {
		s.stdin.Close()
		if s.cmd.Process != nil {
			_ = s.cmd.Process.Kill()
		}
		if s.exited != nil {
			select {
			case <-s.exited:
			case <-time.After(10 * time.Second):
			}
		}
	})
}

// metrics reads the service's counters.
func (s *server) metrics() (orders.Metrics, error) {
	var m orders.Metrics
	resp, err := sideClient.Get("http://" + s.side + "/debug/perflab/metrics")
	if err != nil {
		return m, fmt.Errorf("reading the service's metrics: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return m, fmt.Errorf("reading the service's metrics: %s", resp.Status)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&m); err != nil {
		return m, fmt.Errorf("decoding the service's metrics: %w", err)
	}
	return m, nil
}

// get fetches a side-port path (a profile) into memory.
func (s *server) get(path string) ([]byte, error) {
	resp, err := sideClient.Get("http://" + s.side + path)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s: %s", path, resp.Status, bytes.TrimSpace(body))
	}
	return body, nil
}

// setGuard switches the overload guard (0 turns it off).
func (s *server) setGuard(rate float64) error {
	resp, err := sideClient.PostForm("http://"+s.side+"/debug/perflab/guard", url.Values{"rate": {strconv.FormatFloat(rate, 'f', 0, 64)}})
	if err != nil {
		return fmt.Errorf("switching the guard: %w", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		return fmt.Errorf("switching the guard: %s", resp.Status)
	}
	return nil
}

// sideClient talks to the service's side port; never used for load.
var sideClient = &http.Client{Timeout: 2 * time.Minute}

// target resolves the service's address (always loopback) for load.
func (s *server) target(path string) (*load.Target, error) {
	u, err := load.ParseURL("http://" + s.addr + path)
	if err != nil {
		return nil, err
	}
	return load.Resolve(context.Background(), u, false, nil)
}

// orderRequests prepares n requests for random orders, the same ones for
// every profile.
func (s *server) orderRequests(n int) (*load.Target, [][]byte, error) {
	t, err := s.target("/order/1")
	if err != nil {
		return nil, nil, err
	}
	hdr := http.Header{"Authorization": {"Bearer " + orders.DefaultToken}}
	r := rand.New(rand.NewPCG(4, 2))
	reqs := make([][]byte, n)
	for i := range reqs {
		u := *t.URL
		u.Path = "/order/" + strconv.Itoa(1+r.IntN(orders.NumOrders))
		if reqs[i], err = load.BuildRequest(http.MethodGet, &u, hdr); err != nil {
			return nil, nil, err
		}
	}
	return t, reqs, nil
}
