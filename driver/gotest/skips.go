package gotest

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

// Skip is a benchmark that skipped itself (b.Skip, b.Skipf or b.SkipNow)
// and the message it gave.
type Skip struct {
	Name   string // as go test prints it, e.g. "BenchmarkWords/n=10"
	Reason string // the skip message on one line; "" after b.SkipNow
}

// logEntry matches the first line of a t.Log entry in verbose output,
// "file.go:12: message" (indented; the indentation is trimmed first).
var logEntry = regexp.MustCompile(`^[^\s:]+\.go:\d+: ?`)

// ParseSkips reads the verbose output of a test binary (-test.v) and
// returns the benchmarks that skipped themselves, each once, in output
// order, with the message each gave.
//
// A benchmark prints its name, then what it logged (indented, each entry
// led by its file:line, continuation lines indented further), then
// "--- SKIP: Name". The skip message is the last entry logged before that
// line; its continuation lines are joined to it with spaces, and control
// characters become spaces. A test (not a
// benchmark) prints its log after the "--- SKIP:" line instead, which
// ParseSkips also reads. Lines longer than 1 MiB end the scan.
//
// ParseSkips never panics, whatever the input.
func ParseSkips(out []byte) []Skip {
	var (
		skips   []Skip
		seen    = map[string]int{} // name → index in skips
		entries []string           // log entries since the last benchmark line
		after   = -1               // index of a test skip whose message follows
	)
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		indented := trimmed != "" && (line[0] == ' ' || line[0] == '\t')
		switch {
		case strings.HasPrefix(trimmed, "--- SKIP: "):
			fields := strings.Fields(strings.TrimPrefix(trimmed, "--- SKIP: "))
			after = -1
			if len(fields) == 0 {
				entries = nil
				continue
			}
			name := fields[0]
			reason := ""
			if len(entries) > 0 {
				reason = entries[len(entries)-1]
			}
			entries = nil
			i, ok := seen[name]
			if !ok {
				i = len(skips)
				seen[name] = i
				skips = append(skips, Skip{Name: name})
			}
			if skips[i].Reason == "" {
				skips[i].Reason = reason
			}
			if !strings.HasPrefix(name, "Benchmark") && skips[i].Reason == "" {
				after = i
			}
		case strings.HasPrefix(trimmed, "--- "), strings.HasPrefix(line, "Benchmark"), strings.HasPrefix(line, "=== "):
			// A benchmark starts or reports, or another test event: what
			// was logged before belongs to no skip that follows.
			entries, after = nil, -1
		case indented && logEntry.MatchString(trimmed):
			msg := oneLine(trimmed[len(logEntry.FindString(trimmed)):])
			if after >= 0 {
				skips[after].Reason, after = msg, -1
				continue
			}
			entries = append(entries, msg)
		case indented && len(entries) > 0:
			entries[len(entries)-1] = oneLine(entries[len(entries)-1] + " " + trimmed)
		}
	}
	return skips
}

// oneLine trims s and turns the control characters in it into spaces.
func oneLine(s string) string {
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s))
}

// SkipGroup is the benchmarks that skipped themselves for one reason.
type SkipGroup struct {
	Reason string   // "" when they gave none
	Names  []string // in the order they skipped
}

// GroupSkips groups skips by reason, the groups in the order their first
// benchmark skipped.
func GroupSkips(skips []Skip) []SkipGroup {
	var groups []SkipGroup
	index := map[string]int{}
	for _, s := range skips {
		i, ok := index[s.Reason]
		if !ok {
			i = len(groups)
			index[s.Reason] = i
			groups = append(groups, SkipGroup{Reason: s.Reason})
		}
		groups[i].Names = append(groups[i].Names, s.Name)
	}
	return groups
}

// describeSkips says in one line which benchmarks skipped themselves and
// why: the reason alone when one benchmark skipped, or each reason with
// the number of benchmarks that gave it.
func describeSkips(skips []Skip) string {
	if len(skips) == 1 {
		if skips[0].Reason == "" {
			return skips[0].Name
		}
		return skips[0].Reason
	}
	var parts []string
	for _, g := range GroupSkips(skips) {
		reason := g.Reason
		if reason == "" {
			reason = "(no reason given)"
		}
		if len(g.Names) == 1 {
			parts = append(parts, g.Names[0]+": "+reason)
			continue
		}
		parts = append(parts, fmt.Sprintf("%d benchmarks (%s … %s): %s", len(g.Names), g.Names[0], g.Names[len(g.Names)-1], reason))
	}
	return strings.Join(parts, "; ")
}
