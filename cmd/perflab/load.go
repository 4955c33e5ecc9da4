package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/driver/load"
	"github.com/perflab/perflab/report"
)

var cmdLoad = &command{
	rank:    70,
	name:    "load",
	summary: "send HTTP load to a local URL and print a latency percentile table",
	usage:   "URL [--rate R] [--duration D] [flags]",
	help: `
Load sends HTTP/1.1 GET requests to URL for --duration and prints the
throughput, a table of latency percentiles and the generator's health.

With --rate it follows the open model: requests are due at fixed intended
times whatever the server does, and latency is measured from those times
(coordinated-omission-correct) beside the service time from the actual send.
Without --rate it follows the closed model: --conns connections each send
the next request as soon as a response arrives, which measures peak
throughput.

Only loopback targets (127.0.0.0/8, ::1, or a name resolving only to them)
are accepted unless --allow-remote is given; a refused target never receives
a packet. Every run is bounded by --duration and --max-requests.

If the generator could not keep up (late dispatches or its CPU saturated),
the step is marked INVALID: it measured the generator, not the target.

Examples:
  perflab load http://127.0.0.1:8080/order/42 --rate 1000 --duration 5s
  perflab load http://localhost:8080/ --conns 32 --duration 10s --cpus 0
  perflab load http://127.0.0.1:8080/ --rate 5k --hdr-log step.hlog --bench-out step.txt`,
	docs: []string{"docs/experiments.md"},
}

type loadFlags struct {
	rate, duration, drain string
	conns                 int
	maxRequests           int64
	headers               headerList
	allowRemote           bool
	cpus                  string
	hdrLog, benchOut      string
	name                  string
}

type headerList []string

func (h *headerList) String() string     { return strings.Join(*h, "; ") }
func (h *headerList) Set(v string) error { *h = append(*h, v); return nil }

func (f *loadFlags) declare(fs *flag.FlagSet) {
	fs.StringVar(&f.rate, "rate", "", "open-model `rate` in requests per second (1000, 2.5k, 50k/s); empty: closed model")
	fs.StringVar(&f.duration, "duration", "10s", "how long to send requests (at most 30m)")
	fs.StringVar(&f.drain, "drain", "2s", "how long to wait for responses after the last request is due")
	fs.IntVar(&f.conns, "conns", 0, "connections: most requests in flight (open model, default 64) or concurrency (closed, default 16)")
	fs.Int64Var(&f.maxRequests, "max-requests", 0, "stop after this many requests (default: rate × duration; closed model 100,000,000)")
	fs.Var(&f.headers, "header", "extra request header `\"Name: value\"` (repeatable)")
	fs.BoolVar(&f.allowRemote, "allow-remote", false, "allow a target outside 127.0.0.0/8 and ::1 (only for machines you are responsible for)")
	fs.StringVar(&f.cpus, "cpus", "", "pin the generator to these CPUs, e.g. 0 or 0-1,4 (Linux)")
	fs.StringVar(&f.hdrLog, "hdr-log", "", "write the latency and service-time histograms to this `file` (HdrHistogram log format)")
	fs.StringVar(&f.benchOut, "bench-out", "", "write the step as a Go benchmark record to this `file` (read by perflab analyze and benchstat)")
	fs.StringVar(&f.name, "name", "BenchmarkLoad", "benchmark name of the record written by --bench-out")
}

