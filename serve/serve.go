// Package serve is perflab's local web UI over a run database: the runs
// list, each run's HTML report, a comparison of two runs, a benchmark's
// history with its change points, and every captured profile opened in
// pprof's own web interface (graph, flame graph, top, source).
//
// [New] returns an http.Handler; the caller chooses the address, and
// "perflab serve" binds 127.0.0.1 unless told otherwise. Everything is
// rendered on the server from the database: the pages have no scripts and
// fetch nothing from the network.
//
// What the UI trusts: a request is answered only when its Host names the
// address the server was bound to or a loopback name (a page of another
// site that rebinds its own DNS name to 127.0.0.1 gets 421), and an
// artifact is served only from under Options.ArtifactDir, whatever path a
// database row names.
package serve

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"html/template"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/compare"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/report"
	"github.com/perflab/perflab/store"
)

// Options configures the server.
type Options struct {
	DB          *store.DB
	Stats       analysis.Options // zero: analysis.DefaultAlpha and DefaultConfidence
	ArticlesDir string           // served under /article/; "" serves none
	Log         io.Writer        // pprof's and the server's messages; nil discards
	// Addr is the address the server listens on (host:port). Requests
	// are answered only when their Host is that address or a loopback
	// name or IP (localhost, 127.0.0.1, [::1]) with its port; "" accepts
	// the loopback names with any port.
	Addr string
	// ArtifactDir is the directory the runs' artifacts were written to
	// (run's --out): an artifact whose file, with symbolic links
	// resolved, lies outside it is not served. "" serves none.
	ArtifactDir string
}

// Server is the web UI. It is safe for concurrent use.
type Server struct {
	opt     Options
	mux     *http.ServeMux
	handler http.Handler

	mu    sync.Mutex
	pprof map[string]http.Handler // by "run/artifact"
}

// New returns the web UI over opt.DB.
func New(opt Options) *Server {
	if opt.Stats.Alpha == 0 {
		opt.Stats.Alpha = analysis.DefaultAlpha
	}
	if opt.Stats.Confidence == 0 {
		opt.Stats.Confidence = analysis.DefaultConfidence
	}
	if opt.Log == nil {
		opt.Log = io.Discard
	}
	s := &Server{opt: opt, mux: http.NewServeMux(), pprof: map[string]http.Handler{}}
	s.mux.HandleFunc("GET /{$}", s.runsPage)
	s.mux.HandleFunc("GET /run/{id}", s.runPage)
	s.mux.HandleFunc("GET /run/{id}/report.md", s.runMarkdown)
	s.mux.HandleFunc("GET /run/{id}/artifact/{i}", s.artifact)
	s.mux.HandleFunc("/run/{id}/profile/{i}/", s.profile)
	s.mux.HandleFunc("GET /run/{id}/profile/{i}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Path+"/flamegraph", http.StatusFound)
	})
	s.mux.HandleFunc("GET /compare", s.comparePage)
	s.mux.HandleFunc("GET /history", s.historyPage)
	s.mux.HandleFunc("GET /article/{name}", s.article)
	// pprof's UI saves and deletes settings with POSTs; refuse those from
	// other sites' pages.
	s.handler = new(http.CrossOriginProtection).Handler(s.mux)
	return s
}

// ServeHTTP serves the UI.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if !s.hostAllowed(r.Host) {
		http.Error(w, fmt.Sprintf("perflab serve answers requests for %s only, not for Host %q (a defence against DNS rebinding); open the URL perflab serve printed", s.hostsWord(), r.Host), http.StatusMisdirectedRequest)
		return
	}
	s.handler.ServeHTTP(w, r)
}

// hostAllowed reports whether a request's Host header names this server:
// the address it was bound to, or a loopback name or IP, with its port.
func (s *Server) hostAllowed(hostport string) bool {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return false // a browser always sends the port of a non-default one
	}
	boundHost, boundPort, _ := net.SplitHostPort(s.opt.Addr)
	if s.opt.Addr != "" && port != boundPort {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return true
	}
	if boundHost == "" {
		return false
	}
	if bip := net.ParseIP(boundHost); bip != nil && bip.IsUnspecified() {
		// Every interface: an IP literal of this machine is not a
		// name another site can rebind.
		return net.ParseIP(host) != nil
	}
	return strings.EqualFold(host, boundHost)
}

