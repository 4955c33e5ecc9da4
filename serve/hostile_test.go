package serve

import (
	"context"
	"database/sql"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perflab/perflab/internal/testrun"
	"github.com/perflab/perflab/store"
)

// TestHostHeader: only requests addressed to the bound address or a
// loopback name with its port are answered; another site's name (DNS
// rebinding) gets 421 before any page is read.
func TestHostHeader(t *testing.T) {
	srv, _ := fixture(t)
	_, port, _ := strings.Cut(strings.TrimPrefix(srv.URL, "http://"), ":")
	for _, tc := range []struct {
		host string
		code int
	}{
		{"127.0.0.1:" + port, 200},
		{"localhost:" + port, 200},
		{"LOCALHOST:" + port, 200},
		{"[::1]:" + port, 200},
		{"127.0.0.2:" + port, 200}, // all of 127/8 is loopback
		{"attacker.example", 421},
		{"attacker.example:" + port, 421},
		{"localhost.attacker.example:" + port, 421},
		{"127.0.0.1.nip.io:" + port, 421},
		{"localhost:1", 421}, // another port: another server's name
		{"127.0.0.1", 421},   // no port: port 80
		{"10.0.0.1:" + port, 421},
		{"[::1]", 421},
		{"localhost:" + port + ":9", 421},
	} {
		req, err := http.NewRequest("GET", srv.URL+"/run/1/report.md", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = tc.host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("Host %q: %v", tc.host, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.code {
			t.Errorf("Host %q: %d, want %d", tc.host, resp.StatusCode, tc.code)
		}
		if tc.code == 421 && (strings.Contains(string(body), "poolmini") || !strings.Contains(string(body), "DNS rebinding")) {
			t.Errorf("Host %q: the refusal shows a page or does not say why:\n%s", tc.host, body)
		}
	}
}

// TestHostAllowed covers the bind addresses the CLI passes.
func TestHostAllowed(t *testing.T) {
	for _, tc := range []struct {
		addr, host string
		want       bool
	}{
		{"127.0.0.1:8080", "127.0.0.1:8080", true},
		{"127.0.0.1:8080", "localhost:8080", true},
		{"127.0.0.1:8080", "192.168.1.5:8080", false},
		{"127.0.0.1:8080", "evil.example:8080", false},
		{"localhost:8080", "localhost:8080", true},
		{"box.lan:8080", "box.lan:8080", true},
		{"box.lan:8080", "BOX.lan:8080", true},
		{"box.lan:8080", "evil.example:8080", false},
		{"0.0.0.0:8080", "192.168.1.5:8080", true}, // every interface: IP literals cannot be rebound
		{"[::]:8080", "[fe80::1]:8080", true},
		{"0.0.0.0:8080", "evil.example:8080", false},
		{"0.0.0.0:8080", "192.168.1.5:9090", false},
		{"192.168.1.5:8080", "192.168.1.5:8080", true},
		{"192.168.1.5:8080", "192.168.1.6:8080", false},
		{"", "localhost:1234", true},
		{"", "evil.example:1234", false},
		{"127.0.0.1:8080", "", false},
		{"", "", false},
	} {
		s := New(Options{Addr: tc.addr})
		if got := s.hostAllowed(tc.host); got != tc.want {
			t.Errorf("bound %q, Host %q: %v, want %v", tc.addr, tc.host, got, tc.want)
		}
	}
}

// TestArtifactsOnlyFromArtifactDir: a row naming a file outside the
// artifact directory — directly, through "..", relative, or through a
// symbolic link inside it — is a 404 with a logged warning, and the
// file's content is never sent.
func TestArtifactsOnlyFromArtifactDir(t *testing.T) {
	srv, db := fixture(t)
	ctx := context.Background()
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(secret, []byte("SECRET-CONTENT"), 0o644); err != nil {
		t.Fatal(err)
	}
	arts, err := db.Artifacts(ctx, 1)
	if err != nil || len(arts) == 0 {
		t.Fatalf("fixture artifacts: %v, %v", arts, err)
	}
	inside := filepath.Dir(arts[0].Path)
	link := filepath.Join(inside, "link.txt")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, path string }{
		{"absolute outside", secret},
		{"system file", "/etc/hostname"},
		{"dot-dot", inside + string(filepath.Separator) + mustRel(t, inside, secret)},
		{"relative", "secret.txt"},
		{"link inside to outside", link},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(logBuf.String())
			id, err := testrun.Store(ctx, db, testrun.Options{Seed: 5, StartedAt: time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)})
			if err != nil {
				t.Fatal(err)
			}
			if err := db.AddArtifact(ctx, id, store.Artifact{Config: "default", Kind: "log", Path: tc.path, Bytes: 14}); err != nil {
				t.Fatal(err)
			}
			n, _ := db.Artifacts(ctx, id)
			for _, sub := range []string{"artifact", "profile"} {
				code, body, _ := get(t, srv, "/run/"+itoa(id)+"/"+sub+"/"+itoa(int64(len(n)-1)))
				if code != 404 || strings.Contains(body, "SECRET") {
					t.Errorf("%s: %d\n%.300s", sub, code, body)
				}
			}
			if log := logBuf.String()[before:]; !strings.Contains(log, "warning") || !strings.Contains(log, "outside the artifact directory") {
				t.Errorf("no warning logged: %q", log)
			}
		})
	}
	// A file inside the directory is still served.
	if code, body, _ := get(t, srv, "/run/1/artifact/0"); code != 200 || len(body) == 0 {
		t.Errorf("the artifact inside the directory: %d", code)
	}
}

