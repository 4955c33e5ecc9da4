package report

import (
	"fmt"
	"html/template"
	"io"
	"strings"
)

// The reports are built once as typed sections ([Section]) from a run's
// findings; Markdown and HTML are two renderings of the same sections, so
// what one report says the other says too.

// Section is one titled part of a report.
type Section struct {
	ID     string // HTML id
	Title  string
	Blocks []Block
}

// Block is one of: a paragraph (Text), a table, a folded group of blocks,
// or HTML-only content (a chart), which Markdown leaves out.
type Block struct {
	Text    Inline
	Table   *Table
	Details *Details
	HTML    template.HTML
}

// Details is a folded group of blocks.
type Details struct {
	Summary string
	Blocks  []Block
}

// Table is a table with a header row.
type Table struct {
	Class string // HTML class
	Head  []string
	Rows  []Row
}

// Row is one table row.
type Row struct {
	Class, ID string // HTML class and id
	Cells     []Cell
}

// Cell is one table cell: its text, and what HTML adds to it.
type Cell struct {
	Text   Inline
	Strong bool
	Tip    string        // HTML title
	Class  string        // HTML class
	Links  []Link        // HTML links after the text (Markdown shows the text)
	Plot   template.HTML // HTML drawing after the text
	Href   string        // the text links here in HTML
	Note   *Note         // a footnote to the text
}

// Note is a table cell's footnote: a long text the cell refers to.
// Markdown writes " [Mark]" after the cell's text and the notes after the
// table, in the order of their cells; HTML folds the note into the cell
// under "[Mark]", unfolded when Open.
type Note struct {
	Mark string
	Text Inline
	Open bool
}

// Inline is text with `code` spans: each odd element is code.
type Inline []string

// Plain is text without code spans.
func Plain(s string) Inline { return Inline{s} }

// Code is text with `backquoted` spans as code.
func Code(s string) Inline { return Inline(strings.Split(s, "`")) }

// String returns the text without markup.
func (t Inline) String() string { return strings.Join(t, "") }

func para(s string) Block { return Block{Text: Code(s)} }

func cell(s string) Cell { return Cell{Text: Plain(s)} }

func cells(ss ...string) []Cell {
	out := make([]Cell, len(ss))
	for i, s := range ss {
		out[i] = cell(s)
	}
	return out
}

// ---- Markdown ----

func writeMarkdownSections(w io.Writer, secs []Section) {
	for _, s := range secs {
		fmt.Fprintf(w, "## %s\n\n", esc(s.Title))
		mdBlocks(w, s.Blocks)
	}
}

func mdBlocks(w io.Writer, bs []Block) {
	for _, b := range bs {
		switch {
		case b.Table != nil:
			mdTable(w, b.Table)
		case b.Details != nil:
			fmt.Fprintf(w, "<details><summary>%s</summary>\n\n", esc(b.Details.Summary))
			mdBlocks(w, b.Details.Blocks)
			fmt.Fprint(w, "</details>\n\n")
		case len(b.Text) > 0:
			fmt.Fprintf(w, "%s\n\n", mdInline(b.Text))
		}
	}
}

func mdTable(w io.Writer, t *Table) {
	fmt.Fprint(w, "|")
	for _, h := range t.Head {
		fmt.Fprintf(w, " %s |", esc(h))
	}
	fmt.Fprintf(w, "\n|%s\n", strings.Repeat("---|", len(t.Head)))
	var notes []*Note
	for _, r := range t.Rows {
		fmt.Fprint(w, "|")
		for _, c := range r.Cells {
			text := esc(mdInline(c.Text))
			if c.Strong && text != "" {
				text = "**" + text + "**"
			}
			if c.Note != nil {
				text = strings.TrimSpace(text + " [" + c.Note.Mark + "]")
				notes = append(notes, c.Note)
			}
			if text == "" {
				fmt.Fprint(w, " |")
				continue
			}
			fmt.Fprintf(w, " %s |", text)
		}
		fmt.Fprint(w, "\n")
	}
	fmt.Fprint(w, "\n")
	for _, n := range notes {
		fmt.Fprintf(w, "- [%s] %s\n", n.Mark, strings.ReplaceAll(mdInline(n.Text), "\n", " "))
	}
	if len(notes) > 0 {
		fmt.Fprint(w, "\n")
	}
}

