package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/perflab/perflab/spec"
)

// ExperimentsText writes each experiment as perflab list prints it, a
// blank line between two: its name and title, the article, benchmarks
// and driver, each sweep axis with its quick and full values, each mode's
// rounds, benchtime and GOMAXPROCS, each configuration's environment and
// build flags, and each claim.
func ExperimentsText(w io.Writer, specs []*spec.Spec) error {
	for i, s := range specs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if err := experimentText(w, s); err != nil {
			return err
		}
	}
	return nil
}

func experimentText(w io.Writer, s *spec.Spec) error {
	fmt.Fprintf(w, "%s — %s\n", s.Name, s.Title)
	if s.Article != "" {
		fmt.Fprintf(w, "  article:    %s\n", s.Article)
	}
	fmt.Fprintf(w, "  benchmarks: %s (driver %s)\n", strings.Join(s.Benchmarks, ", "), s.Driver)
	for _, a := range s.Axes {
		fmt.Fprintf(w, "  axis %-6s quick %s; full %s\n", a.Key, strings.Join(a.Quick, ","), strings.Join(a.Full, ","))
	}
	for _, m := range []string{"quick", "full"} {
		if md, err := s.Mode(m); err == nil {
			fmt.Fprintf(w, "  mode %-6s %d rounds, benchtime %s, cpu %v\n", m, md.Rounds, md.Benchtime, md.CPU)
		}
	}
	for _, c := range s.Configs {
		envs := append(append(c.BuildEnv(), c.BuildFlags()...), c.ExecEnv()...)
		fmt.Fprintf(w, "  config %-12s %s\n", c.Name, strings.Join(envs, " "))
	}
	var err error
	for _, c := range s.Claims {
		_, err = fmt.Fprintf(w, "  claim %-3s %s\n", c.ID, c.Text)
	}
	return err
}
