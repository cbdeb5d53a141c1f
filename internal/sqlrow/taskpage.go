package sqlrow

import (
	"strings"

	"github.com/taskgov/taskgov/internal/model"
)

// TaskPageSQL is f's page query and its count query, in the SQL both
// adapters speak, with their arguments (ph numbers them). Both are served
// by the tasks' indexes: the page walks one index in its order and stops
// after Offset+Limit rows; the count walks the filter's index entries, not
// the rows (deleted tasks are subtracted through their own partial index).
// f.Sort must be a key of model.StoredTaskSorts.
type TaskPageSQL struct {
	Page, Count, CountDeleted string
	PageArgs, CountArgs       []any
}

// TaskPageQuery builds f's queries.
func TaskPageQuery(f model.TaskPageFilter, ph Placeholder) TaskPageSQL {
	var conds []string
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return ph(len(args))
	}
	in := func(col string, vals []string) {
		if len(vals) == 0 {
			return
		}
		ps := make([]string, len(vals))
		for i, v := range vals {
			ps[i] = arg(v)
		}
		conds = append(conds, col+" IN ("+strings.Join(ps, ", ")+")")
	}
	in("team", f.Teams)
	in("state", f.States)
	if f.Search != "" {
		conds = append(conds, "name LIKE "+arg("%"+likeEscaper.Replace(f.Search)+"%")+` ESCAPE '\'`)
	}
	where := func(extra string) string {
		cs := conds
		if extra != "" {
			cs = append(append([]string(nil), conds...), extra)
		}
		if len(cs) == 0 {
			return ""
		}
		return " WHERE " + strings.Join(cs, " AND ")
	}
	var out TaskPageSQL
	out.CountArgs = append([]any(nil), args...)
	out.Count = `SELECT COUNT(*) FROM tasks` + where("")
	out.CountDeleted = `SELECT COUNT(*) FROM tasks` + where("deleted = 1")
	live := ""
	if !f.Deleted {
		live = "deleted = 0"
	}
	dir := " ASC"
	if f.Desc {
		dir = " DESC"
	}
	order := " ORDER BY seq" + dir
	if col := model.StoredTaskSorts[f.Sort]; col != "seq" {
		order = " ORDER BY " + col + dir + ", seq" + dir
	}
	out.Page = `SELECT ` + TaskColumns + ` FROM tasks` + where(live) + order + " LIMIT " + arg(f.Limit) + " OFFSET " + arg(f.Offset)
	out.PageArgs = args
	return out
}

// likeEscaper escapes LIKE's wildcards and its escape character.
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// TaskFactsQuery is the query of model.TaskFacts over the tasks of teams
// (all teams if none) at now, one row per state: state, count, preempted,
// wait (ms), run (ms) and the number of terminal tasks that ran. Each
// task's runs are reduced first (first start, running time with an open
// run counted to now, preempted); runs are joined by task name, as a name
// is one team's. Placeholders are numbered in the order they appear, as
// SQLite's "?" needs.
func TaskFactsQuery(teams []string, now int64, ph Placeholder) (string, []any) {
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return ph(len(args))
	}
	teamIn := func(col string) string {
		if len(teams) == 0 {
			return ""
		}
		ps := make([]string, len(teams))
		for i, t := range teams {
			ps[i] = arg(t)
		}
		return " WHERE " + col + " IN (" + strings.Join(ps, ", ") + ")"
	}
	terminal := `t.state IN ('` + string(model.StateSucceeded) + `', '` + string(model.StateFailed) + `', '` + string(model.StateCancelled) + `')`
	q := `SELECT t.state, COUNT(*),
		SUM(CASE WHEN r.preempted > 0 THEN 1 ELSE 0 END),
		SUM(CAST(CASE WHEN r.first_start > 0 THEN r.first_start - t.submitted_at
			WHEN t.finished_at > 0 THEN t.finished_at - t.submitted_at
			ELSE ` + arg(now) + ` - t.submitted_at END AS DOUBLE PRECISION) / 1000000),
		SUM(CASE WHEN ` + terminal + ` AND r.ran > 0 THEN CAST(r.ran AS DOUBLE PRECISION) / 1000000 ELSE 0 END),
		SUM(CASE WHEN ` + terminal + ` AND r.ran > 0 THEN 1 ELSE 0 END)
	FROM tasks t LEFT JOIN (SELECT task, MIN(started_at) AS first_start,
			SUM(CASE WHEN ended_at > 0 THEN ended_at - started_at ELSE ` + arg(now) + ` - started_at END) AS ran,
			SUM(CASE WHEN outcome LIKE 'preempted: %' AND outcome <> 'preempted: ` + string(model.Suspended) + `' THEN 1 ELSE 0 END) AS preempted
		FROM runs`
	q += teamIn("team") + ` GROUP BY task) r ON r.task = t.name`
	q += teamIn("t.team") + `
	GROUP BY t.state`
	return q, args
}

// ScanTaskFacts reads TaskFactsQuery's rows.
func ScanTaskFacts(rows Rows) (model.TaskFacts, error) {
	f := model.TaskFacts{Counts: map[model.TaskState]int{}}
	for rows.Next() {
		var state string
		var n, pre, runN int64
		var wait, run float64
		if err := rows.Scan(&state, &n, &pre, &wait, &run, &runN); err != nil {
			return f, err
		}
		f.Counts[model.TaskState(state)] += int(n)
		f.Preempted += int(pre)
		f.WaitMillis += wait
		f.RunMillis += run
		f.RunN += int(runN)
	}
	return f, rows.Err()
}
