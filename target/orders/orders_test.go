package orders

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// testDB seeds a small database once for the package's tests.
var testDB = sync.OnceValues(func() (string, error) {
	seedCount = 300
	dir, err := os.MkdirTemp("", "orders-test-")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "orders.sqlite")
	return path, EnsureDB(context.Background(), path)
})

func TestMain(m *testing.M) {
	code := m.Run()
	if p, err := testDB(); err == nil {
		os.RemoveAll(filepath.Dir(p))
	}
	os.Exit(code)
}

func TestCodecsAgree(t *testing.T) {
	for _, c := range Codecs {
		t.Run(c.Name, func(t *testing.T) {
			if err := CheckCodec(c); err != nil {
				t.Fatal(err)
			}
		})
	}
	bad := Codec{Name: "bad", Marshal: func(o *Order) ([]byte, error) { return []byte(`{"id":1}`), nil }}
	if err := CheckCodec(bad); err == nil {
		t.Fatal("a codec dropping fields passed the check")
	}
	if _, err := CodecByName("simdjson"); err == nil {
		t.Fatal("unknown codec accepted")
	}
}

func TestSameJSON(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		same bool
	}{
		{`{"a":1,"b":[1,2]}`, `{"b":[1,2],"a":1}`, true},
		{`{"a":1.0}`, `{"a":1}`, false}, // numbers compare as written
		{`{"a":"\u003c"}`, `{"a":"<"}`, true},
		{`{"a":1}`, `{"a":2}`, false},
		{`{"a":1} x`, `{"a":1}`, false},
		{`nope`, `{}`, false},
	} {
		if err := SameJSON([]byte(tt.a), []byte(tt.b)); (err == nil) != tt.same {
			t.Errorf("SameJSON(%s, %s) = %v, want same=%v", tt.a, tt.b, err, tt.same)
		}
	}
}

// TestDocumentSize: orders are about 1.2 KB of JSON.
func TestDocumentSize(t *testing.T) {
	var total int
	const n = 500
	for id := int64(1); id <= n; id++ {
		o := genOrder(id)
		b, err := json.Marshal(&o)
		if err != nil {
			t.Fatal(err)
		}
		total += len(b)
	}
	if avg := total / n; avg < 900 || avg > 1500 {
		t.Fatalf("average order is %d bytes of JSON, want about 1200", avg)
	}
	if a, b := genOrder(7), genOrder(7); a.Number != b.Number || len(a.Items) != len(b.Items) || a.Total != b.Total {
		t.Fatal("orders are not deterministic")
	}
}

