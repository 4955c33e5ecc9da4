package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"

	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/report"
)

// declareHTMLFlag adds "report --html".
func declareHTMLFlag(fs *flag.FlagSet, html *bool) {
	fs.BoolVar(html, "html", false, "write the self-contained HTML report (charts, tables, claims) instead of Markdown")
}

// writeHTML writes a run's HTML report to w; dir is where the file lands
// ("" for stdout), so artifacts inside it are linked by relative path.
func writeHTML(w io.Writer, in *findings.Run, dir string) error {
	return report.HTML(w, in, report.HTMLOptions{Dir: dir, ArticleHref: articleHref})
}

// writeRunHTML writes report.html into a run's artifact directory and
// returns its path.
func writeRunHTML(dir string, in *findings.Run) (string, error) {
	var buf bytes.Buffer
	if err := writeHTML(&buf, in, dir); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "report.html")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return "", fmt.Errorf("writing HTML report: %w", err)
	}
	return path, nil
}

// articlesDir finds the directory holding the articles the built-in
// experiments reproduce: $PERFLAB_ARTICLES, else shared/articles or
// articles in the working directory or one of its parents. It returns ""
// when there is none.
func articlesDir() string {
	if d := os.Getenv("PERFLAB_ARTICLES"); d != "" {
		return d
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for d := wd; ; d = filepath.Dir(d) {
		for _, c := range []string{filepath.Join(d, "shared", "articles"), filepath.Join(d, "articles")} {
			if st, err := os.Stat(c); err == nil && st.IsDir() {
				return c
			}
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// articleHref links an article by file:// URL when its file is found, and
// by its bare name otherwise.
func articleHref(name string) string {
	if d := articlesDir(); d != "" {
		p := filepath.Join(d, filepath.Base(name))
		if _, err := os.Stat(p); err == nil {
			if abs, err := filepath.Abs(p); err == nil {
				p = abs
			}
			return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String()
		}
	}
	return (&url.URL{Path: name}).String()
}

// outDir is the directory of an output file; "" for stdout.
func outDir(out string) string {
	if out == "" {
		return ""
	}
	return filepath.Dir(out)
}