func init() {
	define(cmdLoad, func(f *loadFlags, pos []string, stdout, stderr io.Writer) error {
		if len(pos) != 1 {
			fmt.Fprintf(stderr, "perflab load: give exactly one target URL\nRun \"perflab help load\" for usage.\n")
			return errUsage
		}
		step, err := f.step(pos[0])
		if err != nil {
			return err
		}
		ctx, stop := interruptible()
		defer stop()
		target, err := load.Resolve(ctx, step.Target.URL, f.allowRemote, nil)
		if err != nil {
			return err
		}
		step.Target = target
		if f.cpus != "" {
			cpus, err := parseCPUSet(f.cpus)
			if err != nil {
				return err
			}
			restore, err := load.PinCPUs(cpus)
			if err != nil {
				return err
			}
			defer restore()
		}
		res, err := load.Run(ctx, step)
		if err != nil && res == nil {
			return err
		}
		if err := report.LoadText(stdout, res); err != nil {
			return err
		}
		if f.hdrLog != "" {
			if err := writeLoadFile(f.hdrLog, func(w io.Writer) error { return res.WriteHDRLog(w, "") }); err != nil {
				return err
			}
		}
		if f.benchOut != "" {
			if res.Health.Limited {
				fmt.Fprintf(stderr, "perflab load: not writing %s: the step was limited by the generator\n", f.benchOut)
				return errExit1
			}
			if !strings.HasPrefix(f.name, "Benchmark") || strings.ContainsAny(f.name, " \t\n") {
				return fmt.Errorf("--name %q must start with Benchmark and contain no spaces", f.name)
			}
			err := writeLoadFile(f.benchOut, func(w io.Writer) error {
				bw := benchfmt.NewWriter(w)
				for _, m := range load.UnitMetadata() {
					if err := bw.Write(&m); err != nil {
						return err
					}
				}
				return bw.Write(res.Record(f.name, benchfmt.Config{Key: "target", Value: []byte(target.URL.String()), File: true}))
			})
			if err != nil {
				return err
			}
		}
		if ctx.Err() != nil {
			return errors.New("interrupted; the table covers the requests sent so far")
		}
		if res.Health.Limited {
			return errExit1
		}
		return nil
	})
}

// step validates the flags into a load step (without resolving the target).
func (f *loadFlags) step(rawURL string) (load.Step, error) {
	u, err := load.ParseURL(rawURL)
	if err != nil {
		return load.Step{}, err
	}
	s := load.Step{Target: &load.Target{URL: u}, Conns: f.conns, MaxRequests: f.maxRequests, AllowRemote: f.allowRemote}
	if f.rate != "" {
		if s.Rate, err = load.ParseRate(f.rate); err != nil {
			return s, err
		}
	}
	if s.Duration, err = load.ParseDuration(f.duration); err != nil {
		return s, err
	}
	d, err := time.ParseDuration(f.drain)
	if err != nil || d < 0 || d > time.Minute {
		return s, fmt.Errorf("--drain %q must be a duration between 0 and 1m", f.drain)
	}
	s.Drain = d
	if f.conns < 0 || f.conns > load.MaxConns {
		return s, fmt.Errorf("--conns %d must be between 1 and %d", f.conns, load.MaxConns)
	}
	if f.maxRequests < 0 || f.maxRequests > load.MaxRequestsCap {
		return s, fmt.Errorf("--max-requests %d must be between 1 and %d", f.maxRequests, load.MaxRequestsCap)
	}
	if len(f.headers) > 0 {
		s.Header = http.Header{}
		for _, h := range f.headers {
			k, v, ok := strings.Cut(h, ":")
			if !ok || strings.TrimSpace(k) == "" {
				return s, fmt.Errorf("--header %q: write it as \"Name: value\"", h)
			}
			s.Header.Add(strings.TrimSpace(k), strings.TrimSpace(v))
		}
	}
	return s, nil
}

// parseCPUSet parses "0", "0-3" or "0,2-3".
func parseCPUSet(s string) ([]int, error) {
	var cpus []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err1 := strconv.Atoi(lo)
		b := a
		var err2 error
		if isRange {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || a < 0 || b < a || b > 1023 {
			return nil, fmt.Errorf("CPU list %q: write CPUs like 0, 0-3 or 0,2-3", s)
		}
		for c := a; c <= b; c++ {
			cpus = append(cpus, c)
		}
	}
	return cpus, nil
}

func writeLoadFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("creating %s: %w", path, err)
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
