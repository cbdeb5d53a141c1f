package httpapi

import (
	"strconv"
	"strings"
	"testing"
)

// TestTaskEventsAfterMustBeAnID: ?after= that is not an event id is
// refused naming the parameter and the fix; before, it was read as 0 and
// the whole history came back as if asked for.
func TestTaskEventsAfterMustBeAnID(t *testing.T) {
	e := newEnv(t, testCluster)
	e.mustDo("POST", "/api/v1/tasks", e.admin, spec("hist", "alpha", "true"), 201, nil)
	for _, q := range []string{"yesterday", "-1", "99999999999999999999"} {
		code, body := e.do("GET", "/api/v1/tasks/hist/events?after="+q, e.admin, nil)
		if code != 400 || !strings.Contains(string(body), `"field":"after"`) {
			t.Errorf("after=%s: %d %s", q, code, body)
		}
	}
	var got struct{ Events []struct{ ID int64 } }
	e.mustDo("GET", "/api/v1/tasks/hist/events?after=0", e.admin, nil, 200, &got)
	if len(got.Events) == 0 {
		t.Fatal("after=0 returned no events")
	}
	e.mustDo("GET", "/api/v1/tasks/hist/events?after="+strconv.FormatInt(got.Events[0].ID, 10), e.admin, nil, 200, nil)
}

// TestAuditAfterMustBeAnID: the audit log's ?after= cursor is refused the
// same way when it is not an entry id (before, read as 0: the whole log).
func TestAuditAfterMustBeAnID(t *testing.T) {
	e := newEnv(t, testCluster)
	e.mustDo("POST", "/api/v1/tasks", e.admin, spec("audited", "alpha", "true"), 201, nil)
	for _, q := range []string{"yesterday", "-1", "1.5"} {
		code, body := e.do("GET", "/api/v1/audit?after="+q, e.admin, nil)
		if code != 400 || !strings.Contains(string(body), `"field":"after"`) {
			t.Errorf("after=%s: %d %s", q, code, body)
		}
	}
	e.mustDo("GET", "/api/v1/audit?after=0", e.admin, nil, 200, nil)
}
