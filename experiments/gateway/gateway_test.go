package gateway

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestMapsAgreeWithPlainMap replays one seeded history of loads, inserts
// with evictions, stores of absent keys and loads of absent keys on every
// variant and on a plain map, comparing every answer.
func TestMapsAgreeWithPlainMap(t *testing.T) {
	for _, name := range Maps {
		m, err := NewMap(name)
		if err != nil {
			t.Fatal(err)
		}
		ref := &mutexMap{m: map[string]int{}}
		ks, kref := NewKeyStream(5, 0, 1), NewKeyStream(5, 0, 1)
		ks.Fill(m)
		kref.Fill(ref)
		rng := rand.New(rand.NewPCG(3, 4))
		for i := range 20000 {
			op, _ := ks.Next(30), kref.Next(30)
			switch rng.IntN(10) {
			case 0:
				op = Op{Key: "absent:" + op.Key}
			case 1:
				k := fmt.Sprintf("other:%d", rng.IntN(50))
				m.Store(k, i)
				ref.Store(k, i)
				continue
			}
			if op.Write {
				m.Insert(op.Key, op.Value, op.Evict)
				ref.Insert(op.Key, op.Value, op.Evict)
				continue
			}
			got, ok := m.Load(op.Key)
			want, wok := ref.Load(op.Key)
			if got != want || ok != wok {
				t.Fatalf("%s: step %d Load(%q) = %d, %v; a plain map says %d, %v", name, i, op.Key, got, ok, want, wok)
			}
		}
		if n := len(ref.m); n > MapKeys+50 {
			t.Fatalf("%s: the map holds %d keys, more than the window's %d and 50 others", name, n, MapKeys)
		}
	}
	if _, err := NewMap("nope"); err == nil {
		t.Error("NewMap accepted an unknown name")
	}
}

// TestMapsConcurrent: concurrent writers of disjoint keys all land (run
// with -race to check the variants' synchronisation).
func TestMapsConcurrent(t *testing.T) {
	for _, name := range Maps {
		m, _ := NewMap(name)
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 200 {
					k := fmt.Sprintf("g%d-%d", g, i)
					m.Store(k, i)
					m.Load(k)
				}
			}()
		}
		wg.Wait()
		for g := range 4 {
			for i := range 200 {
				if v, ok := m.Load(fmt.Sprintf("g%d-%d", g, i)); !ok || v != i {
					t.Fatalf("%s: g%d-%d = %d, %v after concurrent stores", name, g, i, v, ok)
				}
			}
		}
	}
}

// TestKeyStreamSkewed: reads favour the newest keys, writes come at the
// asked rate, every read finds its key, and the window keeps its size.
func TestKeyStreamSkewed(t *testing.T) {
	ks := NewKeyStream(1, 0, 1)
	m := &mutexMap{m: map[string]int{}}
	ks.Fill(m)
	newest, middle, writes := 0, 0, 0
	for range 100000 {
		op := ks.Next(10)
		if op.Write {
			writes++
		} else {
			switch ks.next - 1 - op.Value {
			case 0:
				newest++
			case MapKeys / 2:
				middle++
			}
		}
		if !op.Apply(m) {
			t.Fatalf("a read of %q missed: the stream read a key outside its window", op.Key)
		}
	}
	if newest < 10*middle+1 {
		t.Errorf("the newest key read %d times, the key %d inserts older %d times: not skewed", newest, MapKeys/2, middle)
	}
	if writes < 9000 || writes > 11000 {
		t.Errorf("%d writes of 100000 at 10%%", writes)
	}
	if len(m.m) != MapKeys {
		t.Errorf("the map holds %d keys after inserts with evictions, want %d", len(m.m), MapKeys)
	}
}

// TestDirtyPromotions: the untimed replay counts dirty-map promotions
// where sync.Map has a dirty map and writes insert new keys, none where
// nothing is inserted, and none for a map without a sync.Map.
func TestDirtyPromotions(t *testing.T) {
	inserts, note, ok, err := DirtyPromotions("syncmap", 50, 2, 5000, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		t.Skipf("promotions are not counted on this Go: %s", note)
	}
	reads, _, _, err := DirtyPromotions("syncmap", 0, 2, 5000, 1)
	if err != nil {
		t.Fatal(err)
	}
	none, _, _, err := DirtyPromotions("mutex", 50, 2, 5000, 1)
	if err != nil {
		t.Fatal(err)
	}
	if none != 0 {
		t.Errorf("a mutex map promoted %g dirty maps per op", none)
	}
	if hasDirty := !strings.Contains(note, "without a dirty map"); hasDirty {
		if inserts <= 0 || reads != 0 {
			t.Errorf("%s: %g promotions per op with 50%% inserts, %g with reads only; want some, and none", note, inserts, reads)
		}
	} else if inserts != 0 {
		t.Errorf("%s: %g promotions per op", note, inserts)
	}
	t.Logf("%s: %.3g promotions per op at 50%% inserts", note, inserts)
}

