// Command perflab runs reproducible Go performance experiments: parameter
// sweeps across build and runtime configurations, in interleaved shuffled
// rounds, with profiles, statistics, knees, crossovers and verdicts on
// published claims, stored in SQLite and written up as reports.
//
// Run "perflab help" for the commands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"unicode/utf8"
)

type command struct {
	rank    int // position in the usage list
	name    string
	summary string
	usage   string // after "perflab NAME "
	// help is what "perflab help NAME" and "perflab NAME -h" print: what
	// the command does in a few lines, and an example or two.
	help string
	// more is the rest, which "perflab help NAME --all" adds after help:
	// how it works, what it prints, its exit codes.
	more string
	// common names the most used flags, which the short help lists;
	// "--all" lists every flag. None: the short help lists every flag.
	common []string
	// docs are the repository's docs that say more (paths from its root).
	docs []string
	run  func(args []string, stdout, stderr io.Writer) error
}

// commands is every subcommand, in usage order. Each command's file
// registers it from an init function.
var commands []*command

// register adds a command; rank orders the usage list.
func register(c *command) {
	commands = append(commands, c)
	slices.SortStableFunc(commands, func(a, b *command) int { return a.rank - b.rank })
}

const intro = `perflab runs reproducible Go performance experiments.

Usage:
  perflab <command> [arguments]

Commands:
`

