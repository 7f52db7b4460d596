#include "evidence/intake.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <map>
#include <set>
#include <system_error>

#include "evidence/archive_reader.h"
#include "evidence/line_channel.h"
#include "evidence/log_reader.h"
#include "evidence/metrics_jsonl.h"
#include "evidence/workload_json.h"
#include "ir/ascii.h"

namespace attrib::evidence {
namespace {

namespace fs = std::filesystem;
using Status = ConnectorReport::Status;

std::string baseName(std::string_view rel) {
  size_t slash = rel.find_last_of('/');
  return std::string(slash == std::string_view::npos ? rel : rel.substr(slash + 1));
}

std::string errnoText(int err) { return std::generic_category().message(err); }

// Files that are not logs, by name: pictures, documents, model weights and tensors, compiled code,
// databases, binary journals, and JSON documents (metrics are .jsonl).
bool notALogByName(std::string_view name) {
  const std::string n = ir::asciiLower(name);
  for (const char* suffix : {".png", ".jpg", ".jpeg", ".gif", ".bmp", ".webp", ".ico", ".pdf", ".pt", ".pth", ".bin",
                             ".safetensors", ".ckpt", ".npy", ".npz", ".h5", ".hdf5", ".onnx", ".pb", ".so", ".o",
                             ".a", ".whl", ".pyc", ".parquet", ".arrow", ".db", ".sqlite", ".sqlite3", ".journal",
                             ".json", ".md", ".html", ".css", ".js", ".attrb"}) {
    if (n.ends_with(suffix)) return true;
  }
  return n.find("tfevents") != std::string::npos;
}

bool hasNul(std::string_view bytes) { return bytes.find('\0') != std::string_view::npos; }

// One file found under a path, before the layout decides what it is.
struct Candidate {
  std::string rel;      // relative to the path given, '/'-separated; the file's own name for a file
  std::string shown;    // how reports name it: the path given, "DIR/REL" or "ARCHIVE!/ENTRY"
  std::string fsPath;   // on disk (resolved), or the archive on disk
  std::string entry;    // the entry of the archive at fsPath (or in `archiveBytes`)
  std::shared_ptr<const std::string> archiveBytes;  // a memory archive
  std::shared_ptr<const std::string> bytes;         // the file's bytes, when held in memory
  std::string head;     // the first bytes (up to 4 KiB, decompressed), to tell binary data
  std::optional<int64_t> modified;
};

// What a path's candidates are once its layout is known.
struct Root {
  std::string display;  // how reports name the path
  PathOptions options;
  std::vector<Candidate> files;
  // What could not be read, by path relative to the root, named once the layout is known.
  std::vector<std::pair<std::string, ConnectorReport>> refused;
};

std::optional<int64_t> mtimeOf(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
}

// Reads a small regular file whole, refusing what is not one and what is larger than `limit`.
bool readSmallFile(const std::string& path, uint64_t limit, std::string* out, std::string* error) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    *error = fmt::format("cannot open '{}': {}", path, errnoText(errno));
    return false;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    *error = fmt::format("'{}' is not a regular file ({})", path, fileTypeName(st.st_mode));
    ::close(fd);
    return false;
  }
  if (static_cast<uint64_t>(st.st_size) > limit) {
    *error = fmt::format("'{}' is {} bytes, more than the {} allowed", path, st.st_size, limit);
    ::close(fd);
    return false;
  }
  out->clear();
  char buffer[64 << 10];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *error = fmt::format("cannot read '{}': {}", path, errnoText(errno));
      ::close(fd);
      return false;
    }
    if (n == 0) break;
    out->append(buffer, static_cast<size_t>(n));
    if (out->size() > limit) {
      *error = fmt::format("'{}' grew past the {} bytes allowed while it was read", path, limit);
      ::close(fd);
      return false;
    }
  }
  ::close(fd);
  return true;
}

// The first bytes of a file as its reader decodes them (gzip decompressed).
std::string headOf(std::unique_ptr<LogReader> reader) {
  LogChunk chunk;
  if (!reader->next(chunk)) return {};
  return std::string(chunk.data.substr(0, 4096));
}

LogReaderOptions sniffOptions() {
  LogReaderOptions o;
  o.chunkBytes = 4096;
  o.maxLineBytes = 4096;
  return o;
}

