package main

import (
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/taskgov/taskgov/internal/model"
)

// policyChanges lists, one line each, what replacing policy old with want
// changes: priority classes added, removed or reweighted, and each setting
// changed (marked "(default)" where want leaves it unset, so an admin sees a
// setting reset by a file that omits it). Both are compared with defaults.
func policyChanges(old, want model.Policy) []string {
	o, w := old.WithDefaults(), want.WithDefaults()
	// An empty list stands for the default one: the same setting.
	o.FairSharePreemption, w.FairSharePreemption = o.FairShareStrategies(), w.FairShareStrategies()
	var lines []string
	had := map[string]model.PriorityClass{}
	for _, c := range o.PriorityClasses {
		had[c.Name] = c
	}
	kept := map[string]bool{}
	for _, c := range w.PriorityClasses {
		kept[c.Name] = true
		p, ok := had[c.Name]
		switch {
		case !ok:
			lines = append(lines, fmt.Sprintf("priority class %s added (weight %d)", c.Name, c.Weight))
		case p != c:
			var d []string
			if p.Weight != c.Weight {
				d = append(d, fmt.Sprintf("weight %d -> %d", p.Weight, c.Weight))
			}
			if p.GracePeriodSeconds != c.GracePeriodSeconds {
				d = append(d, fmt.Sprintf("gracePeriodSeconds %d -> %d", p.GracePeriodSeconds, c.GracePeriodSeconds))
			}
			lines = append(lines, fmt.Sprintf("priority class %s: %s", c.Name, strings.Join(d, ", ")))
		}
	}
	for _, c := range o.PriorityClasses {
		if !kept[c.Name] {
			lines = append(lines, fmt.Sprintf("priority class %s removed (weight %d)", c.Name, c.Weight))
		}
	}
	ov, wv, raw := reflect.ValueOf(o), reflect.ValueOf(w), reflect.ValueOf(want)
	for i := 0; i < ov.NumField(); i++ {
		f := ov.Type().Field(i)
		if f.Name == "PriorityClasses" {
			continue
		}
		a, b := settingText(ov.Field(i)), settingText(wv.Field(i))
		if a == b {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		line := fmt.Sprintf("%s: %s -> %s", name, a, b)
		if raw.Field(i).IsZero() {
			line += " (default)"
		}
		lines = append(lines, line)
	}
	return lines
}

// settingText prints a policy setting, following a pointer.
func settingText(v reflect.Value) string {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return "unset"
		}
		v = v.Elem()
	}
	return fmt.Sprint(v.Interface())
}

// printPolicyChanges writes head, then each change indented under it.
func printPolicyChanges(out io.Writer, head string, old, want model.Policy) {
	fmt.Fprintln(out, head)
	for _, l := range policyChanges(old, want) {
		fmt.Fprintln(out, "  "+l)
	}
}
