package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strings"

	"github.com/perflab/perflab/driver/load"
	"github.com/perflab/perflab/target/orders"
)

var cmdTarget = &command{
	rank:    75,
	name:    "target",
	summary: "run a reference HTTP service to load (the orders service)",
	usage:   "orders [--profile NAME] [flags]",
	help: `
Target runs perflab's reference HTTP service until interrupted. "orders"
serves GET /order/{id} (ids 1 to 100000): a ~1.2 KB JSON order with its line
items, read from an SQLite database that is seeded on first start (in the
perflab cache directory unless --db is given). Requests need the header
"Authorization: Bearer perflab" (see --token).

Profiles:
` + profileHelp() + `
The side address serves net/http/pprof under /debug/pprof/, the service's
counters and runtime metrics at /debug/perflab/metrics, a CPU profile of any
length at /debug/perflab/cpuprofile?ms=N, and switches the overload guard
(token bucket + circuit breaker around the DB call) with
POST /debug/perflab/guard?rate=R (0 turns it off).

Example:
  perflab target orders --profile baseline --cpus 1 &
  perflab load http://127.0.0.1:8080/order/42 --header "Authorization: Bearer perflab" --rate 1000 --duration 5s --cpus 0`,
	docs: []string{"docs/experiments.md"},
}

func profileHelp() string {
	var b strings.Builder
	for _, p := range orders.Profiles {
		fmt.Fprintf(&b, "  %-10s %s\n", p.Name, p.Text)
	}
	return b.String()
}

type targetFlags struct {
	profile, codec, addr, side, db, accessLog, token, cpus string
	guard                                                  float64
}

func (f *targetFlags) declare(fs *flag.FlagSet) {
	fs.StringVar(&f.profile, "profile", "baseline", "service `profile`: "+strings.Join(orders.ProfileNames(), ", "))
	fs.StringVar(&f.codec, "codec", "", "JSON codec overriding the profile's: "+strings.Join(orders.CodecNames(), ", "))
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8080", "service `address`")
	fs.StringVar(&f.side, "side-addr", "127.0.0.1:6060", "pprof, metrics and control `address`")
	fs.StringVar(&f.db, "db", "", "order database `path` (default: in the perflab cache directory)")
	fs.StringVar(&f.accessLog, "access-log", "", "access log `file` (default: a temporary file removed on exit)")
	fs.StringVar(&f.token, "token", orders.DefaultToken, "bearer token the auth middleware accepts")
	fs.StringVar(&f.cpus, "cpus", "", "pin the service to these CPUs, e.g. 1 or 2-3 (Linux); GOMAXPROCS follows")
	fs.Float64Var(&f.guard, "guard", 0, "start with the overload guard at this many requests per second")
}

func init() {
	define(cmdTarget, func(f *targetFlags, pos []string, stdout, stderr io.Writer) error {
		if len(pos) != 1 || pos[0] != "orders" {
			fmt.Fprintf(stderr, "perflab target: the only target is \"orders\"\nRun \"perflab help target\" for usage.\n")
			return errUsage
		}
		p, err := orders.ProfileByName(f.profile)
		if err != nil {
			return err
		}
		if f.codec != "" {
			if _, err := orders.CodecByName(f.codec); err != nil {
				return err
			}
			p.Codec = f.codec
		}
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
		cfg := orders.Config{Profile: p, Addr: f.addr, SideAddr: f.side, DBPath: f.db, Token: f.token, Guard: f.guard}
		if f.accessLog != "" {
			lf, err := os.OpenFile(f.accessLog, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
			if err != nil {
				return fmt.Errorf("opening the access log: %w", err)
			}
			defer lf.Close()
			cfg.Log = lf
		}
		cfg.Ready = func(addr, side net.Addr) {
			fmt.Fprintf(stdout, "orders: profile %s (codec %s) serving http://%s/order/{1..%d}; pprof and metrics on http://%s/debug/\n",
				p.Name, p.Codec, addr, orders.NumOrders, side)
		}
		ctx, stop := interruptible()
		defer stop()
		fmt.Fprintf(stderr, "perflab target: preparing the order database (seeded on first start; this can take a minute)\n")
		return orders.Serve(ctx, cfg)
	})
}
