package report

import (
	"fmt"
	"html/template"
	"io"
	"strconv"
	"text/tabwriter"
	"time"
)

// RunList is the list of stored runs that perflab runs prints
// ([RunsText]) and perflab serve's front page shows ([RunsHTML]), newest
// first.
type RunList struct {
	// DB is the database as the reader names it: the --db flag's value
	// in perflab runs (its resume lines repeat it), the database's path
	// on the server's page.
	DB   string
	Runs []RunEntry
}

// RunEntry is one stored run.
type RunEntry struct {
	ID               int64
	Experiment, Mode string
	// State is the run's status as it stands now: a run stored as
	// running whose process is gone is "interrupted", and ProcessGone
	// says so.
	State       string
	ProcessGone bool
	Owner       string // the process that runs or last ran it
	// Rounds is how many rounds are stored, of RoundsPlanned.
	Rounds, RoundsPlanned int
	Started               time.Time
	// Verdicts counts the claim verdicts stored when the run finished,
	// by verdict ("reproduced", …); nil when the list does not show them.
	Verdicts map[string]int
	// Prev is the previous run of the same experiment, 0 when none.
	Prev int64
}

// interrupted reports whether the run stopped before it finished and can
// be resumed.
func (e RunEntry) interrupted() bool { return e.ProcessGone || e.State == "interrupted" }

// started is when the run started, in local time.
func (e RunEntry) started() string { return e.Started.Local().Format("2006-01-02 15:04:05") }

// RunsText writes the runs table: ID, experiment, mode, status ("…
// (process gone)" when the run's process died), rounds stored of
// planned, start time.
func RunsText(w io.Writer, l RunList) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tEXPERIMENT\tMODE\tSTATUS\tROUNDS\tSTARTED")
	for _, r := range l.Runs {
		status := r.State
		if r.ProcessGone {
			status += " (process gone)"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d/%d\t%s\n", r.ID, r.Experiment, r.Mode, status, r.Rounds, r.RoundsPlanned, r.started())
	}
	return tw.Flush()
}

// ResumeText writes, for each interrupted run of the list, the command
// that finishes it.
func ResumeText(w io.Writer, l RunList) error {
	for _, r := range l.Runs {
		if !r.interrupted() {
			continue
		}
		if _, err := fmt.Fprintf(w, "run %d was interrupted (%s); finish it with: perflab run --resume %d --db %s\n", r.ID, r.Owner, r.ID, l.DB); err != nil {
			return err
		}
	}
	return nil
}

// runVerdicts are the verdicts a run's row counts, in the order it shows
// them.
var runVerdicts = []string{"reproduced", "contradicted", "inconclusive", "not testable"}

var runsHTML = template.Must(template.New("runs").Parse(`<p class="note">Database <code>{{.DB}}</code>, newest first. Open a run for its report (charts, tables, claims, profiles). The claims column counts the verdicts stored when each run finished, at the α it ran with; a run's page computes them again at this server's α, exactly as <code>perflab report RUN --alpha</code> does.</p>
{{if .Runs}}<table id="runs">
<thead><tr><th>run</th><th>experiment</th><th>mode</th><th>status</th><th>rounds</th><th>started</th><th>claims</th><th></th></tr></thead>
<tbody>{{range .Runs}}<tr>
<td><a class="run" href="/run/{{.ID}}">run {{.ID}}</a></td><td>{{.Experiment}}</td><td>{{.Mode}}</td><td>{{.State}}</td><td class="num">{{.Rounds}}/{{.RoundsPlanned}}</td>
<td>{{.Started}}</td>
<td>{{range .Chips}}<span class="chip {{.Class}}">{{.Text}}</span>{{end}}</td>
<td>{{if .Prev}}<a href="/compare?old={{.Prev}}&amp;new={{.ID}}">compare with run {{.Prev}}</a>{{end}}</td>
</tr>{{end}}</tbody></table>
{{else}}<p>No runs yet: start one with <code>perflab run poolreuse --quick</code>.</p>{{end}}
`))

// RunsHTML writes the runs list as perflab serve's front page shows it
// (the part below its heading): where the runs are stored, then a table
// with each run's link, status, rounds, start time, a chip per verdict
// stored, and a link comparing it with the previous run of its
// experiment; or how to start a first run.
func RunsHTML(w io.Writer, l RunList) error {
	type chip struct{ Text, Class string }
	type row struct {
		RunEntry
		Started string
		Chips   []chip
	}
	rows := make([]row, len(l.Runs))
	for i, r := range l.Runs {
		rows[i] = row{RunEntry: r, Started: r.started()}
		for _, v := range runVerdicts {
			if n := r.Verdicts[v]; n > 0 {
				rows[i].Chips = append(rows[i].Chips, chip{strconv.Itoa(n) + " " + v, verdictClass(v)})
			}
		}
	}
	return runsHTML.Execute(w, struct {
		DB   string
		Runs []row
	}{l.DB, rows})
}
