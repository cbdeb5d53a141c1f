package main

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/taskgov/taskgov/internal/model"
)

// lostFields lists, by their cluster-file names, the fields of have that
// back (what importing the exported documents into a fresh server gives)
// does not hold: what the export cannot carry. prefix starts each name
// ("quotas[ml.p5.48xlarge]."); a field in skip is left out (named by a
// more specific note). Nested structs are compared whole.
func lostFields(prefix string, have, back any, skip map[string]bool) []string {
	hv, bv := reflect.ValueOf(have), reflect.ValueOf(back)
	var out []string
	for i := 0; i < hv.NumField(); i++ {
		f := hv.Type().Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" || name == "-" || skip[name] || f.Type.Kind() == reflect.Slice {
			continue
		}
		if !reflect.DeepEqual(hv.Field(i).Interface(), bv.Field(i).Interface()) {
			out = append(out, prefix+name+" "+shown(hv.Field(i)))
		}
	}
	return out
}

// shown writes a field's value for a note: a pointer's target, a struct
// as its cluster-file YAML in flow style.
func shown(v reflect.Value) string {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return "(unset)"
		}
		v = v.Elem()
	}
	if v.Kind() == reflect.Struct {
		var parts []string
		for i := 0; i < v.NumField(); i++ {
			name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("yaml"), ",")
			fv := v.Field(i)
			if fv.IsZero() {
				continue
			}
			parts = append(parts, name+": "+shown(fv))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v.Interface())
}

// teamLost is what of t a HyperPod export cannot carry, beyond the fields
// named by their own notes (lending limits, borrowWithinGroup, group,
// preemptTeamTasks LowerOrNewerEqualPriority).
func teamLost(t model.Team) []string {
	back, _, err := quotaTeam(exportQuota(t, ""), model.Team{})
	if err != nil {
		return nil
	}
	back = back.WithDefaults()
	var out []string
	for _, s := range lostFields("", t, back, map[string]bool{"borrowWithinGroup": true, "group": true, "preemptTeamTasks": true}) {
		out = append(out, fmt.Sprintf("team %s: %s has no HyperPod field", t.Name, s))
	}
	return out
}

// policyLost is what of p a HyperPod export cannot carry, beyond the
// fields exportScheduler names itself.
func policyLost(p model.Policy) []string {
	back := schedulerPolicy(exportScheduler0(p), model.Policy{}).WithDefaults()
	skip := map[string]bool{"preemptionDelaySeconds": true, "preemption": true, "taskPrioritization": true}
	var out []string
	for _, s := range lostFields("", p, back, skip) {
		out = append(out, "policy "+s+" has no HyperPod field")
	}
	if len(p.FairSharePreemption) > 0 && !slices.Equal(p.FairSharePreemption, model.FairShareStrategySets[0]) {
		// A list, which lostFields does not compare.
		out = append(out, "policy fairSharePreemption "+fmt.Sprint(p.FairSharePreemption)+" has no HyperPod field")
	}
	return out
}

// exportScheduler0 is exportScheduler's document alone.
func exportScheduler0(p model.Policy) smClusterSchedulerConfig {
	d, _ := exportScheduler(p, "")
	return d
}