// An archive entry's name as a relative path, or "" with `why` when it must not be taken: an
// absolute name or one with a ".." component (a tar that would write outside the directory it is
// unpacked in), or an empty one. "./" prefixes and repeated slashes are dropped.
std::string entryPath(const std::string& name, std::string* why) {
  if (name.empty()) {
    *why = "an entry without a name";
    return "";
  }
  if (name[0] == '/') {
    *why = "an absolute entry name; not read";
    return "";
  }
  std::string out;
  size_t pos = 0;
  while (pos <= name.size()) {
    size_t slash = name.find('/', pos);
    std::string part = name.substr(pos, slash == std::string::npos ? std::string::npos : slash - pos);
    if (part == "..") {
      *why = "an entry name with a '..' component; not read";
      return "";
    }
    if (!part.empty() && part != ".") out += (out.empty() ? "" : "/") + part;
    if (slash == std::string::npos) break;
    pos = slash + 1;
  }
  if (out.empty()) *why = "an entry without a name";
  return out;
}

// The node a file's own first lines name, when they name exactly one: the Node: field of
// `kubectl describe pod` ("Node:             gpu-b/10.0.0.2") or the _HOSTNAME= field of a
// journal export (journalctl -o export/verbose).
std::string nodeNamedIn(std::string_view head) {
  std::set<std::string> names;
  size_t pos = 0;
  while (pos < head.size() && names.size() < 2) {
    size_t end = head.find('\n', pos);
    std::string_view line = head.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
    pos = end == std::string_view::npos ? head.size() : end + 1;
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    std::string_view value;
    if (line.rfind("Node:", 0) == 0) {
      value = line.substr(5);
      while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
      value = value.substr(0, value.find('/'));
    } else if (line.rfind("_HOSTNAME=", 0) == 0) {
      value = line.substr(10);
    } else {
      continue;
    }
    while (!value.empty() && (value.back() == '\r' || value.back() == ' ')) value.remove_suffix(1);
    const bool plausible = !value.empty() && value != "<none>" &&
                           value.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._") ==
                               std::string_view::npos;
    if (plausible) names.insert(std::string(value.substr(0, value.find('.'))));
  }
  return names.size() == 1 ? *names.begin() : "";
}

bool interestingWhole(std::string_view rel) {
  std::string base = baseName(rel);
  return base == "workload.json" || base == "hostname" || (rel.ends_with(".jsonl") && rel.find("metrics/") != std::string_view::npos);
}

}  // namespace

struct Intake::State {
  IntakeOptions options;
  std::vector<Root> roots;
  std::vector<ConnectorReport> reports;
  std::optional<Workload> explicitWorkload;
  size_t taken = 0;  // candidates so far, against options.maxFiles
  bool capped = false;

  void refuse(const std::string& source, const std::string& why, Status status = Status::Error) {
    reports.push_back({"files", source, status, 0, 0, why, 0, {}});
  }

  void refuseIn(Root& root, const std::string& rel, const std::string& why, Status status = Status::Error) {
    root.refused.push_back({rel, {"files", "", status, 0, 0, why, 0, {}}});
  }

  bool take() {
    if (taken >= options.maxFiles) {
      capped = true;
      return false;
    }
    ++taken;
    return true;
  }

  // ---- collecting the files of a path

  void walkDirectory(const fs::path& dir, const fs::path& inside, Root& root, std::set<std::string>& visited,
                     const std::string& relPrefix, int depth) {
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    if (ec) {
      refuseIn(root, relPrefix, fmt::format("cannot read the directory: {}", ec.message()));
      return;
    }
    std::vector<fs::directory_entry> entries;
    for (; !ec && it != fs::directory_iterator(); it.increment(ec)) entries.push_back(*it);
    if (entries.empty() && !relPrefix.empty()) {
      refuseIn(root, relPrefix, "an empty directory; nothing to read", Status::Empty);
      return;
    }
    std::sort(entries.begin(), entries.end(), [](auto& a, auto& b) { return a.path().filename() < b.path().filename(); });
    for (const auto& entry : entries) {
      const std::string name = entry.path().filename().string();
      const std::string rel = relPrefix.empty() ? name : relPrefix + "/" + name;
      const std::string shown = root.display + "/" + rel;
      std::error_code fileEc;
      fs::path target = entry.path();
      if (entry.is_symlink(fileEc)) {
        fs::path resolved = fs::canonical(entry.path(), fileEc);
        if (fileEc) {
          refuseIn(root, rel, fileEc == std::errc::too_many_symbolic_link_levels ? "a symbolic link loop; not read"
                                                                                  : "a dangling symbolic link; not read");
          continue;
        }
        auto [a, b] = std::mismatch(inside.begin(), inside.end(), resolved.begin(), resolved.end());
        if (a != inside.end()) {
          refuseIn(root, rel, "a symbolic link leading outside " + root.display + "; not read");
          continue;
        }
        target = resolved;
      }
      struct stat st;
      if (::stat(target.c_str(), &st) != 0) {
        refuseIn(root, rel, fmt::format("cannot read: {}", errnoText(errno)));
        continue;
      }
      if (S_ISDIR(st.st_mode)) {
        fs::path canonical = fs::canonical(target, fileEc);
        if (fileEc || !visited.insert(canonical.string()).second || depth > 64) {
          refuseIn(root, rel, "a directory reached twice through symbolic links (a loop); not read again");
          continue;
        }
        walkDirectory(target, inside, root, visited, rel, depth + 1);
      } else if (S_ISREG(st.st_mode)) {
        addFile(root, rel, shown, target.string(), mtimeOf(st));
      } else {
        refuseIn(root, rel, fmt::format("not a regular file ({}); not read", fileTypeName(st.st_mode)));
      }
    }
  }

