package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The docs' consistency with the code: every perflab flag, help topic
// and repository file a doc names exists.
//
// What is checked, in README.md, ARCHITECTURE.md and the docs under docs/:
//   - a perflab command line, in a code span or a fenced code block
//     ("perflab ab OLD NEW -bench . --budget 3m", "go run ./cmd/perflab
//     run --quick"): each flag after its command (-x or --x, up to a
//     comment, a pipe or "--") is one that command declares; "perflab
//     help TOPIC" names a command or a help topic; code that starts with
//     "perflab WORD" names a command (elsewhere "perflab and …" may be
//     words of a diagram or a comment);
//   - a flag table or list (a table row or list item whose first code
//     span is a flag, "| `--budget D` | …", "- `--budget D`, `--precision
//     P`: …"): some command declares each flag it names;
//   - a code span that is a path in the repository ("engine/layout.go",
//     "docs/ci.md": a name with a slash and an extension, not a
//     placeholder such as DIR/ or run-<id>/), and a Markdown link to a
//     file: the file exists.
//
// Prose is not read: a flag or file named outside code or a link is
// beyond this test.

// docFiles are the docs the test reads, relative to the repository root:
// README.md, ARCHITECTURE.md and every .md under docs/.
func docFiles(t *testing.T, root string) []string {
	t.Helper()
	out := []string{"README.md", "ARCHITECTURE.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, _ := filepath.Rel(root, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil || len(out) < 3 {
		t.Fatalf("no docs under %s/docs: %v", root, err)
	}
	return out
}

func TestDocsNameWhatExists(t *testing.T) {
	root := filepath.Join("..", "..")
	checked := 0
	for _, name := range docFiles(t, root) {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		probs, n := docProblems(root, name, string(data))
		checked += n
		for _, p := range probs {
			t.Error(p)
		}
	}
	t.Logf("%d names checked", checked)
	if checked < 200 {
		t.Fatalf("only %d names checked in the docs; the test lost its way", checked)
	}
}

// TestDocProblemsCatchPlanted: the checker finds a stale flag, help
// topic, command and path planted in a doc, and passes the prose,
// output lines and placeholders around them.
func TestDocProblemsCatchPlanted(t *testing.T) {
	root := filepath.Join("..", "..")
	tests := []struct {
		name, text string
		want       []string // each a problem's substring, in order; none: no problem
	}{
		{"a stale flag in a command line", "Run `perflab ab HEAD~1 HEAD . --budjet 3m`.", []string{`x.md:1: perflab ab declares no flag --budjet`}},
		{"a flag of another command", "```sh\nperflab runs --budget 3m\n```\n", []string{`x.md:2: perflab runs declares no flag --budget`}},
		{"a continued command line", "```sh\nperflab ab main HEAD ./... \\\n  --fail-on 'sec/op>+5%' --frobnicate\n```\n", []string{`x.md:2: perflab ab declares no flag --frobnicate`}},
		{"a stale flag in a flag table", "| flag | what |\n|---|---|\n| `--max-round N` | the most rounds |\n", []string{`x.md:3: no command declares --max-round`}},
		{"a help topic that does not exist", "See `perflab help specs`.", []string{`x.md:1: perflab help specs: no such command or help topic`}},
		{"a command that does not exist", "```sh\nperflab frob --x\n```\n", []string{`x.md:2: perflab frob: no such command`}},
		{"a path that does not exist", "In `engine/layuot.go`, see [the CI doc](cii.md#gate).", []string{`x.md:1: link cii.md does not exist`, `x.md:1: engine/layuot.go does not exist`}},
		{"a stale flag in a flag list", "- `--budget D`, `--precission P`: sample sequentially", []string{`x.md:1: no command declares --precission`}},
		{"flags after -- belong to another command", "`perflab k8s poolreuse --shards 4 -- --quick --budget 5m`", nil},
		{"flags of another program on the line", "```sh\ngo test -bench . -count 10 > old.txt && perflab compare old.txt new.txt --fail-on 'sec/op>+5%'\n```\n", nil},
		{"prose, output lines and placeholders", "perflab runs --frob in prose is not read.\n```\nperflab bisect: skipping a4: does not build\nperflab: round 3/6 stored\n```\n`DIR/runs/run-<id>/report.md`, `$CACHE/src/rev-<hash>/`, `report.md`, [ab](ab.md) and [web](https://go.dev/x.md)", nil},
		{"a real command line", "`go run ./cmd/perflab run --quick`, `perflab help storage`, `perflab help ab`, `perflab help COMMAND`, `perflab cache prune --keep 500MB`, `--layout random|fixed`", nil},
		{"another program's flag in prose, a comment, a diagram", "Cachegrind runs with `--cache-sim=yes`.\n```\n# perflab is not on the proxy\ncmd/perflab and serve: flags in\n```\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			probs, _ := docProblems(root, "docs/x.md", tt.text)
			if len(probs) != len(tt.want) {
				t.Fatalf("problems %q, want %d like %q", probs, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if !strings.Contains(probs[i], w) {
					t.Errorf("problem %q, want %q", probs[i], w)
				}
			}
		})
	}
}

