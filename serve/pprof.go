package serve

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/google/pprof/driver"
)

// pprofKinds are the artifact kinds pprof's web UI opens.
var pprofKinds = map[string]bool{"cpu": true, "heap": true, "allocs": true, "mutex": true, "block": true, "goroutine": true, "threadcreate": true}

// pprofUI loads a profile into pprof's own web interface and returns its
// handler, to be mounted under a prefix with http.StripPrefix. pprof's pages
// link to each other relatively ("./top", "./flamegraph"), so they work
// under any prefix that ends in a slash.
func pprofUI(path string, log io.Writer) (http.Handler, error) {
	var handlers map[string]http.Handler
	flags := &pprofFlags{fs: flag.NewFlagSet("pprof", flag.ContinueOnError),
		args: []string{"-http=127.0.0.1:0", "-no_browser", "-symbolize=none", path}}
	flags.fs.SetOutput(io.Discard)
	err := driver.PProf(&driver.Options{
		Flagset: flags,
		UI:      &pprofLog{w: log},
		HTTPServer: func(a *driver.HTTPServerArgs) error {
			handlers = a.Handlers
			return nil
		},
	})
	if err != nil {
		return nil, fmt.Errorf("pprof could not load %s: %w", path, err)
	}
	if handlers == nil {
		return nil, fmt.Errorf("pprof could not load %s: %s", path, strings.TrimSpace(flags.usage))
	}
	var mu sync.Mutex // pprof's handlers share one report state
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if p == "" {
			p = "/"
		}
		h := handlers[p]
		if h == nil {
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		h.ServeHTTP(w, r)
	}), nil
}

// pprofFlags feeds pprof a fixed command line.
type pprofFlags struct {
	fs    *flag.FlagSet
	args  []string
	extra []string
	usage string
}

func (f *pprofFlags) Bool(o string, d bool, c string) *bool          { return f.fs.Bool(o, d, c) }
func (f *pprofFlags) Int(o string, d int, c string) *int             { return f.fs.Int(o, d, c) }
func (f *pprofFlags) Float64(o string, d float64, c string) *float64 { return f.fs.Float64(o, d, c) }
func (f *pprofFlags) String(o, d, c string) *string                  { return f.fs.String(o, d, c) }
func (f *pprofFlags) StringList(o, d, c string) *[]*string {
	return &[]*string{f.fs.String(o, d, c)}
}
func (f *pprofFlags) ExtraUsage() string      { return strings.Join(f.extra, "\n") }
func (f *pprofFlags) AddExtraUsage(eu string) { f.extra = append(f.extra, eu) }
func (f *pprofFlags) Parse(usage func()) []string {
	if err := f.fs.Parse(f.args); err != nil {
		f.usage = err.Error()
		return nil
	}
	return f.fs.Args()
}

// pprofLog sends pprof's messages to the server log; it never reads input.
type pprofLog struct{ w io.Writer }

func (u *pprofLog) ReadLine(string) (string, error)     { return "", io.EOF }
func (u *pprofLog) Print(args ...any)                   { fmt.Fprintln(u.w, append([]any{"pprof:"}, args...)...) }
func (u *pprofLog) PrintErr(args ...any)                { fmt.Fprintln(u.w, append([]any{"pprof:"}, args...)...) }
func (u *pprofLog) IsTerminal() bool                    { return false }
func (u *pprofLog) WantBrowser() bool                   { return false }
func (u *pprofLog) SetAutoComplete(func(string) string) {}
