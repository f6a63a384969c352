// Running a command under the marker protocol: the channel it inherits, the idle baseline before
// it, and its marks answered one by one.
#pragma once

#include <functional>
#include <string>

#include "bench/marked_session.h"
#include "meter/meter.h"
#include "report/run_record.h"

namespace ec::bench {

// Measures options.command under `meter`: an idle baseline of `idle_seconds` (energy meters
// only), then the command with a socket in $ECOCOMPUTE_MARKS_FD, each mark it writes answered
// before it goes on. Returns the finalized record; throws ec::Error when the command cannot run,
// fails, or its marks do not make a measurement (the message says which).
report::RunRecord run_marked_command(meter::Meter& meter, const MarkedOptions& options,
                                     double idle_seconds,
                                     const std::function<void(const std::string&)>& log = nullptr);

}  // namespace ec::bench
