// Package energy measures the incremental energy of a workload from the
// Linux kernel's own meters: a battery's power-supply class
// (/sys/class/power_supply, as on Android phones and laptops) or the RAPL
// counters of the powercap class (/sys/class/powercap/intel-rapl:*, x86).
//
// A measurement follows the method of the MNN-Pocket release (battery
// current × voltage minus the idle baseline, averaged over rounds):
//
//  1. A Sampler reads the Source on a background goroutine at a fixed
//     interval (10 Hz by default; never slower), plus one reading when a
//     window opens and one when it closes, so a window's trace spans it
//     exactly.
//  2. Each round first records an idle window of the same duration as the
//     workload (the caller passes the duration it expects, normally the
//     previous run's), then a window around the workload.
//  3. A power source (watts per reading) is integrated with the trapezoid
//     rule; a counter source (cumulative microjoules) is summed as
//     successive differences, adding the counter's range when it wrapped.
//  4. The round's incremental energy is E_run − P_idle × T_run, where
//     P_idle = E_idle / T_idle; rounds are summarised as mean ± sample
//     standard deviation, per inference when a round runs several.
//
// Battery readings: current_now is in microamps and voltage_now in
// microvolts (power_now, used when current_now is absent, in microwatts),
// as the kernel's ABI (Documentation/ABI/testing/sysfs-class-power) says.
// Vendors differ in two ways, both detected when the source opens and
// reported in its Description:
//
//   - units: some fuel-gauge drivers report milliamps and millivolts. A
//     current below 10,000 (10 mA if it were microamps, implausible for a
//     running phone) is taken as milliamps, a voltage below 100,000 as
//     millivolts; Options.CurrentUnit overrides the guess for currents;
//   - sign: the ABI says negative while discharging; some drivers report
//     positive while discharging and some only positive values. The sign
//     seen while the battery's status is "Discharging" is taken as the
//     discharge direction, so a reading of the other sign (a charging
//     pulse) counts as energy flowing back.
//
// A battery only measures the device's draw while it discharges: with a
// charger or USB cable connected the current is the charger's minus the
// load. OpenBattery refuses a battery whose status is not "Discharging",
// and a status change during a measurement is reported as a warning.
//
// RAPL: each top-level package domain (intel-rapl:N named "package-N") has
// energy_uj, a counter that wraps to 0 after max_energy_range_uj. Only
// package domains are summed: the optional "psys" domain already contains
// them, and sub-domains (core, uncore, dram) are parts of a package. The
// counters are root-only on most kernels since 2020.
//
// What the package intentionally does not do: it does not control
// charging, screen or CPU frequency, and it does not model the fuel
// gauge's own averaging window (many gauges update once a second or
// slower; measure rounds of several seconds, or several inferences per
// round, for a meaningful integral).
package energy
