package httpapi

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestJSONTypeErrorsNameThePlace: a body value of the wrong kind is
// refused (400) with its path in the body, list indices included, what
// was given and what it must be, in the error's message and field, and
// never a Go type or struct name (the message was encoding/json's "cannot
// unmarshal number 1.5 into Go struct field Quota.quotas.gpus of type
// int64"); a syntax error names its line and column. Nothing is stored.
func TestJSONTypeErrorsNameThePlace(t *testing.T) {
	e := newEnv(t, testCluster)
	good := `"team": "alpha", "instanceType": "ml.p5.48xlarge", "command": ["true"]`
	for _, c := range []struct {
		method, path, body string
		field, message     string
	}{
		{"PUT", "/api/v1/teams/alpha", `{"name": "alpha", "quotas": [{"instanceType": "ml.p5.48xlarge", "gpus": 1.5}]}`,
			"quotas[0].gpus", "the body's quotas[0].gpus must be a whole number, not 1.5"},
		{"PUT", "/api/v1/teams/alpha", `{"name": "alpha", "fairShareWeight": "50"}`,
			"fairShareWeight", `the body's fairShareWeight must be a whole number, not "50"`},
		{"POST", "/api/v1/tasks", `{"name": "x", "nodes": "2", ` + good + `}`,
			"nodes", `the body's nodes must be a whole number, not "2"`},
		{"POST", "/api/v1/tasks", `{"name": "x", "command": "python3 train.py", "team": "alpha", "instanceType": "ml.p5.48xlarge"}`,
			"command", `the body's command must be a list, not "python3 train.py"`},
		{"POST", "/api/v1/tasks", `{"name": "x", "perNode": {"gpus": true}, ` + good + `}`,
			"perNode.gpus", "the body's perNode.gpus must be a whole number, not true"},
		{"POST", "/api/v1/tasks", "{\n  \"name\": \"x\",\n  \"nodes\": 2,,\n" + good + "}",
			"", "the body is not valid JSON: line 3, column 14: invalid character ','"},
	} {
		code, body := e.do(c.method, c.path, e.admin, c.body)
		var got struct {
			Error apiError `json:"error"`
		}
		_ = json.Unmarshal(body, &got)
		if code != 400 || got.Error.Field != c.field || !strings.HasPrefix(got.Error.Message, c.message) || got.Error.Fix == "" {
			t.Errorf("%s %s %s:\n%d %s\nwant field %q, message %q", c.method, c.path, c.body, code, body, c.field, c.message)
		}
		for _, leak := range []string{"Go struct", "int64", "unmarshal", "model."} {
			if strings.Contains(string(body), leak) {
				t.Errorf("%s: the answer names Go (%q): %s", c.body, leak, body)
			}
		}
	}
	var list struct{ Tasks []any }
	e.mustDo("GET", "/api/v1/tasks", e.admin, nil, 200, &list)
	if len(list.Tasks) != 0 {
		t.Fatalf("bad input stored %d tasks", len(list.Tasks))
	}
	var teams struct {
		Teams []struct{ FairShareWeight int }
	}
	e.mustDo("GET", "/api/v1/teams", e.admin, nil, 200, &teams)
	if teams.Teams[0].FairShareWeight != 1 {
		t.Fatalf("a refused team change altered the team: %+v", teams.Teams[0])
	}
}
