package load

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Bounds on every load step.
const (
	MaxRate        = 10_000_000       // requests per second
	MaxDuration    = 30 * time.Minute // one step
	MaxRequestsCap = 100_000_000      // requests in one step
	MaxConns       = 4096             // connections of one step
)

// ParseRate parses a request rate: a positive number of requests per
// second with an optional k (×1000) or M (×1,000,000) suffix and an
// optional "/s" or "rps", such as "1000", "2.5k", "50k/s" or "1M rps".
// It is at most MaxRate.
func ParseRate(s string) (float64, error) {
	t := strings.TrimSpace(s)
	t = strings.TrimSuffix(t, "/s")
	t = strings.TrimSpace(strings.TrimSuffix(t, "rps"))
	mult := 1.0
	switch {
	case strings.HasSuffix(t, "k"), strings.HasSuffix(t, "K"):
		mult, t = 1e3, t[:len(t)-1]
	case strings.HasSuffix(t, "M"):
		mult, t = 1e6, t[:len(t)-1]
	}
	if t == "" || strings.ContainsAny(t, "xXpP_") || strings.EqualFold(t, "inf") || strings.EqualFold(t, "infinity") || strings.EqualFold(t, "nan") {
		return 0, fmt.Errorf("rate %q is not a number of requests per second; write it like 1000, 2.5k or 50k/s", clipS(s))
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil {
		return 0, fmt.Errorf("rate %q is not a number of requests per second; write it like 1000, 2.5k or 50k/s", clipS(s))
	}
	v *= mult
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0) || v <= 0:
		return 0, fmt.Errorf("rate %q must be a positive number of requests per second", clipS(s))
	case v > MaxRate:
		return 0, fmt.Errorf("rate %q exceeds the limit of %d requests per second", clipS(s), MaxRate)
	}
	return v, nil
}

// ParseDuration parses a step duration as time.ParseDuration does ("5s",
// "500ms", "2m"); it must be positive and at most MaxDuration.
func ParseDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("duration %q: write it like 5s, 500ms or 2m", clipS(s))
	}
	if d <= 0 {
		return 0, fmt.Errorf("duration %q must be positive", clipS(s))
	}
	if d > MaxDuration {
		return 0, fmt.Errorf("duration %q exceeds the limit of %v per step", clipS(s), MaxDuration)
	}
	return d, nil
}
