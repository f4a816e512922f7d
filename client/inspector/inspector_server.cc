#include "inspector_server.h"

#include <CivetServer.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"

namespace ik::inspector {
namespace {

constexpr char kJavaScript[] = "text/javascript; charset=utf-8";

// URL path -> file under the assets folder, and its content type.
struct AssetFile {
  const char* url;
  const char* path;
  const char* content_type;
};
constexpr AssetFile kAssetFiles[] = {
    {"/", "index.html", "text/html; charset=utf-8"},
    {"/inspector.js", "inspector.js", kJavaScript},
    {"/inspector_scene.js", "inspector_scene.js", kJavaScript},
    {"/inspector.css", "inspector.css", "text/css; charset=utf-8"},
    {"/three/three.module.js", "node_modules/three/build/three.module.js",
     kJavaScript},
    {"/three/three.core.js", "node_modules/three/build/three.core.js",
     kJavaScript},
    {"/three/addons/controls/OrbitControls.js",
     "node_modules/three/examples/jsm/controls/OrbitControls.js", kJavaScript},
};

// civetweb says why it could not start only through its log callback
// ("cannot bind to 127.0.0.1:80: 13 (Permission denied)", then "Failed to
// setup server ports"): the first lines logged are kept for the error.
constexpr int kLogLinesKept = 4;
absl::Mutex log_mutex;
std::vector<std::string>* log_lines ABSL_GUARDED_BY(log_mutex) =
    new std::vector<std::string>;

int KeepLogLine(const mg_connection*, const char* message) {
  absl::MutexLock lock(&log_mutex);
  if (log_lines->size() < kLogLinesKept) log_lines->push_back(message);
  return 1;  // handled: civetweb prints nothing itself
}

void Send(mg_connection* connection, int code, const char* content_type,
          const std::string& body) {
  mg_printf(connection,
            "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
            "Cache-Control: no-store\r\nConnection: close\r\n\r\n",
            code, mg_get_response_code_text(connection, code), content_type,
            body.size());
  mg_write(connection, body.data(), body.size());
}

// The query variable `name`, decoded; empty when there is none.
std::string QueryValue(const mg_request_info& request, const char* name) {
  if (request.query_string == nullptr) return "";
  const std::string query = request.query_string;
  std::string value(query.size() + 1, '\0');
  const int length =
      mg_get_var(query.data(), query.size(), name, value.data(), value.size());
  if (length < 0) return "";
  value.resize(static_cast<size_t>(length));
  return value;
}

// The number of the `index` query variable, or -1.
int TickIndex(const mg_request_info& request) {
  if (request.query_string == nullptr) return -1;
  char value[32];
  const std::string query = request.query_string;
  int index = -1;
  if (mg_get_var(query.data(), query.size(), "index", value, sizeof(value)) <
          0 ||
      !absl::SimpleAtoi(value, &index)) {
    return -1;
  }
  return index;
}

}  // namespace

std::string DefaultAssetsDirectory() {
  // Installed: PREFIX/share/ikd/inspector beside PREFIX/bin/ikctl.
  std::error_code error;
  const std::filesystem::path program =
      std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) {
    const std::filesystem::path installed =
        program.parent_path().parent_path() / IK_INSPECTOR_INSTALLED_ASSETS;
    if (std::filesystem::exists(installed / "index.html", error)) {
      return installed.string();
    }
  }
  return IK_INSPECTOR_ASSETS;
}

class InspectorServer::Handler : public CivetHandler {
 public:
  explicit Handler(const InspectorServer& server) : server_(server) {}

  bool handleGet(CivetServer*, mg_connection* connection) override {
    const mg_request_info& request = *mg_get_request_info(connection);
    const std::string path = request.local_uri;
    if (path == "/api/recording") {
      Send(connection, 200, "application/json", server_.recording_json_);
      return true;
    }
    if (path == "/api/track") {
      Send(connection, 200, "application/json",
           server_.inspection_.TrackJson(QueryValue(request, "id")));
      return true;
    }
    if (path == "/api/tick") {
      absl::StatusOr<std::string> tick =
          server_.inspection_.TickJson(TickIndex(request));
      if (!tick.ok()) {
        Send(connection, 404, "text/plain; charset=utf-8",
             std::string(tick.status().message()));
        return true;
      }
      Send(connection, 200, "application/json", *tick);
      return true;
    }
    const auto asset = server_.assets_.find(path);
    if (asset == server_.assets_.end()) {
      Send(connection, 404, "text/plain; charset=utf-8",
           absl::StrCat(path, ": not found"));
      return true;
    }
    Send(connection, 200, asset->second.content_type.c_str(),
         asset->second.body);
    return true;
  }

 private:
  const InspectorServer& server_;
};

InspectorServer::InspectorServer(const Inspection& inspection,
                                 std::map<std::string, Asset> assets)
    : inspection_(inspection),
      assets_(std::move(assets)),
      recording_json_(inspection.RecordingJson()),
      handler_(std::make_unique<Handler>(*this)) {}

InspectorServer::~InspectorServer() = default;

absl::StatusOr<std::unique_ptr<InspectorServer>> InspectorServer::Start(
    const Inspection& inspection, const std::string& listen,
    const std::string& assets) {
  std::map<std::string, Asset> files;
  for (const AssetFile& file : kAssetFiles) {
    const std::string path = absl::StrCat(assets, "/", file.path);
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      return absl::NotFoundError(absl::StrCat(
          path, ": cannot read the inspector's page",
          absl::StrContains(file.path, "node_modules")
              ? " (three.js comes from npm: run client/inspector/install.sh)"
              : " (is --assets the client/inspector folder?)"));
    }
    files[file.url] = {file.content_type,
                       std::string(std::istreambuf_iterator<char>(in), {})};
  }
  std::unique_ptr<InspectorServer> server(
      new InspectorServer(inspection, std::move(files)));
  CivetCallbacks callbacks;
  callbacks.log_message = KeepLogLine;
  {
    absl::MutexLock lock(&log_mutex);
    log_lines->clear();
  }
  try {
    server->civet_ = std::make_unique<CivetServer>(
        std::vector<std::string>{"listening_ports", listen, "num_threads", "4"},
        &callbacks);
  } catch (const CivetException&) {
    absl::MutexLock lock(&log_mutex);
    return absl::UnavailableError(
        absl::StrCat("cannot serve the inspector on ", listen, ": ",
                     log_lines->empty() ? "civetweb did not start"
                                        : absl::StrJoin(*log_lines, "; ")));
  }
  server->civet_->addHandler("/", server->handler_.get());
  const std::vector<int> ports = server->civet_->getListeningPorts();
  const std::string host = listen.substr(0, listen.rfind(':'));
  server->url_ = absl::StrCat("http://", host, ":",
                              ports.empty() ? 0 : ports.front(), "/");
  return server;
}

}  // namespace ik::inspector
