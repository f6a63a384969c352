// Energy arithmetic on samples: trapezoid integration, counter differences, counter update period.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "meter/power_sample.h"

namespace ec::meter {

// Pointer to the optional power member a trapezoid integrates, e.g. &PowerSample::power_instant_w.
using PowerField = std::optional<double> PowerSample::*;

// ∫P dt over the samples (sorted by t_s) that carry `field`, in joules; absent below two such
// samples.
std::optional<double> trapezoid_j(std::span<const PowerSample> samples, PowerField field);
std::optional<double> trapezoid_j(std::span<const DriverSample> samples);

// Like trapezoid_j but over [t0, t1] only, with the value at each edge linearly interpolated
// from its neighbours; absent when the samples do not span [t0, t1].
std::optional<double> trapezoid_between_j(std::span<const PowerSample> samples, PowerField field,
                                          double t0, double t1);

// ∫P dt over [t0, t1] of the driver's power samples (sorted by t_s), linear between them and
// interpolated at the edges; an edge past the first (last) sample holds that sample's value when
// it lies within max_hold_s of it (the buffer is read while the window closes, so its newest
// sample may be a few ms old). Absent without a sample or with a longer gap at an edge.
std::optional<double> driver_trapezoid_between_j(std::span<const DriverSample> samples, double t0,
                                                 double t1, double max_hold_s);

// ∫P dt over [t0, t1] of the samples' piecewise-linear power, held at the first (last) sample's
// value before (after) them: for short spans at a window's edge that the samples need not
// bracket. Absent when no sample carries `field` or t1 < t0.
std::optional<double> trapezoid_held_j(std::span<const PowerSample> samples, PowerField field,
                                       double t0, double t1);

// end − begin of the mJ counter in joules, modulo 2^64 (the counter is unsigned). A counter that
// went backwards by less than 2^63 mJ was reset (driver reload), not wrapped: absent.
std::optional<double> counter_delta_j(unsigned long long begin_mj, unsigned long long end_mj);

// How often the energy counter changes, from the instants the samples first saw a new value.
struct UpdatePeriod {
  int changes = 0;  // distinct new values seen
  // (last change − first change) / (changes − 1): robust to coarse reads if every update is seen.
  std::optional<double> mean_s;
  std::optional<double> median_s;  // median interval between changes (needs ≥ 2 changes)
  std::optional<double> min_s, max_s;
};
UpdatePeriod counter_update_period(std::span<const PowerSample> samples);

// Median of the values (sorted copy); absent when empty.
std::optional<double> median(std::vector<double> values);

}  // namespace ec::meter