  void addFile(Root& root, const std::string& rel, const std::string& shown, const std::string& path,
               std::optional<int64_t> modified) {
    if (hasArchiveName(path)) {
      const size_t slash = rel.find_last_of('/');
      walkArchive(root, slash == std::string::npos ? "" : rel.substr(0, slash), shown, path, nullptr);
      return;
    }
    Candidate c;
    c.rel = rel;
    c.shown = shown;
    c.fsPath = path;
    c.modified = modified;
    root.files.push_back(std::move(c));
  }

  // The entries of the archive at `path` (or held in `bytes`), as files under `relPrefix`.
  // An archive's entries are files under its directory in the layout ("logs/n1.tar.gz"'s
  // entries sit in logs/), except that the archive at the top of a path is its own top.
  void walkArchive(Root& root, const std::string& relPrefix, const std::string& shown, const std::string& path,
                   std::shared_ptr<const std::string> bytes) {
    std::string error;
    auto archive = bytes ? ArchiveReader::openMemory(bytes, root.display, &error) : ArchiveReader::open(path, &error);
    if (!archive) {
      refuse(shown, error);
      return;
    }
    ArchiveReader::Entry entry;
    uint64_t files = 0;
    while (archive->next(&entry)) {
      if (entry.type == ArchiveReader::Entry::Type::Directory) continue;
      std::string why;
      std::string rel = entryPath(entry.name, &why);
      const std::string entryShown = shown + "!/" + entry.name;
      if (rel.empty()) {
        refuse(entryShown, why);
        continue;
      }
      if (entry.type == ArchiveReader::Entry::Type::Link) {
        refuse(entryShown, "a link in the archive; not followed");
        continue;
      }
      if (entry.type != ArchiveReader::Entry::Type::File) {
        refuse(entryShown, "not a regular file in the archive; not read");
        continue;
      }
      Candidate c;
      c.rel = relPrefix.empty() ? rel : relPrefix + "/" + rel;
      c.shown = entryShown;
      c.fsPath = path;
      c.entry = entry.name;
      c.archiveBytes = bytes;
      c.modified = entry.modified;
      // What the layout needs whole (the context, metrics, a sosreport's hostname) is read now;
      // of the rest only the first bytes, to tell binary data. The entry is read again, in
      // place, when it is scanned.
      const bool whole = interestingWhole(c.rel) && entry.size >= 0 &&
                         static_cast<uint64_t>(entry.size) <= std::max(options.maxWorkloadJsonBytes, options.maxMetricsFileBytes);
      auto reader = LogReader::openArchiveEntry(*archive, entry.name, whole ? LogReaderOptions{} : sniffOptions());
      if (whole) {
        std::string all;
        LogChunk chunk;
        while (reader->next(chunk)) all.append(chunk.data);
        c.bytes = std::make_shared<const std::string>(std::move(all));
        c.head = c.bytes->substr(0, 4096);
      } else {
        c.head = headOf(std::move(reader));
      }
      ++files;
      root.files.push_back(std::move(c));
    }
    if (!archive->error().empty()) {
      refuse(shown, archive->error() + (files ? fmt::format("; the {} entries before it are read", files) : ""),
             files ? Status::Partial : Status::Error);
    } else if (files == 0) {
      refuse(shown, "the archive holds no files", Status::Empty);
    }
  }

