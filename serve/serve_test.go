package serve

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perflab/perflab/internal/testrun"
	"github.com/perflab/perflab/store"
)

// fixture serves a database with three synthetic runs: 1, an A/A twin 2
// (other noise), and 3 with a planted 20% slow-down.
func fixture(t *testing.T) (*httptest.Server, *store.DB) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	db, err := store.Open(filepath.Join(dir, "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	start := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	for i, opt := range []testrun.Options{
		{Seed: 1, ArtifactDir: filepath.Join(dir, "run-1")},
		{Seed: 2},
		{Seed: 3, Scale: 1.2},
	} {
		opt.StartedAt = start.Add(time.Duration(i) * time.Hour)
		if _, err := testrun.Store(ctx, db, opt); err != nil {
			t.Fatal(err)
		}
	}
	articles := filepath.Join(dir, "articles")
	if err := os.MkdirAll(articles, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(articles, "C-syncpool-reuse-rate.txt"), []byte("the article"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The UI reads through a read-only handle of its own, as perflab
	// serve does; the tests write through db.
	ro, err := store.OpenReadOnly(filepath.Join(dir, "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ro.Close() })
	ro.SetWarnings(&logBuf)
	srv := httptest.NewUnstartedServer(nil)
	srv.Config.Handler = New(Options{DB: ro, ArticlesDir: articles, ArtifactDir: dir, Addr: srv.Listener.Addr().String(), Log: &logBuf})
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, db
}

// logBuf collects the fixture servers' log, for tests of warnings.
var logBuf syncBuffer

// syncBuffer is a strings.Builder safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func get(t *testing.T, srv *httptest.Server, path string) (int, string, http.Header) {
	t.Helper()
	resp, err := http.Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body), resp.Header
}

func TestPages(t *testing.T) {
	srv, _ := fixture(t)
	for _, tc := range []struct {
		path string
		code int
		want []string
	}{
		{"/", 200, []string{`href="/run/3"`, `href="/run/1"`, "poolmini", "compare with run 2", "1 reproduced", "1 contradicted"}},
		{"/run/1", 200, []string{`<svg class="chart"`, `data-series="syncpool"`, `class="marker crossover"`, `class="marker knee"`,
			`href="/article/C-syncpool-reuse-rate.txt"`, `href="/run/1/profile/0/flamegraph"`, `href="/run/1/artifact/0"`, `<nav>`}},
		{"/run/3", 200, []string{"compare with run 2", `href="/compare?old=2&amp;new=3"`}},
		{"/run/1/report.md", 200, []string{"# poolmini", "## Claims"}},
		{"/run/99", 404, []string{"run 99"}},
		{"/run/abc", 400, []string{"not a run ID"}},
		{"/run/latest", 200, []string{`href="/run/3/report.md"`}},
		{"/run/latest~2/report.md", 200, []string{"# poolmini"}},
		{"/run/latest~9", 404, []string{"holds only 3 runs"}},
		{"/compare?old=latest~9&new=latest", 404, []string{"old run: &#34;latest~9&#34;", "holds only 3 runs"}},
		{"/compare?old=77&new=latest", 404, []string{"old run: run 77 not found"}},
		{"/run/1/artifact/7", 404, []string{"no artifact"}},
		{"/run/1/profile/0/flamegraph", 200, []string{"pprof"}},
		{"/run/1/profile/0/top", 200, []string{"pprof"}},
		{"/run/1/profile/0/nonesuch", 404, nil},
		{"/article/C-syncpool-reuse-rate.txt", 200, []string{"the article"}},
		{"/article/..%2Fs.db", 404, nil},
		{"/article/.hidden", 404, nil},
		{"/compare", 200, []string{"run 2", "run 3", "sec/op — geomean"}},
		{"/history", 200, []string{`<datalist id="names">`, "BenchmarkPool/mode=serial/size=64/variant=plain/reuse=25"}},
		{"/history?bench=BenchmarkNope", 404, []string{"no stored run"}},
		{"/nope", 404, nil},
	} {
		code, body, _ := get(t, srv, tc.path)
		if code != tc.code {
			t.Errorf("GET %s: %d, want %d\n%.300s", tc.path, code, tc.code, body)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(body, w) {
				t.Errorf("GET %s lacks %q", tc.path, w)
			}
		}
		if strings.Contains(body, "<script") && !strings.Contains(tc.path, "/profile/") {
			t.Errorf("GET %s has a script; perflab's pages have none", tc.path)
		}
	}
	code, body, hdr := get(t, srv, "/run/1/artifact/0")
	if code != 200 || len(body) == 0 || !strings.Contains(hdr.Get("Content-Disposition"), "heap.pprof") {
		t.Errorf("artifact download: %d, %d bytes, %q", code, len(body), hdr.Get("Content-Disposition"))
	}
}

// TestCompareGate: the A/A pair passes a 5% gate, the planted 20%
// slow-down fails it, on the page as in the CLI.
func TestCompareGate(t *testing.T) {
	srv, _ := fixture(t)
	_, aa, _ := get(t, srv, "/compare?old=1&new=2&fail_on=sec/op%3E%2B5%25")
	if !strings.Contains(aa, "Gate passed") {
		t.Errorf("A/A comparison does not pass the gate:\n%s", aa)
	}
	_, reg, _ := get(t, srv, "/compare?old=1&new=3&fail_on=sec/op%3E%2B5%25")
	if !strings.Contains(reg, "Gate failed") || !strings.Contains(reg, `<tr class="worse">`) || !strings.Contains(reg, "FAIL sec/op&gt;5%") {
		t.Errorf("planted 20%% regression does not fail the gate:\n%s", reg)
	}
	_, bad, _ := get(t, srv, "/compare?old=1&new=3&fail_on=sec/op%3E5")
	if !strings.Contains(bad, "end in &#39;%&#39;") {
		t.Errorf("a bad rule is not explained:\n%.2000s", bad)
	}
}

func TestHistoryPage(t *testing.T) {
	srv, db := fixture(t)
	ctx := context.Background()
	// Three runs before the fixture's (at 1.0) and six after it with a
	// planted 50% slow-down: the change lies between run 3 (the last of
	// the fixture) and run 7 (the first slow one).
	for i, scale := range []float64{1, 1, 1, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5} {
		day := 1
		if scale > 1 {
			day = 2
		}
		if _, err := testrun.Store(ctx, db, testrun.Options{Seed: uint64(10 + i), Scale: scale, StartedAt: time.Date(2026, 3, day, i, 0, 0, 0, time.UTC)}); err != nil {
			t.Fatal(err)
		}
	}
	code, body, _ := get(t, srv, "/history?bench=BenchmarkPool/mode=serial/size=64/variant=plain/reuse=25")
	if code != 200 {
		t.Fatalf("history: %d\n%s", code, body)
	}
	for _, w := range []string{`<svg class="chart" id="history"`, `class="marker change"`, "between run 3 and run 7", `<tr class="change">`,
		`<select name="bench">`, `selected>BenchmarkPool/mode=serial/size=64/variant=plain/reuse=25</option>`} {
		if !strings.Contains(body, w) {
			t.Errorf("history page lacks %q", w)
		}
	}
	// Human units in the table, the tooltips and the axis, never 1.742e-06.
	if m := regexp.MustCompile(`\d\.\d+e-\d\d`).FindString(body); m != "" {
		t.Errorf("history page prints %s; want human units", m)
	}
	if !regexp.MustCompile(`<td class="num">[0-9.]+[nµm]?s</td>`).MatchString(body) {
		t.Errorf("history table lacks medians in human units (e.g. 1.742µs)")
	}
	// The confidence band stays inside the plot frame.
	frame := regexp.MustCompile(`<rect class="frame" x="(\d+)" y="(\d+)" width="(\d+)" height="(\d+)"`).FindStringSubmatch(body)
	band := regexp.MustCompile(`class="band"[^>]* d="([^"]+)"`).FindStringSubmatch(body)
	if frame == nil || band == nil {
		t.Fatalf("no plot frame or band in the history chart")
	}
	top, _ := strconv.ParseFloat(frame[2], 64)
	height, _ := strconv.ParseFloat(frame[4], 64)
	for _, pt := range regexp.MustCompile(`[\d.]+,([\d.-]+)`).FindAllStringSubmatch(band[1], -1) {
		y, _ := strconv.ParseFloat(pt[1], 64)
		if y < top-0.05 || y > top+height+0.05 {
			t.Errorf("band point y=%g lies outside the plot [%g, %g]", y, top, top+height)
			break
		}
	}
}

// TestCrossSitePostRefused: a page on another site cannot make the UI
// change state (pprof's settings are saved with POSTs).
func TestCrossSitePostRefused(t *testing.T) {
	srv, _ := fixture(t)
	req, err := http.NewRequest("POST", srv.URL+"/run/1/profile/0/saveconfig", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("cross-site POST answered %d, want 403", resp.StatusCode)
	}
}
