package httpapi

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/engine"
	"github.com/taskgov/taskgov/internal/model"
)

func (s *Server) submitTask(w http.ResponseWriter, r *http.Request, p principal) error {
	var spec model.TaskSpec
	if err := decode(w, r, &spec); err != nil {
		return err
	}
	spec.Team = strings.TrimPrefix(spec.Team, model.NamespacePrefix)
	if spec.Team == "" {
		return teamRequired(p)
	}
	if !p.canWrite(spec.Team) {
		return s.forbid(r, p, "task.submit", spec.Team+"/"+spec.Name)
	}
	key := r.Header.Get(IdempotencyKeyHeader)
	if err := model.ValidateIdempotencyKey(key); err != nil {
		return err
	}
	if err := model.ValidateRun(spec); err != nil {
		return err
	}
	// The executor's run check and the pending cap are decided in the
	// engine's op, after the replay: a retry of a stored submission gets
	// its task whatever they would say now, and submissions in flight
	// together cannot pass the cap (engine.checkPendingCap).
	rec, replayed, err := s.eng.SubmitChecked(r.Context(), p.ID, spec, key, s.canRun)
	if errors.Is(err, model.ErrConflict) && !s.redactor(r.Context(), p).visible(spec.Name) {
		// Say neither whose the name is nor what state its task is in.
		err = &apiError{Status: http.StatusConflict, Code: "conflict",
			Message: "task name " + strconv.Quote(spec.Name) + " is not available (names are cluster-wide and stay with the team that used them)",
			Fix:     "choose another name", cause: err}
	}
	if err != nil {
		return err // an op's refusal is in the audit log already (engine.Audited)
	}
	if replayed {
		w.Header().Set(ReplayedHeader, "true")
	}
	writeJSON(w, http.StatusCreated, rec)
	return nil
}

// teamRequired refuses a submission without a team (a 403 would tell a
// member its token may not submit at all), naming a member's own team.
func teamRequired(p principal) error {
	fix := "set team to the team the task runs for"
	if p.Role == model.RoleMember {
		fix = "set team to " + strconv.Quote(p.Team) + ", your token's team"
	}
	return &model.FieldError{Field: "team", Problem: "is required", Fix: fix}
}

// A submission's idempotency key, and the answer's mark that it is the
// task an earlier submission with that key made (SERVER.md, Submissions).
const (
	IdempotencyKeyHeader = "Idempotency-Key"
	ReplayedHeader       = "Idempotent-Replayed"
)

// listTasks: ?team=a&team=b&state=Pending&after=<seq>&limit=<n> (max 1000).
// With q, sort, order, offset or summary it serves a page instead (listTaskPage).
func (s *Server) listTasks(w http.ResponseWriter, r *http.Request, p principal) error {
	q := r.URL.Query()
	if pageMode(q) {
		return s.listTaskPage(w, r, p)
	}
	f := model.TaskFilter{Teams: q["team"], States: q["state"], Limit: 100}
	if err := checkStates(f.States); err != nil {
		return err
	}
	if err := checkQueryTeams(f.Teams); err != nil {
		return err
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			return &model.FieldError{Field: "limit", Problem: "must be a whole number from 1 to 1000", Fix: "pass ?limit=100"}
		}
		f.Limit = n
	}
	if v := q.Get("after"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return &model.FieldError{Field: "after", Problem: "must be the nextAfter value of the previous page", Fix: "pass the nextAfter from the last response"}
		}
		f.AfterSeq = n
	}
	if v := q.Get("since"); v != "" {
		since, err := parseTime("since", v)
		if err != nil {
			return err
		}
		f.Since = since
	}
	teams, ferr := p.teamFilter(f.Teams)
	if ferr != nil {
		return ferr
	}
	f.Teams = teams
	withDeleted, err := deletedParam(q)
	if err != nil {
		return err
	}
	recs, err := s.st.ListTasks(r.Context(), f)
	if err != nil {
		return err
	}
	full := len(recs) == f.Limit
	if n := withinBudget(recs); n < len(recs) {
		recs, full = recs[:n], true
	}
	next := int64(0)
	if full {
		next = recs[len(recs)-1].Seq // a page may then hold fewer tasks than limit, or none
	}
	if !withDeleted {
		recs = slices.DeleteFunc(recs, model.TaskRecord.Deleted)
	}
	s.redactor(r.Context(), p).records(recs)
	resp := map[string]any{"tasks": recs}
	if full {
		resp["nextAfter"] = next
	}
	writeJSON(w, http.StatusOK, resp)
	return nil
}

