package config

import (
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// unknownLine matches the YAML decoder's unknown-field message, which names
// a Go type ("field x not found in type model.Policy") that users never see.
var unknownLine = regexp.MustCompile(`^line (\d+): field (.+) not found in type \S+$`)

// unknownField is one key the target type has no field for: where it is in
// the document and which keys that section allows.
type unknownField struct {
	line    int
	key     string
	path    string
	allowed []string
}

// describeUnknown rewrites the decoder's unknown-field lines in te to name the
// document section and the allowed keys instead of a Go type, and its
// type-mismatch lines to name the value's place and what it must be
// (typeerr.go); other lines are kept. It never fails: a line it cannot
// place keeps its field name, or says the expected type in words.
func describeUnknown(data []byte, out any, te *yaml.TypeError) string {
	var doc yaml.Node
	var found []unknownField
	var values []typedValue
	if yaml.Unmarshal(data, &doc) == nil && len(doc.Content) == 1 {
		walkUnknown(doc.Content[0], reflect.TypeOf(out), "", &found)
		walkTyped(doc.Content[0], reflect.TypeOf(out).Elem(), "", &values)
	}
	lines := make([]string, 0, len(te.Errors))
	for _, e := range te.Errors {
		m := unknownLine.FindStringSubmatch(e)
		if m == nil {
			if msg, ok := describeType(values, e); ok {
				e = msg
			}
			lines = append(lines, e)
			continue
		}
		msg := fmt.Sprintf("line %s: unknown field %q", m[1], m[2])
		for _, f := range found {
			if fmt.Sprint(f.line) == m[1] && f.key == m[2] {
				where := "at the top level"
				if f.path != "" {
					where = "in " + f.path
				}
				msg = fmt.Sprintf("line %d: unknown field %q %s; allowed there: %s", f.line, f.key, where, strings.Join(f.allowed, ", "))
				break
			}
		}
		lines = append(lines, msg)
	}
	if len(lines) == 1 {
		return lines[0]
	}
	return fmt.Sprintf("%d problems:\n  %s", len(lines), strings.Join(lines, "\n  "))
}

// walkUnknown follows n alongside t, recording keys that t does not declare.
func walkUnknown(n *yaml.Node, t reflect.Type, path string, found *[]unknownField) {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || n == nil || reflect.PointerTo(t).Implements(reflect.TypeOf((*yaml.Unmarshaler)(nil)).Elem()) {
		return
	}
	switch {
	case t.Kind() == reflect.Struct && n.Kind == yaml.MappingNode:
		fields := yamlFields(t)
		allowed := make([]string, 0, len(fields))
		for k := range fields {
			allowed = append(allowed, k)
		}
		sort.Strings(allowed)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			ft, ok := fields[k.Value]
			if !ok {
				*found = append(*found, unknownField{line: k.Line, key: k.Value, path: path, allowed: allowed})
				continue
			}
			walkUnknown(v, ft, join(path, k.Value), found)
		}
	case (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && n.Kind == yaml.SequenceNode:
		for i, c := range n.Content {
			walkUnknown(c, t.Elem(), fmt.Sprintf("%s[%d]", path, i), found)
		}
	case t.Kind() == reflect.Map && n.Kind == yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			walkUnknown(n.Content[i+1], t.Elem(), join(path, n.Content[i].Value), found)
		}
	}
}

// yamlFields maps each YAML key of struct t (inline structs included) to its type.
func yamlFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("yaml")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if strings.Contains(opts, "inline") {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for k, v := range yamlFields(ft) {
					out[k] = v
				}
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out[name] = f.Type
	}
	return out
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
