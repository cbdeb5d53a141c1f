package postgres

import (
	"context"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/sqlrow"
)

// appends gathers a transaction's new rows column by column, so that a
// batch of submissions costs three statements (tasks, events, audit)
// however many it holds: PostgreSQL's cost is per statement, not per row.
type appends struct {
	tName, tTeam, tSpec, tState []string
	tSeq, tAt                   []int64

	eTask, eTeam, eKind, eMsg []string
	eSeq, eAt                 []int64

	aActor, aAction, aTeam, aTarget, aResult []string
	aAt                                      []int64
}

func (a *appends) addTask(r model.TaskRecord, spec string) {
	a.tName, a.tTeam, a.tSpec, a.tState = append(a.tName, r.Name), append(a.tTeam, r.Team), append(a.tSpec, spec), append(a.tState, string(r.State))
	a.tSeq, a.tAt = append(a.tSeq, r.Seq), append(a.tAt, sqlrow.Nanos(r.SubmittedAt))
}

func (a *appends) addEvent(e model.Event) {
	a.eTask, a.eTeam, a.eKind, a.eMsg = append(a.eTask, e.Task), append(a.eTeam, e.Team), append(a.eKind, e.Kind), append(a.eMsg, e.Message)
	a.eSeq, a.eAt = append(a.eSeq, e.TaskSeq), append(a.eAt, sqlrow.Nanos(e.At))
}

func (a *appends) addAudit(e model.AuditEntry) {
	a.aActor, a.aAction, a.aTeam = append(a.aActor, e.Actor), append(a.aAction, e.Action), append(a.aTeam, e.Team)
	a.aTarget, a.aResult, a.aAt = append(a.aTarget, e.Target), append(a.aResult, e.Result), append(a.aAt, sqlrow.Nanos(e.At))
}

// queueTasks queues the gathered tasks as one insert; it runs before any
// other write is queued, so that a later update of a new task finds it.
// If the name rule refuses any of them, the statement raises an error and
// the transaction fails (Commit then reports the rule's error: nameError).
func (t *Tx) queueTasks() {
	a := &t.rows
	if len(a.tName) == 0 {
		return
	}
	t.batch.Queue(`WITH ins AS (INSERT INTO tasks(name, team, seq, spec, state, submitted_at)
		SELECT u.n, u.tm, u.sq, u.sp, u.st, u.sa
		FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::bigint[]) WITH ORDINALITY AS u(n, tm, sq, sp, st, sa, o)
		WHERE NOT EXISTS (SELECT 1 FROM (SELECT team, state FROM tasks WHERE name = u.n ORDER BY seq DESC LIMIT 1) p
			WHERE p.team <> u.tm OR p.state NOT IN ('Succeeded', 'Failed', 'Cancelled'))
		ORDER BY u.o RETURNING 1)
		SELECT CASE WHEN count(*) = $7 THEN 0 ELSE taskgov_refuse('`+refusedName+`', '') END FROM ins`,
		a.tName, a.tTeam, a.tSeq, a.tSpec, a.tState, a.tAt, len(a.tName))
	t.inserted = append(t.inserted, taskName{a.tName, a.tTeam})
	a.tName, a.tTeam, a.tSeq, a.tSpec, a.tState, a.tAt = nil, nil, nil, nil, nil, nil
}

type taskName struct{ names, teams []string }

// nameError says which task the name rule refused, after the rollback.
func (t *Tx) nameError() error {
	ctx, cancel := context.WithTimeout(context.Background(), RollbackTimeout)
	defer cancel()
	for _, in := range t.inserted {
		for i, name := range in.names {
			prior, err := priorUse(t.tx.QueryRow(ctx, priorUseQuery, name))
			if err != nil {
				return err
			}
			if err := model.CheckNameReuse(name, in.teams[i], prior); err != nil {
				return err
			}
		}
	}
	return errNameRefused
}

// queueLogs queues the gathered events and audit entries, each table in
// one insert, in the order they were added (ids follow it).
func (t *Tx) queueLogs() {
	a := &t.rows
	if len(a.eTask) > 0 {
		t.batch.Queue(`INSERT INTO events(task, task_seq, team, at, kind, message)
			SELECT u.t, u.s, u.tm, u.a, u.k, u.m FROM unnest($1::text[], $2::bigint[], $3::text[], $4::bigint[], $5::text[], $6::text[])
			WITH ORDINALITY AS u(t, s, tm, a, k, m, o) ORDER BY u.o`,
			a.eTask, a.eSeq, a.eTeam, a.eAt, a.eKind, a.eMsg)
		a.eTask, a.eSeq, a.eTeam, a.eAt, a.eKind, a.eMsg = nil, nil, nil, nil, nil, nil
	}
	if len(a.aActor) > 0 {
		t.batch.Queue(`INSERT INTO audit(at, actor, action, team, target, result)
			SELECT u.a, u.ac, u.act, u.tm, u.tg, u.r FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
			WITH ORDINALITY AS u(a, ac, act, tm, tg, r, o) ORDER BY u.o`,
			a.aAt, a.aActor, a.aAction, a.aTeam, a.aTarget, a.aResult)
		a.aActor, a.aAction, a.aTeam, a.aTarget, a.aResult, a.aAt = nil, nil, nil, nil, nil, nil
	}
}
