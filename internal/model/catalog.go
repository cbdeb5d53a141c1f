package model

import "sort"

// builtinInstanceTypes are common SageMaker HyperPod instance types. A cluster
// file's instanceTypes extend or override them by name.
var builtinInstanceTypes = []InstanceType{
	{Name: "ml.p5.48xlarge", GPUs: 8, VCPU: 192, MemoryGiB: 2048},
	{Name: "ml.p5e.48xlarge", GPUs: 8, VCPU: 192, MemoryGiB: 2048},
	{Name: "ml.p5en.48xlarge", GPUs: 8, VCPU: 192, MemoryGiB: 2048},
	{Name: "ml.p6-b200.48xlarge", GPUs: 8, VCPU: 192, MemoryGiB: 2048},
	{Name: "ml.p4d.24xlarge", GPUs: 8, VCPU: 96, MemoryGiB: 1152},
	{Name: "ml.p4de.24xlarge", GPUs: 8, VCPU: 96, MemoryGiB: 1152},
	{Name: "ml.g5.xlarge", GPUs: 1, VCPU: 4, MemoryGiB: 16},
	{Name: "ml.g5.2xlarge", GPUs: 1, VCPU: 8, MemoryGiB: 32},
	{Name: "ml.g5.4xlarge", GPUs: 1, VCPU: 16, MemoryGiB: 64},
	{Name: "ml.g5.8xlarge", GPUs: 1, VCPU: 32, MemoryGiB: 128},
	{Name: "ml.g5.12xlarge", GPUs: 4, VCPU: 48, MemoryGiB: 192},
	{Name: "ml.g5.24xlarge", GPUs: 4, VCPU: 96, MemoryGiB: 384},
	{Name: "ml.g5.48xlarge", GPUs: 8, VCPU: 192, MemoryGiB: 768},
	{Name: "ml.g6.xlarge", GPUs: 1, VCPU: 4, MemoryGiB: 16},
	{Name: "ml.g6.12xlarge", GPUs: 4, VCPU: 48, MemoryGiB: 192},
	{Name: "ml.g6.48xlarge", GPUs: 8, VCPU: 192, MemoryGiB: 768},
	{Name: "ml.g6e.xlarge", GPUs: 1, VCPU: 4, MemoryGiB: 32},
	{Name: "ml.g6e.12xlarge", GPUs: 4, VCPU: 48, MemoryGiB: 384},
	{Name: "ml.g6e.48xlarge", GPUs: 8, VCPU: 192, MemoryGiB: 1536},
	{Name: "ml.trn1.32xlarge", GPUs: 16, VCPU: 128, MemoryGiB: 512},
	{Name: "ml.trn2.48xlarge", GPUs: 16, VCPU: 192, MemoryGiB: 2048},
	{Name: "ml.c5.4xlarge", GPUs: 0, VCPU: 16, MemoryGiB: 32},
	{Name: "ml.m5.4xlarge", GPUs: 0, VCPU: 16, MemoryGiB: 64},
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
