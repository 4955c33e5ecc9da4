package gotest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perflab/perflab/internal/offline"
)

// fetchCase reads testdata/fetch/NAME.txt: "# what: …" and "# why: …"
// header lines for output the go command prints when a download fails,
// none for any other failure, then the output.
func fetchCase(t testing.TB, file string) (output, what, why string) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "# what: "); ok {
			what = v
		} else if v, ok := strings.CutPrefix(line, "# why: "); ok {
			why = v
		} else if !strings.HasPrefix(line, "# a ") {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n"), what, why
}

func TestFetchFailure(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "fetch", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases in testdata/fetch: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			output, wantWhat, wantWhy := fetchCase(t, file)
			what, why, ok := fetchFailure(output)
			if ok != (wantWhat != "") || what != wantWhat || why != wantWhy {
				t.Errorf("fetchFailure = %q, %q, %v; want %q, %q, %v", what, why, ok, wantWhat, wantWhy, wantWhat != "")
			}
		})
	}
}

func FuzzFetchFailure(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "fetch", "*.txt"))
	for _, file := range files {
		output, _, _ := fetchCase(f, file)
		f.Add(output)
	}
	f.Fuzz(func(t *testing.T, output string) {
		what, why, ok := fetchFailure(output)
		if ok && (what == "" || why == "") {
			t.Errorf("fetchFailure(%q) = %q, %q, true: a download failure names what and why", output, what, why)
		}
	})
}

// TestCompileOffline builds with the go command cut off from every module
// source (GOPROXY=off, an empty module cache): a config whose toolchain
// or modules must be downloaded fails with a FetchError naming them; a
// compile error under the same settings is no FetchError.
func TestCompileOffline(t *testing.T) {
	needGo(t)
	offline.Go(t)
	t.Setenv("GOTOOLCHAIN", "local")
	const bench = "package m\n\nimport \"testing\"\n\nfunc BenchmarkB(b *testing.B) {}\n"
	tests := []struct {
		name     string
		files    map[string]string
		env      []string
		wantWhat string // "" for a failure that is not a download
		wantWhy  string
	}{
		{
			name:     "toolchain",
			files:    map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n", "m_test.go": bench},
			env:      []string{"GOTOOLCHAIN=go1.22.12"},
			wantWhat: "toolchain go1.22.12",
			wantWhy:  "toolchain not available",
		},
		{
			name: "module",
			files: map[string]string{
				"go.mod":    "module example.com/m\n\ngo 1.22\n\nrequire golang.org/x/text v0.14.0\n",
				"m_test.go": "package m\n\nimport (\n\t\"testing\"\n\n\t_ \"golang.org/x/text/language\"\n)\n\nfunc BenchmarkB(b *testing.B) {}\n",
			},
			wantWhat: "module golang.org/x/text@v0.14.0",
			wantWhy:  "module lookup disabled by GOPROXY=off",
		},
		{
			name:  "compile error",
			files: map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n", "m_test.go": "package m\n\nimport \"testing\"\n\nfunc BenchmarkB(b *testing.B) { undefinedThing() }\n"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, text := range tt.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, _, err := Compile(context.Background(), Build{Dir: dir, Env: tt.env, CacheDir: filepath.Join(dir, "cache")})
			if err == nil {
				t.Fatal("Compile succeeded offline, want an error")
			}
			var fe *FetchError
			if got := errors.As(err, &fe); got != (tt.wantWhat != "") {
				t.Fatalf("errors.As(FetchError) = %v, want %v; error:\n%v", got, tt.wantWhat != "", err)
			}
			if fe == nil {
				return
			}
			if fe.What != tt.wantWhat || fe.Why != tt.wantWhy {
				t.Errorf("FetchError names %q (%q), want %q (%q)", fe.What, fe.Why, tt.wantWhat, tt.wantWhy)
			}
			if !strings.Contains(err.Error(), tt.wantWhat+" could not be downloaded ("+tt.wantWhy+")") {
				t.Errorf("error %q does not say what could not be downloaded and why", err)
			}
		})
	}
}
