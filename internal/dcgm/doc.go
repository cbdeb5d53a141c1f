// Package dcgm reads measured per-GPU utilisation on Kubernetes: the NVIDIA
// DCGM exporter's DCGM_FI_DEV_GPU_UTIL gauge, through the Prometheus that
// scrapes it (its HTTP query API, /api/v1/query), with each GPU's node,
// index, model and the pod using it. The server's devices endpoint credits
// tasks by their pods' names; locally, package devices (nvidia-smi) does
// that job instead.
//
// It imports nothing from taskgov.
package dcgm
