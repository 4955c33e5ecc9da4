package main

import (
	"html"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/driver/gotest"
	"github.com/perflab/perflab/internal/testrun"
	"github.com/perflab/perflab/serve"
	"github.com/perflab/perflab/store"
)

var (
	// A claim's or check's row of the claims tables: its ID first, its
	// verdict last, perhaps with a note's mark.
	mdVerdictRE = regexp.MustCompile(`(?m)^\| \*{0,2}([A-Z][0-9]+(?:\.[0-9]+)?)\*{0,2} \|.*\| \*{0,2}([a-z ()0-9]+?)\*{0,2}(?: \[[0-9]+\])? \|$`)
	// In HTML: a row, its first cell's ID and its verdict cell.
	htmlRowRE     = regexp.MustCompile(`(?s)<tr[^>]*>(.*?)</tr>`)
	htmlIDRE      = regexp.MustCompile(`^<td[^>]*>(?:<a [^>]*>|<b>)?([A-Z][0-9]+(?:\.[0-9]+)?)(?:</a>|</b>)?</td>`)
	htmlVerdictRE = regexp.MustCompile(`<td class="verdict[^"]*">(?:<b>)?([a-z ()0-9]+?)(?:</b>)?(?:<details|</td>)`)
)

// TestServeAndReportSameVerdicts: "perflab report N --alpha A" and perflab
// serve's run page at the same α render the same findings, so every claim
// and check has the same verdict in both.
func TestServeAndReportSameVerdicts(t *testing.T) {
	db := syntheticDB(t, testrun.Options{Noise: 0.04})
	for _, alpha := range []string{"0.05", "0.2"} {
		md, stderr, code := perflab(t, "report", "1", "--db", db, "--alpha", alpha)
		if code != 0 {
			t.Fatalf("report exited %d: %s", code, stderr)
		}
		d, err := store.Open(db)
		if err != nil {
			t.Fatal(err)
		}
		opt := analysis.DefaultOptions()
		if alpha == "0.2" {
			opt.Alpha = 0.2
		}
		srv := httptest.NewServer(serve.New(serve.Options{DB: d, Stats: opt}))
		resp, err := srv.Client().Get(srv.URL + "/run/1")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		srv.Close()
		d.Close()
		fromMD := map[string]string{}
		for _, m := range mdVerdictRE.FindAllStringSubmatch(md, -1) {
			fromMD[m[1]] = m[2]
		}
		fromHTML := map[string]string{}
		for _, row := range htmlRowRE.FindAllStringSubmatch(string(body), -1) {
			id, v := htmlIDRE.FindStringSubmatch(row[1]), htmlVerdictRE.FindStringSubmatch(row[1])
			if id != nil && v != nil {
				fromHTML[id[1]] = html.UnescapeString(v[1])
			}
		}
		if len(fromMD) < 3 {
			t.Fatalf("α=%s: only %d verdicts in the report:\n%s", alpha, len(fromMD), md)
		}
		for id, v := range fromMD {
			if fromHTML[id] != v {
				t.Errorf("α=%s: claim %s is %q in perflab report, %q on the run page", alpha, id, v, fromHTML[id])
			}
		}
		if len(fromHTML) != len(fromMD) {
			t.Errorf("α=%s: %d verdicts on the run page, %d in the report", alpha, len(fromHTML), len(fromMD))
		}
	}
}

