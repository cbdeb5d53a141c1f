package httpapi

import (
	"cmp"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/model"
)

// pageMode reports whether a task listing asks for a sorted, searchable
// page (the dashboard's Tasks page) rather than the cursor the CLI pages
// with.
func pageMode(q url.Values) bool {
	for _, k := range []string{"q", "sort", "order", "offset", "summary"} {
		if q.Has(k) {
			return true
		}
	}
	return false
}

// taskSorts are the columns a task page sorts by.
var taskSorts = map[string]func(a, b *apitypes.TaskRow) int{
	"name":         func(a, b *apitypes.TaskRow) int { return cmp.Compare(a.Name, b.Name) },
	"team":         func(a, b *apitypes.TaskRow) int { return cmp.Compare(a.Team, b.Team) },
	"state":        func(a, b *apitypes.TaskRow) int { return cmp.Compare(a.State, b.State) },
	"priority":     func(a, b *apitypes.TaskRow) int { return cmp.Compare(a.PriorityWeight, b.PriorityWeight) },
	"instanceType": func(a, b *apitypes.TaskRow) int { return cmp.Compare(a.Spec.InstanceType, b.Spec.InstanceType) },
	"nodes":        func(a, b *apitypes.TaskRow) int { return cmp.Compare(a.Spec.Nodes, b.Spec.Nodes) },
	"gpus":         func(a, b *apitypes.TaskRow) int { return cmp.Compare(a.GPUs, b.GPUs) },
	"vcpu":         func(a, b *apitypes.TaskRow) int { return cmp.Compare(a.VCPU, b.VCPU) },
	"memory":       func(a, b *apitypes.TaskRow) int { return cmp.Compare(a.MemoryGiB, b.MemoryGiB) },
	"resumes":      func(a, b *apitypes.TaskRow) int { return cmp.Compare(a.Resumes, b.Resumes) },
	"submittedAt":  func(a, b *apitypes.TaskRow) int { return a.SubmittedAt.Compare(b.SubmittedAt) },
	"startedAt":    func(a, b *apitypes.TaskRow) int { return a.StartedAt.Compare(b.StartedAt) },
}

// taskPageQuery is a parsed page request.
type taskPageQuery struct {
	teams, states []string
	search        string
	sort          string
	desc          bool
	offset, limit int
	summary       bool
	deleted       bool // deleted tasks too
}

func parseTaskPage(q url.Values) (taskPageQuery, error) {
	pq := taskPageQuery{teams: q["team"], states: q["state"], search: strings.ToLower(strings.TrimSpace(q.Get("q"))),
		sort: cmp.Or(q.Get("sort"), "submittedAt"), limit: 50}
	switch q.Get("summary") {
	case "", "0", "false":
	case "1", "true":
		pq.summary = true
	default:
		return pq, &model.FieldError{Field: "summary", Problem: "must be 1 or true (or 0, false)", Fix: "pass ?summary=1 for the figures over the chosen teams, or leave it out"}
	}
	if len(pq.search) > maxSearchLen {
		return pq, &model.FieldError{Field: "q", Problem: fmt.Sprintf("is %d characters long; task names have at most %d", len(pq.search), maxSearchLen),
			Fix: "search for part of a task's name"}
	}
	if err := checkQueryTeams(pq.teams); err != nil {
		return pq, err
	}
	var err error
	if pq.deleted, err = deletedParam(q); err != nil {
		return pq, err
	}
	if err := checkStates(pq.states); err != nil {
		return pq, err
	}
	if _, ok := taskSorts[pq.sort]; !ok {
		keys := make([]string, 0, len(taskSorts))
		for k := range taskSorts {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		return pq, &model.FieldError{Field: "sort", Problem: "unknown column " + strconv.Quote(pq.sort), Fix: "use one of " + strings.Join(keys, ", ")}
	}
	switch q.Get("order") {
	case "", "asc":
	case "desc":
		pq.desc = true
	default:
		return pq, &model.FieldError{Field: "order", Problem: "must be asc or desc", Fix: "pass ?order=asc or ?order=desc"}
	}
	if v := q.Get("offset"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return pq, &model.FieldError{Field: "offset", Problem: "must be a whole number of tasks to skip, 0 or more", Fix: "pass ?offset=0 for the first page"}
		}
		pq.offset = n
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			return pq, &model.FieldError{Field: "limit", Problem: "must be a whole number from 1 to 1000", Fix: "pass ?limit=50"}
		}
		pq.limit = n
	}
	return pq, nil
}

