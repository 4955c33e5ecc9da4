package gotest

import (
	"fmt"
	"regexp"
	"strings"
)

// A FetchError is a build that never started because the go command could
// not download what it needs: the toolchain GOTOOLCHAIN selects, or a
// module the package imports (GOPROXY=off, no network, a proxy that
// refuses). It is not a compile error: the same build may succeed where
// the download does. Key and Compile return errors wrapping one; find it
// with errors.As.
type FetchError struct {
	// What could not be downloaded: "toolchain go1.22.12",
	// "module golang.org/x/text@v0.14.0", or "modules" when the go
	// command does not name one.
	What string
	// Why is the go command's reason, e.g. "toolchain not available",
	// "module lookup disabled by GOPROXY=off", or the network error
	// ("dial tcp: lookup proxy.golang.org: no such host").
	Why string
	// Output is the tail of the go command's output.
	Output string
}

func (e *FetchError) Error() string {
	return fmt.Sprintf("%s could not be downloaded (%s); connect to the network or fill the module cache, or leave this config out:\n%s", e.What, e.Why, e.Output)
}

var (
	// go: download go1.22.12 for linux/amd64: toolchain not available
	// go: download go1.22.12: golang.org/toolchain@v0.0.1-go1.22.12.linux-amd64: Get "…": dial tcp …
	toolchainLine = regexp.MustCompile(`^go: download (go[0-9][^\s:]*)(?: for \S+)?: (.+)$`)
	// go: downloading golang.org/x/text v0.14.0
	downloadingLine = regexp.MustCompile(`^go: downloading (\S+) (v\S+)$`)
	// …: golang.org/x/text@v0.14.0: Get "https://…": dial tcp …
	moduleGet = regexp.MustCompile(`(\S+@v[^\s:]+): (?:Get|reading) "?(https?://[^"\s]+)"?: (.+)$`)
	// A request that never reached a server, or a proxy that refused.
	netFailure = regexp.MustCompile(`dial tcp|no such host|connection refused|network is unreachable|i/o timeout|TLS handshake timeout|no route to host|connection reset|403 Forbidden|proxyconnect`)
)

// fetchFailure reads the go command's output for a download it could not
// make, and names what and why; ok is false for any other failure (a
// compile error, a bad flag, a module version that does not exist).
func fetchFailure(output string) (what, why string, ok bool) {
	module := ""
	for _, line := range strings.Split(output, "\n") {
		line = strings.TrimSpace(line)
		if m := downloadingLine.FindStringSubmatch(line); m != nil && module == "" {
			module = m[1] + "@" + m[2]
			continue
		}
		if m := toolchainLine.FindStringSubmatch(line); m != nil {
			reason := m[2]
			if g := moduleGet.FindStringSubmatch(reason); g != nil {
				reason = g[3]
			}
			return "toolchain " + m[1], reason, true
		}
		if i := strings.Index(line, "module lookup disabled by GOPROXY=off"); i >= 0 {
			return moduleOr(module), line[i:], true
		}
		// A module's zip, its go.mod, or its checksum from the sum
		// database (sum.golang.org) that never arrived.
		if g := moduleGet.FindStringSubmatch(line); g != nil && netFailure.MatchString(g[3]) {
			return "module " + strings.TrimSuffix(g[1], "/go.mod"), g[3], true
		}
	}
	return "", "", false
}

func moduleOr(module string) string {
	if module == "" {
		return "modules"
	}
	return "module " + module
}
