package client

import (
	"context"
	"io"
	"strconv"
	"time"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/model"
)

// TaskQuery filters the task list; zero values do not filter.
type TaskQuery struct {
	Team   string
	States []string
	Since  time.Time
}

func (q TaskQuery) params() []string {
	var kv []string
	kv = append(kv, "team", q.Team)
	for _, s := range q.States {
		kv = append(kv, "state", s)
	}
	if !q.Since.IsZero() {
		kv = append(kv, "since", q.Since.Format(time.RFC3339Nano))
	}
	return kv
}

// TaskPage is one page of the task list; NextAfter is 0 on the last page.
type TaskPage struct {
	Tasks     []apitypes.Task `json:"tasks"`
	NextAfter int64           `json:"nextAfter"`
}

// TasksPage reads one page of at most limit tasks after the cursor after.
func (c *Client) TasksPage(ctx context.Context, q TaskQuery, limit int, after int64) (TaskPage, error) {
	var page TaskPage
	kv := append(q.params(), "limit", strconv.Itoa(limit), "after", strconv.FormatInt(after, 10))
	err := c.doPath(ctx, "GET", withQuery(prefix+"/tasks", kv...), nil, &page)
	return page, err
}

// Tasks reads every task the token may see that matches q, page by page.
func (c *Client) Tasks(ctx context.Context, q TaskQuery) ([]apitypes.Task, error) {
	var all []apitypes.Task
	for after := int64(0); ; {
		page, err := c.TasksPage(ctx, q, 1000, after)
		if err != nil {
			return nil, err
		}
		all = append(all, page.Tasks...)
		if page.NextAfter == 0 {
			return all, nil
		}
		after = page.NextAfter
	}
}

// Submit submits a task.
func (c *Client) Submit(ctx context.Context, s model.TaskSpec) (apitypes.Task, error) {
	var t apitypes.Task
	err := c.do(ctx, "POST", s, &t, "tasks")
	return t, err
}

// Task reads one task.
func (c *Client) Task(ctx context.Context, name string) (apitypes.Task, error) {
	var t apitypes.Task
	err := c.do(ctx, "GET", nil, &t, "tasks", name)
	return t, err
}

// TaskEvents reads a task's event timeline.
func (c *Client) TaskEvents(ctx context.Context, name string) ([]model.Event, error) {
	var evs struct {
		Events []model.Event `json:"events"`
	}
	err := c.do(ctx, "GET", nil, &evs, "tasks", name, "events")
	return evs.Events, err
}

// The task actions.
const (
	ActionCancel   = "cancel"
	ActionSuspend  = "suspend"
	ActionResume   = "resume"
	ActionPriority = "priority"
)

// TaskAction posts an action (cancel, suspend, resume) on a task.
func (c *Client) TaskAction(ctx context.Context, name, action string) (apitypes.Task, error) {
	var t apitypes.Task
	err := c.do(ctx, "POST", nil, &t, "tasks", name, action)
	return t, err
}

// DeleteTask deletes a task (DELETE /api/v1/tasks/{name}): a live one is
// cancelled; task lists leave it out from then on.
func (c *Client) DeleteTask(ctx context.Context, name string) (apitypes.Task, error) {
	var t apitypes.Task
	err := c.do(ctx, "DELETE", nil, &t, "tasks", name)
	return t, err
}

// SetPriority changes a task's priority class.
func (c *Client) SetPriority(ctx context.Context, name, class string) (apitypes.Task, error) {
	var t apitypes.Task
	err := c.do(ctx, "POST", map[string]string{"priority": class}, &t, "tasks", name, ActionPriority)
	return t, err
}

// TaskLogs reads the output of one pod (rank) of a task, every run: the
// parts the server sends (each at most its cap), read on until the end.
func (c *Client) TaskLogs(ctx context.Context, name string, rank int) ([]byte, error) {
	var all []byte
	for offset := int64(0); ; {
		part, err := c.TaskLogPart(ctx, name, rank, offset)
		if err != nil {
			return nil, err
		}
		all = append(all, part.Data...)
		if !part.More || part.End <= offset {
			return all, nil
		}
		offset = part.End
	}
}

// LogPart is one response of a task's logs: Data is the log's bytes from
// Start to End; More says the log held more after End when it was read.
type LogPart struct {
	Data       []byte
	Start, End int64
	More       bool
}

// TaskLogPart reads one pod's output from the byte offset on, as much as
// the server sends in one response.
func (c *Client) TaskLogPart(ctx context.Context, name string, rank int, offset int64) (LogPart, error) {
	p, err := path("tasks", name, "logs")
	if err != nil {
		return LogPart{}, err
	}
	resp, err := c.open(ctx, "GET", withQuery(p, "rank", strconv.Itoa(rank), "offset", strconv.FormatInt(offset, 10)), nil)
	if err != nil {
		return LogPart{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return LogPart{}, err
	}
	part := LogPart{Data: b, Start: offset, End: offset + int64(len(b)), More: resp.Header.Get("Taskgov-Log-Truncated") == "true"}
	if end, err := strconv.ParseInt(resp.Header.Get("Taskgov-Log-End"), 10, 64); err == nil {
		part.End = end
	}
	return part, nil
}

// Queue reads the pending tasks in queue order with why each waits; team ""
// is every team the token may read.
func (c *Client) Queue(ctx context.Context, team string) ([]apitypes.Task, error) {
	var q struct {
		Pending []apitypes.Task `json:"pending"`
	}
	err := c.doPath(ctx, "GET", withQuery(prefix+"/queue", "team", team), nil, &q)
	return q.Pending, err
}

// Event is one entry of a task's timeline.
type Event = model.Event