// listTaskPage serves GET /api/v1/tasks?q=&sort=&order=&offset=&limit=&summary=1:
// one page of the readable tasks of the chosen teams and states whose name
// contains q, sorted by a column (ties by submission order, in the same
// direction), with the number that match. A column the store holds
// (model.StoredTaskSorts) is paged by the store from its indexes; the
// others from taskCache. With summary=1 it adds figures over the chosen
// teams that do not depend on the state filter or the search (summaryCache).
func (s *Server) listTaskPage(w http.ResponseWriter, r *http.Request, p principal) error {
	pq, err := parseTaskPage(r.URL.Query())
	if err != nil {
		return err
	}
	if pq.teams, err = p.teamFilter(pq.teams); err != nil {
		return err
	}
	now := time.Now().UTC()
	v := s.eng.View()
	cat, pol := v.Catalog(), v.Policy()
	var page []*apitypes.TaskRow
	var total int
	if _, ok := model.StoredTaskSorts[pq.sort]; ok {
		got, err := s.st.TaskPage(r.Context(), model.TaskPageFilter{Teams: pq.teams, States: pq.states, Search: pq.search,
			Sort: pq.sort, Desc: pq.desc, Offset: pq.offset, Limit: pq.limit, Deleted: pq.deleted})
		if err != nil {
			return err
		}
		for _, rec := range got.Tasks {
			page = append(page, taskRow(rec, cat, pol))
		}
		total = got.Total
	} else if page, total, err = s.cachedTaskPage(r, pq, now, cat, pol); err != nil {
		return err
	}
	msgs := make([]string, len(page))
	rd := s.redactor(r.Context(), p)
	for i, row := range page {
		row.Message = rd.message(row.Message) // no other team's task names
		msgs[i] = row.Message
		if row.State == model.StatePending { // where it waits and why: O(1) per row once the queue is listed
			if tk, ok := v.Task(row.Name); ok && tk.Reason != nil {
				rd.task(&tk)
				row.Position, row.Why = tk.Position, tk.Why
			}
		}
	}
	actors, err := s.actorsIn(r.Context(), msgs...)
	if err != nil {
		return err
	}
	if page == nil {
		page = []*apitypes.TaskRow{}
	}
	resp := map[string]any{"tasks": page, "total": total, "offset": pq.offset, "limit": pq.limit, "actors": actors}
	if pq.summary {
		sum, err := s.summaries.get(r.Context(), s.st, s.taskList.changes.Load(), pq.teams, now)
		if err != nil {
			return err
		}
		resp["summary"] = sum
	}
	writeJSON(w, http.StatusOK, resp)
	return nil
}

// cachedTaskPage is a page sorted by a column the store does not hold
// (priority weight, instance type, pods, GPUs, vCPU, memory), sorted in
// memory over taskCache's copy of every task.
func (s *Server) cachedTaskPage(r *http.Request, pq taskPageQuery, now time.Time, cat model.Catalog, pol model.Policy) ([]*apitypes.TaskRow, int, error) {
	all, err := s.taskList.get(r.Context(), s.st, now)
	if err != nil {
		return nil, 0, err
	}
	inTeams, states := map[string]bool{}, map[string]bool{}
	for _, t := range pq.teams {
		inTeams[t] = true
	}
	for _, st := range pq.states {
		states[st] = true
	}
	var rows []*apitypes.TaskRow
	for _, rec := range all {
		if (len(inTeams) > 0 && !inTeams[rec.Team]) || (len(states) > 0 && !states[string(rec.State)]) ||
			(pq.search != "" && !strings.Contains(strings.ToLower(rec.Name), pq.search)) || (rec.Deleted() && !pq.deleted) {
			continue
		}
		rows = append(rows, taskRow(rec, cat, pol))
	}
	less := taskSorts[pq.sort]
	slices.SortStableFunc(rows, func(a, b *apitypes.TaskRow) int {
		c := cmp.Or(less(a, b), cmp.Compare(a.Seq, b.Seq))
		if pq.desc {
			c = -c
		}
		return c
	})
	return rows[min(pq.offset, len(rows)):min(pq.offset+pq.limit, len(rows))], len(rows), nil
}

// taskRow adds a task's whole request (all pods) and its priority's weight.
func taskRow(rec model.TaskRecord, cat model.Catalog, pol model.Policy) *apitypes.TaskRow {
	row := &apitypes.TaskRow{TaskRecord: rec}
	nodes := int64(max(rec.Spec.Nodes, 1))
	if it, ok := cat[rec.Spec.InstanceType]; ok {
		v := model.PodVector(rec.Spec.PerNode, it)
		row.GPUs = v.GPUs * nodes
		row.VCPU = float64(v.MilliCPU*nodes) / 1000
		row.MemoryGiB = float64(v.MemMiB*nodes) / 1024
	}
	row.PriorityWeight, _ = pol.ClassWeight(rec.Spec.Priority)
	return row
}