func mdInline(t Inline) string {
	var b strings.Builder
	for i, s := range t {
		if i%2 == 1 && s != "" {
			b.WriteString("`" + s + "`")
		} else {
			b.WriteString(s)
		}
	}
	return b.String()
}

// ---- HTML ----

func htmlSections(secs []Section) template.HTML {
	var b strings.Builder
	for _, s := range secs {
		fmt.Fprintf(&b, "<section id=\"%s\">\n<h2>%s</h2>\n", template.HTMLEscapeString(s.ID), template.HTMLEscapeString(s.Title))
		htmlBlocks(&b, s.Blocks)
		b.WriteString("</section>\n")
	}
	return template.HTML(b.String())
}

func htmlBlocks(b *strings.Builder, bs []Block) {
	for _, bl := range bs {
		switch {
		case bl.Table != nil:
			htmlTable(b, bl.Table)
		case bl.Details != nil:
			fmt.Fprintf(b, "<details><summary>%s</summary>\n", template.HTMLEscapeString(bl.Details.Summary))
			htmlBlocks(b, bl.Details.Blocks)
			b.WriteString("</details>\n")
		case bl.HTML != "":
			b.WriteString(string(bl.HTML))
			b.WriteString("\n")
		case len(bl.Text) > 0:
			fmt.Fprintf(b, "<p class=\"note\">%s</p>\n", htmlInline(bl.Text))
		}
	}
}

func htmlTable(b *strings.Builder, t *Table) {
	b.WriteString(`<div class="scroll"><table`)
	if t.Class != "" {
		fmt.Fprintf(b, ` class="%s"`, template.HTMLEscapeString(t.Class))
	}
	b.WriteString("><thead><tr>")
	for _, h := range t.Head {
		fmt.Fprintf(b, "<th>%s</th>", template.HTMLEscapeString(h))
	}
	b.WriteString("</tr></thead>\n<tbody>")
	for _, r := range t.Rows {
		b.WriteString("<tr")
		if r.Class != "" {
			fmt.Fprintf(b, ` class="%s"`, template.HTMLEscapeString(r.Class))
		}
		if r.ID != "" {
			fmt.Fprintf(b, ` id="%s"`, template.HTMLEscapeString(r.ID))
		}
		b.WriteString(">")
		for _, c := range r.Cells {
			b.WriteString("<td")
			if c.Class != "" {
				fmt.Fprintf(b, ` class="%s"`, template.HTMLEscapeString(c.Class))
			}
			if c.Tip != "" {
				fmt.Fprintf(b, ` title="%s"`, template.HTMLEscapeString(c.Tip))
			}
			b.WriteString(">")
			text := htmlInline(c.Text)
			if c.Href != "" {
				text = fmt.Sprintf(`<a href="%s">%s</a>`, template.HTMLEscapeString(c.Href), text)
			}
			if c.Strong && text != "" {
				text = "<b>" + text + "</b>"
			}
			b.WriteString(text)
			if n := c.Note; n != nil {
				open := ""
				if n.Open {
					open = " open"
				}
				fmt.Fprintf(b, `<details class="cellnote"%s><summary>[%s]</summary><div>%s</div></details>`, open, template.HTMLEscapeString(n.Mark), htmlInline(n.Text))
			}
			for _, l := range c.Links {
				fmt.Fprintf(b, ` <a class="artifact" href="%s">%s</a>`, template.HTMLEscapeString(l.Href), template.HTMLEscapeString(l.Text))
			}
			if c.Plot != "" {
				b.WriteString(string(c.Plot))
			}
			b.WriteString("</td>")
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody></table></div>\n")
}

func htmlInline(t Inline) string {
	var b strings.Builder
	for i, s := range t {
		if i%2 == 1 && s != "" {
			b.WriteString("<code>" + template.HTMLEscapeString(s) + "</code>")
		} else {
			b.WriteString(template.HTMLEscapeString(s))
		}
	}
	return b.String()
}
