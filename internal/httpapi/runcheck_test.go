package httpapi

import (
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/testwait"
)

// TestSubmitAsksTheExecutorWhetherItCanRun: on a local-executor server a
// task with an image and no command is accepted only when the cluster
// file maps the image (images:); then the mapped program runs with the
// task's args appended. A member's submission of an unmapped image, an
// image name with shell syntax or invisible characters, or an enormous one
// gets a 400 naming the fix, bounded, and nothing is stored. Args are
// bounded as the command is.
func TestSubmitAsksTheExecutorWhetherItCanRun(t *testing.T) {
	e := newEnv(t, testCluster+`images:
  reg.example/train:1: [sh, -c, 'test "$*" = "--epochs=3 two words" && test "$0" = entry', entry]
`)
	member := e.token("member", "alpha")
	base := `"team": "alpha", "instanceType": "ml.p5.48xlarge"`
	for _, c := range []struct{ name, body, mention string }{
		{"unmapped image", `{"name": "u", ` + base + `, "image": "reg.example/other:2"}`,
			`command: is missing, and this server runs tasks as local processes: it cannot run image \"reg.example/other:2\"'s entrypoint`},
		{"shell syntax and a right-to-left mark", `{"name": "h", ` + base + `, "image": "x;$(id)|` + "\u202e" + `gpj"}`, `image \"x;$(id)|\\u202egpj\"'s entrypoint`},
		{"enormous image", `{"name": "big", ` + base + `, "image": "` + strings.Repeat("i", 100000) + `"}`, "image: is not a valid image reference"},
		{"NUL in args", `{"name": "n", ` + base + `, "image": "reg.example/train:1", "args": ["a\u0000b"]}`, "args: argument 0 contains a NUL byte"},
		{"too many args", `{"name": "m", ` + base + `, "command": ["true"], "args": [` + strings.Repeat(`"a", `, model.MaxCommandArgs) + `"a"]}`, "command: has 1026 arguments"},
	} {
		code, body := e.do("POST", "/api/v1/tasks", member, []byte(c.body))
		if code != 400 || !strings.Contains(string(body), c.mention) || !strings.Contains(string(body), `"fix"`) || len(body) > 2000 {
			t.Errorf("%s: %d %.3000s; want a 400 mentioning %s with a fix, within 2000 bytes", c.name, code, body, c.mention)
		}
	}
	var list struct{ Tasks []any }
	e.mustDo("GET", "/api/v1/tasks", e.admin, nil, 200, &list)
	if len(list.Tasks) != 0 {
		t.Errorf("refused submissions stored %d tasks", len(list.Tasks))
	}
	e.mustDo("POST", "/api/v1/tasks", member, []byte(`{"name": "mapped", `+base+`, "image": "reg.example/train:1", "args": ["--epochs=3", "two words"]}`), 201, nil)
	if got := e.waitState("mapped", model.StateSucceeded, testwait.Scale(30*time.Second)); got.State != model.StateSucceeded {
		t.Fatalf("the mapped image's task is %s (%s)", got.State, got.Message)
	}
}
