package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The config.yaml of hyp's init experience (`hyp init hyp-pytorch-job`,
// `hyp configure`, `hyp validate`, `hyp reset`, `hyp create`): the options
// of `hyp create hyp-pytorch-job` as YAML fields, `_` for `-`, under two
// comment lines naming the template and the schema version. `hyp create`
// turns the fields back into those options, so a job from config.yaml is
// checked and submitted exactly as the same command line would be.

const hypTemplate = "hyp-pytorch-job"

// hypKind is how a field's YAML value is read and given to its option.
type hypKind int

const (
	kStr     hypKind = iota // a string (a number is taken as written)
	kInt                    // an integer
	kFloat                  // a number
	kBool                   // true or false
	kList                   // a list of strings: --x '[a, b]'
	kObject                 // a map: --x '{"k": "v"}'
	kVolumes                // a list of maps: --volume k=v,k=v per item
)

type hypField struct {
	key  string
	kind hypKind
	v11  bool // only in schema 1.1
}

// hypFields are the fields in config.yaml's order.
var hypFields = []hypField{
	{"job_name", kStr, false}, {"image", kStr, false}, {"namespace", kStr, false},
	{"command", kList, false}, {"args", kList, false}, {"environment", kObject, false},
	{"pull_policy", kStr, false}, {"instance_type", kStr, false}, {"node_count", kInt, false},
	{"replica_count", kInt, true}, {"tasks_per_node", kStr, false}, {"label_selector", kObject, false},
	{"deep_health_check_passed_nodes_only", kBool, false}, {"scheduler_type", kStr, false},
	{"queue_name", kStr, false}, {"priority", kStr, false}, {"max_retry", kInt, false},
	{"volume", kVolumes, false}, {"service_account_name", kStr, false},
	{"accelerators", kInt, true}, {"vcpu", kFloat, true}, {"memory", kFloat, true},
	{"accelerators_limit", kInt, true}, {"vcpu_limit", kFloat, true}, {"memory_limit", kFloat, true},
	{"efa", kInt, true}, {"efa_limit", kInt, true},
	{"accelerator_partition_type", kStr, true}, {"accelerator_partition_count", kInt, true}, {"accelerator_partition_limit", kInt, true},
	{"preferred_topology", kStr, true}, {"required_topology", kStr, true},
	{"elastic_replica_increment_step", kInt, true}, {"max_node_count", kInt, true}, {"max_replica_count", kInt, true},
	{"elastic_graceful_shutdown_timeout_in_seconds", kInt, true}, {"elastic_scaling_timeout_in_seconds", kInt, true},
	{"elastic_scale_up_snooze_time_in_seconds", kInt, true}, {"elastic_replica_discrete_values", kList, true},
}

func (f hypField) flag() string { return strings.ReplaceAll(f.key, "_", "-") }

// hypFieldsOf are the fields of a schema version.
func hypFieldsOf(version string) []hypField {
	var out []hypField
	for _, f := range hypFields {
		if !f.v11 || version == "1.1" {
			out = append(out, f)
		}
	}
	return out
}

// hypConfig is a loaded config.yaml.
type hypConfig struct {
	template, version string
	values            map[string]any // field -> value; nil for an empty field
}

const hypConfigName = "config.yaml"

// loadHypConfig reads DIR/config.yaml; a missing file, another template or
// version, or YAML that is not a map is refused with what to do, on
// stdout as hyp's init experience does (echoedError).
func loadHypConfig(dir string) (hypConfig, error) {
	c, err := readHypConfig(dir)
	return c, echoed(err)
}

func readHypConfig(dir string) (hypConfig, error) {
	b, err := os.ReadFile(filepath.Join(dir, hypConfigName))
	if os.IsNotExist(err) {
		return hypConfig{}, &usageError{"❌  No config.yaml found in the current directory: run `hyp init hyp-pytorch-job` first"}
	} else if err != nil {
		return hypConfig{}, err
	}
	c := hypConfig{values: map[string]any{}}
	if err := yaml.Unmarshal(b, &c.values); err != nil {
		return c, &usageError{fmt.Sprintf("config.yaml is not valid YAML: %v", err)}
	}
	if c.values == nil {
		c.values = map[string]any{}
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok && strings.HasPrefix(k, "#") {
			switch strings.TrimSpace(strings.TrimPrefix(k, "#")) {
			case "template":
				c.template = strings.TrimSpace(v)
			case "version":
				c.version = strings.TrimSpace(v)
			}
		}
	}
	for key, p := range map[string]*string{"template": &c.template, "version": &c.version} {
		if v, ok := c.values[key]; ok {
			if *p == "" {
				*p = fmt.Sprint(v)
			}
			delete(c.values, key)
		}
	}
	if c.version == "" {
		c.version = "1.0"
	}
	if c.template != hypTemplate {
		return c, &usageError{fmt.Sprintf("config.yaml is of template %q: taskgov serves hyp-pytorch-job only; run `hyp init hyp-pytorch-job` in a new directory", c.template)}
	}
	if c.version != "1.0" && c.version != "1.1" {
		return c, unsupportedSchema(c.version, "config.yaml's # version: line; taskgov serves 1.0 and 1.1")
	}
	return c, nil
}

// save writes config.yaml: the two header lines, then every field of the
// version with the option's help as its comment and its value (null when
// empty).
func (c hypConfig) save(dir string, help func(flag string) string) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# template: %s\n# version: %s\n", c.template, c.version)
	for _, f := range hypFieldsOf(c.version) {
		fmt.Fprintf(&b, "\n# %s\n", help(f.flag()))
		out, err := yaml.Marshal(map[string]any{f.key: c.values[f.key]})
		if err != nil {
			return err
		}
		b.Write(out)
	}
	return os.WriteFile(filepath.Join(dir, hypConfigName), b.Bytes(), 0o644)
}

