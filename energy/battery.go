package energy

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
)

// ErrNotDischarging is wrapped by OpenBattery when the battery is not
// discharging, so its current is not the device's draw.
var ErrNotDischarging = errors.New("battery is not discharging")

// Unit-detection thresholds (see the package doc): raw values below them
// are read as milli-units rather than micro-units.
const (
	milliampThreshold     = 10_000
	millivoltThreshold    = 100_000
	milliampHourThreshold = 100_000
)

// battery reads a power_supply directory.
type battery struct {
	dir  string
	desc Description
	// current mode: current_now × voltage_now; otherwise power_now.
	current bool
	// toAmps, toVolts scale raw current and voltage (toWatts raw power).
	toAmps, toVolts, toWatts float64
	// sign turns a raw reading into power drawn from the battery.
	sign float64
}

// OpenBattery opens the battery named by o.Supply (or the first supply of
// type Battery) under o.Root/class/power_supply. It fails with ErrAbsent
// when there is none or it has neither current_now+voltage_now nor
// power_now, and with ErrNotDischarging unless its status is Discharging.
// Units and the discharge sign are detected from the first reading.
func OpenBattery(o Options) (Source, error) {
	if o.Root == "" {
		o.Root = "/sys"
	}
	dir, err := findBattery(o.Root, o.Supply)
	if err != nil {
		return nil, err
	}
	status, err := readString(filepath.Join(dir, "status"))
	if err != nil {
		return nil, fmt.Errorf("energy battery %s: %w: %w", dir, ErrAbsent, err)
	}
	if status != "Discharging" {
		return nil, fmt.Errorf("energy battery %s: status is %q: %w (the current then includes the charger's: disconnect power, e.g. use adb over Wi-Fi)",
			dir, status, ErrNotDischarging)
	}
	b := &battery{dir: dir, desc: Description{Name: "battery", Path: dir}}
	note := func(format string, args ...any) {
		b.desc.Conventions = append(b.desc.Conventions, fmt.Sprintf(format, args...))
	}
	var raw int64
	switch {
	case exists(filepath.Join(dir, "current_now")) && exists(filepath.Join(dir, "voltage_now")):
		b.current = true
		if raw, err = readInt(filepath.Join(dir, "current_now")); err != nil {
			return nil, fmt.Errorf("energy battery: %w", err)
		}
		v, err := readInt(filepath.Join(dir, "voltage_now"))
		if err != nil {
			return nil, fmt.Errorf("energy battery: %w", err)
		}
		switch o.CurrentUnit {
		case "uA":
			b.toAmps = 1e-6
			note("current_now in microamps (set)")
		case "mA":
			b.toAmps = 1e-3
			note("current_now in milliamps (set)")
		case "":
			if raw != 0 && abs64(raw) < milliampThreshold {
				b.toAmps = 1e-3
				note("current_now %d read as milliamps (below %d)", raw, milliampThreshold)
			} else {
				b.toAmps = 1e-6
				note("current_now in microamps")
			}
		default:
			return nil, fmt.Errorf("energy battery: current unit %q: want uA, mA or empty (detect)", o.CurrentUnit)
		}
		if abs64(v) < millivoltThreshold {
			b.toVolts = 1e-3
			note("voltage_now %d read as millivolts (below %d)", v, millivoltThreshold)
		} else {
			b.toVolts = 1e-6
			note("voltage_now in microvolts")
		}
	case exists(filepath.Join(dir, "power_now")):
		if raw, err = readInt(filepath.Join(dir, "power_now")); err != nil {
			return nil, fmt.Errorf("energy battery: %w", err)
		}
		b.toWatts = 1e-6
		note("power_now in microwatts (no current_now)")
	default:
		return nil, fmt.Errorf("energy battery %s: %w: neither current_now and voltage_now nor power_now", dir, ErrAbsent)
	}
	switch {
	case raw < 0:
		b.sign = -1
		note("negative while discharging (the kernel ABI)")
	case raw > 0:
		b.sign = 1
		note("positive while discharging (vendor convention)")
	default:
		b.sign = -1
		note("reading 0 when opened: assumed negative while discharging (the kernel ABI)")
	}
	return b, nil
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// findBattery returns the supply directory to read.
func findBattery(root, supply string) (string, error) {
	base := filepath.Join(root, "class", "power_supply")
	if supply != "" {
		dir := filepath.Join(base, supply)
		if !exists(dir) {
			return "", fmt.Errorf("energy battery: %w: no power supply %s", ErrAbsent, dir)
		}
		return dir, nil
	}
	entries, err := os.ReadDir(base)
	if err != nil {
		return "", fmt.Errorf("energy battery: %w: %w", ErrAbsent, err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	for _, n := range names {
		if t, err := readString(filepath.Join(base, n, "type")); err == nil && t == "Battery" {
			return filepath.Join(base, n), nil
		}
	}
	return "", fmt.Errorf("energy battery: %w: no power supply of type Battery under %s", ErrAbsent, base)
}

func (b *battery) Describe() Description { return b.desc }

func (b *battery) Read() (Reading, error) {
	if !b.current {
		p, err := readInt(filepath.Join(b.dir, "power_now"))
		if err != nil {
			return Reading{}, fmt.Errorf("read battery power: %w", err)
		}
		return Reading{Watts: b.sign * float64(p) * b.toWatts}, nil
	}
	i, err := readInt(filepath.Join(b.dir, "current_now"))
	if err != nil {
		return Reading{}, fmt.Errorf("read battery current: %w", err)
	}
	v, err := readInt(filepath.Join(b.dir, "voltage_now"))
	if err != nil {
		return Reading{}, fmt.Errorf("read battery voltage: %w", err)
	}
	return Reading{Watts: b.sign * float64(i) * b.toAmps * float64(v) * b.toVolts}, nil
}

// Status returns the battery's status file ("Discharging", "Charging"...).
func (b *battery) Status() (string, error) { return readString(filepath.Join(b.dir, "status")) }

// Capacity is a battery's design energy.
type Capacity struct {
	Joules float64 `json:"joules"`
	// From says where the figure came from.
	From string `json:"from"`
}

// RatedCapacity is the energy of a battery rated mAh at a nominal voltage.
func RatedCapacity(mAh, volts float64) (Capacity, error) {
	if !(mAh > 0) || !(volts > 0) {
		return Capacity{}, fmt.Errorf("battery capacity: need a positive rating and voltage, got %g mAh at %g V", mAh, volts)
	}
	return Capacity{Joules: mAh * 3.6 * volts, From: fmt.Sprintf("%g mAh at %g V (given)", mAh, volts)}, nil
}

// BatteryCapacity reads the design capacity of the battery o selects:
// energy_full_design (microwatt-hours) when present, otherwise
// charge_full_design (microamp-hours) times volts, or, when volts is 0,
// the midpoint of voltage_min_design and voltage_max_design.
func BatteryCapacity(o Options, volts float64) (Capacity, error) {
	if o.Root == "" {
		o.Root = "/sys"
	}
	dir, err := findBattery(o.Root, o.Supply)
	if err != nil {
		return Capacity{}, err
	}
	if e, err := readInt(filepath.Join(dir, "energy_full_design")); err == nil && e > 0 {
		return Capacity{Joules: float64(e) * 3.6e-3, From: filepath.Join(dir, "energy_full_design")}, nil
	}
	c, err := readInt(filepath.Join(dir, "charge_full_design"))
	if err != nil || c <= 0 {
		return Capacity{}, fmt.Errorf("battery capacity %s: %w: no energy_full_design or charge_full_design; give the rating (mAh and volts)", dir, ErrAbsent)
	}
	from := filepath.Join(dir, "charge_full_design")
	ah := float64(c) * 1e-6
	if c < milliampHourThreshold {
		ah = float64(c) * 1e-3
		from += " (read as mAh)"
	}
	if volts <= 0 {
		lo, err1 := readInt(filepath.Join(dir, "voltage_min_design"))
		hi, err2 := readInt(filepath.Join(dir, "voltage_max_design"))
		if err1 != nil || err2 != nil || lo <= 0 || hi <= 0 {
			return Capacity{}, fmt.Errorf("battery capacity %s: charge_full_design needs a voltage: give the nominal volts (no voltage_min_design/voltage_max_design)", dir)
		}
		scale := 1e-6
		if hi < millivoltThreshold {
			scale = 1e-3
		}
		volts = (float64(lo) + float64(hi)) / 2 * scale
		from += fmt.Sprintf(" at %.3g V (midpoint of the design voltages)", volts)
	} else {
		from += fmt.Sprintf(" at %g V (given)", volts)
	}
	return Capacity{Joules: ah * 3600 * volts, From: from}, nil
}

// PercentPer100 is the share of a battery of capacity c, in percent, that
// 100 inferences of j joules each use.
func (c Capacity) PercentPer100(j float64) float64 {
	if c.Joules <= 0 {
		return math.NaN()
	}
	return 100 * 100 * j / c.Joules
}
