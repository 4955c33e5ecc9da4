package report_test

import (
	"strings"
	"testing"
	"time"

	"github.com/perflab/perflab/report"
)

// TestRunsList: perflab runs' table and resume lines, and the server's
// runs page, from one list.
func TestRunsList(t *testing.T) {
	start := time.Date(2026, 3, 1, 10, 0, 0, 0, time.Local)
	l := report.RunList{DB: "team.db", Runs: []report.RunEntry{
		{ID: 3, Experiment: "x", Mode: "quick", State: "interrupted", ProcessGone: true, Owner: "process 7 on vm", Rounds: 1, RoundsPlanned: 4, Started: start.Add(2 * time.Hour)},
		{ID: 2, Experiment: "poolmini", Mode: "full", State: "complete", Rounds: 6, RoundsPlanned: 6, Started: start.Add(time.Hour),
			Verdicts: map[string]int{"contradicted": 1, "reproduced": 2}, Prev: 1},
		{ID: 1, Experiment: "poolmini", Mode: "full", State: "interrupted", Owner: "an unknown process", Rounds: 2, RoundsPlanned: 6, Started: start},
	}}
	var text strings.Builder
	if err := report.RunsText(&text, l); err != nil {
		t.Fatal(err)
	}
	if err := report.ResumeText(&text, l); err != nil {
		t.Fatal(err)
	}
	want := `ID  EXPERIMENT  MODE   STATUS                      ROUNDS  STARTED
3   x           quick  interrupted (process gone)  1/4     2026-03-01 12:00:00
2   poolmini    full   complete                    6/6     2026-03-01 11:00:00
1   poolmini    full   interrupted                 2/6     2026-03-01 10:00:00
run 3 was interrupted (process 7 on vm); finish it with: perflab run --resume 3 --db team.db
run 1 was interrupted (an unknown process); finish it with: perflab run --resume 1 --db team.db
`
	if text.String() != want {
		t.Errorf("runs text:\n%s\nwant:\n%s", text.String(), want)
	}
	var page strings.Builder
	if err := report.RunsHTML(&page, l); err != nil {
		t.Fatal(err)
	}
	for _, frag := range []string{
		"Database <code>team.db</code>",
		`<td><a class="run" href="/run/2">run 2</a></td><td>poolmini</td><td>full</td><td>complete</td><td class="num">6/6</td>`,
		`<span class="chip v-rep">2 reproduced</span><span class="chip v-con">1 contradicted</span></td>`,
		`<a href="/compare?old=1&amp;new=2">compare with run 1</a>`,
		`<td>interrupted</td>`,
	} {
		if !strings.Contains(page.String(), frag) {
			t.Errorf("runs page lacks %s:\n%s", frag, page.String())
		}
	}
	page.Reset()
	if err := report.RunsHTML(&page, report.RunList{DB: "team.db"}); err != nil || !strings.Contains(page.String(), "No runs yet") {
		t.Errorf("empty runs page (%v):\n%s", err, page.String())
	}
}