// deletedParam reads ?deleted=: whether a list also shows deleted tasks.
func deletedParam(q url.Values) (bool, error) {
	switch q.Get("deleted") {
	case "":
		return false, nil
	case "true", "1":
		return true, nil
	case "false", "0":
		return false, nil
	}
	return false, &model.FieldError{Field: "deleted", Problem: "must be true or false", Fix: "pass ?deleted=true to list deleted tasks too"}
}

// visibleTask returns a task p may read, hiding others' tasks as not found.
func (s *Server) visibleTask(r *http.Request, p principal) (apitypes.Task, error) {
	v, err := s.eng.Task(r.Context(), r.PathValue("name"))
	if err != nil {
		return v, err
	}
	if !p.canRead(v.Team) {
		return v, &apiError{Status: http.StatusNotFound, Code: "not_found", Message: "task " + strconv.Quote(v.Name) + ": not found"}
	}
	return v, nil
}

// presentTask is visibleTask, with a deleted task not found either.
func (s *Server) presentTask(r *http.Request, p principal) (apitypes.Task, error) {
	v, err := s.visibleTask(r, p)
	if err == nil && v.Deleted() {
		return v, &apiError{Status: http.StatusNotFound, Code: "not_found",
			Message: "task " + strconv.Quote(v.Name) + ": not found (deleted at " + v.DeletedAt.UTC().Format(time.RFC3339) + ")",
			Fix:     "its events stay at /api/v1/tasks/" + v.Name + "/events, and its runs in usage reports and the audit log"}
	}
	return v, err
}

func (s *Server) getTask(w http.ResponseWriter, r *http.Request, p principal) error {
	v, err := s.presentTask(r, p)
	if err != nil {
		return err
	}
	s.redactor(r.Context(), p).task(&v)
	writeJSON(w, http.StatusOK, v)
	return nil
}

func (s *Server) taskAction(w http.ResponseWriter, r *http.Request, p principal) error {
	action := r.PathValue("action")
	v, err := s.presentTask(r, p)
	if err != nil {
		return err
	}
	if !p.canWrite(v.Team) {
		return s.forbid(r, p, "task."+action, v.Name)
	}
	var arg string
	if action == engine.ActPriority {
		var body struct {
			Priority string `json:"priority"`
		}
		if err := decode(w, r, &body); err != nil {
			return err
		}
		arg = body.Priority
	}
	rec, err := s.eng.TaskAction(r.Context(), p.ID, v.Name, action, arg)
	if err != nil {
		return err
	}
	rec.Message = s.redactor(r.Context(), p).message(rec.Message)
	writeJSON(w, http.StatusOK, rec)
	return nil
}

// deleteTask serves DELETE /api/v1/tasks/{name} (engine.DeleteTask): a
// member of the task's team, or an admin, deletes it.
func (s *Server) deleteTask(w http.ResponseWriter, r *http.Request, p principal) error {
	v, err := s.presentTask(r, p)
	if err != nil {
		return err
	}
	if !p.canWrite(v.Team) {
		return s.forbid(r, p, "task."+engine.ActDelete, v.Name)
	}
	rec, err := s.eng.DeleteTask(r.Context(), p.ID, v.Name)
	if err != nil {
		return err
	}
	rec.Message = s.redactor(r.Context(), p).message(rec.Message)
	writeJSON(w, http.StatusOK, rec)
	return nil
}

func (s *Server) taskEvents(w http.ResponseWriter, r *http.Request, p principal) error {
	v, err := s.visibleTask(r, p)
	if err != nil {
		return err
	}
	after, err := afterID(r.URL.Query().Get("after"), "event")
	if err != nil {
		return err
	}
	evs, err := s.st.Events(r.Context(), v.Name, after, 1000)
	if err != nil {
		return err
	}
	rd := s.redactor(r.Context(), p)
	rd.events(evs)
	v.Message = rd.message(v.Message)
	msgs := make([]string, 0, len(evs)+1)
	for _, e := range evs {
		msgs = append(msgs, e.Message)
	}
	actors, err := s.actorsIn(r.Context(), append(msgs, v.Message)...)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"events": evs, "actors": actors})
	return nil
}

