package testwait

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

func TestFactor(t *testing.T) {
	for _, c := range []struct {
		load     float64
		cpus     int
		slowdown string
		want     float64
	}{
		{0.5, 2, "", 1},
		{2, 2, "", 1},
		{10, 2, "", 5},
		{100, 2, "", MaxFactor},
		{1, 2, "3", 3},
		{6, 2, "2", 6},
		{1, 2, "0.5", 1}, // never shorter than on an idle machine
		{1, 2, "fast", 1},
		{1, 0, "", 1},
	} {
		if got := factor(c.load, c.cpus, c.slowdown); got != c.want {
			t.Errorf("factor(%v, %d, %q) = %v, want %v", c.load, c.cpus, c.slowdown, got, c.want)
		}
	}
}

func TestUntilReturnsOnceTheConditionHolds(t *testing.T) {
	var n atomic.Int32
	if err := Until(10*time.Second, time.Millisecond, func() bool { return n.Add(1) == 3 }); err != nil {
		t.Fatal(err)
	}
	if n.Load() != 3 {
		t.Fatalf("cond was called %d times, want 3", n.Load())
	}
}

func TestUntilTimesOutSayingTheLoad(t *testing.T) {
	start := time.Now()
	err := Until(20*time.Millisecond, time.Millisecond, func() bool { return false })
	var te *TimeoutError
	if !errors.As(err, &te) || te.Within != 20*time.Millisecond || te.Waited < 20*time.Millisecond {
		t.Fatalf("Until on a condition never true: %v", err)
	}
	if time.Since(start) > 20*time.Millisecond*MaxFactor+5*time.Second {
		t.Fatalf("Until waited %v, past its cap", time.Since(start))
	}
}

func TestUntilChecksOnceMoreAtTheDeadline(t *testing.T) {
	// The condition becomes true while the waiter sleeps past its
	// deadline (its second call): it is seen, not reported as missed.
	var n atomic.Int32
	if err := Until(time.Nanosecond, 5*time.Millisecond, func() bool { return n.Add(1) >= 2 }); err != nil {
		t.Fatal(err)
	}
	if n.Load() != 2 {
		t.Fatalf("cond was called %d times, want 2", n.Load())
	}
}
