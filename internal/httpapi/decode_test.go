package httpapi

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/taskgov/taskgov/internal/model"
)

// TestDecodeReusesReadersSafely: decode's pooled body readers carry nothing
// from one request to the next. Requests run at once with bodies of every
// shape decode answers (leading blanks, a second value, a truncated object,
// a body larger than a reader's buffer); each gets its own verdict and,
// when valid, its own task name.
func TestDecodeReusesReadersSafely(t *testing.T) {
	bodies := func(i int) (string, bool) {
		name := fmt.Sprintf("task-%d", i)
		switch i % 4 {
		case 0:
			return `  {"name":"` + name + `","team":"a"}`, true
		case 1:
			return `{"name":"` + name + `"} {"name":"other"}`, false
		case 2:
			return `{"name":"` + name, false
		default:
			// Larger than the reader's 4 KiB buffer.
			return "\n" + `{"name":"` + name + `","command":["` + strings.Repeat("x", 6000) + `"]}`, true
		}
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := g; i < 800; i += 8 {
				body, valid := bodies(i)
				var spec model.TaskSpec
				err := decode(httptest.NewRecorder(), httptest.NewRequest("POST", "/api/v1/tasks", strings.NewReader(body)), &spec)
				if valid && (err != nil || spec.Name != fmt.Sprintf("task-%d", i)) {
					t.Errorf("body %d: got %q, %v", i, spec.Name, err)
				}
				if !valid && err == nil {
					t.Errorf("body %d was accepted: %q", i, body)
				}
			}
		}(g)
	}
	wg.Wait()
}
