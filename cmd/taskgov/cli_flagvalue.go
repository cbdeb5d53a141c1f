package main

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// flagValueMessage words an option value the command line could not parse
// as click words it (`Invalid value for '--node-count': 'two' is not a
// valid integer.`), for every name of the binary: the parser's own words
// named Go functions (`strconv.ParseInt: parsing "two": invalid syntax`).
// A number too large for taskgov's types says the range it takes. ok is
// false for an error that is not a bad value of a number, boolean or
// duration option (its own words are kept).
func flagValueMessage(err error) (msg string, ok bool) {
	var ive *pflag.InvalidValueError
	if !errors.As(err, &ive) || ive.GetFlag() == nil {
		return "", false
	}
	v := ive.GetValue()
	outOfRange := errors.Is(err, strconv.ErrRange)
	var what string
	switch t := ive.GetFlag().Value.Type(); {
	case strings.HasPrefix(t, "int") || strings.HasPrefix(t, "uint"):
		what = fmt.Sprintf("'%s' is not a valid integer.", v)
		if outOfRange {
			lo, hi := intRange(t)
			what = fmt.Sprintf("'%s' is out of range: give a whole number from %s to %s.", v, lo, hi)
		}
	case strings.HasPrefix(t, "float"):
		what = fmt.Sprintf("'%s' is not a valid float.", v)
		if outOfRange {
			what = fmt.Sprintf("'%s' is out of range: give a finite number.", v)
		}
	case t == "bool":
		what = fmt.Sprintf("'%s' is not a valid boolean: give true or false.", v)
	case t == "duration":
		what = fmt.Sprintf("'%s' is not a valid duration: write it as 90s, 10m or 1h30m.", v)
	default:
		return "", false
	}
	return fmt.Sprintf("Invalid value for '--%s': %s", ive.GetFlag().Name, what), true
}

// intRange is the range of pflag's integer type t, as decimal text.
func intRange(t string) (lo, hi string) {
	switch t {
	case "int8":
		return "-128", "127"
	case "int16":
		return "-32768", "32767"
	case "int32":
		return strconv.Itoa(math.MinInt32), strconv.Itoa(math.MaxInt32)
	case "uint", "uint64":
		return "0", strconv.FormatUint(math.MaxUint64, 10)
	case "uint8":
		return "0", "255"
	case "uint16":
		return "0", "65535"
	case "uint32":
		return "0", strconv.FormatUint(math.MaxUint32, 10)
	}
	return strconv.FormatInt(math.MinInt64, 10), strconv.FormatInt(math.MaxInt64, 10)
}
