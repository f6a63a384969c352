// The data behind every page of the report site, as one JSON document: configurations (aggregate),
// sessions and cross-session comparisons (compare), the protocol and meter settings the runs used
// (method), the curves (fit) and the runs that are not measurements.
#pragma once

#include <nlohmann/json.hpp>

#include "site/site_input.h"

namespace ec::site {

// `generated_utc` is passed in so the same input gives the same document (tests, reproducible
// builds); the CLI passes the current time.
nlohmann::json site_data(const SiteInput& input, const std::string& generated_utc);

}  // namespace ec::site
