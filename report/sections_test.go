package report_test

import (
	"html"
	"strings"
	"testing"
)

// sameSections checks that every Markdown heading is an HTML heading and
// every Markdown table cell's text is in the HTML page, in order; it
// returns the number of cells compared.
func sameSections(t *testing.T, md, page string) int {
	t.Helper()
	text := html.UnescapeString(tagRE.ReplaceAllString(page, " "))
	text = strings.Join(strings.Fields(text), " ")
	cells, rest := 0, text
	for _, line := range strings.Split(md, "\n") {
		if h, ok := strings.CutPrefix(line, "## "); ok && !strings.Contains(page, "<h2>"+html.EscapeString(h)+"</h2>") {
			t.Errorf("Markdown section %q is not an HTML section", h)
		}
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "|---") {
			continue
		}
		line = strings.ReplaceAll(line, `\|`, "\x00")
		for _, c := range strings.Split(strings.Trim(line, "|"), "|") {
			c = strings.TrimSpace(strings.ReplaceAll(c, "\x00", "|"))
			c = strings.Join(strings.Fields(strings.ReplaceAll(strings.Trim(c, "*"), "`", "")), " ")
			if c == "" {
				continue
			}
			cells++
			i := strings.Index(rest, c)
			if i < 0 {
				t.Fatalf("Markdown cell %q is not in the HTML page after the cells before it", c)
			}
			rest = rest[i+len(c):]
		}
	}
	return cells
}
