package sqlrow

import (
	"reflect"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// row is one stored row, as a database gives it back.
type row []any

func (r row) Scan(dest ...any) error {
	for i, d := range dest {
		reflect.ValueOf(d).Elem().Set(reflect.ValueOf(r[i]).Convert(reflect.TypeOf(d).Elem()))
	}
	return nil
}

// TestTaskRoundTrip: a task written with TaskSpec and TaskUpdateValues reads
// back the same through Task, times in UTC to the nanosecond, an empty
// placement as none.
func TestTaskRoundTrip(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 0, 0, 123, time.UTC)
	want := model.TaskRecord{Name: "a", Team: "t", Seq: 7, State: model.StateRunning, SubmittedAt: at, StartedAt: at.Add(time.Second),
		Resumes: 1, Retries: 2, Message: "m", Spec: model.TaskSpec{Name: "a", Team: "t", Nodes: 2},
		Placement: []model.PodPlacement{{Node: "n1"}}, PGIDs: []int{11, 12}}
	spec, err := TaskSpec(want)
	if err != nil {
		t.Fatal(err)
	}
	v, err := TaskUpdateValues(want)
	if err != nil || len(v) != len(TaskUpdateColumns) || v[0] != spec {
		t.Fatalf("update values %v %v", v, err)
	}
	// name, team, seq, spec, state, submitted_at, then the update's columns from started_at on, as TaskColumns orders them.
	got, err := Task(row{want.Name, want.Team, want.Seq, v[0], v[1], Nanos(want.SubmittedAt), v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9]})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("read back\n%+v\nwant\n%+v", got, want)
	}
	want.Placement = nil
	v, _ = TaskUpdateValues(want)
	if v[7] != "" {
		t.Fatalf("no placement is stored as %q", v[7])
	}
	if !Time(0).IsZero() || Nanos(time.Time{}) != 0 {
		t.Fatal("the zero time is not stored as 0")
	}
}

// TestLiveToken: a revoked token and a missing one are both not found.
func TestLiveToken(t *testing.T) {
	if _, err := LiveToken(row{"id", "admin", "", "", int64(1), int64(2)}, nil); err == nil {
		t.Fatal("a revoked token authenticated")
	}
	tok, err := LiveToken(row{"id", "admin", "", "n", int64(1), int64(0)}, nil)
	if err != nil || tok.ID != "id" || tok.CreatedAt.UnixNano() != 1 {
		t.Fatalf("a live token: %+v %v", tok, err)
	}
}

// TestAuditQuery: each filter field adds its condition with the adapter's
// placeholders, numbered in order, and the limit defaults to 1000.
func TestAuditQuery(t *testing.T) {
	f := model.AuditFilter{AfterID: 5, Team: "t", To: time.Unix(0, 9)}
	q, args := AuditQuery(f, Dollar)
	if want := `SELECT ` + AuditColumns + ` FROM audit WHERE id > $1 AND team = $2 AND at < $3 ORDER BY id LIMIT $4`; q != want {
		t.Fatalf("query\n%s\nwant\n%s", q, want)
	}
	if !reflect.DeepEqual(args, []any{int64(5), "t", int64(9), 1000}) {
		t.Fatalf("args %#v", args)
	}
	if q, _ := AuditQuery(model.AuditFilter{Actor: "a"}, Question); q != `SELECT `+AuditColumns+` FROM audit WHERE id > ? AND actor = ? ORDER BY id LIMIT ?` {
		t.Fatalf("SQLite query %s", q)
	}
}
