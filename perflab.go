// Package perflab carries the sources of perflab's built-in experiments, so
// that an installed perflab binary can build and run them outside a checkout.
//
// The command lives in cmd/perflab; the engine's packages are spec, plan,
// driver/gotest, env, store, analysis, claim, report and engine. See
// ARCHITECTURE.md for how they fit together.
package perflab

import "embed"

// Sources holds the module files the built-in experiments need to build:
// go.mod, go.sum, the runtime-metrics helper and every experiment folder,
// plus the HTTP load generator (driver/load) and the reference services
// (target) that the httpserve experiment builds into its test binary (gateway
// builds driver/load into its own), and the profile shares (profshare) that
// allocscale's lock-share windows count.
//
//go:embed go.mod go.sum benchmetrics experiments driver/load target profshare
var Sources embed.FS
