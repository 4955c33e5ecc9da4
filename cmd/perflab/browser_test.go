package main

import (
	"bufio"
	"bytes"
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perflab/perflab/internal/testrun"
)

// chromium finds Debian's chromium (or another Chrome) on PATH.
func chromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// headless runs chromium headless over url with extra flags and returns
// its standard output.
func headless(t *testing.T, bin, profile, url string, extra ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := append([]string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--user-data-dir=" + profile, "--virtual-time-budget=5000",
	}, extra...)
	cmd := exec.CommandContext(ctx, bin, append(args, url)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", extra, err, lastLines(errb.String(), 20))
	}
	return out.String()
}

// TestBrowserServe starts "perflab serve" on a free loopback port over a
// database holding a poolreuse-like run with known crossovers, opens the
// runs list and the run page in headless Chromium, checks that the rendered
// chart has every variant's line and the crossover and knee markers, and
// saves a screenshot of the page (kept in $PERFLAB_SCREENSHOT_DIR when set,
// else in the test's temporary directory; its path is logged).
func TestBrowserServe(t *testing.T) {
	bin := chromium()
	if bin == "" {
		t.Skip("no chromium binary on PATH: the browser test needs Debian's chromium (apt-get install chromium); .ci/run installs it")
	}
	dir := t.TempDir()
	db := syntheticDB(t, testrun.Options{Seed: 1, ArtifactDir: filepath.Join(dir, "run-1")}, testrun.Options{Seed: 2})

	// The real command, as a user starts it.
	exe := filepath.Join(dir, "perflab")
	if out, err := exec.Command("go", "build", "-o", exe, ".").CombinedOutput(); err != nil {
		t.Fatalf("building perflab: %v\n%s", err, out)
	}
	srv := exec.Command(exe, "serve", "--db", db, "--addr", "127.0.0.1:0", "--out", dir)
	stdout, err := srv.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var srvErr bytes.Buffer
	srv.Stderr = &srvErr
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.Process.Kill()
		srv.Wait()
	})
	urlc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := regexp.MustCompile(`http://127\.0\.0\.1:\d+/`).FindString(sc.Text()); m != "" {
				urlc <- m
			}
		}
	}()
	var base string
	select {
	case base = <-urlc:
	case <-time.After(30 * time.Second):
		t.Fatalf("perflab serve printed no URL within 30s\n%s", srvErr.String())
	}

	profile := filepath.Join(dir, "chromium-profile")
	runs := headless(t, bin, profile, base, "--dump-dom")
	for _, want := range []string{`href="/run/1"`, `href="/run/2"`, "poolmini", "compare with run 1"} {
		if !strings.Contains(runs, want) {
			t.Errorf("the runs list, as Chromium rendered it, lacks %q", want)
		}
	}

	page := headless(t, bin, profile, base+"run/1", "--dump-dom")
	svg := regexp.MustCompile(`(?s)<svg class="chart".*?</svg>`).FindString(page)
	if svg == "" {
		t.Fatalf("the run page, as Chromium rendered it, has no chart:\n%.2000s", page)
	}
	for _, v := range testrun.Variants {
		if !regexp.MustCompile(`<g class="series" data-series="` + v + `"[^>]*>\s*<polyline`).MatchString(svg) {
			t.Errorf("the chart has no drawn line for %s", v)
		}
	}
	crossings := map[string]float64{}
	for _, m := range regexp.MustCompile(`<g class="marker crossover" data-x="([^"]+)" data-series="([^"]+)"`).FindAllStringSubmatch(svg, -1) {
		x, _ := strconv.ParseFloat(m[1], 64)
		crossings[m[2]] = x
	}
	for v, want := range testrun.Crossovers {
		if x, ok := crossings[v]; !ok || math.Abs(x-want) > 3 {
			t.Errorf("crossover marker of %s with plain at %v (present %v), want ≈ %v", v, x, ok, want)
		}
	}
	// The knee is a fitted breakpoint, so it lies near the planted 50, not on it.
	knee := regexp.MustCompile(`<g class="marker knee" data-x="([^"]+)" data-series="tiered"`).FindStringSubmatch(svg)
	if knee == nil {
		t.Errorf("the chart does not mark tiered's knee")
	} else if x, _ := strconv.ParseFloat(knee[1], 64); math.Abs(x-testrun.KneeTiered) > 3 {
		t.Errorf("the chart marks tiered's knee at reuse=%v, want ≈ %v", x, testrun.KneeTiered)
	}
	// Verdict cells carry their verdict as text and as a class (the ✓/✗
	// glyph is the class's CSS content, not text in the DOM).
	for _, want := range []string{
		`class="verdict v-rep"`, ">reproduced<", `class="verdict v-con"`, ">contradicted<",
		`href="/article/C-syncpool-reuse-rate.txt"`, `href="/run/1/profile/0/flamegraph"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the run page lacks %q", want)
		}
	}

	shots := os.Getenv("PERFLAB_SCREENSHOT_DIR")
	if shots == "" {
		shots = dir
	} else if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	shot, err := filepath.Abs(filepath.Join(shots, "perflab-run-page.png"))
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(shot)
	headless(t, bin, profile, base+"run/1", "--screenshot="+shot, "--window-size=1400,2200", "--hide-scrollbars")
	png, err := os.ReadFile(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	if len(png) < 10000 || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Errorf("screenshot %s is not a plausible PNG (%d bytes)", shot, len(png))
	}
	t.Logf("screenshot of the run page: %s", shot)

	// A profile opens in pprof's own web UI.
	fg := headless(t, bin, profile, base+"run/1/profile/0/flamegraph", "--dump-dom")
	if !strings.Contains(fg, "pprof") {
		t.Errorf("the flame graph page does not come from pprof:\n%.500s", fg)
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
