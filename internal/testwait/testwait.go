package testwait

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/loadavg"
)

// MaxFactor caps how far load stretches a deadline: a wait for something
// that never comes still fails in bounded time.
const MaxFactor = 10

// SlowdownEnv names an environment variable that multiplies every deadline
// (a float, at least 1), for a machine known to be slow beyond its load
// average (the race detector, an emulated CPU).
const SlowdownEnv = "TASKGOV_TEST_SLOWDOWN"

// Factor is how much longer than on an idle machine a wait may take now:
// the 1-minute load average per CPU (at least 1), times SlowdownEnv, at
// most MaxFactor.
func Factor() float64 {
	return factor(loadavg.One(), runtime.NumCPU(), os.Getenv(SlowdownEnv))
}

func factor(load1 float64, cpus int, slowdown string) float64 {
	f := 1.0
	if cpus > 0 && load1 > float64(cpus) {
		f = load1 / float64(cpus)
	}
	if s, err := strconv.ParseFloat(strings.TrimSpace(slowdown), 64); err == nil && s > 1 {
		f *= s
	}
	return min(f, MaxFactor)
}

// Scale returns d stretched by Factor.
func Scale(d time.Duration) time.Duration {
	return time.Duration(float64(d) * Factor())
}

// For polls cond every poll until it holds. It fails t, naming what, once
// cond has not held for d scaled by the load; the scale is read again at
// every poll, so load that rises during the wait extends it. cond is called
// one last time after the deadline, so a condition that came true during
// the last sleep is not reported as missed.
func For(t testing.TB, d, poll time.Duration, what string, cond func() bool) {
	t.Helper()
	if err := Until(d, poll, cond); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// Until is For without a test: it returns nil once cond holds, or an
// error saying how long it waited and under which load.
func Until(d, poll time.Duration, cond func() bool) error {
	start := time.Now()
	for !cond() {
		if time.Since(start) > Scale(d) {
			if cond() {
				return nil
			}
			return &TimeoutError{Within: d, Waited: time.Since(start), Load: loadavg.String()}
		}
		time.Sleep(poll)
	}
	return nil
}

// TimeoutError is a wait that ran past its scaled deadline.
type TimeoutError struct {
	Within, Waited time.Duration
	Load           string
}

func (e *TimeoutError) Error() string {
	return "not within " + e.Within.String() + " (waited " + e.Waited.Round(time.Millisecond).String() +
		", load average " + e.Load + " on " + strconv.Itoa(runtime.NumCPU()) + " CPUs)"
}