func TestStoreReadsWhatWasSeeded(t *testing.T) {
	path, err := testDB()
	if err != nil {
		t.Fatal(err)
	}
	for _, sized := range []bool{false, true} {
		s, err := OpenStore(context.Background(), path, sized, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range []int64{1, 42, seedCount} {
			got, err := s.Get(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			want := genOrder(id)
			a, _ := json.Marshal(got)
			b, _ := json.Marshal(&want)
			if string(a) != string(b) {
				t.Fatalf("order %d from the database:\n%s\nwant\n%s", id, a, b)
			}
		}
		if _, err := s.Get(context.Background(), seedCount+1); err != ErrNotFound {
			t.Fatalf("missing order: err %v", err)
		}
		s.Close()
	}
}

func TestProfiles(t *testing.T) {
	names := ProfileNames()
	for _, want := range []string{"baseline", "json", "pool", "clock", "chain", "optimized", "ceiling"} {
		p, err := ProfileByName(want)
		if err != nil {
			t.Fatalf("profile %s: %v (have %v)", want, err, names)
		}
		if _, err := CodecByName(p.Codec); err != nil {
			t.Errorf("profile %s: %v", want, err)
		}
	}
	b, _ := ProfileByName("baseline")
	o, _ := ProfileByName("optimized")
	if b.SizedPool || b.CachedClock || b.LeanChain || b.Codec != "std" {
		t.Errorf("baseline %+v has a change applied", b)
	}
	if !o.SizedPool || !o.CachedClock || !o.LeanChain || o.Codec == "std" {
		t.Errorf("optimized %+v lacks a change", o)
	}
	// Each single-change profile differs from the baseline in one switch.
	for _, name := range []string{"json", "pool", "clock", "chain"} {
		p, _ := ProfileByName(name)
		diff := 0
		for _, d := range []bool{p.Codec != b.Codec, p.SizedPool, p.CachedClock, p.LeanChain, p.Constant} {
			if d {
				diff++
			}
		}
		if diff != 1 {
			t.Errorf("profile %s changes %d things, want 1", name, diff)
		}
	}
	if _, err := ProfileByName("turbo"); err == nil {
		t.Error("unknown profile accepted")
	}
}

func TestCachedClock(t *testing.T) {
	c := newCachedClock()
	defer c.Close()
	d := time.Since(c.Now())
	if d < -time.Millisecond || d > 50*time.Millisecond {
		t.Fatalf("cached clock is %v behind", d)
	}
	if _, err := time.Parse(time.RFC3339, string(c.AppendStamp(nil))); err != nil {
		t.Fatalf("stamp: %v", err)
	}
}

// serve starts the service with profile p on loopback and returns its
// addresses; it stops with the test.
func serve(t *testing.T, p Profile, log io.Writer) (addr, side string) {
	t.Helper()
	path, err := testDB()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan [2]string, 1)
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, Config{Profile: p, DBPath: path, Log: log, Ready: func(a, s net.Addr) { ready <- [2]string{a.String(), s.String()} }})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	select {
	case a := <-ready:
		return a[0], a[1]
	case err := <-done:
		t.Fatalf("Serve: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("the service did not start")
	}
	return "", ""
}

func get(t *testing.T, u, token string) (int, []byte, http.Header) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, body, resp.Header
}