// blockingWriter holds every Write until released; entered is closed
// when the first Write begins.
type blockingWriter struct {
	entered, release chan struct{}
	once             sync.Once
	buf              bytes.Buffer
}

func (w *blockingWriter) Write(p []byte) (int, error) {
	w.once.Do(func() { close(w.entered) })
	<-w.release
	return w.buf.Write(p)
}

func record(i int) []byte { return []byte(fmt.Sprintf("record %06d\n", i)) }

// TestRingLogNoLossWhenNotFull: from several goroutines, fewer records
// than the ring holds at any time all arrive, in each goroutine's order.
func TestRingLogNoLossWhenNotFull(t *testing.T) {
	var out bytes.Buffer
	l := NewRingLog(&out, 64, 32)
	var wg sync.WaitGroup
	const perG, gs = 2000, 4
	for g := range gs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perG {
				l.Log(record(g*perG + i))
				if i%16 == 0 {
					// Stay well below the ring's capacity.
					for l.pending() > 32 {
						runtime.Gosched()
					}
				}
			}
		}()
	}
	wg.Wait()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if l.Dropped() != 0 {
		t.Fatalf("dropped %d records with the ring never full", l.Dropped())
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != perG*gs {
		t.Fatalf("wrote %d records, want %d", len(lines), perG*gs)
	}
	last := make([]int, gs)
	for i := range last {
		last[i] = -1
	}
	for _, ln := range lines {
		var n int
		if _, err := fmt.Sscanf(ln, "record %d", &n); err != nil {
			t.Fatalf("malformed record %q", ln)
		}
		g, i := n/perG, n%perG
		if i <= last[g] {
			t.Fatalf("goroutine %d's record %d after its record %d", g, i, last[g])
		}
		last[g] = i
	}
}

// TestRingLogCountsDrops: with the drain stuck on a blocked file, the
// ring fills; every record past its capacity is counted, and once the
// file unblocks the kept ones are all written.
func TestRingLogCountsDrops(t *testing.T) {
	w := &blockingWriter{entered: make(chan struct{}), release: make(chan struct{})}
	const slots = 16
	l := NewRingLog(w, slots, 32)
	l.Log(record(0))
	// Wait until the drain goroutine has taken record 0 and blocks
	// flushing it to the file.
	<-w.entered
	const n = 100
	for i := 1; i <= n; i++ {
		l.Log(record(i))
	}
	if got, want := l.Dropped(), int64(n-slots); got != want {
		t.Errorf("dropped %d, want %d (%d records into %d free slots)", got, want, n, slots)
	}
	l.Log(bytes.Repeat([]byte("x"), 33))
	if got, want := l.Dropped(), int64(n-slots+1); got != want {
		t.Errorf("a record longer than a slot: dropped %d, want %d", got, want)
	}
	close(w.release)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(w.buf.String(), "\n"); got != 1+slots {
		t.Errorf("wrote %d records, want %d (record 0 and a full ring)", got, 1+slots)
	}
}

func TestBufioLogKeepsEverything(t *testing.T) {
	var out bytes.Buffer
	lw, err := NewLogWriter("bufio", &out)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		lw.Log(record(i))
	}
	if err := lw.Close(); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(out.String(), "\n"); got != 1000 || lw.Dropped() != 0 {
		t.Errorf("wrote %d records, dropped %d; want 1000 and 0", got, lw.Dropped())
	}
	if _, err := NewLogWriter("nope", &out); err == nil {
		t.Error("NewLogWriter accepted an unknown name")
	}
}

// TestLogServerLogsEveryRequest: each request handled is one record.
func TestLogServerLogsEveryRequest(t *testing.T) {
	var out bytes.Buffer
	lc := &LineCounter{W: &out}
	lw, _ := NewLogWriter("ring", lc)
	srv, err := StartLogServer(lw)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		resp, err := http.Get(fmt.Sprintf("%s/order/%d", srv.URL, i))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d", resp.StatusCode)
		}
	}
	srv.Close()
	lw.Close()
	if lc.Lines != 20 || srv.Handled.Load() != 20 {
		t.Errorf("%d records for %d requests handled, want 20 and 20", lc.Lines, srv.Handled.Load())
	}
	if !strings.Contains(out.String(), " GET /order/7 200 ") {
		t.Errorf("no record of GET /order/7 in\n%s", out.String())
	}
	// At BenchmarkLog's 2,000 requests a second the records make the
	// article's 1 MB/s log stream.
	if per := out.Len() / 20; per < LogRecordSize-40 || per > LogRecordSize+40 {
		t.Errorf("records of %d bytes, want about %d (1 MB/s at 2,000 req/s)", per, LogRecordSize)
	}
}