// hostsWord says which Hosts are answered, for the refusal.
func (s *Server) hostsWord() string {
	_, port, err := net.SplitHostPort(s.opt.Addr)
	if err != nil || port == "" {
		port = "PORT"
	}
	names := []string{"localhost:" + port, "127.0.0.1:" + port, "[::1]:" + port}
	if h, _, _ := net.SplitHostPort(s.opt.Addr); h != "" && !slices.Contains(names, net.JoinHostPort(h, port)) {
		names = append(names, net.JoinHostPort(h, port))
	}
	return strings.Join(names, ", ")
}

// httpError is an error with the status to answer.
type httpError struct {
	code int
	msg  string
}

func (e *httpError) Error() string { return e.msg }

func (s *Server) fail(w http.ResponseWriter, err error) {
	code := http.StatusInternalServerError
	var he *httpError
	switch {
	case errors.As(err, &he):
		code = he.code
	case errors.Is(err, store.ErrNotFound), errors.Is(err, findings.ErrNoData):
		code = http.StatusNotFound
	}
	if code == http.StatusInternalServerError {
		fmt.Fprintf(s.opt.Log, "perflab serve: %v\n", err)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	errorTmpl.Execute(w, struct {
		Code int
		Msg  string
	}{code, err.Error()})
}

// runID resolves the run reference of the request's path: an ID, latest
// or latest~N, as every command accepts.
func (s *Server) runID(r *http.Request) (int64, error) {
	ref := r.PathValue("id")
	if _, _, err := store.ParseRunRef(ref); err != nil {
		return 0, &httpError{http.StatusBadRequest, fmt.Sprintf("%q is not a run ID: want %s", ref, store.RunRefHelp)}
	}
	return s.opt.DB.ResolveRun(r.Context(), ref)
}

// load computes a run's findings at the server's α, as "perflab report
// --alpha" does: the run page and the CLI report render the same value.
func (s *Server) load(ctx context.Context, id int64) (*findings.Run, error) {
	return findings.Load(ctx, s.opt.DB, id, s.opt.Stats)
}

// ---- runs list ----

func (s *Server) runsPage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	runs, err := s.opt.DB.Runs(ctx)
	if err != nil {
		s.fail(w, err)
		return
	}
	l := report.RunList{DB: s.opt.DB.Path()}
	for i, run := range runs {
		done, err := s.opt.DB.RoundsDone(ctx, run.ID)
		if err != nil {
			// One run's damage leaves the others listed.
			fmt.Fprintf(s.opt.Log, "perflab serve: warning: run %d: %v; listed without its rounds\n", run.ID, err)
		}
		state := run.State() // a run whose process died reads as interrupted
		e := report.RunEntry{
			ID: run.ID, Experiment: run.Experiment, Mode: run.Mode,
			State: state, ProcessGone: state != run.Status, Owner: run.Owner.String(),
			Rounds: len(done), RoundsPlanned: run.RoundsPlanned, Started: run.StartedAt,
			Verdicts: map[string]int{},
		}
		vs, err := s.opt.DB.Verdicts(ctx, run.ID)
		if err != nil {
			fmt.Fprintf(s.opt.Log, "perflab serve: warning: run %d: %v; listed without its verdicts\n", run.ID, err)
		}
		for _, v := range vs {
			e.Verdicts[v.Verdict]++
		}
		for _, older := range runs[i+1:] { // runs are newest first
			if older.Experiment == run.Experiment {
				e.Prev = older.ID
				break
			}
		}
		l.Runs = append(l.Runs, e)
	}
	var list bytes.Buffer
	if err := report.RunsHTML(&list, l); err != nil {
		s.fail(w, err)
		return
	}
	s.render(w, runsTmpl, struct {
		Title string
		List  template.HTML
	}{"perflab runs", template.HTML(list.String())})
}

