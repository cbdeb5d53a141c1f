package httpapi

import (
	"bufio"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/model"
)

// TestOtherTeamsNamesDoNotLeak (issue 14, finding 5): a member of a team
// learns no task name of another team from the nodes list, the topology
// text, wait reasons, the 409 on submit, or preemption messages in task
// records, events and the event stream. Admins still see every name.
func TestOtherTeamsNamesDoNotLeak(t *testing.T) {
	t.Run("holds", func(t *testing.T) {
		e := newEnv(t, holdCluster)
		small := e.token(model.RoleMember, "small")
		e.mustDo("POST", "/api/v1/tasks", e.admin, model.TaskSpec{Name: "s1", Team: "small", InstanceType: "ml.p5.48xlarge",
			Command: []string{"sleep", "1"}}, 201, nil)
		e.mustDo("POST", "/api/v1/tasks", e.admin, model.TaskSpec{Name: "s2", Team: "small", InstanceType: "ml.p5.48xlarge",
			Command: []string{"sleep", "30"}}, 201, nil)
		e.waitState("s2", "Running", 10*time.Second)
		e.mustDo("POST", "/api/v1/tasks", e.admin, model.TaskSpec{Name: "secret-gang", Team: "big", InstanceType: "ml.p5.48xlarge", Nodes: 2,
			Command: []string{"true"}}, 201, nil)
		e.waitState("s1", "Succeeded", 10*time.Second)
		e.mustDo("POST", "/api/v1/tasks", small, model.TaskSpec{Name: "s3", Team: "small", InstanceType: "ml.p5.48xlarge",
			Command: []string{"true"}}, 201, nil)
		var q struct{ Pending []apitypes.Task }
		deadline := time.Now().Add(10 * time.Second)
		for {
			e.mustDo("GET", "/api/v1/queue", e.admin, nil, 200, &q)
			if len(q.Pending) == 2 && strings.Contains(q.Pending[1].Why+q.Pending[0].Why, "held for task secret-gang") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("admin's queue never said the nodes are held for secret-gang: %+v", q.Pending)
			}
			time.Sleep(50 * time.Millisecond)
		}
		for _, path := range []string{"/api/v1/nodes", "/api/v1/topology", "/api/v1/topology?format=text", "/api/v1/queue", "/api/v1/tasks/s3", "/api/v1/tasks"} {
			_, b := e.do("GET", path, small, nil)
			if strings.Contains(string(b), "secret-gang") {
				t.Errorf("a member of small reads secret-gang in %s: %s", path, b)
			}
		}
		_, b := e.do("GET", "/api/v1/tasks/s3", small, nil)
		if !strings.Contains(string(b), "held for another team's task") {
			t.Errorf("s3's wait reason does not say its nodes are held for another team's task: %s", b)
		}
		code, b := e.do("POST", "/api/v1/tasks", small, model.TaskSpec{Name: "secret-gang", Team: "small", InstanceType: "ml.p5.48xlarge", Command: []string{"true"}})
		if code != 409 || strings.Contains(string(b), "big") || strings.Contains(string(b), "exists") {
			t.Errorf("409 on another team's name: %d %s", code, b)
		}
	})
	t.Run("preemption", func(t *testing.T) {
		e := newEnv(t, testCluster)
		alpha := e.token(model.RoleMember, "alpha")
		req, _ := http.NewRequest("GET", e.url+"/api/v1/events", nil)
		req.Header.Set("Authorization", "Bearer "+alpha)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		stream := make(chan string, 1000)
		go func() {
			sc := bufio.NewScanner(resp.Body)
			for sc.Scan() {
				stream <- sc.Text()
			}
			close(stream)
		}()
		// The admin's stream reads the ring of all events, where names are
		// not hidden.
		areq, _ := http.NewRequest("GET", e.url+"/api/v1/events", nil)
		areq.Header.Set("Authorization", "Bearer "+e.admin)
		aresp, err := http.DefaultClient.Do(areq)
		if err != nil {
			t.Fatal(err)
		}
		defer aresp.Body.Close()
		adminSaw := make(chan struct{})
		go func() {
			sc := bufio.NewScanner(aresp.Body)
			for sc.Scan() {
				if strings.Contains(sc.Text(), "preempted (Reclaim) for b-topsecret-project") {
					close(adminSaw)
					break
				}
			}
			_, _ = io.Copy(io.Discard, aresp.Body)
		}()
		for _, name := range []string{"a1", "a2", "a3"} {
			s := spec(name, "alpha", "sleep", "60")
			s.GracePeriodSeconds = 1
			e.mustDo("POST", "/api/v1/tasks", alpha, s, 201, nil)
			e.waitState(name, "Running", 10*time.Second)
		}
		b := spec("b-topsecret-project", "beta", "sleep", "60")
		b.Nodes = 2 // one node is free; the other is reclaimed from alpha
		e.mustDo("POST", "/api/v1/tasks", e.admin, b, 201, nil)
		e.waitState("b-topsecret-project", "Running", 15*time.Second)
		var preempted string
		var list struct{ Tasks []model.TaskRecord }
		e.mustDo("GET", "/api/v1/tasks?team=alpha", e.admin, nil, 200, &list)
		for _, r := range list.Tasks {
			if strings.Contains(r.Message, "preempted (Reclaim) for b-topsecret-project") {
				preempted = r.Name
			}
		}
		if preempted == "" {
			t.Fatalf("no alpha task says, to the admin, that it was preempted for b-topsecret-project: %+v", list.Tasks)
		}
		for _, path := range []string{"/api/v1/tasks/" + preempted, "/api/v1/tasks/" + preempted + "/events", "/api/v1/tasks", "/api/v1/tasks?sort=name"} {
			_, b := e.do("GET", path, alpha, nil)
			if strings.Contains(string(b), "topsecret") || !strings.Contains(string(b), "preempted (Reclaim) for another team's task") {
				t.Errorf("%s as alpha's member: %s", path, b)
			}
		}
		timeout := time.After(3 * time.Second)
		sawPreempt := false
	read:
		for {
			select {
			case line, ok := <-stream:
				if !ok {
					break read
				}
				if strings.Contains(line, "topsecret") {
					t.Errorf("alpha's event stream names beta's task: %s", line)
				}
				sawPreempt = sawPreempt || strings.Contains(line, "for another team's task")
			case <-timeout:
				break read
			}
		}
		if !sawPreempt {
			t.Error("alpha's event stream carried no preemption event")
		}
		select {
		case <-adminSaw:
		case <-time.After(3 * time.Second):
			t.Error("the admin's event stream did not name the task the preemption was for")
		}
	})
}