func usage(w io.Writer) {
	fmt.Fprint(w, intro)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
Start with:
  perflab list                      the built-in experiments and their claims
  perflab run --quick               the built-in suite, quick (under 15 minutes), then its reports

Run "perflab help <command>" for what a command does, its most used flags
and an example ("perflab help <command> --all": every flag and the
details), "perflab help spec" for the format of a spec file, and
"perflab help storage" for where runs, reports and cached test binaries
are kept.
`)
}

func main() {
	stderr, flush := logWriter(os.Stderr)
	code := Main(os.Args[1:], os.Stdout, stderr)
	flush()
	os.Exit(code)
}

// exitError ends perflab with its code. Its err, when not nil, is
// printed first ("perflab CMD: err"); a usage error (code 2) adds where
// the command's help is. Wrapped in other errors it still decides the
// code, so every command ends through this one mechanism.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// The exit codes of perflab, as "perflab help ab" and "perflab help
// compare" document them.
const (
	exitOK        = 0 // done; a gate passed
	exitFailed    = 1 // the job failed, or a gate found a change beyond a limit
	exitUsage     = 2 // a usage error: bad flags or arguments
	exitUndecided = 3 // a gate could not decide a row, under --require-decision
)

var (
	// errUsage marks an error already explained by printed usage.
	errUsage = &exitError{code: exitUsage}
	// errExit1 is returned after a command already said why it failed.
	errExit1 = &exitError{code: exitFailed}
	// errUndecided is returned after a gate said which rows it could not
	// decide, when it was asked to require a decision.
	errUndecided = &exitError{code: exitUndecided}
)

// usageError is a mistake in the command line: perflab prints it with a
// pointer to the command's help and exits 2.
func usageError(err error) error { return &exitError{code: exitUsage, err: err} }

// Main runs perflab with args and returns the exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	resetNotes(stderr)
	name := args[0]
	if name == "help" || name == "-h" || name == "--help" || name == "-help" {
		return helpCommand(args[1:], stdout, stderr)
	}
	c := find(name)
	if c == nil {
		fmt.Fprintf(stderr, "perflab: unknown command %q\n\n", name)
		usage(stderr)
		return exitUsage
	}
	err := c.run(args[1:], stdout, stderr)
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	code := exitFailed
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
		if ee.err == nil {
			return code
		}
	}
	fmt.Fprintf(stderr, "perflab %s: %v\n", name, err)
	if code == exitUsage {
		fmt.Fprintf(stderr, "Run \"perflab help %s\" for usage.\n", name)
	}
	return code
}

func find(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// helpCommand is "perflab help [COMMAND|TOPIC] [--all]".
func helpCommand(args []string, stdout, stderr io.Writer) int {
	var names []string
	all := false
	for _, a := range args {
		switch a {
		case "--all", "-all":
			all = true
		default:
			names = append(names, a)
		}
	}
	switch {
	case len(names) == 0:
		usage(stdout)
		return exitOK
	case len(names) > 1:
		fmt.Fprintf(stderr, "perflab help: want one command or topic, got %q\n", names)
		return exitUsage
	}
	if c := find(names[0]); c != nil {
		printHelp(stdout, c, all)
		return exitOK
	}
	if t, ok := helpTopics[names[0]]; ok {
		fmt.Fprint(stdout, t(all))
		return exitOK
	}
	fmt.Fprintf(stderr, "perflab: unknown command %q\n\n", names[0])
	usage(stderr)
	return exitUsage
}

// printHelp writes a command's help: with all, its details and every
// flag; without, its most used flags and where the rest is.
func printHelp(w io.Writer, c *command, all bool) {
	fmt.Fprintf(w, "Usage: perflab %s %s\n\n%s\n", c.name, c.usage, strings.TrimSpace(c.help))
	if all && c.more != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(c.more))
	}
	fs := c.flags()
	hidden := false
	if fs != nil {
		title := "Flags:"
		if !all && len(c.common) > 0 {
			fs, hidden = commonFlags(fs, c.common)
			title = "Most used flags:"
		}
		fmt.Fprintf(w, "\n%s\n", title)
		fs.SetOutput(w)
		fs.PrintDefaults()
	}
	fmt.Fprintln(w)
	if !all && (hidden || c.more != "") {
		what := "The details"
		if hidden {
			what = "Every flag and the details"
		}
		fmt.Fprintf(w, "%s: perflab help %s --all\n", what, c.name)
	}
	if len(c.docs) > 0 {
		fmt.Fprintf(w, "Docs: %s\n", strings.Join(c.docs, ", "))
	}
}

// commonFlags is the flag set holding only the named flags of fs, and
// whether fs has others.
func commonFlags(fs *flag.FlagSet, names []string) (*flag.FlagSet, bool) {
	sub := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	for _, n := range names {
		if f := fs.Lookup(n); f != nil {
			sub.Var(f.Value, f.Name, f.Usage)
		}
	}
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return sub, n > len(names)
}

// flags returns the command's flag set, for help output.
func (c *command) flags() *flag.FlagSet {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if f, ok := flagSets[c.name]; ok {
		f(fs)
		return fs
	}
	return nil
}

// flagger is a command's set of flags.
type flagger interface{ declare(fs *flag.FlagSet) }

// define registers c with the flags of type F: help output and parsing
// declare them alike, and run gets them parsed with the positional
// arguments (flags may come before, between or after them).
func define[F any, PF interface {
	*F
	flagger
}](c *command, run func(f PF, pos []string, stdout, stderr io.Writer) error) {
	flagSets[c.name] = func(fs *flag.FlagSet) { PF(new(F)).declare(fs) }
	register(c)
	c.run = func(args []string, stdout, stderr io.Writer) error {
		f := PF(new(F))
		fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
		f.declare(fs)
		pos, err := parse(c, fs, args, stderr)
		if err != nil {
			return err
		}
		return run(f, pos, stdout, stderr)
	}
}

// flagSets declares each command's flags into a FlagSet; the command's run
// function declares them the same way, so help and parsing agree.
var flagSets = map[string]func(*flag.FlagSet){}

// parse parses flags that may come before, between or after positional
// arguments ("perflab run poolreuse --quick"). "--" ends flag parsing.
func parse(c *command, fs *flag.FlagSet, args []string, stderr io.Writer) ([]string, error) {
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				printHelp(stderr, c, false)
				return nil, flag.ErrHelp
			}
			fmt.Fprintf(stderr, "perflab %s: %v\nRun \"perflab help %s\" for usage.\n", c.name, err, c.name)
			return nil, errUsage
		}
		rest := fs.Args()
		// Parse ends at "--" and consumes it: what follows is positional.
		dashes := len(rest) < len(args) && args[len(args)-len(rest)-1] == "--"
		args = rest
		if dashes || len(args) == 0 {
			pos = append(pos, args...)
			if err := checkFlags(fs); err != nil {
				fmt.Fprintf(stderr, "perflab %s: %v\nRun \"perflab help %s\" for usage.\n", c.name, err, c.name)
				return nil, errUsage
			}
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// interruptible returns a context cancelled by Ctrl-C or SIGTERM. After
// the first signal the default handling is restored, so a second Ctrl-C
// ends perflab at once.
func interruptible() (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() { <-ctx.Done(); stop() }()
	return ctx, stop
}

// wrapText breaks a paragraph into lines of at most width columns (a
// longer word stands alone), for help texts built from constants.
func wrapText(s string, width int) string {
	var b strings.Builder
	n := 0
	for _, w := range strings.Fields(s) {
		l := utf8.RuneCountInString(w)
		switch {
		case n == 0:
		case n+1+l > width:
			b.WriteByte('\n')
			n = 0
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += l
	}
	return b.String()
}
