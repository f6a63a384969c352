// The report site as files: the pages (web/layout.html around each web/pages/*.html), the scripts
// and styles of web/ under assets/, and the data under data/ as JS files that assign globals
// (so every page works from file://, where fetch() is refused) plus the same data as JSON.
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace ec::site {

// Output path (relative, '/'-separated) → file bytes.
using SiteFiles = std::map<std::string, std::string>;

struct PageInfo {
  const char* file;    // index.html
  const char* title;   // shown in <title> and the heading
  const char* nav;     // label in the navigation bar
  const char* script;  // the page's own script under assets/
};
// The pages, in navigation order.
const std::vector<PageInfo>& pages();

SiteFiles build_site(const nlohmann::json& data);

// Writes every file atomically under `out` (creating directories). Returns the number written.
size_t write_site(const SiteFiles& files, const std::filesystem::path& out);

}  // namespace ec::site
