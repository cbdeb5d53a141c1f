package sqlite_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/sqlite"
	"github.com/taskgov/taskgov/internal/sqlrow"
	"github.com/taskgov/taskgov/internal/storetest"
)

// TestTaskPageAt100k: at 100,000 stored tasks the first page of each of
// the dashboard's filters, with its total and the summary, is at least 10
// times faster than the read of every task and run that the API's task
// cache made before the page came from the store (11.5 s for the first
// read at 100,000 on the 2 shared cores, session 14). It logs both.
func TestTaskPageAt100k(t *testing.T) {
	if os.Getenv("TASKGOV_PAGE_SCALE") == "" {
		t.Skip("a timing comparison at 100,000 stored tasks: TASKGOV_PAGE_SCALE=1 runs it (a loaded CI machine cannot hold its ratios; TestTaskPagePlans and the store suite's TaskPages check the queries)")
	}
	s, err := sqlite.Open(filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	storetest.PageScale[*sqlite.Store, *sqlite.Tx](t, s, 100000, 10)
}

// TestTaskPagePlans: SQLite serves a first page of the default order, for
// no filter, a team, a state or both (and of the name, team and state
// orders), walking an index (or the table's seq order) in that order, so
// that LIMIT stops it: no sort of every match. It counts the matches from
// an index (entries, not rows).
func TestTaskPagePlans(t *testing.T) {
	s, err := sqlite.Open(filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for _, f := range []model.TaskPageFilter{
		{}, {Teams: []string{"a"}}, {States: []string{"Pending"}}, {Teams: []string{"a"}, States: []string{"Pending"}},
		{Teams: []string{"a"}, Sort: "team"}, {Sort: "name"}, {Sort: "state", States: []string{"Running"}},
	} {
		for _, desc := range []bool{false, true} {
			f.Sort, f.Desc, f.Limit = cmpOr(f.Sort, "submittedAt"), desc, 50
			q := sqlrow.TaskPageQuery(f, sqlrow.Question)
			for _, c := range []struct {
				sql   string
				args  []any
				count bool
			}{{q.Page, q.PageArgs, false}, {q.Count, q.CountArgs, true}, {q.CountDeleted, q.CountArgs, true}} {
				plan, err := s.Explain(ctx, c.sql, c.args...)
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(plan, "TEMP B-TREE") || (c.count && !strings.Contains(plan, "INDEX")) {
					t.Errorf("%+v: %s\nplan:\n%s", f, c.sql, plan)
				}
			}
		}
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
