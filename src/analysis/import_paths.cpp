// Walking files and directories into rows: a bad file or row is reported and skipped, never fatal.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <thread>

#include "analysis/import.h"
#include "core/error.h"
#include "core/file_io.h"

namespace ec::analysis {
namespace {

namespace fs = std::filesystem;

// The order std::sort(paths) gives (component by component), from one string comparison per
// pair: with every '/' made '\0', which sorts below any byte of a name, the strings order as their
// components do. path::compare walks the components and costs more than parsing a report.
void sort_paths(std::vector<fs::path>& paths) {
  std::vector<std::pair<std::string, size_t>> keys;
  keys.reserve(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) {
    std::string key = paths[i].native();
    std::replace(key.begin(), key.end(), '/', '\0');
    keys.emplace_back(std::move(key), i);
  }
  std::sort(keys.begin(), keys.end());
  std::vector<fs::path> sorted;
  sorted.reserve(paths.size());
  for (auto& [key, i] : keys) sorted.push_back(std::move(paths[i]));
  paths = std::move(sorted);
}

bool importable(const fs::path& p) {
  const auto ext = p.extension();
  return ext == ".json" || ext == ".csv";
}

void import_file(const fs::path& file, const ImportOptions& options, ImportResult& out) {
  try {
    // parse() and import_report() check the limits too, but only after reading it all.
    const bool csv = file.extension() == ".csv";
    const std::string text = read_file_at_most(file, csv ? kMaxCsvBytes : kMaxReportBytes,
                                               csv ? "CSV file" : "energy.json report");
    std::vector<store::RunRow> rows;
    if (file.extension() == ".csv") {
      const CsvTable table = CsvTable::parse(text, file);
      const size_t problems_before = out.problems.size();
      if (is_measured_csv(table)) {
        rows = import_fit_input_csv(table, out.problems);
      } else if (is_published_run_csv(table)) {
        rows = import_published_csv(table, out.problems);
      } else {
        fail(
            "{}: neither the published run layout (run_id, energy_j_per_1k_tok, ...) nor the fit "
            "input layout (energy_fp16_j1k, energy_quant_j1k, ...)",
            file.string());
      }
      out.rows_rejected += out.problems.size() - problems_before;
      if (rows.empty() && table.row_count() > 0) {
        ++out.files_skipped;
        return;
      }
    } else {
      rows.push_back(import_report(text, file));
    }
    for (auto& r : rows) {
      if (!options.session.empty()) r.session = options.session;
      out.rows.push_back(std::move(r));
    }
    ++out.files_read;
  } catch (const Error& e) {
    out.problems.push_back(e.what());
    ++out.files_skipped;
  }
}

}  // namespace

ImportResult import_paths(std::span<const fs::path> paths, const ImportOptions& options) {
  ImportResult out;
  // First the list of files, in command-line order (directories sorted), so output is
  // deterministic.
  std::vector<fs::path> files;
  for (const auto& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<fs::path> found;
      for (auto it = fs::recursive_directory_iterator(p, ec); !ec && it != fs::end(it);
           it.increment(ec)) {
        if (it->is_regular_file() && importable(it->path())) found.push_back(it->path());
      }
      if (ec) out.problems.push_back(fmt::format("{}: cannot list: {}", p.string(), ec.message()));
      if (found.empty() && !ec) {
        out.problems.push_back(
            fmt::format("{}: no .json or .csv files in this directory", p.string()));
      }
      sort_paths(found);
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::exists(p, ec)) {
      files.push_back(p);
    } else {
      out.problems.push_back(fmt::format("{}: no such file or directory", p.string()));
      ++out.files_skipped;
    }
  }
  // Reading and parsing are independent per file: spread them over the cores, merge in order.
  const size_t workers = std::clamp<size_t>(std::thread::hardware_concurrency(), 1,
                                            std::max<size_t>(1, files.size() / 64));
  std::vector<ImportResult> parts(workers);
  std::vector<std::thread> threads;
  for (size_t w = 0; w < workers; ++w) {
    threads.emplace_back([&, w] {
      const size_t begin = files.size() * w / workers;
      const size_t end = files.size() * (w + 1) / workers;
      // A RunRow is ~1 KB: regrowth would move them all. The first part becomes the result, so
      // it reserves room for every file's row (untouched capacity costs no memory).
      parts[w].rows.reserve(w == 0 ? files.size() : end - begin);
      for (size_t i = begin; i < end; ++i) import_file(files[i], options, parts[w]);
    });
  }
  for (auto& t : threads) t.join();
  // The first part's rows become the result's (no copy); the others are moved after them.
  std::vector<std::string> problems = std::move(out.problems);
  size_t total = 0;
  for (const auto& part : parts) total += part.rows.size();
  out.rows = std::move(parts[0].rows);
  out.rows.reserve(total);
  out.problems = std::move(problems);
  for (size_t w = 0; w < parts.size(); ++w) {
    auto& part = parts[w];
    if (w > 0) {
      out.rows.insert(out.rows.end(), std::make_move_iterator(part.rows.begin()),
                      std::make_move_iterator(part.rows.end()));
    }
    out.problems.insert(out.problems.end(), part.problems.begin(), part.problems.end());
    out.files_read += part.files_read;
    out.files_skipped += part.files_skipped;
    out.rows_rejected += part.rows_rejected;
  }
  return out;
}

}  // namespace ec::analysis
