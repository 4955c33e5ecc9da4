package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/perflab/perflab/serve"
)

var cmdServe = &command{
	rank:    55,
	name:    "serve",
	summary: "a local web UI: runs, reports with charts, compare, history, profiles",
	usage:   "[--addr HOST:PORT] [flags]",
	help: `
Serve starts a web UI over the database, bound to 127.0.0.1 unless --addr
says otherwise: the runs list, each run's HTML report (charts, tables,
claims), a comparison of any two runs with an optional --fail-on style
gate, a benchmark's history with its change points, and each captured
profile opened in pprof's own web UI (flame graph, top, source; the graph
view needs Graphviz). It prints its URL and runs until Ctrl-C.

Example:
  perflab serve                      # http://127.0.0.1:8080/
  perflab serve --addr 127.0.0.1:0   # any free port`,
}

type serveFlags struct {
	common
	addr     string
	articles string
}

func (f *serveFlags) declare(fs *flag.FlagSet) {
	f.dbFlag(fs)
	f.alphaFlag(fs, alphaServe)
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8080", "`host:port` to listen on; keep a loopback host unless you mean to share the UI")
	fs.StringVar(&f.articles, "articles", "", "`dir` of the articles the claims link to (default: $PERFLAB_ARTICLES, or shared/articles found upwards)")
}

func init() {
	define(cmdServe, func(f *serveFlags, pos []string, stdout, stderr io.Writer) error {
		if len(pos) > 0 {
			return fmt.Errorf("serve takes no arguments, got %q (the database is --db)", pos)
		}
		db, err := openDB(f.db, true)
		if err != nil {
			return err
		}
		defer db.Close()
		if f.articles == "" {
			f.articles = articlesDir()
		}
		ln, err := net.Listen("tcp", f.addr)
		if err != nil {
			return fmt.Errorf("listening on %s: %w (pick another port with --addr 127.0.0.1:0)", f.addr, err)
		}
		if host, _, _ := net.SplitHostPort(f.addr); !isLoopback(host) {
			fmt.Fprintf(stderr, "perflab serve: warning: %s is reachable from other machines; the UI has no authentication\n", f.addr)
		}
		srv := &http.Server{
			Handler:           serve.New(serve.Options{DB: db, Stats: f.options(), ArticlesDir: f.articles, Log: stderr}),
			ReadHeaderTimeout: 10 * time.Second,
		}
		ctx, stop := interruptible()
		defer stop()
		fmt.Fprintf(stdout, "perflab serve: http://%s/ (database %s; Ctrl-C stops)\n", ln.Addr(), db.Path())
		errc := make(chan error, 1)
		go func() { errc <- srv.Serve(ln) }()
		select {
		case err := <-errc:
			return err
		case <-ctx.Done():
		}
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(shut); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	})
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
