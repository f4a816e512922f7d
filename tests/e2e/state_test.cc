// Durable registrations against a real ikd process: a client streams seeded
// random registrations, replacements and deletions of rigs and terrains
// (one of them the --rig_dir's humanoid) while ikd is killed with SIGKILL
// at a seeded random moment; after each restart on the same --state_dir
// every acknowledged change is there, and the one change in flight at the
// kill either fully happened or did not happen at all. Several rounds, each
// starting from what the last one left.
#include <signal.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "gtest/gtest.h"
#include "ik/client.h"
#include "ikd_process.h"
#include "test_rigs.h"

namespace ik {
namespace {

using ::ik::testing::ArmRig;
using ::ik::testing::GridMesh;
using ::ik::testing::IkdProcess;

// What a name holds: nothing (nullopt) or variant v of its definition. The
// variant is read back from the content itself (a rig's forearm length, a
// terrain's height), so a change in flight can be recognised either way.
using Held = std::optional<int>;

v1::Rig RigVariant(const std::string& name, int variant) {
  v1::Rig rig = ArmRig();
  rig.set_name(name);
  rig.mutable_joints(2)->mutable_rest()->mutable_translation()->set_y(
      -0.25 - 0.001 * variant);
  return rig;
}

v1::Terrain TerrainVariant(const std::string& name, int variant) {
  v1::Terrain terrain;
  terrain.set_name(name);
  *terrain.mutable_mesh() = GridMesh(2, 2, 0.5, -0.5, -0.5, 0.0, 0.0);
  terrain.mutable_mesh()->set_vertices(1, 0.01 * variant);  // vertex 0's y
  return terrain;
}

struct World {
  std::map<std::string, Held> rigs;
  std::map<std::string, Held> terrains;
};

// What ikd holds now, read back through the API.
World ReadBack(Client& client, const World& names) {
  World now;
  for (const auto& [name, held] : names.rigs) {
    absl::StatusOr<v1::GetRigResponse> rig = client.GetRig(name);
    if (!rig.ok()) {
      EXPECT_EQ(rig.status().code(), absl::StatusCode::kNotFound)
          << rig.status();
      now.rigs[name] = std::nullopt;
    } else if (name == "humanoid") {
      now.rigs[name] = 0;  // the rig directory's own
    } else {
      const double y = rig->rig().joints(2).rest().translation().y();
      now.rigs[name] = static_cast<int>(std::lround((-0.25 - y) / 0.001));
    }
  }
  absl::StatusOr<v1::ListTerrainsResponse> listed = client.ListTerrains();
  EXPECT_TRUE(listed.ok()) << listed.status();
  for (const auto& [name, held] : names.terrains) now.terrains[name] = {};
  if (listed.ok()) {
    for (const v1::TerrainSummary& terrain : listed->terrains()) {
      if (now.terrains.count(terrain.name()) == 0) continue;
      now.terrains[terrain.name()] =
          static_cast<int>(std::lround(terrain.bounds_max().y() / 0.01));
    }
  }
  return now;
}

// One change: to a rig or a terrain, a registration of `variant` or a
// deletion (nullopt).
struct Change {
  bool rig = true;
  std::string name;
  Held to;
};

absl::Status Apply(Client& client, const Change& change) {
  if (change.rig) {
    if (change.to.has_value()) {
      return client.RegisterRig(RigVariant(change.name, *change.to), true)
          .status();
    }
    return client.DeleteRig(change.name).status();
  }
  if (change.to.has_value()) {
    return client.RegisterTerrain(TerrainVariant(change.name, *change.to), true)
        .status();
  }
  return client.DeleteTerrain(change.name).status();
}

TEST(StateE2eTest, EveryAcknowledgedChangeSurvivesKill9) {
  const std::filesystem::path state = std::filesystem::temp_directory_path() /
                                      absl::StrCat("ikd-state-e2e-", getpid());
  std::filesystem::remove_all(state);
  const std::vector<std::string> flags = {
      absl::StrCat("--state_dir=", state.string()), "--solver_threads=1"};

  World expected;
  expected.rigs["humanoid"] = 0;  // from --rig_dir until deleted over the API
  for (int k = 0; k < 5; ++k) expected.rigs[absl::StrCat("r", k)] = {};
  for (int k = 0; k < 3; ++k) expected.terrains[absl::StrCat("t", k)] = {};

  std::mt19937_64 random(20261125);
  int acknowledged_total = 0;
  for (int round = 0; round < 6; ++round) {
    IkdProcess ikd(flags);
    ASSERT_TRUE(ikd.Start()) << ikd.Log();
    Client client(ikd.Channel(), absl::Seconds(10));
    {
      const World now = ReadBack(client, expected);
      ASSERT_EQ(now.rigs, expected.rigs) << "round " << round << "\n"
                                         << ikd.Log();
      ASSERT_EQ(now.terrains, expected.terrains) << "round " << round;
    }

    // The writer: changes one after another until one fails (the kill).
    absl::Mutex mutex;
    World acknowledged = expected;
    std::optional<Change> in_flight;
    int count = 0;
    std::mt19937_64 choices(random());
    std::thread writer([&] {
      for (;;) {
        Change change;
        change.rig = choices() % 3 != 0;
        const auto& names = change.rig ? expected.rigs : expected.terrains;
        auto it = names.begin();
        std::advance(it, choices() % names.size());
        change.name = it->first;
        if (change.name == "humanoid" || choices() % 4 == 0) {
          change.to = std::nullopt;  // humanoid can only be deleted here
        } else {
          change.to = 1 + static_cast<int>(choices() % 50);
        }
        {
          absl::MutexLock lock(&mutex);
          in_flight = change;
        }
        const absl::Status status = Apply(client, change);
        absl::MutexLock lock(&mutex);
        if (status.code() == absl::StatusCode::kNotFound) {
          in_flight.reset();  // deleting what is not there: no change
          continue;
        }
        if (!status.ok()) return;  // ikd is gone; `in_flight` may have landed
        (change.rig ? acknowledged.rigs : acknowledged.terrains)[change.name] =
            change.to;
        in_flight.reset();
        ++count;
      }
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(50 + random() % 400));
    ikd.Signal(SIGKILL);
    EXPECT_EQ(ikd.Wait(), 128 + SIGKILL);
    writer.join();

    IkdProcess restarted(flags);
    ASSERT_TRUE(restarted.Start()) << restarted.Log();
    EXPECT_NE(restarted.Log().find("0 files skipped"), std::string::npos)
        << restarted.Log();
    // (The client is closed before the SIGTERM below: an idle client
    // connection holds gRPC's shutdown until the client's next poll, up to
    // 5 s.)
    const World now = [&] {
      Client after(restarted.Channel(), absl::Seconds(10));
      return ReadBack(after, expected);
    }();
    World landed = acknowledged;
    if (in_flight.has_value()) {
      (in_flight->rig ? landed.rigs : landed.terrains)[in_flight->name] =
          in_flight->to;
    }
    EXPECT_TRUE((now.rigs == acknowledged.rigs &&
                 now.terrains == acknowledged.terrains) ||
                (now.rigs == landed.rigs && now.terrains == landed.terrains))
        << "round " << round << ": after " << count
        << " acknowledged changes, ikd holds what was neither acknowledged "
           "nor in flight";
    expected = now;
    acknowledged_total += count;
    restarted.Signal(SIGTERM);
    EXPECT_EQ(restarted.Wait(), 0);
  }
  std::printf("%d acknowledged changes over 6 kills, none lost\n",
              acknowledged_total);
  std::filesystem::remove_all(state);
}

}  // namespace
}  // namespace ik
