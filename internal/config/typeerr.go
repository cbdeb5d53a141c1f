package config

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// typeLine matches the YAML decoder's type-mismatch message, which names a
// YAML tag and a Go type ("line 4: cannot unmarshal !!str `two` into
// int32"): the value is shown cut to 7 characters and "..." when longer
// than 10, and not at all for a list or a mapping.
var typeLine = regexp.MustCompile("^line (\\d+): cannot unmarshal (\\S+?)(?: `(.*)`)? into (.+)$")

// typedValue is one value of the document, where it is and the Go type it
// is decoded into.
type typedValue struct {
	node *yaml.Node
	path string
	t    reflect.Type
}

// typedIndex is a document's values by line, each named once: two wrong
// values of one flow-style line ({count: a, gpus: b}) are two places.
type typedIndex struct {
	byLine map[string][]typedValue
	used   map[*yaml.Node]bool
}

func indexTyped(values []typedValue) typedIndex {
	ix := typedIndex{byLine: map[string][]typedValue{}, used: map[*yaml.Node]bool{}}
	for _, v := range values {
		ln := fmt.Sprint(v.node.Line)
		ix.byLine[ln] = append(ix.byLine[ln], v)
	}
	return ix
}

// describe rewrites one type-mismatch line of the decoder to name the
// value's place in the document, its line and what it must be; ok is false
// when line is not one. Its cost is the values of that line, not the file.
func (ix typedIndex) describe(line string) (msg string, ok bool) {
	m := typeLine.FindStringSubmatch(line)
	if m == nil {
		return "", false
	}
	ln, tag, shown, goType := m[1], m[2], m[3], m[4]
	for _, v := range ix.byLine[ln] {
		n := v.node
		if ix.used[n] || deref(v.t).String() != goType || !sameShown(n, tag, shown) {
			continue
		}
		ix.used[n] = true
		where := "the document"
		if v.path != "" {
			where = v.path
		}
		return fmt.Sprintf("line %s: %s must be %s, not %s", ln, where, expected(v.t), got(n)), true
	}
	// Not placed (a value inside a type that decodes itself): the line,
	// with the Go type in words.
	what := "a list"
	if tag != "!!seq" {
		what = "a mapping"
		if tag != "!!map" {
			what = fmt.Sprintf("%q", shown)
		}
	}
	return fmt.Sprintf("line %s: expected %s, not %s", ln, goWords(goType), what), true
}

// sameShown reports whether n is the value the decoder's message shows.
func sameShown(n *yaml.Node, tag, shown string) bool {
	switch n.Kind {
	case yaml.SequenceNode:
		return tag == "!!seq"
	case yaml.MappingNode:
		return tag == "!!map"
	}
	if cut, ok := strings.CutSuffix(shown, "..."); ok && len(n.Value) > 10 {
		return strings.HasPrefix(n.Value, cut)
	}
	return n.Value == shown
}

// got names a value for a reader: its text, or its kind.
func got(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	}
	return fmt.Sprintf("%q", n.Value)
}

var durationType = reflect.TypeOf(time.Duration(0))

// funcUnmarshaler is the YAML library's older interface for a type that
// decodes itself (scenario.Duration has it).
type funcUnmarshaler interface {
	UnmarshalYAML(unmarshal func(any) error) error
}

// decodesItself reports whether the decoder hands values of t to t's own
// method rather than following its fields.
func decodesItself(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return p.Implements(reflect.TypeOf((*yaml.Unmarshaler)(nil)).Elem()) ||
		p.Implements(reflect.TypeOf((*funcUnmarshaler)(nil)).Elem())
}

// deref is t without its pointers (the decoder names the pointed-to type).
func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// expected says what a value of Go type t is written as in YAML.
func expected(t reflect.Type) string {
	t = deref(t)
	if t == durationType {
		return "a duration such as 90s or 2h"
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "a whole number"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number, 0 or more"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a single value (text)"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "a mapping (key: value lines, or {key: value})"
	}
	return "a " + t.Kind().String()
}

// goWords is expected for a Go type known only by name.
func goWords(name string) string {
	name = strings.TrimLeft(name, "*")
	switch {
	case strings.HasPrefix(name, "[]"):
		return "a list"
	case strings.HasPrefix(name, "map["):
		return "a mapping"
	case strings.HasPrefix(name, "uint"):
		return "a whole number, 0 or more"
	case strings.HasPrefix(name, "int"):
		return "a whole number"
	case strings.HasPrefix(name, "float"):
		return "a number"
	case name == "bool":
		return "true or false"
	case name == "string":
		return "a single value (text)"
	}
	return "another kind of value"
}

// walkTyped lists every value of n with its place and the Go type t it is
// decoded into, following n alongside t as the decoder does; a type that
// decodes itself is listed, not entered.
func walkTyped(n *yaml.Node, t reflect.Type, path string, out *[]typedValue) {
	if n == nil || t == nil {
		return
	}
	if n.Kind == yaml.AliasNode {
		n = n.Alias
		if n == nil {
			return
		}
	}
	*out = append(*out, typedValue{node: n, path: path, t: t})
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if decodesItself(t) {
		return
	}
	switch {
	case t.Kind() == reflect.Struct && n.Kind == yaml.MappingNode:
		fields := yamlFields(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			if ft, ok := fields[n.Content[i].Value]; ok {
				walkTyped(n.Content[i+1], ft, join(path, n.Content[i].Value), out)
			}
		}
	case (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && n.Kind == yaml.SequenceNode:
		for i, c := range n.Content {
			walkTyped(c, t.Elem(), fmt.Sprintf("%s[%d]", path, i), out)
		}
	case t.Kind() == reflect.Map && n.Kind == yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			walkTyped(n.Content[i+1], t.Elem(), join(path, n.Content[i].Value), out)
		}
	}
}
