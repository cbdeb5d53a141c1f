package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/taskgov/taskgov/internal/model"
)

// typedAmountFlag parses the values of the team flags that give an amount
// per instance type (--quota, --lending-limit), so both read one syntax and
// refuse the same mistakes:
//
//	TYPE:gpus=N[,vcpu=N,memoryGiB=N]   an amount (each key at most once)
//	TYPE=WORD                          the flag's short form (a count, "none")
//
// GPUs are whole and 0 or more; vCPU and GiB are finite numbers, 0 or more.
// Every refusal names the flag, the value, what is wrong in it and the fix.
type typedAmountFlag struct {
	flag string // "--quota"
	fix  string // the forms the flag takes, for the fix of every refusal
}

// typedAmount is one parsed value: in the short form (IsShort), Short is
// the text after "="; otherwise Amount holds what was given.
type typedAmount struct {
	Type    string
	IsShort bool
	Short   string
	Amount  model.Amount
}

func (f typedAmountFlag) bad(s, problem string) error {
	return &model.FieldError{Field: f.flag, Problem: fmt.Sprintf("%q %s", s, problem), Fix: f.fix}
}

func (f typedAmountFlag) parse(s string) (typedAmount, error) {
	if t, v, ok := strings.Cut(s, "="); ok && !strings.Contains(t, ":") {
		if t == "" {
			return typedAmount{}, f.bad(s, "names no instance type")
		}
		return typedAmount{Type: t, IsShort: true, Short: v}, nil
	}
	t, rest, ok := strings.Cut(s, ":")
	if !ok {
		return typedAmount{}, f.bad(s, "gives no amount")
	}
	if t == "" {
		return typedAmount{}, f.bad(s, "names no instance type")
	}
	out := typedAmount{Type: t}
	seen := map[string]bool{}
	for _, kv := range strings.Split(rest, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return typedAmount{}, f.bad(s, fmt.Sprintf("has %q, not KEY=NUMBER", kv))
		}
		if seen[k] {
			return typedAmount{}, f.bad(s, fmt.Sprintf("gives %s twice", k))
		}
		seen[k] = true
		switch k {
		case "gpus":
			g, err := wholeNumber(v)
			if err != nil {
				return typedAmount{}, f.bad(s, "gives gpus="+v+", "+err.Error()+" (GPUs are whole)")
			}
			out.Amount.GPUs = &g
		case "vcpu", "memoryGiB":
			x, err := strconv.ParseFloat(v, 64)
			switch {
			case err != nil || math.IsNaN(x) || math.IsInf(x, 0):
				return typedAmount{}, f.bad(s, fmt.Sprintf("gives %s=%s, not a number", k, v))
			case x < 0:
				return typedAmount{}, f.bad(s, fmt.Sprintf("gives %s=%s, a negative amount", k, v))
			}
			if k == "vcpu" {
				out.Amount.VCPU = &x
			} else {
				out.Amount.MemoryGiB = &x
			}
		default:
			return typedAmount{}, f.bad(s, "names an unknown resource "+strconv.Quote(k)+" (gpus, vcpu or memoryGiB)")
		}
	}
	return out, nil
}

// wholeNumber reads a count: a whole number, 0 or more. Its error says
// what v is instead: "a fraction", "a negative amount", "not a number" or
// "too large".
func wholeNumber(v string) (int64, error) {
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0, fmt.Errorf("a negative amount")
		}
		return n, nil
	}
	x, err := strconv.ParseFloat(v, 64)
	switch {
	case err != nil || math.IsNaN(x) || math.IsInf(x, 0):
		return 0, fmt.Errorf("not a number")
	case x != math.Trunc(x):
		return 0, fmt.Errorf("a fraction")
	case x < 0:
		return 0, fmt.Errorf("a negative amount")
	case x >= 1<<53:
		return 0, fmt.Errorf("too large")
	}
	return int64(x), nil // 1e3, 16.0

}
