package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// JSONProblem is a JSON decode error in a reader's words, as the YAML
// errors are: Path is the value's place in the document with list
// indices ("quotas[0].gpus"; "" for the document itself), and Message
// says what it is and what it must be ("must be a whole number, not
// 1.5"), or, for a syntax error, where it is ("line 3, column 14: ...").
type JSONProblem struct {
	Path    string
	Message string
}

// Error is "PATH MESSAGE" ("the document MESSAGE" without a path).
func (p JSONProblem) Error() string {
	if p.Path == "" {
		return "the document " + p.Message
	}
	return p.Path + " " + p.Message
}

// DescribeJSON rewrites err, the error of decoding data as JSON, without
// Go's types and struct names: a value of the wrong kind is named by its
// path, its text and the kind it must be; a syntax error by its line and
// column. ok is false for any other error (an unknown field, a value a
// type refused itself), whose own text already speaks JSON.
func DescribeJSON(data []byte, err error) (p JSONProblem, ok bool) {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		return describeJSONType(data, te), true
	case errors.As(err, &se):
		line, col := lineCol(data, se.Offset)
		return JSONProblem{Message: fmt.Sprintf("is not valid JSON: line %d, column %d: %s", line, col, strings.TrimPrefix(se.Error(), "json: "))}, true
	case errors.Is(err, io.ErrUnexpectedEOF):
		return JSONProblem{Message: "is not valid JSON: it ends before its last value is complete (a missing } or ])"}, true
	}
	return JSONProblem{}, false
}

func describeJSONType(data []byte, te *json.UnmarshalTypeError) JSONProblem {
	want := jsonKind(te.Type)
	best, found := jsonValue{}, false
	for _, v := range jsonValues(data) {
		if stripIndices(v.path) != te.Field {
			continue
		}
		if !found || absDiff(v.end, te.Offset) < absDiff(best.end, te.Offset) {
			best, found = v, true
		}
	}
	if !found { // a value the walk could not place: the decoder's own words for it
		return JSONProblem{Path: te.Field, Message: fmt.Sprintf("must be %s, not %s", want, te.Value)}
	}
	return JSONProblem{Path: best.path, Message: fmt.Sprintf("must be %s, not %s", want, best.shown(data))}
}

// jsonValue is one value of a document: its path, where its text starts
// and where its first token ends (a scalar's end; just past a list's [ or
// an object's {).
type jsonValue struct {
	path       string
	start, end int64
	kind       byte // 's'calar, '[' or '{'
}

// shown is the value as a reader wrote it: a scalar's text (cut at 40
// characters), or its kind.
func (v jsonValue) shown(data []byte) string {
	switch v.kind {
	case '[':
		return "a list"
	case '{':
		return "an object"
	}
	s := strings.TrimSpace(string(data[v.start:v.end]))
	s = strings.TrimLeft(s, ":, \t\r\n")
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return s
}

// jsonValues lists every value of data with its path, in order. It stops
// at the first syntax error (the values before it are listed).
func jsonValues(data []byte) []jsonValue {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	type frame struct {
		object bool
		key    string
		index  int
		path   string
		inKey  bool // an object's next token is a key
	}
	var stack []frame
	var out []jsonValue
	here := func() string {
		if len(stack) == 0 {
			return ""
		}
		f := stack[len(stack)-1]
		if f.object {
			return join(f.path, f.key)
		}
		return fmt.Sprintf("%s[%d]", f.path, f.index)
	}
	for {
		start := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return out
		}
		end := dec.InputOffset()
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			continue
		}
		if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].inKey {
			stack[n-1].key, stack[n-1].inKey = tok.(string), false
			continue
		}
		path := here()
		if n := len(stack); n > 0 {
			if stack[n-1].object {
				stack[n-1].inKey = true
			} else {
				stack[n-1].index++
			}
		}
		switch tok {
		case json.Delim('{'):
			out = append(out, jsonValue{path: path, start: start, end: end, kind: '{'})
			stack = append(stack, frame{object: true, path: path, inKey: true})
		case json.Delim('['):
			out = append(out, jsonValue{path: path, start: start, end: end, kind: '['})
			stack = append(stack, frame{path: path})
		default:
			out = append(out, jsonValue{path: path, start: start, end: end, kind: 's'})
		}
	}
}

// stripIndices is a path as encoding/json names a field: "quotas.gpus"
// for "quotas[0].gpus".
func stripIndices(path string) string {
	var b strings.Builder
	depth := 0
	for _, r := range path {
		switch {
		case r == '[':
			depth++
		case r == ']':
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// jsonKind says what a value decoded into Go type t is written as in JSON.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "another kind of value"
	}
	t = deref(t)
	if t == durationType {
		return "a whole number of nanoseconds"
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
		return "a string (in double quotes)"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object ({\"key\": value, ...})"
	}
	return "another kind of value"
}

// lineCol turns a byte offset of data into a 1-based line and column.
func lineCol(data []byte, off int64) (line, col int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1)
	return line, max(col, 1)
}

func absDiff(a, b int64) int64 {
	if a > b {
		return a - b
	}
	return b - a
}
