package loadavg

import (
	"os"
	"strings"
	"testing"
)

// TestString: on Linux the three figures of /proc/loadavg, and One is the
// first of them.
func TestString(t *testing.T) {
	if _, err := os.Stat("/proc/loadavg"); err != nil {
		if String() != "unknown" || One() != 0 {
			t.Fatalf("without /proc/loadavg: %q %v", String(), One())
		}
		return
	}
	s := String()
	if f := strings.Fields(s); len(f) != 3 {
		t.Fatalf("String() = %q, want three figures", s)
	}
	if One() < 0 {
		t.Fatalf("One() = %v", One())
	}
}
