package httpapi

import (
	"strings"
	"testing"
)

// TestRunFieldsAreValidated (issue 14, findings 2, 3, 9 and 10): bad
// commands, env and sizes, reserved variables, resource requests that round
// to nothing and unbounded retries are refused at submit with the field and
// the fix, and nothing is stored.
func TestRunFieldsAreValidated(t *testing.T) {
	e := newEnv(t, testCluster)
	base := `"name": "x", "team": "alpha", "instanceType": "ml.p5.48xlarge"`
	cmd := `"command": ["true"]`
	cases := []struct{ name, body, mention string }{
		{"missing command", `{` + base + `}`, "command: is missing"},
		{"empty command", `{` + base + `, "command": []}`, "command: is missing"},
		{"empty program", `{` + base + `, "command": [""]}`, "the program) is empty"},
		{"NUL in command", `{` + base + `, "command": ["sh", "a\u0000b"]}`, "NUL"},
		{"NUL in env value", `{` + base + `, ` + cmd + `, "env": {"A": "x\u0000y"}}`, "NUL"},
		{"env key with =", `{` + base + `, ` + cmd + `, "env": {"A=B": "1"}}`, "not a valid variable name"},
		{"empty env key", `{` + base + `, ` + cmd + `, "env": {"": "1"}}`, "not a valid variable name"},
		{"reserved TASKGOV_DATA_DIR", `{` + base + `, ` + cmd + `, "env": {"TASKGOV_DATA_DIR": "/elsewhere"}}`, "TASKGOV_DATA_DIR is reserved"},
		{"reserved RANK", `{` + base + `, ` + cmd + `, "env": {"RANK": "3"}}`, "RANK is reserved"},
		{"command over the limit", `{` + base + `, "command": ["sh", "` + strings.Repeat("a", 40<<10) + `"]}`, "within 32 KiB"},
		{"env over the limit", `{` + base + `, ` + cmd + `, "env": {"A": "` + strings.Repeat("a", 40<<10) + `"}}`, "within 32 KiB"},
		{"unbounded maxRetry", `{` + base + `, ` + cmd + `, "autoResume": true, "maxRetry": 2147483647}`, "use 0 to 100 retries"},
		{"vCPU that rounds to zero", `{` + base + `, ` + cmd + `, "perNode": {"vcpu": 1e-300}}`, "rounds to zero milli-vCPU"},
		{"vCPU below a milli", `{` + base + `, ` + cmd + `, "perNode": {"vcpu": 0.0004}}`, "at least 0.001 vCPU"},
		{"memory that rounds to zero", `{` + base + `, ` + cmd + `, "perNode": {"memoryGiB": 0.0001}}`, "rounds to zero MiB"},
	}
	for _, c := range cases {
		code, body := e.do("POST", "/api/v1/tasks", e.admin, []byte(c.body))
		if code != 400 || !strings.Contains(string(body), c.mention) || !strings.Contains(string(body), `"fix"`) {
			t.Errorf("%s: %d %s; want 400 mentioning %q with a fix", c.name, code, body, c.mention)
		}
	}
	var list struct{ Tasks []any }
	e.mustDo("GET", "/api/v1/tasks", e.admin, nil, 200, &list)
	if len(list.Tasks) != 0 {
		t.Errorf("refused submissions stored %d tasks", len(list.Tasks))
	}
	// The smallest requests that count are accepted.
	e.mustDo("POST", "/api/v1/tasks", e.admin, []byte(`{"name": "tiny", "team": "alpha", "instanceType": "ml.p5.48xlarge", `+cmd+
		`, "perNode": {"vcpu": 0.001, "memoryGiB": 0.001}, "maxRetry": 100, "env": {"MY_VAR": "1"}}`), 201, nil)
}