func TestServeProfiles(t *testing.T) {
	for _, p := range Profiles {
		t.Run(p.Name, func(t *testing.T) {
			var log strings.Builder
			var mu sync.Mutex
			addr, side := serve(t, p, writerFunc(func(b []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return log.Write(b) }))
			code, body, hdr := get(t, "http://"+addr+"/order/42", DefaultToken)
			if code != http.StatusOK || hdr.Get("Content-Type") != "application/json" {
				t.Fatalf("GET /order/42: %d %s", code, body)
			}
			want := genOrder(42)
			wantJSON, _ := json.Marshal(&want)
			if err := SameJSON(body, wantJSON); err != nil {
				t.Fatalf("GET /order/42: %v", err)
			}
			if hdr.Get("X-Request-Id") == "" {
				t.Error("no request id")
			}
			if code, _, _ := get(t, "http://"+addr+"/order/42", ""); code != http.StatusUnauthorized {
				t.Errorf("without a token: %d", code)
			}
			if !p.Constant {
				if code, _, _ := get(t, "http://"+addr+"/order/999999", DefaultToken); code != http.StatusNotFound {
					t.Errorf("missing order: %d", code)
				}
			}
			if code, _, _ := get(t, "http://"+addr+"/order/abc", DefaultToken); code != http.StatusNotFound && !p.Constant {
				t.Errorf("bad id: %d", code)
			}
			mu.Lock()
			lines := strings.Count(log.String(), "\n")
			mu.Unlock()
			if p.LeanChain && lines != 0 {
				t.Errorf("lean chain wrote %d access log lines", lines)
			}
			if !p.LeanChain && lines < 3 {
				t.Errorf("full chain wrote %d access log lines for 3+ requests", lines)
			}
			code, body, _ = get(t, "http://"+side+"/debug/perflab/metrics", "")
			var m Metrics
			if code != http.StatusOK || json.Unmarshal(body, &m) != nil || m.Profile != p.Name || m.Requests < 1 || m.AllocBytes == 0 {
				t.Fatalf("metrics: %d %s", code, body)
			}
		})
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

func TestServeDocAndSide(t *testing.T) {
	p, _ := ProfileByName("optimized")
	addr, side := serve(t, p, io.Discard)
	_, want, _ := get(t, "http://"+addr+"/doc/std", DefaultToken)
	for _, c := range Codecs {
		code, body, _ := get(t, "http://"+addr+"/doc/"+c.Name, DefaultToken)
		if code != http.StatusOK {
			t.Fatalf("/doc/%s: %d %s", c.Name, code, body)
		}
		if err := SameJSON(body, want); err != nil {
			t.Errorf("/doc/%s: %v", c.Name, err)
		}
	}
	if code, _, _ := get(t, "http://"+addr+"/doc/simdjson", DefaultToken); code != http.StatusNotFound {
		t.Errorf("/doc/simdjson: %d", code)
	}
	// The guard: one request per second allowed, the rest shed with 429.
	resp, err := http.PostForm("http://"+side+"/debug/perflab/guard", url.Values{"rate": {"1"}})
	if err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("guard on: %v %v", resp, err)
	}
	codes := map[int]int{}
	for i := 0; i < 5; i++ {
		code, _, _ := get(t, "http://"+addr+"/order/7", DefaultToken)
		codes[code]++
	}
	if codes[http.StatusTooManyRequests] < 3 || codes[http.StatusOK] < 1 {
		t.Fatalf("with a 1 req/s guard, 5 requests got %v", codes)
	}
	_, body, _ := get(t, "http://"+side+"/debug/perflab/metrics", "")
	var m Metrics
	if json.Unmarshal(body, &m) != nil || m.Limited < 3 || m.Guard != 1 {
		t.Fatalf("metrics after shedding: %s", body)
	}
	if resp, err := http.PostForm("http://"+side+"/debug/perflab/guard", url.Values{"rate": {"x"}}); err != nil || resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("bad guard rate: %v %v", resp, err)
	}
	if resp, err := http.PostForm("http://"+side+"/debug/perflab/guard", url.Values{"rate": {"0"}}); err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("guard off: %v %v", resp, err)
	}
	if code, _, _ := get(t, "http://"+addr+"/order/7", DefaultToken); code != http.StatusOK {
		t.Fatalf("guard off: %d", code)
	}
	// A CPU profile of a chosen length.
	start := time.Now()
	code, prof, _ := get(t, "http://"+side+"/debug/perflab/cpuprofile?ms=100&hz=200", "")
	if code != http.StatusOK || len(prof) == 0 || time.Since(start) < 90*time.Millisecond {
		t.Fatalf("cpuprofile: %d, %d bytes", code, len(prof))
	}
	if code, _, _ := get(t, "http://"+side+"/debug/perflab/cpuprofile?ms=x", ""); code != http.StatusBadRequest {
		t.Fatalf("cpuprofile with a bad length: %d", code)
	}
	if code, _, _ := get(t, "http://"+side+"/debug/pprof/heap", ""); code != http.StatusOK {
		t.Fatalf("heap profile: %d", code)
	}
}

// FuzzOrderPath: any request path and token get a well-formed answer —
// an order, 401, 404 or 405 — never a panic or a 500.
func FuzzOrderPath(f *testing.F) {
	path, err := testDB()
	if err != nil {
		f.Fatal(err)
	}
	store, err := OpenStore(context.Background(), path, true, 1)
	if err != nil {
		f.Fatal(err)
	}
	defer store.Close()
	p, _ := ProfileByName("baseline")
	codec, _ := CodecByName(p.Codec)
	s := &server{cfg: Config{Profile: p, Token: DefaultToken, Timeout: time.Second}, store: store, codec: codec,
		clock: sysClock{}, log: io.Discard, doc: genOrder(42), docCodecs: map[string]error{}}
	h := s.handler()
	for _, seed := range []string{"/order/1", "/order/0", "/order/-5", "/order/99999999999999999999", "/order/1x", "/doc/std", "/doc/nope", "/", "/order/"} {
		f.Add(seed, true)
	}
	f.Fuzz(func(t *testing.T, path string, auth bool) {
		req, err := http.NewRequest(http.MethodGet, "http://127.0.0.1"+path, nil)
		if err != nil || req.URL.Path == "" || !strings.HasPrefix(req.URL.Path, "/") {
			return
		}
		if auth {
			req.Header.Set("Authorization", "Bearer "+DefaultToken)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		switch w.Code {
		case http.StatusOK, http.StatusUnauthorized, http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusMovedPermanently, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		default:
			t.Fatalf("GET %q (auth %v): %d %s", path, auth, w.Code, w.Body)
		}
	})
}
