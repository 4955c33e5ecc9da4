package allocscale

import (
	"bufio"
	"io"
	"strconv"
	"strings"
)

// parseStatus reads VmRSS and VmHWM, in bytes, from the text of a Linux
// /proc/<pid>/status file ("VmRSS:	  1234 kB" lines). ok is false unless
// both were found; malformed lines are ignored.
func parseStatus(r io.Reader) (rss, hwm int64, ok bool) {
	var gotRSS, gotHWM bool
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		k, v, found := strings.Cut(sc.Text(), ":")
		if !found || (k != "VmRSS" && k != "VmHWM") {
			continue
		}
		fields := strings.Fields(v)
		if len(fields) != 2 || fields[1] != "kB" {
			continue
		}
		n, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil || n < 0 || n > 1<<53 {
			continue
		}
		if k == "VmRSS" {
			rss, gotRSS = n<<10, true
		} else {
			hwm, gotHWM = n<<10, true
		}
	}
	return rss, hwm, gotRSS && gotHWM
}