// TestExportOrder: export writes the baseline first, then the other
// values and names in natural order, whatever order the rounds ran in, so
// benchstat -col /variant has plain as its first column every time.
func TestExportOrder(t *testing.T) {
	db := syntheticDB(t, testrun.Options{})
	first, stderr, code := perflab(t, "export", "1", "--db", db)
	if code != 0 {
		t.Fatalf("export exited %d: %s", code, stderr)
	}
	again, _, _ := perflab(t, "export", "1", "--db", db)
	if first != again {
		t.Error("two exports of one run differ")
	}
	results, err := gotest.Parse(strings.NewReader(first), "export")
	if err != nil {
		t.Fatal(err)
	}
	var variants []string
	lastReuse, lastVariant := -1.0, ""
	for _, r := range results {
		n := analysis.ParseName("Benchmark" + string(r.Name.Full()))
		v, _ := n.Value("variant")
		if len(variants) == 0 || variants[len(variants)-1] != v {
			variants = append(variants, v)
			lastReuse = -1
		}
		if v == lastVariant {
			x, _ := strconvFloat(n, "reuse")
			if x < lastReuse {
				t.Fatalf("variant %s: reuse %g after %g; want natural order", v, x, lastReuse)
			}
			lastReuse = x
		}
		lastVariant = v
	}
	if want := []string{"plain", "freelist", "syncpool", "tiered"}; strings.Join(variants, ",") != strings.Join(want, ",") {
		t.Errorf("variants in export order %v, want the baseline first, then natural order: %v", variants, want)
	}
}

func strconvFloat(n analysis.Name, key string) (float64, bool) {
	s := analysis.Sample{Name: n}
	return s.Num(key)
}

// abModule writes a throwaway module whose benchmark has an old and a new
// implementation at three sizes; the new one does a quarter of the work.
func abModule(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/ab\n\ngo 1.26\n",
		"sum/sum_test.go": `package sum

import (
	"strconv"
	"testing"
)

var sink int

func work(n int) {
	s := 0
	for i := range n {
		s += i ^ s
	}
	sink = s
}

func BenchmarkSum(b *testing.B) {
	for _, impl := range []string{"old", "new"} {
		for _, n := range []int{1000, 4000, 16000} {
			b.Run("impl="+impl+"/n="+strconv.Itoa(n), func(b *testing.B) {
				m := n
				if impl == "new" {
					m = n / 4
				}
				for b.Loop() {
					work(m)
				}
			})
		}
	}
}
`,
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

var geomeanRE = regexp.MustCompile(`geomean impl=new / impl=old over 3 points: ×([0-9.]+) \[([0-9.]+), ([0-9.]+)\]`)

// TestBenchByImpl: "perflab bench --by impl" says by how much: per point
// the new/old ratio with its interval, and a geomean.
func TestBenchByImpl(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs test binaries")
	}
	mod := abModule(t)
	tmp := t.TempDir()
	out, stderr, code := perflab(t, "bench", "-C", mod, "./sum", "-bench", "Sum", "--by", "impl", "--rounds", "6", "--benchtime", "1000x",
		"--db", filepath.Join(tmp, "p.db"), "--out", filepath.Join(tmp, "runs"), "--cache", filepath.Join(tmp, "cache"), "--no-profile")
	if code != 0 {
		t.Fatalf("bench exited %d\n%s\n%s", code, out, stderr)
	}
	if !strings.Contains(out, "by how much: impl against impl=old (sec/op ratio per point") {
		t.Fatalf("no by-how-much table:\n%s", out)
	}
	for _, n := range []string{"n=1000", "n=4000", "n=16000"} {
		if !regexp.MustCompile(`BenchmarkSum\s+new\s+` + n + `(-[0-9]+)?\s+×[0-9.]+ \[[0-9.]+, [0-9.]+\]`).MatchString(out) {
			t.Errorf("no ratio with an interval at %s:\n%s", n, out)
		}
	}
	m := geomeanRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no geomean line:\n%s", out)
	}
	var g [3]float64
	for i := range g {
		g[i], _ = strconv.ParseFloat(m[i+1], 64)
	}
	// A quarter of the loop, plus per-call overhead: well below 1.
	if !(g[1] <= g[0] && g[0] <= g[2] && g[2] < 0.8 && g[1] > 0) {
		t.Errorf("geomean new/old %v, want an interval around a ratio well below 1:\n%s", g, out)
	}
}
