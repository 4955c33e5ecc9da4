package report

import (
	"bytes"
	"html"
	"html/template"
	"regexp"
	"slices"
	"strings"

	"github.com/perflab/perflab/analysis"
)

// markdownExtras returns, as HTML, every part of the Markdown report that
// the HTML report does not draw itself: sections such as stages,
// correctness, scaling or profile shares, and collapsed blocks such as the
// series without a knee. The HTML report thereby holds everything the
// Markdown report holds, including sections added to it later.
func markdownExtras(in *Input) template.HTML {
	var md bytes.Buffer
	if err := Markdown(&md, in); err != nil {
		return ""
	}
	units := analysis.Units(in.Samples)
	native := func(title string) bool {
		for _, p := range []string{"Claims", "Environment", "Crossovers along ", "Knees (", "Not applicable", "Failures", "Artifacts"} {
			if strings.HasPrefix(title, p) {
				return true
			}
		}
		return slices.Contains(units, title)
	}
	var out strings.Builder
	for i, sec := range splitSections(md.String()) {
		if i == 0 {
			continue // the title block, drawn natively
		}
		blocks := mdBlocks(sec.body)
		if native(sec.title) {
			// Keep only collapsed blocks that are not a unit's table.
			var keep []mdBlock
			for _, b := range blocks {
				if b.kind == "details" && !slices.Contains(units, b.summary) {
					keep = append(keep, b)
				}
			}
			if len(keep) == 0 {
				continue
			}
			out.WriteString(`<section class="extra">`)
			for _, b := range keep {
				b.render(&out)
			}
			out.WriteString("</section>\n")
			continue
		}
		out.WriteString(`<section class="extra"><h2>` + mdInline(sec.title) + "</h2>\n")
		for _, b := range blocks {
			b.render(&out)
		}
		out.WriteString("</section>\n")
	}
	return template.HTML(out.String())
}

type mdSection struct {
	title string
	body  []string
}

// splitSections cuts Markdown at its "## " headings; section 0 is what
// precedes the first.
func splitSections(md string) []mdSection {
	secs := []mdSection{{}}
	for _, line := range strings.Split(md, "\n") {
		if t, ok := strings.CutPrefix(line, "## "); ok {
			secs = append(secs, mdSection{title: strings.TrimSpace(t)})
			continue
		}
		secs[len(secs)-1].body = append(secs[len(secs)-1].body, line)
	}
	return secs
}

// mdBlock is a paragraph, table, quote, list or a collapsed <details>
// block holding blocks.
type mdBlock struct {
	kind    string // "p", "table", "quote", "list", "details", "h3"
	lines   []string
	summary string
	inner   []mdBlock
}

var summaryRE = regexp.MustCompile(`^<details><summary>(.*)</summary>\s*$`)

// mdBlocks parses the subset of Markdown perflab's report writers emit.
func mdBlocks(lines []string) []mdBlock {
	var out []mdBlock
	for i := 0; i < len(lines); {
		line := strings.TrimRight(lines[i], " \t")
		switch {
		case line == "":
			i++
		case summaryRE.MatchString(line):
			depth, j := 1, i+1
			for ; j < len(lines) && depth > 0; j++ {
				if summaryRE.MatchString(strings.TrimSpace(lines[j])) {
					depth++
				}
				if strings.TrimSpace(lines[j]) == "</details>" {
					depth--
				}
			}
			end := j
			if depth == 0 {
				end = j - 1 // the closing line
			}
			out = append(out, mdBlock{kind: "details", summary: summaryRE.FindStringSubmatch(line)[1], inner: mdBlocks(lines[i+1 : end])})
			i = j
		case strings.TrimSpace(line) == "</details>":
			i++ // unbalanced; dropped
		case strings.HasPrefix(line, "### "):
			out = append(out, mdBlock{kind: "h3", lines: []string{strings.TrimPrefix(line, "### ")}})
			i++
		default:
			kind := "p"
			switch {
			case strings.HasPrefix(line, "|"):
				kind = "table"
			case strings.HasPrefix(line, ">"):
				kind = "quote"
			case strings.HasPrefix(line, "- "), strings.HasPrefix(line, "* "):
				kind = "list"
			}
			b := mdBlock{kind: kind}
			for ; i < len(lines); i++ {
				l := strings.TrimRight(lines[i], " \t")
				if l == "" || summaryRE.MatchString(l) || strings.TrimSpace(l) == "</details>" || strings.HasPrefix(l, "### ") {
					break
				}
				if kind == "table" && !strings.HasPrefix(l, "|") {
					break
				}
				b.lines = append(b.lines, l)
			}
			out = append(out, b)
		}
	}
	return out
}

func (b mdBlock) render(w *strings.Builder) {
	switch b.kind {
	case "details":
		w.WriteString("<details><summary>" + mdInline(b.summary) + "</summary>\n")
		for _, in := range b.inner {
			in.render(w)
		}
		w.WriteString("</details>\n")
	case "h3":
		w.WriteString("<h3>" + mdInline(b.lines[0]) + "</h3>\n")
	case "table":
		w.WriteString(`<div class="scroll"><table>`)
		for i, l := range b.lines {
			cells := tableCells(l)
			if i == 1 && isSeparator(cells) {
				continue
			}
			tag := "td"
			if i == 0 {
				tag = "th"
			}
			w.WriteString("<tr>")
			for _, c := range cells {
				w.WriteString("<" + tag + ">" + mdInline(c) + "</" + tag + ">")
			}
			w.WriteString("</tr>")
		}
		w.WriteString("</table></div>\n")
	case "quote":
		var parts []string
		for _, l := range b.lines {
			parts = append(parts, strings.TrimSpace(strings.TrimPrefix(l, ">")))
		}
		w.WriteString(`<p class="warn">` + mdInline(strings.Join(parts, " ")) + "</p>\n")
	case "list":
		w.WriteString("<ul>")
		for _, l := range b.lines {
			l = strings.TrimPrefix(strings.TrimPrefix(l, "- "), "* ")
			w.WriteString("<li>" + mdInline(l) + "</li>")
		}
		w.WriteString("</ul>\n")
	default:
		w.WriteString(`<p class="note">` + mdInline(strings.Join(b.lines, " ")) + "</p>\n")
	}
}

// tableCells splits a Markdown table row on its unescaped pipes.
func tableCells(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(line, "|")
	if strings.HasSuffix(line, "|") && !strings.HasSuffix(line, `\|`) {
		line = line[:len(line)-1]
	}
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && i+1 < len(line) && line[i+1] == '|':
			cur.WriteByte('|')
			i++
		case line[i] == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(line[i])
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

func isSeparator(cells []string) bool {
	for _, c := range cells {
		if strings.Trim(c, "-: ") != "" {
			return false
		}
	}
	return true
}

var (
	codeRE   = regexp.MustCompile("`([^`]+)`")
	boldRE   = regexp.MustCompile(`\*\*([^*]+)\*\*`)
	italicRE = regexp.MustCompile(`(^|[\s(])\*([^*\s][^*]*)\*`)
)

// mdInline escapes text and renders `code`, **bold** and *emphasis*.
func mdInline(s string) string {
	s = html.EscapeString(s)
	s = codeRE.ReplaceAllString(s, "<code>$1</code>")
	s = boldRE.ReplaceAllString(s, "<b>$1</b>")
	return italicRE.ReplaceAllString(s, "$1<i>$2</i>")
}