// ---- a run ----

func (s *Server) runPage(w http.ResponseWriter, r *http.Request) {
	id, err := s.runID(r)
	if err != nil {
		s.fail(w, err)
		return
	}
	in, err := s.load(r.Context(), id)
	if err != nil {
		s.fail(w, err)
		return
	}
	nav := []report.Link{{Text: "← runs", Href: "/"}, {Text: "Markdown", Href: fmt.Sprintf("/run/%d/report.md", id)}}
	if prev := s.previousRun(r.Context(), in.Run); prev > 0 {
		nav = append(nav, report.Link{Text: fmt.Sprintf("compare with run %d", prev), Href: fmt.Sprintf("/compare?old=%d&new=%d", prev, id)})
	}
	nav = append(nav, report.Link{Text: "history", Href: "/history"})
	var buf bytes.Buffer
	err = report.HTML(&buf, in, report.HTMLOptions{
		Nav:         nav,
		ArticleHref: func(name string) string { return "/article/" + url.PathEscape(filepath.Base(name)) },
		ArtifactLinks: func(i int, a store.Artifact) []report.Link {
			links := []report.Link{{Text: "download", Href: fmt.Sprintf("/run/%d/artifact/%d", id, i)}}
			if pprofKinds[a.Kind] {
				links = append([]report.Link{
					{Text: "flame graph", Href: fmt.Sprintf("/run/%d/profile/%d/flamegraph", id, i)},
					{Text: "top", Href: fmt.Sprintf("/run/%d/profile/%d/top", id, i)},
				}, links...)
			}
			return links
		},
	})
	if err != nil {
		s.fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(buf.Bytes())
}

// previousRun returns the latest run of the same experiment before run, or 0.
func (s *Server) previousRun(ctx context.Context, run *store.Run) int64 {
	runs, err := s.opt.DB.Runs(ctx)
	if err != nil {
		return 0
	}
	var best int64
	for _, r := range runs {
		if r.Experiment == run.Experiment && r.ID < run.ID && r.ID > best {
			best = r.ID
		}
	}
	return best
}

func (s *Server) runMarkdown(w http.ResponseWriter, r *http.Request) {
	id, err := s.runID(r)
	if err != nil {
		s.fail(w, err)
		return
	}
	in, err := s.load(r.Context(), id)
	if err != nil {
		s.fail(w, err)
		return
	}
	var buf bytes.Buffer
	if err := report.Markdown(&buf, in); err != nil {
		s.fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
	w.Write(buf.Bytes())
}

// artifactOf returns artifact i of the run in the request; only files the
// database records are ever served.
func (s *Server) artifactOf(r *http.Request) (int64, int, store.Artifact, error) {
	id, err := s.runID(r)
	if err != nil {
		return 0, 0, store.Artifact{}, err
	}
	arts, err := s.opt.DB.Artifacts(r.Context(), id)
	if err != nil {
		return 0, 0, store.Artifact{}, err
	}
	i, err := strconv.Atoi(r.PathValue("i"))
	if err != nil || i < 0 || i >= len(arts) {
		return 0, 0, store.Artifact{}, &httpError{http.StatusNotFound, fmt.Sprintf("run %d has no artifact %q (it has %d)", id, r.PathValue("i"), len(arts))}
	}
	a := arts[i]
	path, err := s.underArtifactDir(a.Path)
	if errors.Is(err, errGone) {
		return 0, 0, store.Artifact{}, &httpError{http.StatusNotFound, fmt.Sprintf("the %s artifact is gone from %s", a.Kind, a.Path)}
	}
	if err != nil {
		fmt.Fprintf(s.opt.Log, "perflab serve: warning: run %d's artifact %d is not served: %v\n", id, i, err)
		return 0, 0, store.Artifact{}, &httpError{http.StatusNotFound, fmt.Sprintf("run %d's artifact %d is not served: it lies outside the artifact directory; start perflab serve with --out set to the directory the run stored its files in", id, i)}
	}
	a.Path = path
	return id, i, a, nil
}

// errGone marks an artifact whose file is no longer there.
var errGone = errors.New("gone")

// underArtifactDir returns path with its symbolic links resolved when it
// lies under the artifact directory, and an error saying why not
// otherwise (wrapping errGone when the file under it is missing). A path
// outside the directory is refused before its file is looked at.
func (s *Server) underArtifactDir(path string) (string, error) {
	if s.opt.ArtifactDir == "" {
		return "", errors.New("no artifact directory is set")
	}
	root, err := filepath.Abs(s.opt.ArtifactDir)
	if err != nil {
		return "", err
	}
	roots := []string{root}
	if r, err := filepath.EvalSymlinks(root); err == nil && r != root {
		roots = append(roots, r)
	}
	if !filepath.IsAbs(path) || !slices.ContainsFunc(roots, func(r string) bool { return within(r, path) }) {
		return "", fmt.Errorf("its path %q lies outside the artifact directory %s", path, root)
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", fmt.Errorf("its file %s: %w", path, errGone)
	}
	if !slices.ContainsFunc(roots, func(r string) bool { return within(r, real) }) {
		return "", fmt.Errorf("its file %s is a link to %s, outside the artifact directory %s", path, real, root)
	}
	return real, nil
}

// within reports whether path, cleaned, lies under dir.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, filepath.Clean(path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func (s *Server) artifact(w http.ResponseWriter, r *http.Request) {
	_, _, a, err := s.artifactOf(r)
	if err != nil {
		s.fail(w, err)
		return
	}
	f, err := os.Open(a.Path)
	if err != nil {
		s.fail(w, &httpError{http.StatusNotFound, fmt.Sprintf("the %s artifact is gone from %s: %v", a.Kind, a.Path, err)})
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		s.fail(w, err)
		return
	}
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", a.Config+"-"+filepath.Base(a.Path)))
	w.Header().Set("Content-Type", "application/octet-stream")
	http.ServeContent(w, r, filepath.Base(a.Path), st.ModTime(), f)
}

func (s *Server) profile(w http.ResponseWriter, r *http.Request) {
	id, i, a, err := s.artifactOf(r)
	if err != nil {
		s.fail(w, err)
		return
	}
	if !pprofKinds[a.Kind] {
		s.fail(w, &httpError{http.StatusNotFound, fmt.Sprintf("a %s artifact is not a pprof profile; download it (for a trace: go tool trace FILE)", a.Kind)})
		return
	}
	key := fmt.Sprintf("%d/%d", id, i)
	s.mu.Lock()
	h := s.pprof[key]
	s.mu.Unlock()
	if h == nil {
		if h, err = pprofUI(a.Path, s.opt.Log); err != nil {
			s.fail(w, err)
			return
		}
		s.mu.Lock()
		s.pprof[key] = h
		s.mu.Unlock()
	}
	http.StripPrefix(fmt.Sprintf("/run/%d/profile/%d", id, i), h).ServeHTTP(w, r)
}

func (s *Server) article(w http.ResponseWriter, r *http.Request) {
	name := filepath.Base(r.PathValue("name"))
	if s.opt.ArticlesDir == "" || name == "." || name == ".." || strings.HasPrefix(name, ".") {
		s.fail(w, &httpError{http.StatusNotFound, fmt.Sprintf("article %q is not available: start perflab serve with --articles DIR", name)})
		return
	}
	data, err := os.ReadFile(filepath.Join(s.opt.ArticlesDir, name))
	if err != nil {
		s.fail(w, &httpError{http.StatusNotFound, fmt.Sprintf("article %q is not in %s", name, s.opt.ArticlesDir)})
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write(data)
}

// ---- compare ----

func (s *Server) comparePage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	runs, err := s.opt.DB.Runs(ctx)
	if err != nil {
		s.fail(w, err)
		return
	}
	page := struct {
		Title          string
		Runs           []store.Run
		Old, New       int64
		FailOn         string
		OldRun, NewRun *store.Run
		Result         template.HTML
		ThresholdErr   string
		RefErrs        []string
	}{Title: "compare runs", Runs: runs, FailOn: q.Get("fail_on")}
	parse := func(k string) int64 {
		ref := q.Get(k)
		if ref == "" {
			return 0
		}
		v, err := s.opt.DB.ResolveRun(ctx, ref) // an ID, latest or latest~N
		if err == nil {
			_, err = s.opt.DB.GetRun(ctx, v)
		}
		if err != nil {
			page.RefErrs = append(page.RefErrs, fmt.Sprintf("%s run: %v", k, err))
			return 0
		}
		return v
	}
	page.Old, page.New = parse("old"), parse("new")
	if len(page.RefErrs) > 0 {
		s.renderStatus(w, http.StatusNotFound, compareTmpl, page)
		return
	}
	if page.New == 0 && len(runs) > 0 {
		page.New = runs[0].ID
	}
	if page.Old == 0 && page.New != 0 {
		for _, run := range runs {
			if run.ID == page.New {
				page.Old = s.previousRun(ctx, &run)
			}
		}
	}
	if page.Old == 0 || page.New == 0 {
		s.render(w, compareTmpl, page)
		return
	}
	oldSet, err := findings.ReadSet(ctx, s.opt.DB, page.Old)
	if err != nil {
		s.fail(w, err)
		return
	}
	newSet, err := findings.ReadSet(ctx, s.opt.DB, page.New)
	if err != nil {
		s.fail(w, err)
		return
	}
	page.OldRun, page.NewRun = oldSet.Run, newSet.Run
	res := findings.Compare(oldSet, newSet, findings.CompareOptions{Alpha: s.opt.Stats.Alpha, Confidence: s.opt.Stats.Confidence})
	var gate *compare.Gate
	if page.FailOn != "" {
		ths, err := compare.ParseThresholds(page.FailOn)
		if err != nil {
			page.ThresholdErr = err.Error()
		} else {
			g := compare.Check(res.Gate(), res.Alpha, ths)
			gate = &g
		}
	}
	page.Result = report.CompareHTML(res, gate)
	s.render(w, compareTmpl, page)
}

// ---- history ----

func (s *Server) historyPage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	page := struct {
		Title, Bench, Unit, Config string
		Names                      []string
		Result                     template.HTML
		Err                        string
	}{Title: "history", Bench: q.Get("bench"), Unit: cmp.Or(q.Get("unit"), "sec/op"), Config: q.Get("config")}
	page.Names = s.benchmarkNames(ctx)
	if page.Bench == "" {
		s.render(w, historyTmpl, page)
		return
	}
	h, err := findings.LoadHistory(ctx, s.opt.DB, page.Bench, findings.HistoryOptions{Unit: page.Unit, Config: page.Config, Stats: s.opt.Stats})
	if err != nil {
		page.Err = err.Error()
		s.renderStatus(w, http.StatusNotFound, historyTmpl, page)
		return
	}
	page.Config = h.Config
	page.Result = report.HistoryHTML(h, func(id int64) string { return fmt.Sprintf("/run/%d", id) })
	s.render(w, historyTmpl, page)
}

// benchmarkNames lists the benchmark names of the latest runs, for the
// history form.
func (s *Server) benchmarkNames(ctx context.Context) []string {
	runs, err := s.opt.DB.Runs(ctx)
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	for i, run := range runs {
		if i == 5 {
			break
		}
		rs, err := s.opt.DB.Results(ctx, run.ID)
		if err != nil {
			continue
		}
		for _, r := range rs {
			seen["Benchmark"+string(r.Name.Full())] = true
		}
	}
	var out []string
	for n := range seen {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

func (s *Server) render(w http.ResponseWriter, t *template.Template, data any) {
	s.renderStatus(w, http.StatusOK, t, data)
}

func (s *Server) renderStatus(w http.ResponseWriter, code int, t *template.Template, data any) {
	var buf bytes.Buffer
	if err := t.Execute(&buf, data); err != nil {
		s.fail(w, fmt.Errorf("rendering %s: %w", t.Name(), err))
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	w.Write(buf.Bytes())
}
