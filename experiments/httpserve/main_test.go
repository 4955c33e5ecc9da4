package httpserve

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/perflab/perflab/driver/load"
	"github.com/perflab/perflab/target/orders"
)

// Environment of a test binary started as the service (see TestMain).
const (
	envChild   = "PERFLAB_HTTPSERVE_SERVER" // the profile to serve
	envCPUs    = "PERFLAB_HTTPSERVE_CPUS"   // CPUs to pin to, e.g. "1" or "2,3"
	envProfile = "PERFLAB_HTTPSERVE_MUTEX"  // "1": record mutex contention for the profiling pass
)

// TestMain runs the tests, or, when the binary was started by a benchmark
// with PERFLAB_HTTPSERVE_SERVER set, the orders service: the benchmark and
// the service it measures are one binary but two processes.
func TestMain(m *testing.M) {
	if name := os.Getenv(envChild); name != "" {
		if err := serveChild(name); err != nil {
			fmt.Fprintf(os.Stderr, "httpserve server: %v\n", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// serveChild runs the service until its parent closes standard input, the
// process is signalled, or the service fails. It prints
// "READY <addr> <side addr>" on standard output once it accepts
// connections.
func serveChild(name string) error {
	p, err := orders.ProfileByName(name)
	if err != nil {
		return err
	}
	if s := os.Getenv(envCPUs); s != "" {
		var cpus []int
		for _, f := range strings.Split(s, ",") {
			c, err := strconv.Atoi(f)
			if err != nil {
				return fmt.Errorf("%s=%q: %w", envCPUs, s, err)
			}
			cpus = append(cpus, c)
		}
		if _, err := load.PinCPUs(cpus); err != nil {
			return err
		}
	}
	if os.Getenv(envProfile) == "1" {
		runtime.SetMutexProfileFraction(100)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		// The parent holds our standard input open; when it exits,
		// however it exits, the read ends and so does the service.
		_, _ = io.Copy(io.Discard, os.Stdin)
		cancel()
	}()
	return orders.Serve(ctx, orders.Config{
		Profile: p,
		Ready: func(addr, side net.Addr) {
			fmt.Printf("READY %s %s\n", addr, side)
		},
	})
}
