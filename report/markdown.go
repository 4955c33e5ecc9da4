package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/perflab/perflab/findings"
)

// Markdown writes the run's report: a header, then every section of the
// section model.
func Markdown(w io.Writer, f *findings.Run) error {
	bw := bufio.NewWriter(w)
	h := headerOf(f)
	fmt.Fprintf(bw, "# %s\n\n%s\n\n%s\n\n", esc(h.Title), h.Meta, h.When)
	if h.Desc != "" {
		fmt.Fprintf(bw, "%s\n\n", h.Desc)
	}
	if h.Article != "" {
		fmt.Fprintf(bw, "Article: `%s`.\n\n", h.Article)
	}
	for _, w := range append(NotTestableConfigs(f), f.Warnings...) {
		fmt.Fprintf(bw, "> %s.\n\n", upper(w))
	}
	writeMarkdownSections(bw, sections(f, HTMLOptions{}, false))
	return bw.Flush()
}

type header struct {
	Title, Meta, When, Desc, Article string
}

func headerOf(f *findings.Run) header {
	r := f.Run
	h := header{Title: r.Experiment}
	if s := f.Spec; s != nil {
		if s.Title != "" {
			h.Title += " — " + s.Title
		}
		h.Desc = strings.TrimSpace(s.Description)
		h.Article = s.Article
	}
	rounds := fmt.Sprintf("%d of %d rounds stored", f.RoundsDone, r.RoundsPlanned)
	if f.Opt.Anytime {
		// A sequential run's plan holds its initial pass; the rounds
		// after it ran the cells still undecided.
		rounds = fmt.Sprintf("%d rounds stored (an initial pass of %d, then rounds of the undecided cells)", f.RoundsDone, r.RoundsPlanned)
	}
	if f.Opt.PerLayout > 0 {
		rounds += " · link layouts: a fresh random one every " + everyRounds(f.Opt.PerLayout)
	}
	if n := f.FollowUp.Rounds; n > 0 && !f.Opt.Anytime {
		// The tables read the planned rounds; the claims' open checks
		// also read the follow-up rounds after them.
		word := "rounds"
		if n == 1 {
			word = "round"
		}
		rounds += fmt.Sprintf(", then %d follow-up %s for the claims", n, word)
	}
	h.Meta = fmt.Sprintf("Run %d · mode %s · status %s · %s · seed %d", r.ID, r.Mode, r.Status, rounds, r.Seed)
	h.When = "Started " + r.StartedAt.UTC().Format(time.RFC3339)
	if !r.FinishedAt.IsZero() {
		h.When += fmt.Sprintf(", took %s", r.FinishedAt.Sub(r.StartedAt).Round(time.Second))
	}
	h.When += fmt.Sprintf(". %d samples in %d cells.", len(f.Results), f.Cells)
	return h
}

func upper(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
