package config

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/taskgov/taskgov/internal/model"
)

// TestDescribeJSON: encoding/json's errors, from decoding real documents
// into the model's types, are rewritten with the value's path (list
// indices included), its text and the kind it must be, and never a Go
// type or struct name; a syntax error gets its line and column.
func TestDescribeJSON(t *testing.T) {
	for _, c := range []struct {
		doc  string
		into any
		want string
	}{
		{`{"name": "a", "quotas": [{"instanceType": "x", "count": 1}, {"instanceType": "y", "gpus": 1.5}]}`, &model.Team{},
			`quotas[1].gpus must be a whole number, not 1.5`},
		{`{"name": "a", "fairShareWeight": "heavy"}`, &model.Team{}, `fairShareWeight must be a whole number, not "heavy"`},
		{`{"name": "a", "quotas": {"instanceType": "x"}}`, &model.Team{}, `quotas must be a list, not an object`},
		{`{"name": 7}`, &model.Team{}, `name must be a string (in double quotes), not 7`},
		{`{"name": "a", "borrowWithinGroup": {"policy": "LowerPriority", "maxPriorityWeight": [1]}}`, &model.Team{},
			`borrowWithinGroup.maxPriorityWeight must be a whole number, not a list`},
		{`{"name": "a", "quotas": [{"instanceType": "x", "lendingLimit": {"vcpu": "many"}}]}`, &model.Team{},
			`quotas[0].lendingLimit.vcpu must be a number, not "many"`},
		{`{"name": "j", "nodes": "2"}`, &model.TaskSpec{}, `nodes must be a whole number, not "2"`},
		{`["a"]`, &model.Team{}, `the document must be an object ({"key": value, ...}), not a list`},
		{"{\n  \"name\": \"a\",\n  \"quotas\": [}\n", &model.Team{}, `the document is not valid JSON: line 3, column 14: invalid character '}'`},
	} {
		dec := json.NewDecoder(bytes.NewReader([]byte(c.doc)))
		dec.DisallowUnknownFields()
		err := dec.Decode(c.into)
		p, ok := DescribeJSON([]byte(c.doc), err)
		if !ok || !strings.Contains(p.Error(), c.want) {
			t.Errorf("%s:\n got %q (ok %v) from %v\nwant %q", c.doc, p.Error(), ok, err, c.want)
		}
		if strings.Contains(p.Error(), "Go ") || strings.Contains(p.Error(), "model.") || strings.Contains(p.Error(), "int64") {
			t.Errorf("%s: the message names Go: %q", c.doc, p.Error())
		}
	}
	if _, ok := DescribeJSON([]byte(`{"nmae": "a"}`), json.Unmarshal([]byte(`{`), &model.Team{})); !ok {
		t.Error("an unexpected end is not described")
	}
}

// FuzzDescribeJSON: no body panics DescribeJSON, and a type error it
// describes never names a Go type. `go test` runs the seeds; `go test
// -fuzz FuzzDescribeJSON` searches further.
func FuzzDescribeJSON(f *testing.F) {
	for _, s := range []string{
		`{"name": "a", "quotas": [{"instanceType": "x", "gpus": 1.5}]}`,
		`{"quotas": [[], {}, {"lendingLimit": {"gpus": "x"}}]}`,
		`{"name": "a", "quotas": [{"instanceType": "x", "gpus": 1}]`,
		`{"a": {"b": [1, 2, {"c": "\u00e9"}]}, "name": [1]}`,
		"\n\n  {,",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var tm model.Team
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		err := dec.Decode(&tm)
		if err == nil {
			return
		}
		if p, ok := DescribeJSON(data, err); ok && (strings.Contains(p.Message, "int64") || strings.Contains(p.Message, "Go struct")) {
			t.Fatalf("%q: %q names Go", data, p.Error())
		}
	})
}
