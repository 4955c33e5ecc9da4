package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/perflab/perflab/report"
)

// forestMeasure, added to a copy of a report, writes what the browser drew
// of every forest plot into a <pre id="measure">: its size, and each
// label's text, class, font size and box relative to the plot.
const forestMeasure = `<script>
const plots = [];
for (const svg of document.querySelectorAll("svg.forest")) {
  const r = svg.getBoundingClientRect();
  const labels = [];
  for (const t of svg.querySelectorAll("text")) {
    const b = t.getBoundingClientRect();
    labels.push({class: t.getAttribute("class"), text: t.textContent, size: parseFloat(getComputedStyle(t).fontSize),
      x0: b.left - r.left, x1: b.right - r.left, y0: b.top - r.top, y1: b.bottom - r.top});
  }
  plots.push({w: r.width, h: r.height, labels: labels});
}
const pre = document.createElement("pre");
pre.id = "measure";
pre.textContent = JSON.stringify(plots);
document.body.appendChild(pre);
</script>`

type drawnLabel struct {
	Class, Text    string
	Size           float64
	X0, X1, Y0, Y1 float64
}

type drawnPlot struct {
	W, H   float64
	Labels []drawnLabel
}

// TestBrowserForestPlots opens the synthetic claims run's HTML report in
// headless Chromium and measures what it drew: every check with numbers
// has a forest plot at least 300×80 px, whose labels (measured, threshold
// or band, claimed) are at least 10 px, inside the plot and clear of each
// other.
func TestBrowserForestPlots(t *testing.T) {
	bin := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		t.Skip("no chromium on PATH: the browser test needs Debian's chromium (apt-get install chromium)")
	}
	f := claimsRun(t)
	var page bytes.Buffer
	if err := report.HTML(&page, f, report.HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "report.html")
	if err := os.WriteFile(path, []byte(strings.Replace(page.String(), "</body>", forestMeasure+"</body>", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-dev-shm-usage",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--window-size=1400,2000", "--virtual-time-budget=5000", "--dump-dom", "file://"+path)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	m := regexp.MustCompile(`(?s)<pre id="measure">(.*?)</pre>`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("the page ran no measurement:\n%.2000s", out.String())
	}
	var plots []drawnPlot
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &plots); err != nil {
		t.Fatalf("measurement: %v\n%s", err, m[1])
	}
	want := 0
	for _, v := range f.Verdicts {
		for _, c := range v.Checks {
			if !math.IsNaN(c.Estimate) {
				want++
			}
		}
	}
	if len(plots) != want || want < 5 {
		t.Fatalf("%d forest plots drawn, want one per check with numbers (%d)", len(plots), want)
	}
	claimed := 0
	for i, p := range plots {
		if p.W < 300 || p.H < 80 {
			t.Errorf("plot %d is drawn %.0f×%.0f px, want at least 300×80", i, p.W, p.H)
		}
		has := map[string]bool{}
		for j, l := range p.Labels {
			has[l.Class] = true
			if l.Size < 10 {
				t.Errorf("plot %d: label %q is %.1f px, want at least 10", i, l.Text, l.Size)
			}
			if l.X0 < -1 || l.X1 > p.W+1 || l.Y0 < -1 || l.Y1 > p.H+1 {
				t.Errorf("plot %d: label %q is drawn at [%.0f, %.0f]×[%.0f, %.0f], outside the plot's %.0f×%.0f", i, l.Text, l.X0, l.X1, l.Y0, l.Y1, p.W, p.H)
			}
			for _, o := range p.Labels[j+1:] {
				if l.X0 < o.X1-1 && o.X0 < l.X1-1 && l.Y0 < o.Y1-1 && o.Y0 < l.Y1-1 {
					t.Errorf("plot %d: labels %q and %q overlap", i, l.Text, o.Text)
				}
			}
		}
		if !has["estlabel"] || !(has["thrlabel"] || has["bandlabel"]) {
			t.Errorf("plot %d lacks its measured or threshold label: %+v", i, p.Labels)
		}
		if has["claimlabel"] {
			claimed++
		}
	}
	if claimed < 4 {
		t.Errorf("%d plots label the claimed value, want the 4 checks with a claimed figure", claimed)
	}
}