// TestDamagedRunListed: a run whose stored time is damaged is left out of
// the runs page, with a warning; the others are listed.
func TestDamagedRunListed(t *testing.T) {
	srv, db := fixture(t)
	damage(t, db, 2)
	code, body, _ := get(t, srv, "/")
	if code != 200 || !strings.Contains(body, `href="/run/3"`) || !strings.Contains(body, `href="/run/1"`) || strings.Contains(body, `href="/run/2"`) {
		t.Errorf("runs page with run 2 damaged: %d\n%.2000s", code, body)
	}
	if !strings.Contains(logBuf.String(), "run 2:") {
		t.Errorf("no warning names run 2: %q", logBuf.String())
	}
	if code, body, _ := get(t, srv, "/history?bench=BenchmarkPool/mode=serial/size=64/variant=plain/reuse=25"); code != 200 {
		t.Errorf("history with a damaged run: %d\n%.500s", code, body)
	}
}

// damage overwrites a run's stored start time with text that is no time,
// through the SQLite file itself.
func damage(t *testing.T, db *store.DB, id int64) {
	t.Helper()
	raw, err := sql.Open("sqlite", db.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`UPDATE runs SET started_at = 'not a time' WHERE id = ?`, id); err != nil {
		t.Fatal(err)
	}
}

func mustRel(t *testing.T, from, to string) string {
	rel, err := filepath.Rel(from, to)
	if err != nil || !strings.HasPrefix(rel, "..") {
		t.Fatalf("Rel(%s, %s) = %s, %v", from, to, rel, err)
	}
	return rel
}

func itoa(i int64) string { return strconv.FormatInt(i, 10) }

// FuzzRequest sends hostile requests — any method, Host, path and query,
// long URLs — and checks that the server never fails (no 5xx), answers
// only its own Host, and never sends the content of a file outside its
// artifact directory, whatever a row names.
func FuzzRequest(f *testing.F) {
	for _, s := range [][3]string{
		{"GET", "", "/"},
		{"GET", "", "/run/1/artifact/0"},
		{"GET", "", "/run/2/artifact/0"},
		{"GET", "", "/run/latest~1/profile/0/top"},
		{"GET", "", "/run/../../etc/passwd"},
		{"GET", "", "/run/1/artifact/%2e%2e"},
		{"GET", "", "/article/..%2f..%2fsecret.txt"},
		{"GET", "", "/article/..\\secret.txt"},
		{"GET", "", "/compare?old=latest~99999999999999999999&new=-1"},
		{"GET", "", "/history?bench=" + strings.Repeat("A", 5000)},
		{"POST", "", "/run/1/profile/0/saveconfig"},
		{"DELETE", "", "/"},
		{"GET", "attacker.example", "/run/1/report.md"},
		{"GET", "127.0.0.1:1", "/"},
		{"GET", "localhost", "/"},
		{"OPTIONS", "[::1]:0", "*"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	dir := f.TempDir()
	db, err := store.Open(filepath.Join(dir, "s.db"))
	if err != nil {
		f.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	art := filepath.Join(dir, "runs")
	if _, err := testrun.Store(ctx, db, testrun.Options{Seed: 1, ArtifactDir: filepath.Join(art, "run-1")}); err != nil {
		f.Fatal(err)
	}
	secret := filepath.Join(dir, "secret.txt")
	if err := os.WriteFile(secret, []byte("SECRET-CONTENT"), 0o644); err != nil {
		f.Fatal(err)
	}
	id, err := testrun.Store(ctx, db, testrun.Options{Seed: 2})
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range []string{secret, "/etc/passwd", filepath.Join(art, "..", "secret.txt")} {
		if err := db.AddArtifact(ctx, id, store.Artifact{Config: "default", Kind: "cpu", Path: p, Bytes: 1}); err != nil {
			f.Fatal(err)
		}
	}
	const addr = "127.0.0.1:8080"
	articles := filepath.Join(dir, "articles")
	if err := os.Mkdir(articles, 0o755); err != nil {
		f.Fatal(err)
	}
	s := New(Options{DB: db, ArtifactDir: art, ArticlesDir: articles, Addr: addr})
	f.Fuzz(func(t *testing.T, method, host, target string) {
		req, err := http.NewRequest(method, "http://"+addr+"/", nil)
		if err != nil {
			return // not a method net/http would send
		}
		req.Host = host
		if host == "" {
			req.Host = addr
		}
		req.RequestURI = target
		u, err := req.URL.Parse(target)
		if err != nil {
			return // the server would refuse it before any handler
		}
		req.URL = u
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		body := w.Body.String()
		// pprof's graph view answers 501 where Graphviz is missing (as
		// "perflab help serve" says); any other 5xx is a failure.
		graphless := w.Code == http.StatusNotImplemented && strings.Contains(body, "graphviz")
		if w.Code >= 500 && !graphless {
			t.Errorf("%s %q Host %q: %d\n%.300s", method, target, req.Host, w.Code, body)
		}
		if strings.Contains(body, "SECRET-CONTENT") || strings.Contains(body, "root:x:0:0") {
			t.Errorf("%s %q Host %q sent a file outside the artifact directory", method, target, req.Host)
		}
		if w.Code != http.StatusMisdirectedRequest && !s.hostAllowed(req.Host) {
			t.Errorf("%s %q Host %q: answered %d for a Host it does not serve", method, target, req.Host, w.Code)
		}
	})
}
