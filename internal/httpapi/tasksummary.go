package httpapi

import (
	"net/http"
	"strings"
	"time"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/store"
)

// taskSummary computes the Tasks page's figures over recs (the tasks of the
// chosen teams, whatever their state), from the records and their runs:
//   - counts per state;
//   - preempted: tasks with a run that ended in a preemption (not a
//     suspension; an auto-resume retry after a failure is not one);
//   - mean wait: submission to the first start, or to now for a task that
//     has not started yet (to its end if it ended without starting);
//   - mean run: total running time of the finished tasks that ran.
func (s *Server) taskSummary(r *http.Request, recs []store.TaskRecord, now time.Time) (apitypes.TaskSummary, error) {
	sum := apitypes.TaskSummary{Counts: map[string]int{}}
	if len(recs) == 0 {
		return sum, nil
	}
	from := now
	inScope := make(map[string]bool, len(recs))
	for _, rec := range recs {
		sum.Counts[rec.State]++
		inScope[rec.Name] = true
		if rec.SubmittedAt.Before(from) {
			from = rec.SubmittedAt
		}
	}
	runs, err := s.st.Runs(r.Context(), from, now.Add(time.Minute))
	if err != nil {
		return sum, err
	}
	firstStart := map[string]time.Time{}
	ran := map[string]time.Duration{}
	preempted := map[string]bool{}
	for _, run := range runs {
		if !inScope[run.Task] {
			continue
		}
		if fs, ok := firstStart[run.Task]; !ok || run.StartedAt.Before(fs) {
			firstStart[run.Task] = run.StartedAt
		}
		end := run.EndedAt
		if end.IsZero() {
			end = now
		}
		ran[run.Task] += end.Sub(run.StartedAt)
		if reason, ok := strings.CutPrefix(run.Outcome, "preempted: "); ok && reason != string(model.Suspended) {
			preempted[run.Task] = true
		}
	}
	sum.Preempted = len(preempted)
	var waitSum, runSum time.Duration
	var runN int
	for _, rec := range recs {
		switch fs, ok := firstStart[rec.Name]; {
		case ok:
			waitSum += fs.Sub(rec.SubmittedAt)
		case !rec.FinishedAt.IsZero():
			waitSum += rec.FinishedAt.Sub(rec.SubmittedAt)
		default:
			waitSum += now.Sub(rec.SubmittedAt)
		}
		if store.Terminal(rec.State) && ran[rec.Name] > 0 {
			runSum += ran[rec.Name]
			runN++
		}
	}
	sum.MeanWaitSeconds = waitSum.Seconds() / float64(len(recs))
	if runN > 0 {
		sum.MeanRunSeconds = runSum.Seconds() / float64(runN)
	}
	return sum, nil
}