func (s *Server) taskLogs(w http.ResponseWriter, r *http.Request, p principal) error {
	v, err := s.visibleTask(r, p)
	if err != nil {
		return err
	}
	rank := 0
	if q := r.URL.Query().Get("rank"); q != "" {
		if rank, err = strconv.Atoi(q); err != nil || rank < 0 || rank >= max(v.Spec.Nodes, 1) {
			return &model.FieldError{Field: "rank", Problem: "no such pod", Fix: "pass a pod rank from 0 to nodes-1"}
		}
	}
	lq, err := parseLogQuery(r.URL.Query())
	if err != nil {
		return err
	}
	rc, err := s.eng.Logs(v.Name, rank)
	if err != nil {
		if v.StartedAt.IsZero() || !v.State.Terminal() {
			// The pod has not started, or has only just: no output so far.
			return serveLog(w, bytes.NewReader(nil), lq)
		}
		return &apiError{Status: http.StatusGone, Code: "logs_gone", Message: "the task ran, but its logs are gone: " + err.Error(),
			Fix: "read logs before they are removed (on Kubernetes, raise the server's --pod-retention)"}
	}
	defer rc.Close()
	if wl, ok := rc.(windowedLog); ok {
		return serveLogPart(r.Context(), w, wl, lq)
	}
	src, err := openLogSource(rc)
	if err != nil {
		return fmt.Errorf("reading the logs of %s: %w", v.Name, err)
	}
	return serveLog(w, src, lq)
}

func (s *Server) queue(w http.ResponseWriter, r *http.Request, p principal) error {
	if err := s.eng.QueueErr(); err != nil {
		return err // 503: an empty list is not an empty queue
	}
	teams := p.readableTeams()
	if t := r.URL.Query().Get("team"); t != "" {
		if !p.canRead(t) {
			return errForbidden
		}
		teams = map[string]bool{t: true}
	}
	q := r.URL.Query()
	switch q.Get("summary") {
	case "":
	case "1", "true":
		writeJSON(w, http.StatusOK, map[string]any{"summary": s.eng.QueueSummary(teams)})
		return nil
	default:
		return &model.FieldError{Field: "summary", Problem: "must be 1 or true", Fix: "pass ?summary=1 for counts by team, instance type and reason, or leave it out for the tasks"}
	}
	if q.Get("limit") == "" && q.Get("offset") == "" {
		pending := s.eng.Queue(teams)
		rd := s.redactor(r.Context(), p)
		for i := range pending {
			rd.task(&pending[i])
		}
		writeJSON(w, http.StatusOK, map[string]any{"pending": pending})
		return nil
	}
	offset, limit, err := queuePaging(q)
	if err != nil {
		return err
	}
	pending, total := s.eng.QueuePage(teams, offset, limit)
	rd := s.redactor(r.Context(), p)
	for i := range pending {
		rd.task(&pending[i])
	}
	out := map[string]any{"pending": pending, "total": total}
	if offset+limit < total {
		out["next"] = offset + limit
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// queuePaging reads GET /api/v1/queue's ?offset= (tasks to skip, default 0)
// and ?limit= (1 to 1000, default 100).
func queuePaging(q url.Values) (offset, limit int, err error) {
	limit = 100
	if v := q.Get("offset"); v != "" {
		n, e := strconv.Atoi(v)
		if e != nil || n < 0 {
			return 0, 0, &model.FieldError{Field: "offset", Problem: "must be a whole number of tasks to skip, 0 or more", Fix: "pass ?offset=0 for the first page"}
		}
		offset = n
	}
	if v := q.Get("limit"); v != "" {
		n, e := strconv.Atoi(v)
		if e != nil || n < 1 || n > 1000 {
			return 0, 0, &model.FieldError{Field: "limit", Problem: "must be a whole number from 1 to 1000", Fix: "pass ?limit=100"}
		}
		limit = n
	}
	return offset, limit, nil
}
