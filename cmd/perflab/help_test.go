package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perflab/perflab/spec"
)

// TestHelpShortAndAll: "perflab help COMMAND" is a page one reads at a
// glance (what it does, its most used flags, an example, where the rest
// is), and "--all" adds every flag and the details. Every flag the short
// page names exists, so a renamed flag cannot drop out of it unseen.
func TestHelpShortAndAll(t *testing.T) {
	const maxShort = 4000 // bytes of a short page, its flags' help included
	for _, c := range commands {
		short, _, code := perflab(t, "help", c.name)
		if code != 0 {
			t.Fatalf("help %s: exit %d", c.name, code)
		}
		all, _, code := perflab(t, "help", c.name, "--all")
		if code != 0 {
			t.Fatalf("help %s --all: exit %d", c.name, code)
		}
		if len(short) > maxShort {
			t.Errorf("help %s prints %d bytes, want at most %d: move details to its more text", c.name, len(short), maxShort)
		}
		if !strings.HasPrefix(all, strings.TrimSuffix(strings.SplitN(short, "\nMost used flags:", 2)[0], "\n")) {
			t.Errorf("help %s --all does not begin with the short page's text", c.name)
		}
		fs := c.flags()
		if fs == nil {
			continue
		}
		for _, name := range c.common {
			if fs.Lookup(name) == nil {
				t.Errorf("help %s lists the flag %q, which %s does not declare", c.name, name, c.name)
			} else if !strings.Contains(short, "\n  -"+name) {
				t.Errorf("help %s lacks its common flag -%s:\n%s", c.name, name, short)
			}
		}
		hidden := 0
		fs.VisitAll(func(f *flag.Flag) {
			if !strings.Contains(all, "\n  -"+f.Name+" ") && !strings.Contains(all, "\n  -"+f.Name+"\n") && !strings.Contains(all, "\n  -"+f.Name+"\t") {
				t.Errorf("help %s --all lacks the flag -%s", c.name, f.Name)
			}
			if !strings.Contains(short, "\n  -"+f.Name) {
				hidden++
			}
		})
		if hidden > 0 && !strings.Contains(short, "perflab help "+c.name+" --all") {
			t.Errorf("help %s leaves out %d flags without saying where they are:\n%s", c.name, hidden, short)
		}
		for _, d := range c.docs {
			if _, err := os.Stat(filepath.Join("..", "..", filepath.FromSlash(d))); err != nil {
				t.Errorf("help %s points to %s: %v", c.name, d, err)
			}
		}
	}
	// "perflab COMMAND -h" is the short page.
	_, stderr, _ := perflab(t, "ab", "-h")
	if short, _, _ := perflab(t, "help", "ab"); stderr != short {
		t.Errorf("perflab ab -h is not perflab help ab:\n%s", stderr)
	}
	if _, stderr, code := perflab(t, "help", "ab", "bisect"); code != 2 || !strings.Contains(stderr, "want one command or topic") {
		t.Errorf("help ab bisect: exit %d, %q", code, stderr)
	}
}

// TestHelpSpec: the spec page's example is a spec perflab accepts, and
// "--all" prints the whole format.
func TestHelpSpec(t *testing.T) {
	if _, err := spec.Parse("reuse.toml", []byte(smallSpec)); err != nil {
		t.Errorf("the example of perflab help spec does not parse: %v", err)
	}
	short, _, _ := perflab(t, "help", "spec")
	all, _, _ := perflab(t, "help", "spec", "--all")
	if !strings.Contains(short, "[[claim.check]]") || !strings.Contains(short, "perflab help spec --all") {
		t.Errorf("help spec lacks its example or where the rest is:\n%s", short)
	}
	if !strings.Contains(all, spec.Doc()) {
		t.Errorf("help spec --all is not the whole format")
	}
	for _, s := range specSections() {
		if !strings.Contains(all, "\n"+strings.ToUpper(s)+"\n") {
			t.Errorf("section %q is not a heading of the format", s)
		}
	}
	if len(specSections()) < 5 {
		t.Errorf("the spec format's sections: %q, want its headings", specSections())
	}
}
