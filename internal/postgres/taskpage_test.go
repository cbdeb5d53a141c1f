package postgres_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/postgres"
	"github.com/taskgov/taskgov/internal/postgres/pgtest"
	"github.com/taskgov/taskgov/internal/storetest"
)

// TestTaskPageAt100k is internal/sqlite's TestTaskPageAt100k on
// PostgreSQL: the same queries (sqlrow.TaskPageQuery), the same bound.
func TestTaskPageAt100k(t *testing.T) {
	if os.Getenv("TASKGOV_PAGE_SCALE") == "" {
		t.Skip("a timing comparison at 100,000 stored tasks: TASKGOV_PAGE_SCALE=1 runs it (a loaded CI machine cannot hold its ratios; TestTaskPagePlans and the store suite's TaskPages check the queries)")
	}
	s := fresh(t)()
	defer s.Close()
	storetest.PageScale[*postgres.Store, *postgres.Tx](t, s, 100000, 10)
}

// TestTaskPageOrderUnderICU: on a database whose default collation is
// ICU's English (where "a-c" sorts after "ab"), the task list's name and
// team orders are still bytewise, as on SQLite (the columns are
// COLLATE "C", migration 7).
func TestTaskPageOrderUnderICU(t *testing.T) {
	if server == nil {
		t.Skip(pgtest.HowTo)
	}
	const db = "collate_icu_en"
	if err := server.Exec("postgres", `CREATE DATABASE `+db+` TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US'`); err != nil {
		t.Fatal(err)
	}
	storetest.TaskPageOrder[*postgres.Store, *postgres.Tx](t, func() *postgres.Store {
		s, err := postgres.Open(context.Background(), server.DSN(db))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestBytewiseOrderMigration: a database made by a taskgov before
// migration 7, under ICU's English, keeps its tasks when migrated, and its
// task list is then ordered bytewise.
func TestBytewiseOrderMigration(t *testing.T) {
	if server == nil {
		t.Skip(pgtest.HowTo)
	}
	ctx := context.Background()
	const db = "collate_icu_en_v6"
	if err := server.Exec("postgres", `CREATE DATABASE `+db+` TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US'`); err != nil {
		t.Fatal(err)
	}
	if err := postgres.MigrateTo(ctx, server.DSN(db), 6); err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"ab", "a_b", "a-c"} {
		if err := server.Exec(db, fmt.Sprintf(`INSERT INTO tasks(name, team, seq, spec, state, submitted_at) VALUES ('%s', 't', %d, '{}', 'Pending', 1)`, name, i+1)); err != nil {
			t.Fatal(err)
		}
	}
	s, err := postgres.Open(ctx, server.DSN(db))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	page, err := s.TaskPage(ctx, model.TaskPageFilter{Sort: "name", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range page.Tasks {
		got = append(got, r.Name)
	}
	if want := []string{"a-c", "a_b", "ab"}; !slices.Equal(got, want) || page.Total != 3 {
		t.Fatalf("after migration 7: %v (total %d), want %v (total 3)", got, page.Total, want)
	}
}