// problems lists what is wrong with the fields, sorted: unknown fields,
// fields of the other version, required ones left empty, and values of the
// wrong type. args are the `hyp create hyp-pytorch-job` options of the
// fields when there is no problem.
func (c hypConfig) options() (args []string, problems []string) {
	known := map[string]hypField{}
	for _, f := range hypFieldsOf(c.version) {
		known[f.key] = f
	}
	args = []string{"--version=" + c.version}
	for key, v := range c.values {
		f, ok := known[key]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("%s: not a field of hyp-pytorch-job %s", key, c.version))
		case v == nil:
		default:
			vals, err := optionValues(f, v)
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s: %v", key, err))
			} else if p := hypFieldProblem(key, v); p != "" {
				problems = append(problems, key+": "+p)
			}
			for _, s := range vals {
				args = append(args, "--"+f.flag()+"="+s)
			}
		}
	}
	for _, key := range []string{"job_name", "image"} {
		if v, _ := c.values[key].(string); v == "" {
			problems = append(problems, key+": Field is required")
		}
	}
	sort.Strings(problems)
	return args, problems
}

// optionValues turns a field's YAML value into its option's values.
func optionValues(f hypField, v any) ([]string, error) {
	switch f.kind {
	case kStr:
		switch v.(type) {
		case string, int, float64:
			return []string{fmt.Sprint(v)}, nil
		}
		return nil, fmt.Errorf("expected a string, got %v", v)
	case kInt:
		if n, ok := v.(int); ok {
			return []string{strconv.Itoa(n)}, nil
		}
		return nil, fmt.Errorf("expected an integer, got %v", v)
	case kFloat:
		switch n := v.(type) {
		case int:
			return []string{strconv.Itoa(n)}, nil
		case float64:
			return []string{strconv.FormatFloat(n, 'g', -1, 64)}, nil
		}
		return nil, fmt.Errorf("expected a number, got %v", v)
	case kBool:
		if b, ok := v.(bool); ok {
			return []string{strconv.FormatBool(b)}, nil
		}
		return nil, fmt.Errorf("expected true or false, got %v", v)
	case kList:
		items, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("expected a list, e.g. [python, train.py], got %v", v)
		}
		var parts []string
		for _, it := range items {
			s := fmt.Sprint(it)
			if _, isMap := it.(map[string]any); isMap || strings.ContainsAny(s, ",[]") {
				return nil, fmt.Errorf("item %q: items are plain words without ',', '[' or ']' (hyp's list option)", s)
			}
			parts = append(parts, s)
		}
		return []string{"[" + strings.Join(parts, ", ") + "]"}, nil
	case kObject:
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf(`expected a map, e.g. {"KEY": "value"}, got %v`, v)
		}
		b, err := json.Marshal(m)
		return []string{string(b)}, err
	case kVolumes:
		items, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("expected a list of volumes (name, type, mount_path, ...), got %v", v)
		}
		var out []string
		for _, it := range items {
			m, ok := it.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("expected a volume map (name, type, mount_path, ...), got %v", it)
			}
			keys := make([]string, 0, len(m))
			for k := range m {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			var kv []string
			for _, k := range keys {
				kv = append(kv, k+"="+fmt.Sprint(m[k]))
			}
			out = append(out, strings.Join(kv, ","))
		}
		return out, nil
	}
	return nil, fmt.Errorf("unknown field kind")
}

// fieldValue reads an option's command-line value as the field's YAML
// value (`hyp configure --FIELD VALUE`).
func fieldValue(f hypField, vals []string) (any, error) {
	s := vals[len(vals)-1]
	switch f.kind {
	case kInt:
		n, err := strconv.Atoi(s)
		if err != nil {
			return nil, fmt.Errorf("expected an integer, got %q", s)
		}
		return n, nil
	case kFloat:
		n, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("expected a number, got %q", s)
		}
		return n, nil
	case kBool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return nil, fmt.Errorf("expected true or false, got %q", s)
		}
		return b, nil
	case kList:
		out := []any{}
		for _, it := range hypList(s) {
			out = append(out, it)
		}
		return out, nil
	case kObject:
		var m map[string]any
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			return nil, fmt.Errorf(`expected a JSON object, e.g. '{"KEY": "value"}': %v`, err)
		}
		return m, nil
	case kVolumes:
		var out []any
		for _, vol := range vals {
			if strings.HasPrefix(strings.TrimSpace(vol), "[") {
				// The walkthrough's form: a JSON list of volume objects.
				var list []map[string]any
				if err := json.Unmarshal([]byte(vol), &list); err != nil {
					return nil, fmt.Errorf(`expected a JSON list of volumes, e.g. '[{"name": "data", "type": "pvc", "mount_path": "/data", "claim_name": "c"}]': %v`, err)
				}
				for _, m := range list {
					out = append(out, m)
				}
				continue
			}
			m := map[string]any{}
			for _, kv := range strings.Split(vol, ",") {
				k, v, ok := strings.Cut(kv, "=")
				if !ok {
					return nil, fmt.Errorf("%q: expected name=N,type=T,mount_path=P[,...]", vol)
				}
				m[strings.TrimSpace(k)] = strings.TrimSpace(v)
			}
			out = append(out, m)
		}
		return out, nil
	}
	return s, nil
}
