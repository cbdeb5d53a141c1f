package resource

import (
	"fmt"
	"math"
	"strconv"
)

// Unlimited is the value of a component that has no bound. Arithmetic keeps it
// sticky: Unlimited plus anything is Unlimited, Unlimited minus a finite value is
// Unlimited.
const Unlimited int64 = math.MaxInt64

// Kind names one component of a Vector.
type Kind int

// The components, in the order used by Vector.Get and in messages.
const (
	GPU Kind = iota
	CPU
	Memory
	NumKinds
)

// String returns the unit-bearing name used in messages.
func (k Kind) String() string {
	switch k {
	case GPU:
		return "GPUs"
	case CPU:
		return "vCPU"
	case Memory:
		return "memory"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Vector is an amount of compute. Components are never negative in valid
// state; Sub clamps at zero only through SubClamped.
type Vector struct {
	GPUs     int64 // whole GPUs
	MilliCPU int64 // thousandths of a vCPU
	MemMiB   int64 // mebibytes
}

// Zero is the empty vector.
var Zero Vector

// Infinite is a vector with every component Unlimited.
var Infinite = Vector{Unlimited, Unlimited, Unlimited}

// New builds a vector from GPUs, whole vCPU and GiB of memory.
func New(gpus int64, vcpu, memGiB float64) Vector {
	return Vector{GPUs: gpus, MilliCPU: int64(math.Round(vcpu * 1000)), MemMiB: int64(math.Round(memGiB * 1024))}
}

// Get returns component k.
func (v Vector) Get(k Kind) int64 {
	switch k {
	case GPU:
		return v.GPUs
	case CPU:
		return v.MilliCPU
	default:
		return v.MemMiB
	}
}

// set returns v with component k replaced.
func (v Vector) set(k Kind, x int64) Vector {
	switch k {
	case GPU:
		v.GPUs = x
	case CPU:
		v.MilliCPU = x
	default:
		v.MemMiB = x
	}
	return v
}

func addSat(a, b int64) int64 {
	if a == Unlimited || b == Unlimited {
		return Unlimited
	}
	s := a + b
	if (b > 0 && s < a) || (b < 0 && s > a) {
		if b > 0 {
			return Unlimited
		}
		return math.MinInt64
	}
	return s
}

func subSat(a, b int64) int64 {
	if a == Unlimited {
		return Unlimited
	}
	if b == Unlimited {
		return math.MinInt64
	}
	return addSat(a, -b)
}

// Add returns v+o, saturating at Unlimited.
func (v Vector) Add(o Vector) Vector {
	return Vector{addSat(v.GPUs, o.GPUs), addSat(v.MilliCPU, o.MilliCPU), addSat(v.MemMiB, o.MemMiB)}
}

// Sub returns v-o. The result may be negative; callers that need a floor use
// SubClamped.
func (v Vector) Sub(o Vector) Vector {
	return Vector{subSat(v.GPUs, o.GPUs), subSat(v.MilliCPU, o.MilliCPU), subSat(v.MemMiB, o.MemMiB)}
}

// SubClamped returns v-o with every component floored at zero.
func (v Vector) SubClamped(o Vector) Vector { return v.Sub(o).Max(Zero) }

// Mul returns v scaled by a whole factor n >= 0, saturating.
func (v Vector) Mul(n int64) Vector {
	m := func(a int64) int64 {
		if a == Unlimited || n == 0 || a == 0 {
			if n == 0 {
				return 0
			}
			return a
		}
		if a > math.MaxInt64/n {
			return Unlimited
		}
		return a * n
	}
	return Vector{m(v.GPUs), m(v.MilliCPU), m(v.MemMiB)}
}

// Percent returns v*p/100 for each finite component, rounded down.
func (v Vector) Percent(p int64) Vector {
	f := func(a int64) int64 {
		if a == Unlimited {
			return Unlimited
		}
		switch {
		case p <= 0 || a <= math.MaxInt64/p:
			return a * p / 100
		case a/100 > math.MaxInt64/p:
			return Unlimited // more than any cluster holds
		}
		return a / 100 * p
	}
	return Vector{f(v.GPUs), f(v.MilliCPU), f(v.MemMiB)}
}

// Min returns the componentwise minimum.
func (v Vector) Min(o Vector) Vector {
	return Vector{min(v.GPUs, o.GPUs), min(v.MilliCPU, o.MilliCPU), min(v.MemMiB, o.MemMiB)}
}

// Max returns the componentwise maximum.
func (v Vector) Max(o Vector) Vector {
	return Vector{max(v.GPUs, o.GPUs), max(v.MilliCPU, o.MilliCPU), max(v.MemMiB, o.MemMiB)}
}

// LessEq reports whether every component of v is at most the one of o.
func (v Vector) LessEq(o Vector) bool {
	return v.GPUs <= o.GPUs && v.MilliCPU <= o.MilliCPU && v.MemMiB <= o.MemMiB
}

// IsZero reports whether every component is zero.
func (v Vector) IsZero() bool { return v == Zero }

// AnyPositive reports whether some component is above zero.
func (v Vector) AnyPositive() bool { return v.GPUs > 0 || v.MilliCPU > 0 || v.MemMiB > 0 }

// Exceeded returns the first component in which v exceeds o, and whether
// there is one.
func (v Vector) Exceeded(o Vector) (Kind, bool) {
	for k := Kind(0); k < NumKinds; k++ {
		if v.Get(k) > o.Get(k) {
			return k, true
		}
	}
	return 0, false
}

// ShareOf returns max over components of v/o, the dominant share, for the
// components where o is positive and finite. It returns 0 when none is.
func (v Vector) ShareOf(o Vector) float64 {
	best := 0.0
	for k := Kind(0); k < NumKinds; k++ {
		d := o.Get(k)
		if d <= 0 || d == Unlimited {
			continue
		}
		if s := float64(v.Get(k)) / float64(d); s > best {
			best = s
		}
	}
	return best
}

// Format renders component k with its unit, for messages.
func Format(k Kind, x int64) string {
	if x == Unlimited {
		return "unlimited"
	}
	switch k {
	case GPU:
		return strconv.FormatInt(x, 10) + " GPUs"
	case CPU:
		if x%1000 == 0 {
			return strconv.FormatInt(x/1000, 10) + " vCPU"
		}
		return strconv.FormatFloat(float64(x)/1000, 'f', -1, 64) + " vCPU"
	default:
		if x%1024 == 0 {
			return strconv.FormatInt(x/1024, 10) + " GiB"
		}
		return strconv.FormatInt(x, 10) + " MiB"
	}
}

// String renders the vector for traces and messages.
func (v Vector) String() string {
	return fmt.Sprintf("{%s, %s, %s}", Format(GPU, v.GPUs), Format(CPU, v.MilliCPU), Format(Memory, v.MemMiB))
}
