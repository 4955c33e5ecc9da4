package revision

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// CommitInfo is one commit of a history, as people name it.
type CommitInfo struct {
	Hash       string    // full hash
	Subject    string    // first line of the message
	Author     string    // author name
	AuthorDate time.Time // when it was written (not when it was committed)
}

// Short is the commit's abbreviated hash.
func (c CommitInfo) Short() string {
	if len(c.Hash) > 12 {
		return c.Hash[:12]
	}
	return c.Hash
}

// logFormat is one commit per NUL-terminated record: hash, subject,
// author and author date (strict ISO 8601), separated by unit separators.
const logFormat = "--format=%H%x1f%s%x1f%an%x1f%aI%x00"

// FirstParent returns the history from good to bad along bad's
// first-parent chain, oldest first: good itself, then every commit of
// git rev-list --first-parent good..bad, the last being bad. Merges count
// as one commit each, as the branch they merged landed at once.
//
// good must be an ancestor of bad and differ from it; the error says
// which revision is unknown, or that the two are the wrong way round.
func (r *Repo) FirstParent(ctx context.Context, good, bad string) ([]CommitInfo, error) {
	g, err := r.resolve(ctx, good)
	if err != nil {
		return nil, fmt.Errorf("GOOD %q is not a commit of %s (%v); give a hash, branch or tag", good, r.Top, err)
	}
	b, err := r.resolve(ctx, bad)
	if err != nil {
		return nil, fmt.Errorf("BAD %q is not a commit of %s (%v); give a hash, branch or tag", bad, r.Top, err)
	}
	if g == b {
		return nil, fmt.Errorf("GOOD %q and BAD %q are the same commit %s: there is nothing between them to bisect", good, bad, g[:12])
	}
	if !r.isAncestor(ctx, g, b) {
		if r.isAncestor(ctx, b, g) {
			return nil, fmt.Errorf("GOOD %q (%s) comes after BAD %q (%s); give the older commit first", good, g[:12], bad, b[:12])
		}
		return nil, fmt.Errorf("GOOD %q (%s) is not an ancestor of BAD %q (%s): they lie on different branches; give a GOOD from BAD's history (git merge-base %s %s)", good, g[:12], bad, b[:12], good, bad)
	}
	first, err := r.commits(ctx, "log", "-1", logFormat, g)
	if err != nil {
		return nil, err
	}
	rest, err := r.commits(ctx, "log", "--first-parent", "--reverse", logFormat, g+".."+b)
	if err != nil {
		return nil, err
	}
	if len(rest) == 0 || rest[len(rest)-1].Hash != b {
		return nil, fmt.Errorf("the first-parent history from %s to %s is empty; is GOOD on BAD's first-parent line?", g[:12], b[:12])
	}
	return append(first, rest...), nil
}

// isAncestor reports whether commit a is an ancestor of commit b.
func (r *Repo) isAncestor(ctx context.Context, a, b string) bool {
	_, err := git(ctx, r.Top, nil, "merge-base", "--is-ancestor", a, b)
	return err == nil
}

// commits runs a git log command with logFormat and parses its records.
func (r *Repo) commits(ctx context.Context, args ...string) ([]CommitInfo, error) {
	out, err := git(ctx, r.Top, nil, args...)
	if err != nil {
		return nil, fmt.Errorf("reading the history: %w", err)
	}
	return parseLog(string(out))
}

// parseLog reads the records logFormat writes.
func parseLog(out string) ([]CommitInfo, error) {
	var cs []CommitInfo
	for _, rec := range strings.Split(out, "\x00") {
		rec = strings.TrimLeft(rec, "\n")
		if rec == "" {
			continue
		}
		f := strings.Split(rec, "\x1f")
		if len(f) != 4 {
			return nil, fmt.Errorf("unexpected git log record %q (want 4 fields)", rec)
		}
		when, err := time.Parse(time.RFC3339, strings.TrimSpace(f[3]))
		if err != nil {
			return nil, fmt.Errorf("commit %s: author date %q: %v", f[0], f[3], err)
		}
		cs = append(cs, CommitInfo{Hash: f[0], Subject: f[1], Author: f[2], AuthorDate: when})
	}
	return cs, nil
}
