// Command dpm measures how often and how fast a benchmark tool answers
// "is my change faster?": decisions per minute on changes whose size is
// known. It is a measurement program, not part of perflab.
//
// Its subjects are commits on two real modules from the module proxy
// (github.com/tidwall/gjson and github.com/bits-and-blooms/bitset), each
// with a benchmark file of its own: planted slowdowns of about 2%, 5% and
// 10% in executed work, sized by Cachegrind's instructions/op, and a
// layout-only change that moves the package's code and executes the same
// instructions. It runs perflab ab on them, one binary or two alternately,
// and the same budget spent by go test -count and benchstat, then scores
// every tool: rows decided per minute, correct and false decisions, the
// median interval half-width, and how often a 5% gate passes on the
// layout-only change.
//
//	go run ./scripts/dpm prepare -dir /tmp/dpm
//	go run ./scripts/dpm run -dir /tmp/dpm -perflab base=/work/bin/perflab-base,new=/tmp/perflab -budget 90s,3m -trials 2
//	go run ./scripts/dpm score /tmp/dpm/trials-*.jsonl
//
// See docs/dpm.md, and dpm CMD -h for each command's flags.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

const usage = `Usage: dpm prepare|run|score [flags]

dpm measures decisions per minute: how many benchmark rows a tool decides
in a minute of wall time on changes of known size, and how many of those
decisions are false.

  dpm prepare -dir D                 make the subjects: two real modules, each
                                     with planted slowdowns of about 2/5/10%
                                     (by Cachegrind's instructions/op) and a
                                     layout-only change; writes D/manifest.json
  dpm run -dir D -perflab A[,B] -budget 90s[,3m] -trials N [-subjects PATTERNS]
                                     run perflab ab (each binary alternately)
                                     and go test -count + benchstat on every
                                     subject, each on the same budget; append
                                     every trial to a JSON-lines file and print
                                     the scores
  dpm score FILE...                  print the scores of recorded trials

Run dpm CMD -h for a command's flags; docs/dpm.md says how to read the
table.
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch os.Args[1] {
	case "prepare":
		err = cmdPrepare(ctx, os.Args[2:])
	case "run":
		err = cmdRun(ctx, os.Args[2:])
	case "score":
		err = cmdScore(os.Args[2:])
	case "-h", "-help", "--help", "help":
		fmt.Print(usage)
		return
	default:
		fmt.Fprintf(os.Stderr, "dpm: unknown command %q\n\n%s", os.Args[1], usage)
		os.Exit(2)
	}
	if err != nil {
		if errors.Is(ctx.Err(), context.Canceled) {
			fmt.Fprintln(os.Stderr, "dpm: interrupted:", err)
			os.Exit(130)
		}
		fmt.Fprintln(os.Stderr, "dpm:", err)
		os.Exit(1)
	}
}