  // ---- the layouts

  // The directory prefixes (with their trailing '/', "" for the top) that are workload
  // directories or sosreports.
  static void layouts(const Root& root, std::set<std::string>* workloadDirs, std::set<std::string>* sosreports) {
    for (const auto& c : root.files) {
      const std::string& rel = c.rel;
      for (size_t at = 0;;) {
        size_t slash = rel.find('/', at);
        std::string dir = rel.substr(0, at);  // "" or "a/b/"
        std::string part = rel.substr(at, slash == std::string::npos ? std::string::npos : slash - at);
        if (slash == std::string::npos) {
          if (part == "workload.json") workloadDirs->insert(dir);
          break;
        }
        if (part == "logs" || part == "metrics") workloadDirs->insert(dir);
        if (part == "sos_commands") sosreports->insert(dir);
        at = slash + 1;
      }
    }
  }

  static std::string longestPrefix(const std::set<std::string>& dirs, const std::string& rel) {
    std::string best;
    bool found = false;
    for (const auto& d : dirs) {
      if (rel.compare(0, d.size(), d) == 0 && (!found || d.size() > best.size())) {
        best = d;
        found = true;
      }
    }
    return found ? best : std::string("\x01");
  }

  bool settle(Root& root, WorkloadEvidence* out, std::optional<Workload>* layoutWorkload, std::string* error) {
    std::set<std::string> workloadDirs, sosreports;
    layouts(root, &workloadDirs, &sosreports);
    // A sosreport's node: the first line of its `hostname` file.
    std::map<std::string, std::string> sosHost;
    for (const auto& c : root.files) {
      for (const auto& d : sosreports) {
        if (c.rel == d + "hostname") {
          std::string text = c.bytes ? *c.bytes : std::string();
          if (!c.bytes) {
            std::string ignored;
            readSmallFile(c.fsPath, 4096, &text, &ignored);
          }
          std::string host = text.substr(0, text.find('\n'));
          while (!host.empty() && (host.back() == '\r' || host.back() == ' ')) host.pop_back();
          sosHost[d] = host.substr(0, host.find('.'));
        }
      }
    }
    // What could not be read is named as the layout names its logs.
    for (auto& [rel, report] : root.refused) {
      report.source = root.display + "/" + rel;
      for (const auto& d : workloadDirs) {
        if (rel.compare(0, d.size() + 5, d + "logs/") == 0) report.source = rel.substr(d.size() + 5);
      }
      reports.push_back(std::move(report));
    }
    uint64_t notLogs = 0, binary = 0, configuration = 0;
    std::vector<std::string> examples;
    auto skip = [&](const Candidate& c, uint64_t* counter) {
      ++*counter;
      if (examples.size() < 3) examples.push_back(c.rel);
    };
    for (auto& c : root.files) {
      const std::string base = baseName(c.rel);
      const std::string& shown = c.shown;
      std::string workloadDir = longestPrefix(workloadDirs, c.rel);
      std::string sosDir = longestPrefix(sosreports, c.rel);
      const bool inWorkload = workloadDir != "\x01";
      const bool inSos = sosDir != "\x01" && (!inWorkload || sosDir.size() > workloadDir.size());
      std::string node = root.options.node;
      bool layoutLog = false;
      if (inSos) {
        std::string inner = c.rel.substr(sosDir.size());
        bool log = inner.rfind("var/log/", 0) == 0;
        for (const char* dir : {"sos_commands/kernel/", "sos_commands/logs/", "sos_commands/nvidia/",
                                "sos_commands/infiniband/", "sos_commands/slurm/", "sos_commands/kubernetes/",
                                "sos_commands/containers/", "sos_commands/docker/", "sos_commands/podman/"}) {
          log |= inner.rfind(dir, 0) == 0;
        }
        if (!log) {
          skip(c, &configuration);
          continue;
        }
        if (node.empty()) node = sosHost[sosDir];
      } else if (inWorkload) {
        std::string inner = c.rel.substr(workloadDir.size());
        if (inner == "workload.json") {
          if (layoutWorkload->has_value()) {
            refuse(shown, "a second workload.json in one intake; the first one is the context", Status::Empty);
            continue;
          }
          std::string text;
          std::string why;
          if (c.bytes) {
            text = *c.bytes;
          } else if (!readSmallFile(c.fsPath, options.maxWorkloadJsonBytes, &text, &why)) {
            *error = why;
            return false;
          }
          Workload w;
          if (!parseWorkloadJson(text, &w, error)) {
            *error = shown + ": " + *error;
            return false;
          }
          if (w.id.empty()) {
            std::string dir = workloadDir.empty() ? root.display : workloadDir.substr(0, workloadDir.size() - 1);
            w.id = baseName(fs::path(dir).lexically_normal().string());
            if (w.id.empty() || w.id == ".") w.id = baseName(fs::absolute(dir).lexically_normal().string());
          }
          *layoutWorkload = std::move(w);
          continue;
        }
        if (inner.rfind("metrics/", 0) == 0) {
          if (!inner.ends_with(".jsonl") || inner.find('/', 8) != std::string::npos) {
            skip(c, &notLogs);
            continue;
          }
          std::string text = c.bytes ? *c.bytes : std::string();
          std::string why;
          if (!c.bytes && !readSmallFile(c.fsPath, options.maxMetricsFileBytes, &text, &why)) {
            refuse(inner, why);
            continue;
          }
          out->reports.push_back(parseMetricsJsonl(text, c.entry.empty() ? c.fsPath : c.fsPath + "!/" + c.entry, inner,
                                                   &out->metrics));
          continue;
        }
        if (inner.rfind("logs/", 0) != 0) {
          // A workload directory's evidence is its three parts; the rest (notes, a truth.json)
          // is not evidence, and not reported as evidence left unread.
          continue;
        }
        layoutLog = true;
        std::string underLogs = inner.substr(5);
        size_t slash = underLogs.find('/');
        if (node.empty() && slash != std::string::npos) node = underLogs.substr(0, slash);
        c.rel = underLogs;  // reports name layout logs as before: <node>/<file>
      }
      // Binary data and files that are not logs are said, not scanned; the logs of a workload
      // directory's layout are logs whatever they hold (their reports note binary bytes).
      if (!layoutLog) {
        if (notALogByName(base)) {
          skip(c, &notLogs);
          continue;
        }
        if (c.head.empty() && !c.bytes && c.entry.empty()) c.head = headOf(LogReader::open(c.fsPath, sniffOptions()));
        if (hasNul(c.head)) {
          skip(c, &binary);
          continue;
        }
      }
      if (!take()) continue;
      if (node.empty()) {
        if (c.head.empty() && c.bytes) c.head = c.bytes->substr(0, 4096);
        if (c.head.empty() && c.entry.empty() && !c.fsPath.empty()) c.head = headOf(LogReader::open(c.fsPath, sniffOptions()));
        node = nodeNamedIn(c.head);
      }
      LogFile f;
      f.path = c.fsPath;
      f.entry = c.entry;
      f.node = node;
      f.source = root.options.source;
      f.name = layoutLog ? c.rel : shown;
      if (c.archiveBytes) f.bytes = c.archiveBytes;
      if (c.bytes && c.entry.empty()) {
        f.bytes = c.bytes;  // delivered bytes: the path only names them
        f.path = shown;
      }
      if (c.bytes && !c.entry.empty()) {
        // Held whole already (a small entry): scanned from memory like a delivered file.
        f.bytes = c.bytes;
        f.entry.clear();
        f.path = c.fsPath + "!/" + c.entry;
      }
      f.modified = c.modified;
      out->logs.push_back(std::move(f));
    }
    if (notLogs + binary + configuration > 0) {
      std::vector<std::string> parts;
      if (notLogs) parts.push_back(fmt::format("{} that are not logs by their names", notLogs));
      if (binary) parts.push_back(fmt::format("{} of binary data", binary));
      if (configuration) parts.push_back(fmt::format("{} of a sosreport's configuration and command output", configuration));
      reports.push_back({"files", root.display, Status::Ok, 0, 0,
                         fmt::format("files not read: {} (e.g. {})", fmt::join(parts, ", "), fmt::join(examples, ", ")),
                         0, {}});
    }
    return true;
  }
};

