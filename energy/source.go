package energy

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Source is one energy meter.
type Source interface {
	// Describe says what the source measures and how it was read.
	Describe() Description
	// Read takes one reading: watts for a power source, the raw counters
	// (microjoules, one per domain) for a counter source.
	Read() (Reading, error)
}

// StatusReader is a Source that reads a battery's charging status
// ("Discharging", "Charging", ...): a measurement warns when it changes.
type StatusReader interface {
	Status() (string, error)
}

// Description describes an opened Source.
type Description struct {
	// Name is "battery" or "rapl".
	Name string `json:"name"`
	// Path is the sysfs directory (or directories, comma-separated) read.
	Path string `json:"path"`
	// Counter is true for cumulative counters (RAPL), false for
	// instantaneous power (battery).
	Counter bool `json:"counter"`
	// Ranges are the counters' wrap-around ranges in microjoules, one per
	// domain (counter sources only).
	Ranges []uint64 `json:"ranges_uj,omitempty"`
	// Conventions lists what was detected: units, sign, domains.
	Conventions []string `json:"conventions,omitempty"`
}

// Reading is one sample of a Source. The Sampler sets At.
type Reading struct {
	// Seconds since the window opened.
	At float64 `json:"t"`
	// Watts is the instantaneous power drawn (power sources).
	Watts float64 `json:"w,omitempty"`
	// Counters are the raw energy counters in microjoules (counter
	// sources), one per domain in Description.Ranges order.
	Counters []uint64 `json:"uj,omitempty"`
}

// ErrAbsent is wrapped by Open when the requested source does not exist on
// this machine (or cannot be read).
var ErrAbsent = errors.New("energy source not available")

// Kinds lists the source names Open accepts besides "none".
var Kinds = []string{"battery", "rapl"}

// Options select and configure a source for Open.
type Options struct {
	// Root is the sysfs mount point; "" means "/sys". Tests point it at a
	// fake tree.
	Root string
	// Supply names the power supply to read (a directory under
	// class/power_supply); "" means the first one whose type is Battery.
	Supply string
	// CurrentUnit is "uA", "mA" or "" (detect, see the package doc).
	CurrentUnit string
}

// Open opens the source called kind ("battery" or "rapl"). A source that
// is absent, or whose files cannot be read, gives an error wrapping
// ErrAbsent that says what was looked for.
func Open(kind string, o Options) (Source, error) {
	if o.Root == "" {
		o.Root = "/sys"
	}
	switch kind {
	case "battery":
		return OpenBattery(o)
	case "rapl":
		return OpenRAPL(o.Root)
	default:
		return nil, fmt.Errorf("energy source %q: want one of none, %s", kind, strings.Join(Kinds, ", "))
	}
}

// readInt reads a sysfs file holding one integer.
func readInt(path string) (int64, error) {
	s, err := readString(path)
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s:1: want an integer, got %q", path, s)
	}
	return v, nil
}

// readUint reads a sysfs file holding one unsigned integer.
func readUint(path string) (uint64, error) {
	s, err := readString(path)
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s:1: want an unsigned integer, got %q", path, s)
	}
	return v, nil
}

// readString reads a sysfs file holding one word.
func readString(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(data)), nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
