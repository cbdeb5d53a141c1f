package config

import (
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// maxProblems is how many of a document's problems a message lists; a file
// with thousands of wrong values is told the count and the first ones.
const maxProblems = 20

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
	typed := indexTyped(values)
	unknownAt := map[string][]unknownField{}
	for _, f := range found {
		ln := fmt.Sprint(f.line)
		unknownAt[ln] = append(unknownAt[ln], f)
	}
	errs := te.Errors
	more := 0
	if len(errs) > maxProblems {
		errs, more = errs[:maxProblems], len(errs)-maxProblems
	}
	lines := make([]string, 0, len(errs)+1)
	for _, e := range errs {
		m := unknownLine.FindStringSubmatch(e)
		if m == nil {
			if msg, ok := typed.describe(e); ok {
				e = msg
			}
			lines = append(lines, e)
			continue
		}
		msg := fmt.Sprintf("line %s: unknown field %q", m[1], m[2])
		for _, f := range unknownAt[m[1]] {
			if f.key == m[2] {
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
	if more > 0 {
		lines = append(lines, fmt.Sprintf("... and %d more; fix these and validate again", more))
	}
	return fmt.Sprintf("%d problems:\n  %s", len(te.Errors), strings.Join(lines, "\n  "))
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
