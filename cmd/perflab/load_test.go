package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
)

// TestLoadLocal: perflab load against a local server prints a percentile
// table and writes a benchmark record and an HDR log.
func TestLoadLocal(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Test") != "yes" {
			http.Error(w, "missing header", http.StatusBadRequest)
			return
		}
		w.Write([]byte("hello"))
	}))
	defer srv.Close()
	dir := t.TempDir()
	bench, hlog := filepath.Join(dir, "step.txt"), filepath.Join(dir, "step.hlog")
	out, stderr, code := perflab(t, "load", srv.URL+"/path", "--rate", "1000", "--duration", "1s",
		"--header", "X-Test: yes", "--bench-out", bench, "--hdr-log", hlog, "--name", "BenchmarkLocal/step=1")
	// A busy machine may make the generator fall behind: the step is then
	// reported as invalid (exit 1) and no record is written.
	limited := strings.Contains(out, "INVALID: this step was limited by the load generator")
	if code != 0 && !limited {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
	for _, want := range []string{"open model at 1000 req/s", "percentile", "p50", "p90", "p99", "p99.9", "200×", "from intended send"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if data, err := os.ReadFile(hlog); err != nil || !strings.Contains(string(data), "latency") {
		t.Errorf("HDR log: %v\n%s", err, data)
	}
	if limited {
		t.Logf("the generator was limited on this machine; the record is not checked:\n%s", out)
		return
	}
	f, err := os.Open(bench)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := benchfmt.NewReader(f, bench)
	var units []string
	for r.Scan() {
		if res, ok := r.Result().(*benchfmt.Result); ok {
			if string(res.Name) != "BenchmarkLocal/step=1" {
				t.Errorf("record name %q", res.Name)
			}
			for _, v := range res.Values {
				units = append(units, v.Unit)
			}
		}
	}
	for _, want := range []string{"req/s", "p99-sec", "errors/op"} {
		if !strings.Contains(strings.Join(units, " "), want) {
			t.Errorf("record units %v lack %s", units, want)
		}
	}
}

func TestLoadFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"load"}, "exactly one target URL"},
		{[]string{"load", "http://127.0.0.1:1/", "--rate", "fast"}, "not a number of requests"},
		{[]string{"load", "http://127.0.0.1:1/", "--duration", "2h"}, "exceeds the limit"},
		{[]string{"load", "http://127.0.0.1:1/", "--header", "nocolon"}, "Name: value"},
		{[]string{"load", "127.0.0.1:1"}, "no scheme"},
		{[]string{"load", "https://127.0.0.1:1/"}, "https is not supported"},
		{[]string{"load", "http://127.0.0.1:1/", "--cpus", "x"}, "CPU list"},
		{[]string{"target", "redis"}, "the only target"},
		{[]string{"target", "orders", "--profile", "turbo"}, "no profile"},
		{[]string{"target", "orders", "--codec", "simdjson"}, "no JSON codec"},
	} {
		_, stderr, code := perflab(t, tt.args...)
		if code == 0 || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want an error containing %q", tt.args, code, stderr, tt.want)
		}
	}
}

func TestParseCPUSet(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want string
		ok   bool
	}{
		{"0", "[0]", true}, {"0-3", "[0 1 2 3]", true}, {"0,2-3", "[0 2 3]", true},
		{"", "", false}, {"3-1", "", false}, {"a", "", false}, {"-1", "", false}, {"0-5000", "", false},
	} {
		got, err := parseCPUSet(tt.in)
		if (err == nil) != tt.ok || (tt.ok && fmt.Sprint(got) != tt.want) {
			t.Errorf("parseCPUSet(%q) = %v, %v; want %s ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

// TestLoadRefusesRemote: "perflab load http://10.0.0.1/" is refused before
// any packet is sent. The command runs inside a new network namespace
// with no routes (unshare -n), so even a bug could not reach the address.
func TestLoadRefusesRemote(t *testing.T) {
	if os.Getenv("PERFLAB_TEST_IN_NETNS") == "1" {
		// Inside the namespace: only a loopback interface, and it is down.
		out, stderr, code := perflab(t, "load", "http://10.0.0.1/", "--rate", "10", "--duration", "1s")
		if code != 1 || out != "" || !strings.Contains(stderr, "refusing to send load to 10.0.0.1") ||
			!strings.Contains(stderr, "not a loopback address") || !strings.Contains(stderr, "--allow-remote") {
			t.Fatalf("exit %d, stdout %q, stderr %q; want a refusal naming the address and --allow-remote", code, out, stderr)
		}
		return
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("unshare is not installed, so the refusal cannot be tested inside a network namespace without routes")
	}
	var lastErr error
	var lastOut []byte
	for _, flags := range [][]string{{"-n"}, {"-r", "-n"}} {
		args := append(flags, os.Args[0], "-test.run=^TestLoadRefusesRemote$", "-test.count=1")
		cmd := exec.Command(unshare, args...)
		cmd.Env = append(os.Environ(), "PERFLAB_TEST_IN_NETNS=1")
		out, err := cmd.CombinedOutput()
		if err == nil {
			if !strings.Contains(string(out), "PASS") {
				t.Fatalf("the test in the namespace printed no PASS:\n%s", out)
			}
			return
		}
		if strings.Contains(string(out), "--- FAIL") {
			t.Fatalf("inside the network namespace:\n%s", out)
		}
		lastErr, lastOut = err, out
	}
	t.Skipf("cannot create a network namespace here (unshare -n and unshare -rn failed: %v: %s); the refusal is unit-tested in driver/load", lastErr, strings.TrimSpace(string(lastOut)))
}

func FuzzParseCPUSet(f *testing.F) {
	for _, s := range []string{"0", "0-3", "0,2-3", "3-1", "-1", "0-5000", ",", "1,,2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cpus, err := parseCPUSet(s)
		if err != nil {
			return
		}
		if len(cpus) == 0 || len(cpus) > 1024*1024 {
			t.Fatalf("parseCPUSet(%q) = %d CPUs", s, len(cpus))
		}
		for _, c := range cpus {
			if c < 0 || c > 1023 {
				t.Fatalf("parseCPUSet(%q) holds CPU %d", s, c)
			}
		}
	})
}
