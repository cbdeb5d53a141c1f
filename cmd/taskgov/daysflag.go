package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// daysDuration is a duration flag that also takes whole or decimal days
// ("7d", "1.5d"), which Go's durations do not, for spans people count in
// days (a week of jobs to export, how long to keep finished pods).
type daysDuration struct{ d *time.Duration }

func (v daysDuration) String() string {
	if v.d == nil {
		return "0s"
	}
	return v.d.String()
}

func (v daysDuration) Type() string { return "duration" }

func (v daysDuration) Set(s string) error {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseFloat(days, 64)
		if err != nil || n < 0 || n > 3650 {
			return fmt.Errorf("%q: give days as a number from 0 to 3650 (7d), or a duration (36h)", s)
		}
		*v.d = time.Duration(n * 24 * float64(time.Hour))
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q: give a duration (36h, 90m) or days (7d)", s)
	}
	*v.d = d
	return nil
}

// daysVar defines a daysDuration flag on fs.
func daysVar(fs *pflag.FlagSet, p *time.Duration, name string, value time.Duration, usage string) {
	*p = value
	fs.Var(daysDuration{p}, name, usage)
}
