// Package loadavg reads the machine's load average, which timings and
// load-scaled test waits report beside their figures. It imports only the
// standard library.
package loadavg

import (
	"os"
	"strconv"
	"strings"
)

// String is /proc/loadavg's 1, 5 and 15 minute figures ("3.10 2.05 1.00"),
// or "unknown" where they cannot be read.
func String() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// One is the 1-minute load average, 0 where it cannot be read.
func One() float64 {
	f := strings.Fields(String())
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}
