package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
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

It reads the database only (a read-only copy serves as well), answers
only requests addressed to the host it listens on or to a loopback name
(localhost, 127.0.0.1, [::1]), so no other site's page can read it
through its own DNS name, and serves only the artifacts that lie under
--out. An address other machines reach needs --allow-remote: the UI has
no authentication.

Example:
  perflab serve                      # http://127.0.0.1:8080/
  perflab serve --addr 127.0.0.1:0   # any free port
  perflab serve --addr 0.0.0.0:8080 --allow-remote   # every interface, for machines you trust`,
}

type serveFlags struct {
	common
	addr        string
	articles    string
	out         string
	allowRemote bool
}

func (f *serveFlags) declare(fs *flag.FlagSet) {
	f.dbFlag(fs)
	f.alphaFlag(fs, alphaServe)
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8080", "`host:port` to listen on: a loopback host unless --allow-remote")
	fs.BoolVar(&f.allowRemote, "allow-remote", false, "allow an --addr other machines can reach (the UI has no authentication; only on networks you trust)")
	fs.StringVar(&f.out, "out", defaultOut(), "`dir` the runs stored their artifacts in (run's --out); only files under it are served")
	fs.StringVar(&f.articles, "articles", "", "`dir` of the articles the claims link to (default: $PERFLAB_ARTICLES, or shared/articles found upwards)")
}

func init() {
	define(cmdServe, func(f *serveFlags, pos []string, stdout, stderr io.Writer) error {
		if len(pos) > 0 {
			return fmt.Errorf("serve takes no arguments, got %q (the database is --db)", pos)
		}
		if host, _, err := net.SplitHostPort(f.addr); err != nil {
			return usageError(fmt.Errorf("--addr %q: want host:port, such as 127.0.0.1:8080", f.addr))
		} else if !isLoopback(host) && !f.allowRemote {
			return usageError(fmt.Errorf("--addr %s is reachable from other machines and the UI has no authentication; listen on a loopback address (127.0.0.1:8080), or pass --allow-remote on a network you trust", f.addr))
		}
		db, err := openReadDB(f.db)
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
		bound := ln.Addr().(*net.TCPAddr)
		if !bound.IP.IsLoopback() && !f.allowRemote {
			ln.Close()
			return usageError(fmt.Errorf("--addr %s listens on %s, which other machines reach; listen on a loopback address, or pass --allow-remote", f.addr, bound))
		}
		// addr is what requests must name (besides loopback names); url
		// what to open here.
		addr, url := bound.String(), bound.String()
		if bound.IP.IsUnspecified() {
			fmt.Fprintf(stderr, "perflab serve: warning: listening on every interface (%s); the UI has no authentication\n", bound)
			url = net.JoinHostPort("127.0.0.1", strconv.Itoa(bound.Port))
		} else if host, _, _ := net.SplitHostPort(f.addr); host != "" {
			addr = net.JoinHostPort(host, strconv.Itoa(bound.Port)) // the name asked for is a Host it answers
			url = addr
		}
		srv := &http.Server{
			Handler: serve.New(serve.Options{DB: db, Stats: f.options(), ArticlesDir: f.articles, Log: stderr,
				Addr: addr, ArtifactDir: f.out}),
			ReadHeaderTimeout: 10 * time.Second,
		}
		ctx, stop := interruptible()
		defer stop()
		fmt.Fprintf(stdout, "perflab serve: http://%s/ (database %s; Ctrl-C stops)\n", url, db.Path())
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
