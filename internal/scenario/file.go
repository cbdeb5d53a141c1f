package scenario

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/taskgov/taskgov/internal/config"
	"github.com/taskgov/taskgov/internal/model"
)

// File is one scenario: a cluster, timed steps, and the expected trace.
type File struct {
	Name        string        `yaml:"name"`
	Description string        `yaml:"description"`
	Cluster     model.Cluster `yaml:"cluster"`
	Steps       []Step        `yaml:"steps"`
	// Expect is the trace the steps must produce; it must be the file's last
	// key so that -update can rewrite it in place.
	Expect string `yaml:"expect"`
}

// Step is what happens at one instant; a cycle runs after its inputs.
type Step struct {
	At         Duration         `yaml:"at"`
	Submit     []model.TaskSpec `yaml:"submit,omitempty"`
	Complete   []string         `yaml:"complete,omitempty"`
	Fail       []string         `yaml:"fail,omitempty"`
	Cancel     []string         `yaml:"cancel,omitempty"`
	Checkpoint []string         `yaml:"checkpoint,omitempty"`
	NodeDown   []string         `yaml:"nodeDown,omitempty"`
	NodeUp     []string         `yaml:"nodeUp,omitempty"`
	Cordon     []string         `yaml:"cordon,omitempty"`
	Uncordon   []string         `yaml:"uncordon,omitempty"`
	AddNodes   []model.Node     `yaml:"addNodes,omitempty"`
	SetTeam    []model.Team     `yaml:"setTeam,omitempty"`
	SetPolicy  *model.Policy    `yaml:"setPolicy,omitempty"`
	DeleteTeam []string         `yaml:"deleteTeam,omitempty"`
	Drain      []string         `yaml:"drain,omitempty"` // cordon and requeue the node's tasks
	Suspend    []string         `yaml:"suspend,omitempty"`
	Resume     []string         `yaml:"resume,omitempty"`
	// SetPriority moves live tasks to another priority class.
	SetPriority []PriorityChange `yaml:"setPriority,omitempty"`
	// Quiet leaves the waiting list out of this step's trace.
	Quiet bool `yaml:"quiet,omitempty"`
	// ShowTopology adds the topology tree, after the cycle, to the trace.
	ShowTopology bool `yaml:"showTopology,omitempty"`
}

// PriorityChange is one setPriority input.
type PriorityChange struct {
	Task  string `yaml:"task"`
	Class string `yaml:"class"`
}

// Duration is a Go duration string such as 90s or 2h in YAML.
type Duration struct{ time.Duration }

// UnmarshalYAML parses a duration string.
func (d *Duration) UnmarshalYAML(unmarshal func(any) error) error {
	var s string
	if err := unmarshal(&s); err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("at: %q is not a duration; write it like 90s or 2h", s)
	}
	d.Duration = v
	return nil
}

// Load reads a scenario file.
func Load(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f File
	if err := config.Decode(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &f, nil
}

// RewriteExpect replaces the expect block at the end of a scenario file's
// text with trace.
func RewriteExpect(data []byte, trace string) ([]byte, error) {
	i := bytes.Index(data, []byte("\nexpect:"))
	if i < 0 {
		data = append(bytes.TrimRight(data, "\n"), '\n')
		i = len(data) - 1
	}
	var b bytes.Buffer
	b.Write(data[:i+1])
	b.WriteString("expect: |\n")
	for _, line := range strings.Split(strings.TrimRight(trace, "\n"), "\n") {
		if line == "" {
			b.WriteString("\n")
			continue
		}
		b.WriteString("  " + line + "\n")
	}
	return b.Bytes(), nil
}