Intake::Intake(IntakeOptions options) : state_(std::make_unique<State>()) { state_->options = options; }
Intake::~Intake() = default;

void Intake::addPath(const std::string& path, const PathOptions& options) {
  State& s = *state_;
  Root root;
  root.display = path;
  root.options = options;
  std::error_code ec;
  fs::path resolved = fs::canonical(path, ec);
  if (ec) {
    s.refuse(path, ec == std::errc::too_many_symbolic_link_levels ? "a symbolic link loop; not read"
                   : ec == std::errc::no_such_file_or_directory ? "no such file or directory"
                                                                : fmt::format("cannot read: {}", ec.message()));
    return;
  }
  fs::path inside = options.root.empty() ? resolved : fs::canonical(options.root, ec);
  if (ec) {
    s.refuse(path, fmt::format("the root '{}' cannot be read: {}", options.root, ec.message()));
    return;
  }
  auto [a, b] = std::mismatch(inside.begin(), inside.end(), resolved.begin(), resolved.end());
  if (a != inside.end()) {
    s.refuse(path, "leads outside " + options.root + "; not read");
    return;
  }
  struct stat st;
  if (::stat(resolved.c_str(), &st) != 0) {
    s.refuse(path, fmt::format("cannot read: {}", errnoText(errno)));
    return;
  }
  if (S_ISDIR(st.st_mode)) {
    std::set<std::string> visited{resolved.string()};
    s.walkDirectory(resolved, inside, root, visited, "", 0);
  } else if (S_ISREG(st.st_mode)) {
    // An archive at the top is its own top: its entries' paths are the layout.
    s.addFile(root, hasArchiveName(path) ? "" : baseName(path), path, resolved.string(), mtimeOf(st));
  } else {
    s.refuse(path, fmt::format("not a regular file ({}); not read", fileTypeName(st.st_mode)));
    return;
  }
  s.roots.push_back(std::move(root));
}

