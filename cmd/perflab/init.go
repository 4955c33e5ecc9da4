package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
)

var cmdInit = &command{
	rank:    16,
	name:    "init",
	summary: "write a spec for a package's benchmarks, to edit and run",
	usage:   "[PKG] [-bench REGEX] [-o FILE] [flags]",
	help: `
Init lists the benchmarks of a package in the current module (or -C DIR),
turns their key=value sub-benchmark levels into axes, and writes a spec
with quick and full modes and a default config. Edit it (add configs,
claims, an [analysis] axis), then run it with "perflab run FILE".

Example:
  perflab init ./codec -bench Encode -o codec.toml && perflab run codec.toml --quick`,
	docs: []string{"docs/experiments.md"},
}

func init() {
	declare := func(fs *flag.FlagSet, f *benchFlags, out *string, force *bool) {
		f.specFlags(fs)
		fs.StringVar(out, "o", "perflab.toml", "write the spec to `file`")
		fs.BoolVar(force, "force", false, "overwrite an existing file")
	}
	flagSets["init"] = func(fs *flag.FlagSet) { declare(fs, new(benchFlags), new(string), new(bool)) }
	register(cmdInit)
	cmdInit.run = func(args []string, stdout, stderr io.Writer) error {
		var f benchFlags
		var out string
		var force bool
		fs := flag.NewFlagSet("init", flag.ContinueOnError)
		declare(fs, &f, &out, &force)
		pos, err := parse(cmdInit, fs, args, stderr)
		if err != nil {
			return err
		}
		if len(pos) > 1 {
			return fmt.Errorf("want at most one package, got %q", pos)
		}
		pkg := "."
		if len(pos) == 1 {
			pkg = pos[0]
		}
		if _, err := os.Stat(out); err == nil && !force {
			return fmt.Errorf("%s exists; pass --force to overwrite it or -o to choose another file", out)
		}
		s, benches, render, err := benchSpec(context.Background(), &f, []string{pkg}, stderr)
		if err != nil {
			return err
		}
		text, err := render(out)
		if err != nil {
			return err
		}
		if err := os.WriteFile(out, text, 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", out, err)
		}
		fmt.Fprintf(stdout, "wrote %s: %d benchmarks, %d axes. Run it with: perflab run %s --quick\n", out, len(benches), len(s.Axes), out)
		return nil
	}
}
