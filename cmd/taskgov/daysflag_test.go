package main

import (
	"testing"
	"time"
)

func TestDaysDuration(t *testing.T) {
	var d time.Duration
	v := daysDuration{&d}
	for in, want := range map[string]time.Duration{"7d": 168 * time.Hour, "1.5d": 36 * time.Hour, "0d": 0, "90m": 90 * time.Minute, "36h": 36 * time.Hour} {
		if err := v.Set(in); err != nil || d != want {
			t.Errorf("%s: %v %v; want %v", in, d, err, want)
		}
	}
	for _, bad := range []string{"d", "-1d", "week", "7 days", "99999d"} {
		if err := v.Set(bad); err == nil {
			t.Errorf("%s was accepted as %v", bad, d)
		}
	}
}
