package httpapi

import (
	"time"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/model"
)

// taskSummary computes the Tasks page's figures over recs (the tasks of the
// chosen teams, whatever their state), from the records and their runs:
//   - counts per state;
//   - preempted: tasks with a run that ended in a preemption (not a
//     suspension; an auto-resume retry after a failure is not one);
//   - mean wait: submission to the first start, or to now for a task that
//     has not started yet (to its end if it ended without starting);
//   - mean run: total running time of the finished tasks that ran.
func taskSummary(recs []model.TaskRecord, stats map[string]runStats, now time.Time) apitypes.TaskSummary {
	sum := apitypes.TaskSummary{Counts: map[model.TaskState]int{}}
	if len(recs) == 0 {
		return sum
	}
	var waitSum, runSum time.Duration
	var runN int
	for _, rec := range recs {
		sum.Counts[rec.State]++
		st := stats[rec.Name]
		if st.preempted {
			sum.Preempted++
		}
		switch {
		case !st.firstStart.IsZero():
			waitSum += st.firstStart.Sub(rec.SubmittedAt)
		case !rec.FinishedAt.IsZero():
			waitSum += rec.FinishedAt.Sub(rec.SubmittedAt)
		default:
			waitSum += now.Sub(rec.SubmittedAt)
		}
		ran := st.closed
		if !st.openSince.IsZero() {
			ran += now.Sub(st.openSince)
		}
		if rec.State.Terminal() && ran > 0 {
			runSum += ran
			runN++
		}
	}
	sum.MeanWaitSeconds = waitSum.Seconds() / float64(len(recs))
	if runN > 0 {
		sum.MeanRunSeconds = runSum.Seconds() / float64(runN)
	}
	return sum
}
