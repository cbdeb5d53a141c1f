package model

import "sort"

// builtinInstanceTypes are common SageMaker HyperPod instance types. A cluster
// file's instanceTypes extend or override them by name.
var builtinInstanceTypes = []InstanceType{
	{"ml.p5.48xlarge", 8, 192, 2048},
	{"ml.p5e.48xlarge", 8, 192, 2048},
	{"ml.p5en.48xlarge", 8, 192, 2048},
	{"ml.p6-b200.48xlarge", 8, 192, 2048},
	{"ml.p4d.24xlarge", 8, 96, 1152},
	{"ml.p4de.24xlarge", 8, 96, 1152},
	{"ml.g5.xlarge", 1, 4, 16},
	{"ml.g5.2xlarge", 1, 8, 32},
	{"ml.g5.4xlarge", 1, 16, 64},
	{"ml.g5.8xlarge", 1, 32, 128},
	{"ml.g5.12xlarge", 4, 48, 192},
	{"ml.g5.24xlarge", 4, 96, 384},
	{"ml.g5.48xlarge", 8, 192, 768},
	{"ml.g6.xlarge", 1, 4, 16},
	{"ml.g6.12xlarge", 4, 48, 192},
	{"ml.g6.48xlarge", 8, 192, 768},
	{"ml.g6e.xlarge", 1, 4, 32},
	{"ml.g6e.12xlarge", 4, 48, 384},
	{"ml.g6e.48xlarge", 8, 192, 1536},
	{"ml.trn1.32xlarge", 16, 128, 512},
	{"ml.trn2.48xlarge", 16, 192, 2048},
	{"ml.c5.4xlarge", 0, 16, 32},
	{"ml.m5.4xlarge", 0, 16, 64},
}

// Catalog maps instance type names to their shapes.
type Catalog map[string]InstanceType

// NewCatalog returns the built-in catalog extended by extra (which wins on a
// name clash).
func NewCatalog(extra []InstanceType) Catalog {
	c := make(Catalog, len(builtinInstanceTypes)+len(extra))
	for _, it := range builtinInstanceTypes {
		c[it.Name] = it
	}
	for _, it := range extra {
		c[it.Name] = it
	}
	return c
}

// Names returns the catalog's names, sorted, for error messages.
func (c Catalog) Names() []string {
	out := make([]string, 0, len(c))
	for n := range c {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
