package env

import (
	"context"
	"errors"
	"os"
	"runtime"
	"strconv"
	"testing"
	"testing/fstest"
	"time"
)

var wantKeys = []string{
	"goversion", "perflab-goversion", "goexperiment", "goos", "goarch",
	"cpu", "cores", "gomaxprocs", "governor", "kernel", "loadavg",
	"hostname", "time",
}

func fakeSource(root string) source {
	s := source{
		goEnv: func(context.Context, string, []string) (goEnvInfo, error) {
			return goEnvInfo{GOVERSION: "go1.99.0", GOOS: "linux", GOARCH: "arm64"}, nil
		},
		uname:    func(context.Context) (string, error) { return "", errors.New("no uname") },
		hostname: func() (string, error) { return "bench-host", nil },
		getenv:   func(string) string { return "" },
		now:      func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("X", 3600)) },
	}
	if root != "" {
		s.fsys = os.DirFS(root)
	}
	return s
}

func TestCaptureFromRoots(t *testing.T) {
	procs := strconv.Itoa(runtime.GOMAXPROCS(0))
	tests := []struct {
		name  string
		src   source
		goEnv []string
		want  map[string]string
	}{
		{
			name: "x86",
			src:  fakeSource("testdata/x86"),
			want: map[string]string{
				"goversion":    "go1.99.0",
				"goexperiment": "none",
				"goos":         "linux",
				"goarch":       "arm64",
				"cpu":          "Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz",
				"gomaxprocs":   procs,
				"governor":     "performance",
				"kernel":       "6.8.0-1021-aws",
				"loadavg":      "0.52 0.58 0.59",
				"hostname":     "bench-host",
				"time":         "2026-01-02T02:04:05Z",
			},
		},
		{
			name:  "arm64 without cpufreq",
			src:   fakeSource("testdata/arm64"),
			goEnv: []string{"GOMAXPROCS=3", "GOGC=off", "GOMAXPROCS=4"},
			want: map[string]string{
				"cpu":        "ARM Neoverse-N1",
				"gomaxprocs": "4",
				"governor":   Unknown,
				"kernel":     "6.1.0-28-arm64",
				"loadavg":    "1.00 0.75 0.50",
			},
		},
		{
			name: "nothing readable",
			src: func() source {
				s := fakeSource("")
				s.fsys = fstest.MapFS{}
				s.hostname = func() (string, error) { return "", errors.New("no host") }
				s.getenv = func(k string) string {
					if k == "GOMAXPROCS" {
						return "7"
					}
					return ""
				}
				return s
			}(),
			want: map[string]string{
				"cpu":        Unknown,
				"gomaxprocs": "7",
				"governor":   Unknown,
				"kernel":     runtime.GOOS,
				"loadavg":    Unknown,
				"hostname":   Unknown,
			},
		},
		{
			name: "uname fallback",
			src: func() source {
				s := fakeSource("")
				s.uname = func(context.Context) (string, error) { return "Darwin  24.1.0\n", nil }
				return s
			}(),
			want: map[string]string{
				"kernel": "Darwin 24.1.0",
				"cpu":    Unknown,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kvs, err := tt.src.capture(context.Background(), "", tt.goEnv)
			if err != nil {
				t.Fatalf("capture: %v", err)
			}
			checkKeys(t, kvs)
			got := map[string]string{}
			for _, kv := range kvs {
				got[kv.Key] = kv.Value
			}
			for k, w := range tt.want {
				if got[k] != w {
					t.Errorf("%s = %q, want %q", k, got[k], w)
				}
			}
			if got["perflab-goversion"] != runtime.Version() {
				t.Errorf("perflab-goversion = %q, want %q", got["perflab-goversion"], runtime.Version())
			}
			if got["cores"] != strconv.Itoa(runtime.NumCPU()) {
				t.Errorf("cores = %q, want %d", got["cores"], runtime.NumCPU())
			}
		})
	}
}

func checkKeys(t *testing.T, kvs []KV) {
	t.Helper()
	if len(kvs) != len(wantKeys) {
		t.Fatalf("got %d keys, want %d: %v", len(kvs), len(wantKeys), kvs)
	}
	for i, kv := range kvs {
		if kv.Key != wantKeys[i] {
			t.Errorf("key %d = %q, want %q", i, kv.Key, wantKeys[i])
		}
		if kv.Value == "" {
			t.Errorf("key %q has an empty value", kv.Key)
		}
	}
}

func TestCaptureGoEnvError(t *testing.T) {
	s := fakeSource("testdata/x86")
	s.goEnv = func(context.Context, string, []string) (goEnvInfo, error) {
		return goEnvInfo{}, errors.New("boom")
	}
	if kvs, err := s.capture(context.Background(), "", nil); err == nil {
		t.Fatalf("capture succeeded with a failing go command: %v", kvs)
	}
}

// TestCaptureSystem runs the real go command and reads the real machine.
func TestCaptureSystem(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	kvs, err := Capture(context.Background(), "", []string{"GOEXPERIMENT="})
	if err != nil {
		t.Fatalf("Capture: %v", err)
	}
	checkKeys(t, kvs)
	got := map[string]string{}
	for _, kv := range kvs {
		got[kv.Key] = kv.Value
	}
	if got["goos"] != runtime.GOOS || got["goarch"] != runtime.GOARCH {
		t.Errorf("goos/goarch = %s/%s, want %s/%s", got["goos"], got["goarch"], runtime.GOOS, runtime.GOARCH)
	}
	if got["goexperiment"] != "none" {
		t.Errorf("goexperiment = %q with GOEXPERIMENT empty, want none", got["goexperiment"])
	}
	if _, err := time.Parse(time.RFC3339, got["time"]); err != nil {
		t.Errorf("time %q is not RFC 3339: %v", got["time"], err)
	}
}

func TestCaptureBadDir(t *testing.T) {
	_, err := Capture(context.Background(), "testdata/does-not-exist", nil)
	if err == nil {
		t.Fatal("Capture in a missing directory succeeded, want an error")
	}
}
