package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/taskgov/taskgov/internal/model"
)

// jobCommand is what a HyperPod job runs: scripts before, a command with
// an entry script and its arguments, scripts after.
type jobCommand struct {
	pre, post      []string
	command, entry string
	args           string
}

// build composes the command line the way HyperPod's CLI does: `command
// entry-script args`. Without --command, a .py entry script runs with
// python3 (HyperPod's default is torchrun; taskgov sets RANK, WORLD_SIZE
// and MASTER_ADDR itself, one process per pod). Pre and post scripts run
// around it through sh, and the job's exit status is the command's.
func (j jobCommand) build() ([]string, error) {
	var main string
	switch {
	case j.entry != "" && j.command != "":
		main = j.command + " " + shellQuote(j.entry)
	case j.entry != "":
		if strings.HasSuffix(j.entry, ".py") {
			main = "python3 " + shellQuote(j.entry)
		} else {
			main = shellQuote(j.entry)
		}
	case j.command != "":
		main = j.command
	default:
		return nil, &model.FieldError{Field: "--command", Problem: "the job has nothing to run",
			Fix: "pass --command \"...\" or --entry-script FILE [--script-args \"...\"] (or command: in --config-file)"}
	}
	if j.args != "" {
		main += " " + j.args
	}
	if len(j.pre) == 0 && len(j.post) == 0 && j.command == "" && !strings.ContainsAny(j.args, "'\"$`\\;&|<>*?") {
		// A plain script keeps exec form: no shell between it and signals.
		out := []string{j.entry}
		if strings.HasSuffix(j.entry, ".py") {
			out = []string{"python3", j.entry}
		}
		return append(out, strings.Fields(j.args)...), nil
	}
	parts := append(append([]string{}, j.pre...), main)
	line := strings.Join(parts, "; ")
	if len(j.post) > 0 {
		line += "; rc=$?; " + strings.Join(j.post, "; ") + "; exit $rc"
	}
	return []string{"sh", "-c", line}, nil
}

// shellQuote quotes s for sh when it holds anything but safe characters.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// splitScripts splits HyperPod's --pre-script/--post-script lists, which
// separate commands with commas (its code) or semicolons (its help).
func splitScripts(s string) []string {
	var out []string
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' }) {
		if p := strings.TrimSpace(part); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func parseEnv(vals []string) (map[string]string, error) {
	out := map[string]string{}
	for _, v := range vals {
		if strings.HasPrefix(strings.TrimSpace(v), "{") {
			if err := json.Unmarshal([]byte(v), &out); err != nil {
				return nil, &model.FieldError{Field: "--environment", Problem: "not a JSON object of strings", Fix: `use '{"KEY": "VALUE"}' or KEY=VALUE`}
			}
			continue
		}
		for _, kv := range strings.Split(v, ",") {
			k, val, ok := strings.Cut(kv, "=")
			if !ok || k == "" {
				return nil, &model.FieldError{Field: "--environment", Problem: fmt.Sprintf("%q is not KEY=VALUE", kv), Fix: "use KEY=VALUE"}
			}
			out[k] = val
		}
	}
	return out, nil
}

func parseGiB(s string) (float64, error) {
	num := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(s, "i"), "G"), "Gi")
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v <= 0 {
		return 0, &model.FieldError{Field: "--memory", Problem: fmt.Sprintf("%q is not an amount of memory", s), Fix: "use GiB, e.g. 64 or 64Gi"}
	}
	return v, nil
}

// Node labels HyperPod selects on that taskgov honours by itself: it places
// only on schedulable nodes of the job's instance type.
const (
	labelInstanceType = "node.kubernetes.io/instance-type"
	labelHealth       = "sagemaker.amazonaws.com/node-health-status"
	labelDeepHealth   = "sagemaker.amazonaws.com/deep-health-check-status"
)

// labelSelector checks a HyperPod label selector: a flat {key: value} (hyp)
// or {required: {key: [values]}, preferred: ..., weights: ...} (hyperpod
// v2). Instance type and health labels are honoured (the instance type is
// returned); any other label is refused, since taskgov places by instance
// type and topology only.
func labelSelector(raw string) (instanceType string, err error) {
	var sel map[string]any
	if err := json.Unmarshal([]byte(raw), &sel); err != nil {
		return "", &model.FieldError{Field: "--label-selector", Problem: "not a JSON object", Fix: `use '{"node.kubernetes.io/instance-type": "ml.p5.48xlarge"}'`}
	}
	return selectorTerms(sel)
}

func selectorTerms(sel map[string]any) (string, error) {
	it := ""
	for k, v := range sel {
		switch k {
		case "required", "preferred":
			m, _ := v.(map[string]any)
			sub, err := selectorTerms(m)
			if err != nil {
				return "", err
			}
			if k == "required" && sub != "" {
				it = sub
			}
			continue
		case "weights":
			continue
		case labelHealth, labelDeepHealth:
			continue
		case labelInstanceType:
			it = firstString(v)
			continue
		}
		return "", &model.FieldError{Field: "--label-selector", Problem: fmt.Sprintf("taskgov cannot select nodes by label %q", k),
			Fix: "taskgov places by instance type (--instance-type) and topology (--required-topology/--preferred-topology); drop --label-selector"}
	}
	return it, nil
}

func firstString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []any:
		if len(x) > 0 {
			s, _ := x[0].(string)
			return s
		}
	}
	return ""
}

// notUsed notes on stderr the HyperPod options taskgov accepts but does not
// use, so that nothing given is dropped silently.
func notUsed(w io.Writer, flag, why string) {
	fmt.Fprintf(w, "note: %s is accepted but not used: %s\n", flag, why)
}