void Intake::addBytes(const std::string& name, std::shared_ptr<const std::string> bytes, const PathOptions& options) {
  State& s = *state_;
  Root root;
  root.display = name;
  root.options = options;
  if (looksLikeArchive(*bytes)) {
    s.walkArchive(root, "", name, "", bytes);
  } else {
    Candidate c;
    c.rel = name;
    c.shown = name;
    c.bytes = bytes;
    c.head = bytes->substr(0, 4096);
    // Compressed input is decoded to tell binary data from text.
    if (bytes->size() >= 2 && (*bytes)[0] == '\x1f' && (*bytes)[1] == '\x8b') {
      c.head = headOf(LogReader::openMemory(bytes, name, "", sniffOptions()));
    }
    root.files.push_back(std::move(c));
  }
  s.roots.push_back(std::move(root));
}

bool Intake::setWorkloadFile(const std::string& path, std::string* error) {
  std::string text;
  if (!readSmallFile(path, state_->options.maxWorkloadJsonBytes, &text, error)) return false;
  Workload w;
  if (!parseWorkloadJson(text, &w, error)) {
    *error = path + ": " + *error;
    return false;
  }
  state_->explicitWorkload = std::move(w);
  return true;
}

bool Intake::finish(WorkloadEvidence* out, std::string* error) {
  State& s = *state_;
  std::optional<Workload> layoutWorkload;
  for (Root& root : s.roots) {
    if (!s.settle(root, out, &layoutWorkload, error)) return false;
  }
  if (s.explicitWorkload) {
    out->workload = *s.explicitWorkload;
  } else if (layoutWorkload) {
    out->workload = *layoutWorkload;
  } else {
    s.reports.push_back({"static", "workload.json", Status::Empty, 0, 0, "no workload.json: scheduler state unknown", 0, {}});
    if (s.roots.size() == 1) {
      std::string id = baseName(fs::path(s.roots[0].display).lexically_normal().string());
      if (id.empty() || id == ".") id = baseName(fs::absolute(s.roots[0].display).lexically_normal().string());
      out->workload.id = id;
    }
  }
  if (s.capped) {
    s.reports.push_back({"files", "intake", Status::Partial, 0, 0,
                         fmt::format("more than {} log files; the rest were not read", s.options.maxFiles), 0, {}});
  }
  // Nodes the layout names complete the workload's node list when it had none.
  if (out->workload.nodes.empty()) {
    for (const auto& f : out->logs) {
      if (!f.node.empty() && std::find(out->workload.nodes.begin(), out->workload.nodes.end(), f.node) == out->workload.nodes.end()) {
        out->workload.nodes.push_back(f.node);
      }
    }
  }
  if (out->logs.empty()) {
    s.reports.push_back({"files", "logs", Status::Empty, 0, 0, "no log files were found in the paths given", 0, {}});
  }
  std::stable_sort(s.reports.begin(), s.reports.end(), [](const auto& a, const auto& b) {
    return a.connector != b.connector ? a.connector < b.connector : a.source < b.source;
  });
  out->reports.insert(out->reports.begin(), s.reports.begin(), s.reports.end());
  return true;
}

}  // namespace attrib::evidence