// TestContextChain: both variants answer the same, and the pooled one
// allocates no context objects per request.
func TestContextChain(t *testing.T) {
	req := NewRequest("/api/v2/shops/1042/orders/77")
	req.Header.Set("X-Api-Key", "k-9f2c")
	var bodies []string
	for _, pooled := range []bool{false, true} {
		ch := GatewayChain(pooled)
		w := &recWriter{h: http.Header{}}
		ch.ServeHTTP(w, req)
		if w.status != http.StatusOK {
			t.Fatalf("pooled=%v: status %d", pooled, w.status)
		}
		bodies = append(bodies, strings.Split(w.body.String(), `"request_id"`)[0])
		bad := NewRequest("/x")
		w = &recWriter{h: http.Header{}}
		ch.ServeHTTP(w, bad)
		if w.status != http.StatusUnauthorized {
			t.Errorf("pooled=%v: no API key gave %d, want 401", pooled, w.status)
		}
	}
	if bodies[0] != bodies[1] || !strings.Contains(bodies[0], `"shop":"1042"`) {
		t.Errorf("bodies differ or lack the parameters: %q vs %q", bodies[0], bodies[1])
	}
	ch := GatewayChain(true)
	w := &nopWriter{h: http.Header{}}
	if a := testing.AllocsPerRun(100, func() { ch.ServeHTTP(w, req) }); a > 0.5 && !raceOn {
		t.Errorf("pooled chain: %.1f allocations per request", a)
	}
}

type recWriter struct {
	h      http.Header
	status int
	body   bytes.Buffer
}

func (w *recWriter) Header() http.Header         { return w.h }
func (w *recWriter) Write(b []byte) (int, error) { return w.body.Write(b) }
func (w *recWriter) WriteHeader(code int)        { w.status = code }

// TestLeakTrial: the unbuffered send leaves about one goroutine per
// request in flight; both fixes leave none; the process ends clean.
func TestLeakTrial(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers and 200 requests")
	}
	base := runtime.NumGoroutine()
	for _, tt := range []struct {
		sender   string
		min, max int
	}{
		{"unbuffered", 150, 200},
		{"ctxcancel", 0, 0},
		{"bounded", 0, 0},
	} {
		res, err := LeakTrial{Sender: tt.sender, Concurrency: 200, MaxWait: 5 * time.Second, ConsumeEach: 50 * time.Millisecond, BoundedCap: 16}.Run(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", tt.sender, err)
		}
		if res.Goroutines < tt.min || res.Goroutines > tt.max {
			t.Errorf("%s: %d goroutines left, want %d to %d", tt.sender, res.Goroutines, tt.min, tt.max)
		}
		if tt.sender == "bounded" && res.Dropped < 200-16-10 {
			t.Errorf("bounded: %d dropped of 200 into a buffer of 16", res.Dropped)
		}
	}
	if n := runtime.NumGoroutine(); n > base {
		t.Errorf("%d goroutines after the trials, %d before", n, base)
	}
	if _, err := (LeakTrial{Sender: "nope"}).Run(context.Background()); err == nil {
		t.Error("an unknown sender gave no error")
	}
}

// TestDirtyPromotionsOnGo122: under the spec's go1.22 config, whose
// sync.Map still has a dirty map, the replay counts its promotions
// (TestDirtyPromotions run by that toolchain). It skips when the toolchain
// cannot be had here (offline, without it in the module cache).
func TestDirtyPromotionsOnGo122(t *testing.T) {
	if testing.Short() {
		t.Skip("builds this package with the go1.22 toolchain")
	}
	const toolchain = "go1.22.12"
	cmd := exec.Command("go", "version")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN="+toolchain)
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), toolchain) {
		t.Skipf("%s is not available here: %v %s", toolchain, err, out)
	}
	cmd = exec.Command("go", "test", "-modfile=go122.mod", "-count=1", "-run", "^TestDirtyPromotions$", "-v", ".")
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN="+toolchain)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test under %s: %v\n%s", toolchain, err, out)
	}
	if !strings.Contains(string(out), "sync.Map keeps a dirty map") || strings.Contains(string(out), "SKIP") {
		t.Errorf("under %s the replay did not count promotions:\n%s", toolchain, out)
	}
}
