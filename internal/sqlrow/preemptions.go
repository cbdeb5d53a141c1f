package sqlrow

import (
	"strings"

	"github.com/taskgov/taskgov/internal/model"
)

// PreemptionColumns are the columns of a preemption that Preemption reads.
const PreemptionColumns = `id, at, task, team, reason, preemptor, preemptor_team, gpus, work_gpu_seconds, restart_gpu_seconds`

// InsertPreemption is the insert of a preemption (all its columns but id).
func InsertPreemption(ph Placeholder) string {
	ps := make([]string, 9)
	for i := range ps {
		ps[i] = ph(i + 1)
	}
	return `INSERT INTO preemptions(at, task, team, reason, preemptor, preemptor_team, gpus, work_gpu_seconds, restart_gpu_seconds) VALUES (` +
		strings.Join(ps, ", ") + `)`
}

// PreemptionValues are InsertPreemption's values.
func PreemptionValues(p model.PreemptionRecord) []any {
	return []any{Nanos(p.At), p.Task, p.Team, string(p.Reason), p.Preemptor, p.PreemptorTeam, p.GPUs, p.WorkGPUSeconds, p.RestartGPUSeconds}
}

// Preemption reads a row of PreemptionColumns.
func Preemption(row Row) (model.PreemptionRecord, error) {
	var p model.PreemptionRecord
	var at int64
	var reason string
	err := row.Scan(&p.ID, &at, &p.Task, &p.Team, &reason, &p.Preemptor, &p.PreemptorTeam, &p.GPUs, &p.WorkGPUSeconds, &p.RestartGPUSeconds)
	p.At, p.Reason = Time(at), model.PreemptReason(reason)
	return p, err
}

// PreemptionQuery is the query of the preemptions f selects, newest first,
// at most f.Limit (100 if unset), and its arguments. With teams it is a
// union of two index walks (victim's team, preemptor's team), each in id
// order, so that a page reads about a page of rows.
func PreemptionQuery(f model.PreemptionFilter, ph Placeholder) (string, []any) {
	if f.Limit <= 0 {
		f.Limit = 100
	}
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return ph(len(args))
	}
	before := func() string {
		if f.BeforeID > 0 {
			return " AND id < " + arg(f.BeforeID)
		}
		return ""
	}
	if len(f.Teams) == 0 {
		where := ""
		if f.BeforeID > 0 {
			where = " WHERE id < " + arg(f.BeforeID)
		}
		return `SELECT ` + PreemptionColumns + ` FROM preemptions` + where + ` ORDER BY id DESC LIMIT ` + arg(f.Limit), args
	}
	in := func() string {
		ps := make([]string, len(f.Teams))
		for i, t := range f.Teams {
			ps[i] = arg(t)
		}
		return "(" + strings.Join(ps, ", ") + ")"
	}
	// Each side is limited on its own first: the union of two pages holds
	// the page of the union.
	side := func(col, alias string) string {
		return `SELECT * FROM (SELECT ` + PreemptionColumns + ` FROM preemptions WHERE ` + col + ` IN ` + in() + before() +
			` ORDER BY id DESC LIMIT ` + arg(f.Limit) + `) AS ` + alias
	}
	q := `SELECT ` + PreemptionColumns + ` FROM (` + side("team", "v") + ` UNION ` + side("preemptor_team", "p") + `) AS u ORDER BY id DESC LIMIT `
	return q + arg(f.Limit), args
}