var (
	// perflabLine finds "perflab CMD" in code: perflab after a start, a
	// space or a slash (./cmd/perflab), then its command.
	perflabLine = regexp.MustCompile(`(?:^|[\s/(])perflab[ \t]+([a-z][a-z0-9]*)(:?)`)
	flagToken   = regexp.MustCompile(`^--?([A-Za-z][A-Za-z0-9.-]*)(?:=.*)?$`)
	codeSpan    = regexp.MustCompile("`([^`\n]+)`")
	mdLink      = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	placeholder = regexp.MustCompile(`^(?:[A-Z][A-Z_]*|-.*)$`) // COMMAND, TOPIC, a flag
	// repoPath is a path with a slash and an extension; a placeholder
	// (DIR/, run-<id>/, $CACHE/, *.go) is none.
	repoPath = regexp.MustCompile(`^[a-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)+\.(?:go|md|toml|txt|sh|json|yaml|s)$`)
)

// docProblems lists what the doc at name (relative to root) names that
// does not exist, each "name:line: problem", and counts what it checked.
func docProblems(root, name, text string) (probs []string, checked int) {
	lines := strings.Split(text, "\n")
	say := func(line int, format string, args ...any) {
		probs = append(probs, fmt.Sprintf("%s:%d: %s", name, line, fmt.Sprintf(format, args...)))
	}
	fence := false
	for i := 0; i < len(lines); i++ {
		line, n := lines[i], i+1
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
			continue
		}
		var codes []string
		if fence {
			// A fenced line, joined with the lines its "\" continues.
			for strings.HasSuffix(line, "\\") && i+1 < len(lines) {
				i++
				line = strings.TrimSuffix(line, "\\") + " " + lines[i]
			}
			codes = []string{line}
		} else {
			for _, m := range codeSpan.FindAllStringSubmatch(line, -1) {
				codes = append(codes, m[1])
			}
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				target, _, _ = strings.Cut(target, "#")
				checked++
				if _, err := os.Stat(filepath.Join(root, filepath.Dir(filepath.FromSlash(name)), filepath.FromSlash(target))); err != nil {
					say(n, "link %s does not exist", target)
				}
			}
		}
		for _, code := range codes {
			checked += codeProblems(root, code, func(format string, args ...any) { say(n, format, args...) })
		}
		if !fence {
			checked += flagListProblems(line, func(format string, args ...any) { say(n, format, args...) })
		}
	}
	return probs, checked
}

// codeProblems checks one code span or fenced line, saying each problem.
func codeProblems(root, code string, say func(format string, args ...any)) (checked int) {
	code = strings.TrimSpace(code)
	if repoPath.MatchString(code) && !strings.HasPrefix(code, "../") {
		checked++
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(code))); err != nil {
			say("%s does not exist", code)
		}
	}
	for _, loc := range perflabLine.FindAllStringSubmatchIndex(code, -1) {
		name := code[loc[2]:loc[3]]
		if loc[5] > loc[4] { // "perflab bisect: …": a line of output
			continue
		}
		checked++
		args := strings.Fields(code[loc[1]:])
		if name == "help" {
			if len(args) > 0 && !placeholder.MatchString(args[0]) && find(args[0]) == nil && helpTopics[args[0]] == nil {
				say("perflab help %s: no such command or help topic", args[0])
			}
			continue
		}
		c := find(name)
		if c == nil {
			if strings.HasPrefix(code, "perflab ") {
				say("perflab %s: no such command", name)
			}
			continue
		}
		fs := c.flags()
		for _, a := range args {
			if a == "--" || slices.Contains([]string{"#", "|", "&&", ";", ">", "2>"}, a) || strings.HasPrefix(a, "#") {
				break
			}
			m := flagToken.FindStringSubmatch(a)
			if m == nil {
				continue
			}
			checked++
			if fs == nil || fs.Lookup(m[1]) == nil {
				say("perflab %s declares no flag %s", name, a)
			}
		}
	}
	return checked
}

// flagListProblems checks a table row or list item whose first code span
// is a flag: some command declares each flag a code span of it starts
// with.
func flagListProblems(line string, say func(format string, args ...any)) (checked int) {
	t := strings.TrimSpace(line)
	if !strings.HasPrefix(t, "|") && !strings.HasPrefix(t, "- ") && !strings.HasPrefix(t, "* ") {
		return 0
	}
	spans := codeSpan.FindAllStringSubmatch(t, -1)
	if len(spans) == 0 || !strings.HasPrefix(spans[0][1], "--") {
		return 0
	}
	for _, sp := range spans {
		f := strings.Fields(sp[1])
		if len(f) == 0 {
			continue
		}
		if m := flagToken.FindStringSubmatch(f[0]); m != nil && strings.HasPrefix(f[0], "--") {
			checked++
			if !anyDeclares(m[1]) {
				say("no command declares --%s", m[1])
			}
		}
	}
	return checked
}

// anyDeclares reports whether some command declares the flag.
func anyDeclares(flag string) bool {
	for _, c := range commands {
		if fs := c.flags(); fs != nil && fs.Lookup(flag) != nil {
			return true
		}
	}
	return false
}
