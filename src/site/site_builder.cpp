// Assembling the site from the embedded web/ folder and the data document.
#include "site/site_builder.h"

#include "core/embedded.h"
#include "core/error.h"
#include "core/file_io.h"

namespace ec::site {
namespace {

std::string_view asset(std::string_view path) {
  for (const auto& f : embedded::site_assets()) {
    if (f.path == path) return f.bytes;
  }
  fail("web/{} is not compiled into this binary (re-run cmake after adding web files)", path);
}

void replace_all(std::string& text, std::string_view key, std::string_view value) {
  for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size()))
    text.replace(at, key.size(), value);
}

std::string nav_html(const PageInfo& current) {
  std::string out;
  for (const auto& p : pages()) {
    const bool here = std::string_view(p.file) == current.file;
    out +=
        fmt::format("<a href=\"{}\"{}>{}</a>", p.file, here ? " aria-current=\"page\"" : "", p.nav);
  }
  return out;
}

// JSON is a JS expression; a global assignment is what file:// pages can load with <script>.
std::string as_script(std::string_view global, const nlohmann::json& value) {
  return fmt::format("window.{} = {};\n", global,
                     value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

}  // namespace

const std::vector<PageInfo>& pages() {
  static const std::vector<PageInfo> list{
      {"index.html", "Energy cost of quantization against model size", "Overview", "overview.js"},
      {"measured.html", "Every measured configuration", "Measured", "measured.js"},
      {"sessions.html", "Sessions: repeatability and gaps between sessions", "Sessions",
       "sessions.js"},
      {"method.html", "Method: what the data used", "Method", "method.js"},
      {"replications.html", "Check your own energy.json", "Replications", "replications.js"},
      {"estimate.html", "Estimate for a model size", "Estimate", "estimate.js"},
  };
  return list;
}

SiteFiles build_site(const nlohmann::json& data) {
  SiteFiles files;
  const std::string layout(asset("layout.html"));
  for (const auto& f : embedded::site_assets()) {
    if (f.path == "layout.html" || f.path.starts_with("pages/") || f.path.empty()) continue;
    files["assets/" + std::string(f.path)] = std::string(f.bytes);
  }
  files["assets/js/report-grader.js"] = std::string(embedded::report_grader_js());
  for (const auto& p : pages()) {
    std::string page = layout;
    replace_all(page, "{{TITLE}}", p.title);
    replace_all(page, "{{NAV}}", nav_html(p));
    replace_all(page, "{{SCRIPT}}", p.script);
    replace_all(page, "{{GENERATED}}", data.value("generated_utc", ""));
    // The body last: page text must not be scanned for placeholders.
    replace_all(page, "{{CONTENT}}", asset(std::string("pages/") + p.file));
    files[p.file] = std::move(page);
  }
  files["data/site-data.js"] = as_script("EC_DATA", data);
  files["data/site-data.json"] =
      data.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  const nlohmann::json& curves = data.contains("curves") ? data["curves"] : nlohmann::json();
  if (!curves.is_null()) files["data/curves.json"] = curves.dump(2) + "\n";
  return files;
}

size_t write_site(const SiteFiles& files, const std::filesystem::path& out) {
  for (const auto& [path, bytes] : files) {
    const std::filesystem::path target = out / path;
    std::error_code ec;
    std::filesystem::create_directories(target.parent_path(), ec);
    if (ec)
      fail("{}: cannot create the directory: {}", target.parent_path().string(), ec.message());
    write_file_atomic(target, bytes);
  }
  return files.size();
}

}  // namespace ec::site
