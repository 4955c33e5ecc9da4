package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHomeResolve(t *testing.T) {
	cwd := t.TempDir()
	legacy := t.TempDir()
	if err := os.WriteFile(filepath.Join(legacy, "perflab.db"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	dirNamedDB := t.TempDir()
	if err := os.Mkdir(filepath.Join(dirNamedDB, "perflab.db"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		env    map[string]string
		goos   string
		cwd    string
		dir    string // want Dir ("" with err)
		out    string // want Out when not Dir/runs
		legacy bool
		err    string
	}{
		{name: "PERFLAB_HOME", env: map[string]string{"PERFLAB_HOME": "/data/pl", "XDG_DATA_HOME": "/x", "HOME": "/home/u"}, goos: "linux", cwd: cwd, dir: "/data/pl"},
		{name: "relative PERFLAB_HOME is from the working directory", env: map[string]string{"PERFLAB_HOME": "store", "HOME": "/home/u"}, goos: "linux", cwd: cwd, dir: filepath.Join(cwd, "store")},
		{name: "XDG_DATA_HOME", env: map[string]string{"XDG_DATA_HOME": "/xdg", "HOME": "/home/u"}, goos: "linux", cwd: cwd, dir: "/xdg/perflab"},
		{name: "relative XDG_DATA_HOME is ignored", env: map[string]string{"XDG_DATA_HOME": "xdg", "HOME": "/home/u"}, goos: "linux", cwd: cwd, dir: "/home/u/.local/share/perflab"},
		{name: "Linux default", env: map[string]string{"HOME": "/home/u"}, goos: "linux", cwd: cwd, dir: "/home/u/.local/share/perflab"},
		{name: "FreeBSD default", env: map[string]string{"HOME": "/home/u"}, goos: "freebsd", cwd: cwd, dir: "/home/u/.local/share/perflab"},
		{name: "macOS default", env: map[string]string{"HOME": "/Users/u"}, goos: "darwin", cwd: cwd, dir: "/Users/u/Library/Application Support/perflab"},
		{name: "Windows default", env: map[string]string{"LocalAppData": "/c/Users/u/AppData/Local"}, goos: "windows", cwd: cwd, dir: "/c/Users/u/AppData/Local/perflab"},
		{name: "Plan 9 default", env: map[string]string{"home": "/usr/u"}, goos: "plan9", cwd: cwd, dir: "/usr/u/lib/perflab"},
		{name: "no HOME", env: map[string]string{}, goos: "linux", cwd: cwd, err: "$HOME is not set; set PERFLAB_HOME"},
		{name: "relative HOME", env: map[string]string{"HOME": "u"}, goos: "linux", cwd: cwd, err: "not an absolute path"},
		{name: "legacy ./perflab.db stays in use", env: map[string]string{"XDG_DATA_HOME": "/xdg", "HOME": "/home/u"}, goos: "linux", cwd: legacy, dir: legacy, out: filepath.Join(legacy, "perflab-runs"), legacy: true},
		{name: "PERFLAB_HOME wins over ./perflab.db", env: map[string]string{"PERFLAB_HOME": "/data/pl"}, goos: "linux", cwd: legacy, dir: "/data/pl"},
		{name: "a directory named perflab.db is not a database", env: map[string]string{"HOME": "/home/u"}, goos: "linux", cwd: dirNamedDB, dir: "/home/u/.local/share/perflab"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := HomeEnv{Getenv: func(k string) string { return tt.env[k] }, GOOS: tt.goos, Cwd: tt.cwd}
			h, err := e.Resolve()
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Resolve() = %+v, %v; want an error containing %q", h, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.FromSlash(tt.dir)
			out := filepath.Join(dir, "runs")
			if tt.out != "" {
				out = tt.out
			}
			if h.Dir != dir || h.DB != filepath.Join(dir, "perflab.db") || h.Out != out || h.Legacy != tt.legacy {
				t.Errorf("Resolve() = %+v; want Dir %s, DB %s, Out %s, Legacy %v", h, dir, filepath.Join(dir, "perflab.db"), out, tt.legacy)
			}
		})
	}
}
