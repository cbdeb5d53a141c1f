package model

import "github.com/taskgov/taskgov/internal/resource"

// InstanceType is one kind of machine: what a single node of it offers.
type InstanceType struct {
	Name      string  `yaml:"name" json:"name"`
	GPUs      int64   `yaml:"gpus" json:"gpus"`
	VCPU      float64 `yaml:"vcpu" json:"vcpu"`
	MemoryGiB float64 `yaml:"memoryGiB" json:"memoryGiB"`
	// PricePerHour is the cost of one instance-hour, for usage reports
	// (0: unknown).
	PricePerHour float64 `yaml:"pricePerHour,omitempty" json:"pricePerHour,omitempty"`
}

// Capacity is what one node of this type offers.
func (it InstanceType) Capacity() resource.Vector {
	return resource.New(it.GPUs, it.VCPU, it.MemoryGiB)
}

// Topology generates network-node labels for a node group: nodes are laid out
// in layer-3 domains of NodesPerLayer3, grouped LayerNPerLayerM-wise upward.
type Topology struct {
	NodesPerLayer3  int `yaml:"nodesPerLayer3" json:"nodesPerLayer3"`
	Layer3PerLayer2 int `yaml:"layer3PerLayer2" json:"layer3PerLayer2"`
	Layer2PerLayer1 int `yaml:"layer2PerLayer1" json:"layer2PerLayer1"`
}

// NodeGroup declares Count identical nodes named <Name>-<i>.
type NodeGroup struct {
	Name         string            `yaml:"name" json:"name"`
	InstanceType string            `yaml:"instanceType" json:"instanceType"`
	Count        int               `yaml:"count" json:"count"`
	Labels       map[string]string `yaml:"labels,omitempty" json:"labels,omitempty"`
	Topology     *Topology         `yaml:"topology,omitempty" json:"topology,omitempty"`
}

// Node is one machine the scheduler may place pods on.
type Node struct {
	Name         string            `yaml:"name" json:"name"`
	InstanceType string            `yaml:"instanceType" json:"instanceType"`
	Labels       map[string]string `yaml:"labels,omitempty" json:"labels,omitempty"`
	// Unschedulable marks a cordoned or unhealthy node: nothing new lands on it.
	Unschedulable bool `yaml:"unschedulable,omitempty" json:"unschedulable,omitempty"`
	// Allocatable, when set, is what this node offers if less than its
	// instance type's capacity: a Kubernetes node's allocatable minus what
	// pods taskgov does not manage request. Each kind is capped at the
	// type's. Cluster files leave it unset.
	Allocatable *resource.Vector `yaml:"-" json:"allocatable,omitempty"`
}

// Topology label keys, from the top layer down, as HyperPod sets them.
const (
	LabelLayer1 = "topology.k8s.aws/network-node-layer-1"
	LabelLayer2 = "topology.k8s.aws/network-node-layer-2"
	LabelLayer3 = "topology.k8s.aws/network-node-layer-3"
	// LabelUltraServer groups GB200 UltraServer nodes; list it in
	// topologyLevels (below layer 3) to place within one UltraServer.
	LabelUltraServer = "topology.k8s.aws/ultraserver-id"
)

// Levels returns the topology label keys in force, top layer first.
func (c *Cluster) Levels() []string {
	if len(c.TopologyLevels) > 0 {
		return c.TopologyLevels
	}
	return DefaultTopologyLevels
}

// DefaultTopologyLevels are the network-node label keys, top layer first.
var DefaultTopologyLevels = []string{LabelLayer1, LabelLayer2, LabelLayer3}

// MaxNodes bounds the nodes a cluster file declares: more than any cluster
// taskgov is measured on (10,000 nodes), and few enough that a typo in a
// count is refused rather than exhausting memory.
const MaxNodes = 100000

// Cluster is the whole cluster file: the input the core is built from.
type Cluster struct {
	// Name appears in usage reports (default "taskgov").
	Name string `yaml:"name,omitempty" json:"name,omitempty"`
	// TopologyLevels lists the node label keys of the network hierarchy, top
	// layer first; the node itself is the implicit last level. Default: the
	// three HyperPod network-node layers.
	TopologyLevels []string       `yaml:"topologyLevels,omitempty" json:"topologyLevels,omitempty"`
	InstanceTypes  []InstanceType `yaml:"instanceTypes,omitempty" json:"instanceTypes,omitempty"`
	NodeGroups     []NodeGroup    `yaml:"nodeGroups,omitempty" json:"nodeGroups,omitempty"`
	Nodes          []Node         `yaml:"nodes,omitempty" json:"nodes,omitempty"`
	Policy         Policy         `yaml:"policy" json:"policy"`
	Teams          []Team         `yaml:"teams" json:"teams"`
	// Images maps a container image to the argv the local executor runs
	// for a task that gives that image and no command (images.go). It is
	// the server's own configuration, read from its --config file at
	// start: never stored with the cluster nor served (json "-").
	Images map[string][]string `yaml:"images,omitempty" json:"-"`
}
