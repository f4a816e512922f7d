// The inspector's HTTP server (civetweb): the page, its script and
// three.js from the assets folder, and the recording as JSON.
//
//   GET /                      index.html
//   GET /inspector.js, /inspector_scene.js, /inspector.css
//   GET /three/three.module.js, /three/three.core.js,
//       /three/addons/controls/OrbitControls.js   (npm's three, locked in
//                              the assets folder's package-lock.json)
//   GET /api/recording         Inspection::RecordingJson
//   GET /api/tick?index=N      Inspection::TickJson(N)
//   GET /api/track?id=ID       Inspection::TrackJson(ID)
//
// The files are read once, at Start: nothing is fetched from elsewhere,
// and a missing file is an error before anything is served.
//
//   absl::StatusOr<std::unique_ptr<InspectorServer>> server =
//       InspectorServer::Start(inspection, "127.0.0.1:0", assets);
//   std::cout << (*server)->url();
//
// Requests are answered on civetweb's threads while the server lives; the
// inspection must outlive it.
#ifndef IK_CLIENT_INSPECTOR_INSPECTOR_SERVER_H_
#define IK_CLIENT_INSPECTOR_INSPECTOR_SERVER_H_

#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "inspection.h"

class CivetServer;

namespace ik::inspector {

// The page's folder: share/ikd/inspector of the prefix ikctl is installed
// in (PREFIX/bin/ikctl) when it is there, else the source tree ikctl was
// built from.
std::string DefaultAssetsDirectory();

class InspectorServer {
 public:
  // Reads the assets and serves on `listen` (IPv4 HOST:PORT; port 0 takes
  // any free port). NOT_FOUND naming a missing asset (three.js: how to
  // install it); UNAVAILABLE with the reason when `listen` cannot be bound.
  static absl::StatusOr<std::unique_ptr<InspectorServer>> Start(
      const Inspection& inspection, const std::string& listen,
      const std::string& assets);
  ~InspectorServer();

  // http://HOST:PORT/ with the port actually bound.
  const std::string& url() const { return url_; }

 private:
  // A file served as read at Start.
  struct Asset {
    std::string content_type;
    std::string body;
  };
  class Handler;

  InspectorServer(const Inspection& inspection,
                  std::map<std::string, Asset> assets);

  const Inspection& inspection_;
  const std::map<std::string, Asset> assets_;  // by URL path
  const std::string recording_json_;
  std::unique_ptr<Handler> handler_;
  std::unique_ptr<CivetServer> civet_;
  std::string url_;
};

}  // namespace ik::inspector

#endif  // IK_CLIENT_INSPECTOR_INSPECTOR_SERVER_H_
