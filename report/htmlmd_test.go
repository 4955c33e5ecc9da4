package report

import (
	"regexp"
	"strings"
	"testing"
)

func renderMD(md string) string {
	var b strings.Builder
	for _, blk := range mdBlocks(strings.Split(md, "\n")) {
		blk.render(&b)
	}
	return b.String()
}

func TestMarkdownBlocks(t *testing.T) {
	for _, tc := range []struct {
		name, md string
		want     []string
		not      []string
	}{
		{"paragraph", "Median time, **bold** and `code` and *heap lock*.\nsecond line\n",
			[]string{`<p class="note">Median time, <b>bold</b> and <code>code</code> and <i>heap lock</i>. second line</p>`}, nil},
		{"table", "| cell | a \\| b |\n|---|---|\n| x | **1.5** |\n",
			[]string{"<tr><th>cell</th><th>a | b</th></tr>", "<tr><td>x</td><td><b>1.5</b></td></tr>"}, []string{"---"}},
		{"details", "<details><summary>3 series without a knee</summary>\n\n| s | why |\n|---|---|\n| a | flat |\n\n</details>\n",
			[]string{"<details><summary>3 series without a knee</summary>", "<td>flat</td>", "</details>"}, nil},
		{"nested details", "<details><summary>outer</summary>\n<details><summary>inner</summary>\ntext\n</details>\n</details>\n",
			[]string{"<summary>outer</summary>", "<summary>inner</summary>", "</details>\n</details>"}, nil},
		{"unclosed details", "<details><summary>open</summary>\n\ntext\n", []string{"<summary>open</summary>", "text"}, nil},
		{"quote", "> This run was interrupted.\n", []string{`<p class="warn">This run was interrupted.</p>`}, nil},
		{"list", "- one\n- two\n", []string{"<ul><li>one</li><li>two</li></ul>"}, nil},
		{"escapes", "<script>alert(1)</script> & <b>x</b>\n| <img src=x> |\n",
			[]string{"&lt;script&gt;", "&amp;", "&lt;img src=x&gt;"}, []string{"<script", "<img", "<b>x</b>"}},
		{"stray close", "</details>\ntext\n", []string{"text"}, []string{"</details>"}},
	} {
		got := renderMD(tc.md)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: output lacks %q:\n%s", tc.name, w, got)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(got, n) {
				t.Errorf("%s: output holds %q:\n%s", tc.name, n, got)
			}
		}
	}
}

func TestSplitSections(t *testing.T) {
	secs := splitSections("# T\n\nintro\n\n## Claims\n\nx\n## Stages\n\n| a |\n")
	if len(secs) != 3 || secs[1].title != "Claims" || secs[2].title != "Stages" {
		t.Fatalf("sections %+v", secs)
	}
}

// FuzzMarkdownBlocks: the converter takes text that holds benchmark names
// and messages from the database; whatever it is given, it does not panic
// and emits no markup of its own making beyond its fixed tags.
func FuzzMarkdownBlocks(f *testing.F) {
	for _, s := range []string{
		"## x\n| a | b |\n|---|---|\n| 1 | 2 |\n",
		"<details><summary>s</summary>\n\n</details>",
		"<details><summary><details><summary>x</summary></summary>\n",
		"**`*x*`**", "|\\|", "> q\n- l\n### h\n", "\xff\x00|",
	} {
		f.Add(s)
	}
	allowed := map[string]bool{"details": true, "summary": true, "h3": true, "div": true, "table": true, "tr": true, "th": true, "td": true, "p": true, "ul": true, "li": true, "code": true, "b": true, "i": true}
	tag := regexp.MustCompile(`<(/?)([^\s>/]*)`)
	f.Fuzz(func(t *testing.T, s string) {
		out := renderMD(s)
		for _, m := range tag.FindAllStringSubmatch(out, -1) {
			if !allowed[m[2]] {
				t.Fatalf("output of %q holds a <%s> tag: %s", s, m[2], out)
			}
		}
	})
}
